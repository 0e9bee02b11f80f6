#!/usr/bin/env node
/* global document -- only inside page.waitForFunction callbacks, which run in the workbench page */
// The README's quick start, as a newcomer meets it (issue 18): `npm start` exactly as the README says,
// the printed URL opened in Chromium (Playwright), the Chat view opened with the README's key, the
// README's prompt typed as the FIRST message of a fresh window (nothing activates rawr beforehand: no
// test harness, no activate() call), every confirmation answered, then wait for the golden path
// ("Context compacted", the handoff) and "All done". Then npm's own pid gets SIGINT, and in a second
// `npm start` SIGTERM: every process npm started must be gone, the port free and the demo root deleted.
//
//   node test/smoke/readme.mjs            (a tier of `npm test`)
//
// Screenshots and the npm output go to test-artifacts/smoke/. Env: SMOKE_TIMEOUT_SEC (the session,
// default 300), CHROMIUM (default /usr/bin/chromium).
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import cp from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_ARGS } from '../vscode/profile.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(path.join(ROOT, 'package.json'));
const ART = path.join(ROOT, 'test-artifacts/smoke');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SESSION_MS = Number(process.env.SMOKE_TIMEOUT_SEC || 300) * 1000;
fs.mkdirSync(ART, { recursive: true });

const T0 = Date.now();
const log = (...a) => console.log(`[smoke ${((Date.now() - T0) / 1000).toFixed(1)}s]`, ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const failures = [];
const check = (ok, what) => {
  log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
};

// ---- what the README says --------------------------------------------------------------------------
const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
// The front page's "Try it / develop" section (issue 31: the README is a front page; the demo stays on it).
const at = readme.indexOf('## Try it / develop');
const quick = at < 0 ? '' : readme.slice(at);
const startCmd = /^npm start\b/m.exec(quick)?.[0];
const prompt = /3\. Type\s+(@rawr .+)$/m.exec(quick)?.[1]?.trim();
const chatKey = /Open the Chat view \((Ctrl\+Alt\+I)\)/.exec(quick)?.[1];
const modelName = /The model picker shows\s+"([^"]+)"/.exec(quick)?.[1];
if (!startCmd || !prompt || !chatKey || !modelName) {
  console.error(
    `smoke: the README's "Try it / develop" no longer says how to start (${startCmd}), what to type (${prompt}), how to open the Chat view (${chatKey}) or which model shows (${modelName})`,
  );
  process.exit(1);
}
log(`README: \`${startCmd}\`, then ${chatKey}, then type "${prompt}"`);

async function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}
async function portOpen(port) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

/**
 * Every live process `npm start` started (Linux /proc), found three ways so that none escapes: its
 * descendants by parent id, however deep; everything in its session (npm runs as a session leader, see
 * npmStart) — a child's parent may exit and leave it to init; and everything whose environment carries
 * this run's tag — a child that left the session too (setsid, double fork) still inherits it.
 */
function startedBy(pid, tag) {
  const children = new Map();
  const found = new Set();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const p = Number(d);
    if (p === pid) continue;
    try {
      // After the command's ")": state, parent id, process group, session.
      const [, ppid, , sid] = /\)\s+(\S)\s+(\d+)\s+(\d+)\s+(\d+)/
        .exec(fs.readFileSync(`/proc/${d}/stat`, 'utf8'))
        .slice(1)
        .map(Number);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(p);
      if (sid === pid) found.add(p);
      if (fs.readFileSync(`/proc/${d}/environ`, 'utf8').split('\0').includes(tag)) found.add(p);
    } catch {
      /* gone, or another user's */
    }
  }
  const walk = (p) => {
    for (const c of children.get(p) ?? []) {
      found.add(c);
      walk(c);
    }
  };
  walk(pid);
  return [...found];
}
function alive(pid) {
  try {
    // A zombie is dead for our purpose (its parent has not reaped it yet).
    return !/\)\s+Z\s/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
const cmdline = (pid) => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim().slice(0, 160);
  } catch {
    return '?';
  }
};

/** What `npm start` prints about its demo root: "Demo workspace: <root>/workspace (deleted on exit; …)". */
const DEMO_ROOT = /Demo workspace:\s+(.+?)\/workspace(?: \(|$)/m;

/** `npm start` as the README says (PORT picks a free port: the README's "Another port"). */
async function npmStart(label) {
  const port = await freePort();
  const out = fs.createWriteStream(path.join(ART, `npm-start-${label}.log`));
  // Its own session (detached), so its processes are told from this script's; the tag marks them all.
  const tag = `RAWR_SMOKE_RUN=${process.pid}-${label}-${Date.now()}`;
  const npm = cp.spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), RAWR_SMOKE_RUN: tag.slice(tag.indexOf('=') + 1) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const seen = new Set();
  const track = setInterval(() => {
    for (const p of startedBy(npm.pid, tag)) seen.add(p);
  }, 250);
  let text = '';
  const url = await new Promise((resolve, reject) => {
    const on = (b) => {
      out.write(b);
      text += b;
      // The URL and the demo root are printed together; both must be there (a changed wording fails).
      const m = /1\. Open\s+(http:\/\/\S+)/.exec(text);
      if (m && DEMO_ROOT.test(text)) resolve(m[1]);
    };
    npm.stdout.on('data', on);
    npm.stderr.on('data', on);
    npm.on('exit', (c, s) => reject(new Error(`npm start exited (${c ?? s}) before printing the URL; see ${out.path}`)));
    setTimeout(() => reject(new Error(`npm start printed no URL within 15 min; see ${out.path}`)), 15 * 60000).unref();
  });
  const demoRoot = DEMO_ROOT.exec(text)?.[1];
  log(`${label}: npm start (pid ${npm.pid}) printed ${url} after ${((Date.now() - T0) / 1000).toFixed(0)}s`);
  return { npm, tag, port, url, demoRoot, seen, track, out };
}

/** Sends `signal` to npm's pid only (not its group), then checks that nothing it started is left. */
async function stopAndCheck(run, signal) {
  for (const p of startedBy(run.npm.pid, run.tag)) run.seen.add(p);
  clearInterval(run.track);
  const exited = new Promise((r) => run.npm.once('exit', (c, s) => r(c ?? s)));
  log(`${signal} → npm (pid ${run.npm.pid}); it had started ${run.seen.size} processes`);
  process.kill(run.npm.pid, signal);
  const how = await Promise.race([exited, sleep(30000).then(() => 'still running after 30 s')]);
  check(typeof how !== 'string' || !how.startsWith('still'), `${signal}: npm exited (${how})`);
  // The children get a few seconds after npm to finish their own shutdown.
  const until = Date.now() + 20000;
  let left;
  do {
    // What was seen, and what carries the tag now (a process started after the last sample).
    left = [...new Set([...run.seen, ...startedBy(run.npm.pid, run.tag)])].filter(alive);
    if (!left.length) break;
    await sleep(250);
  } while (Date.now() < until);
  check(
    left.length === 0,
    `${signal}: nothing npm started is left running${left.length ? ` — left: ${left.map((p) => `${p} ${cmdline(p)}`).join('; ')}` : ''}`,
  );
  check(!(await portOpen(run.port)), `${signal}: port ${run.port} is free again`);
  check(run.demoRoot !== undefined && path.isAbsolute(run.demoRoot), `${signal}: npm start named its demo root (${run.demoRoot})`);
  check(run.demoRoot !== undefined && !fs.existsSync(run.demoRoot), `${signal}: the demo root ${run.demoRoot} is deleted`);
  for (const p of left) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  run.out.end();
}

// ---- 1. npm start, the first message, the golden path, SIGINT ----------------------------------------
const { chromium } = require('playwright-core');
let browser;
let first;
try {
  first = await npmStart('sigint');
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.setDefaultTimeout(120000); // a loaded 2-core machine serves the workbench slowly: a hang, not a figure
  const shot = (name) => page.screenshot({ path: path.join(ART, `${name}.png`) }).catch(() => undefined);
  await page.goto(first.url, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('.monaco-workbench', { timeout: 120000 });
  log('workbench visible');
  // README step 2: open the Chat view with its key, and the picker shows the demo model.
  const input = '.interactive-input-part .monaco-editor';
  for (let i = 0; i < 20 && !(await page.$(input)); i++) {
    await page.keyboard.press(chatKey.replace(/Ctrl/, 'Control'));
    await sleep(1500);
  }
  await page.waitForSelector(input, { timeout: 60000 });
  log('Chat view open');
  const picker = await page
    .waitForFunction((name) => document.body.innerText.includes(name), modelName, { timeout: 60000 })
    .then(() => true)
    .catch(() => false);
  await shot('01-chat-open');
  check(picker, `the model picker shows "${modelName}"`);
  // README step 3: type the prompt as the first message of this window.
  await page.click(input);
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(prompt, { delay: 5 });
  await sleep(300);
  if (await page.$('.editor-widget.suggest-widget.visible')) await page.keyboard.press('Escape');
  await page.keyboard.press('Enter');
  log('first message sent');
  const response = '.interactive-item-container.interactive-response';
  const allow = '.chat-confirmation-widget-buttons .monaco-button:has-text("Allow") >> visible=true';
  const deadline = Date.now() + SESSION_MS;
  let answered = 0;
  let last = '';
  while (Date.now() < deadline) {
    const texts = await page.$$eval(response, (els) => els.map((e) => e.innerText));
    last = texts.join('\n---\n');
    if (/Language model unavailable|Sorry, your request failed/i.test(last)) break;
    if (/All done/.test(texts.at(-1) ?? '') && !(await page.$(allow))) break;
    const button = await page.$(allow);
    if (button) {
      await button.click().catch(() => undefined);
      answered++;
      await sleep(500);
      continue;
    }
    // Keep the newest part of the answer in view (confirmations render where the chat is scrolled).
    const down = await page.$('.interactive-session .chat-scroll-down');
    if (down && (await down.isVisible())) await down.click().catch(() => undefined);
    await sleep(500);
  }
  await shot('02-session-end');
  fs.writeFileSync(path.join(ART, 'chat.txt'), last);
  check(!/Language model unavailable/i.test(last), 'the first message was answered (no "Language model unavailable")');
  check(answered > 0, `the confirmations were shown and answered (${answered})`);
  check(/Context compacted/.test(last), 'the golden path ran: "Context compacted"');
  check(/rawr handoff/.test(last), 'the golden path ran: the handoff');
  check(/All done/.test(last), 'the session reached "All done"');
} catch (e) {
  check(false, `the session: ${e.message}`);
} finally {
  await browser?.close().catch(() => undefined);
  if (first) await stopAndCheck(first, 'SIGINT');
}

// ---- 2. a second npm start, stopped with SIGTERM -------------------------------------------------------
try {
  const second = await npmStart('sigterm');
  // Its page served: code-server answers before the stop.
  check(await portOpen(second.port), 'SIGTERM run: code-server is listening');
  await stopAndCheck(second, 'SIGTERM');
} catch (e) {
  check(false, `the SIGTERM run: ${e.message}`);
}

log(failures.length ? `${failures.length} check(s) failed:\n  - ${failures.join('\n  - ')}` : 'all checks passed');
log(`artifacts: ${path.relative(ROOT, ART)}/`);
process.exit(failures.length ? 1 : 0);
