// Extension-host test runner: the module named by `extensionTestsPath` (see test/vscode/run.mjs).
//
// VS Code calls run() *inside the extension host* (code-server's remote Node host here, or a desktop
// VS Code's host via @vscode/test-electron). It runs every test/vscode/suite/**/*.test.js with mocha
// and writes a JSON result file to $VSCODE_TEST_RESULTS, rewritten after every test so the harness
// can tell which test was running if it has to time out. The returned promise rejecting is how the
// failure reaches the harness (window.codeAutomationExit(1) in the web workbench; a non-zero exit
// code with test-electron).
//
// Test files can use the helpers exported below: `const { bridge, poll, waitFor, sleep, info } =
// require('./index');`. bridge(op, args) asks the Playwright side of the harness to drive the real
// UI: 'click' {selector}, 'type' {text}, 'press' {key}, 'text' {selector} -> string[],
// 'frames' -> [{url,text}], 'screenshot' {name} -> path, 'mark' {name}. It is only available in the
// code-server tier: tests that need it should call `skipWithoutBridge(this)` first.
//
// Window reload: a test may call requestReload(data). When every test has run, the window is reloaded
// with workbench.action.reloadWindow (the extension host and rawr's core process restart, as after "Developer: Reload
// Window"), VS Code calls run() again in the new host, and that second phase runs suite/afterReload/*.test.js
// (reloadState() returns the data) and appends their results to the same file.
'use strict';
const path = require('path');
const fs = require('fs');

// The suites of this folder; `run.mjs --vsix` runs test/vscode/suite-vsix/ instead (VSCODE_TEST_SUITE_DIR).
const SUITE_DIR = process.env.VSCODE_TEST_SUITE_DIR ? path.resolve(process.env.VSCODE_TEST_SUITE_DIR) : __dirname;
const AFTER_RELOAD_DIR = path.join(SUITE_DIR, 'afterReload');
/** Written by requestReload(); its presence at the start of run() means this is the after-reload phase. */
const reloadFile = () => (process.env.VSCODE_TEST_RESULTS ? process.env.VSCODE_TEST_RESULTS + '.reload.json' : null);
/** How long the first phase waits for the reload to take its extension host away before it gives up. */
const RELOAD_GRACE_MS = 60000;

function findTests(dir) {
  const out = [];
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (p !== AFTER_RELOAD_DIR) out.push(...findTests(p));
    } else if (e.isFile() && e.name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

function loadMocha() {
  // The repo's mocha (VSCODE_TEST_MOCHA = its package dir). mocha 12 is an ES module package whose
  // CommonJS build is lib/mocha.cjs: require that directly so this works on any extension-host Node.
  const dir = process.env.VSCODE_TEST_MOCHA || path.join(SUITE_DIR, '../../../node_modules/mocha');
  const cjs = path.join(dir, 'lib/mocha.cjs');
  return require(fs.existsSync(cjs) ? cjs : dir);
}

function readJson(file) {
  try {
    return file ? JSON.parse(fs.readFileSync(file, 'utf8')) : null;
  } catch {
    return null;
  }
}

exports.run = async function run() {
  const out = process.env.VSCODE_TEST_RESULTS;
  const marker = readJson(reloadFile());
  const previous = marker ? readJson(out) : null;
  if (marker) fs.rmSync(reloadFile(), { force: true }); // consumed: a later reload is a plain one
  const afterReload = !!(marker && previous);
  const result = afterReload
    ? { ...previous, state: 'running', current: null, reload: { requestedAt: marker.at, restartedAt: Date.now() } }
    : { started: Date.now(), finished: null, state: 'running', current: null, stats: null, tests: [], info: {}, error: null, failures: 0 };
  globalThis.__testInfo = result.info; // tests may record facts here; the harness prints them
  globalThis.__reloadState = afterReload ? marker.data : undefined;
  const write = () => {
    if (!out) return;
    try {
      fs.writeFileSync(out + '.tmp', JSON.stringify(result, null, 2));
      fs.renameSync(out + '.tmp', out);
    } catch {
      /* best effort */
    }
  };
  write();
  try {
    const Mocha = loadMocha();
    const mocha = new Mocha({ ui: 'bdd', timeout: Number(process.env.VSCODE_TEST_TIMEOUT || 30000), color: false, reporter: function () {} });
    const files = findTests(afterReload ? AFTER_RELOAD_DIR : SUITE_DIR);
    result.info[afterReload ? 'filesAfterReload' : 'files'] = files.map((f) => path.relative(SUITE_DIR, f));
    for (const f of files) mocha.addFile(f);
    // After a reload, the tests that check what the reload kept run whatever the grep: they belong to the
    // test that asked for the reload.
    if (process.env.VSCODE_TEST_GREP && !afterReload) mocha.grep(process.env.VSCODE_TEST_GREP);
    const failedBefore = afterReload ? result.failures || 0 : 0;
    result.failures =
      failedBefore +
      (await new Promise((resolve) => {
        const runner = mocha.run(resolve);
        const rec = (state) => (t, err) => {
          result.tests.push({
            fullTitle: t.fullTitle(),
            state,
            duration: t.duration,
            err: err
              ? {
                  message: String((err && err.message) || err),
                  stack: String((err && err.stack) || err)
                    .split('\n')
                    .slice(0, 8)
                    .join('\n'),
                }
              : undefined,
          });
          result.current = null;
          write();
        };
        runner.on('test', (t) => {
          result.current = t.fullTitle();
          write();
        });
        runner.on('hook', (h) => {
          result.current = h.fullTitle();
        });
        runner.on('pass', rec('passed'));
        runner.on('fail', rec('failed'));
        runner.on('pending', rec('pending'));
        runner.on('end', () => {
          result.stats = runner.stats;
        });
      }));
  } catch (e) {
    result.error = String((e && e.stack) || e);
    result.failures = Math.max(1, result.failures || 0);
  }
  if (!afterReload && fs.existsSync(reloadFile() || '')) {
    // A test asked for a window reload: this extension host goes away, the next one runs afterReload/.
    result.state = 'reloading';
    result.current = 'window reload';
    write();
    try {
      // As a person would ("Developer: Reload Window"): the workbench shuts down properly (editors and
      // webview state saved, extensions deactivated), then reloads. The bridge's page reload is the fallback
      // where the command is unavailable.
      const vscode = require('vscode');
      await vscode.commands.executeCommand('workbench.action.reloadWindow').then(undefined, () => exports.bridge('reload'));
      await sleep(RELOAD_GRACE_MS);
      result.error = `the window did not reload within ${RELOAD_GRACE_MS / 1000}s`;
    } catch (e) {
      result.error = `window reload: ${(e && e.message) || e}`;
    }
    fs.rmSync(reloadFile(), { force: true });
    result.failures = (result.failures || 0) + 1;
  }
  result.finished = Date.now();
  result.state = 'done';
  write();
  if (result.failures) throw new Error(`${result.failures} test(s) failed`);
};

// ---- helpers for test files ----------------------------------------------------------------------
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
exports.sleep = sleep;

/** Ask for a window reload once every test has run; `data` reaches the after-reload tests (reloadState()). */
exports.requestReload = (data) => {
  const f = reloadFile();
  if (!f) throw new Error('no VSCODE_TEST_RESULTS: the reload phase needs the harness');
  fs.writeFileSync(f, JSON.stringify({ at: Date.now(), data }));
};
/** In suite/afterReload/ tests: the data the test that asked for the reload left. */
exports.reloadState = () => globalThis.__reloadState;

/** Facts recorded here are printed by the harness as `info: {...}`. */
exports.info = () => globalThis.__testInfo || {};

exports.hasBridge = () => !!process.env.VSCODE_TEST_BRIDGE;
/** In a mocha `function () {}` test/hook: skip when the Playwright bridge is unavailable (test-electron tier). */
exports.skipWithoutBridge = (ctx) => {
  if (!process.env.VSCODE_TEST_BRIDGE) ctx.skip();
};

/** Ask the Playwright side of the harness to look at / drive the real UI. */
exports.bridge = async function bridge(op, args = {}) {
  const url = process.env.VSCODE_TEST_BRIDGE;
  if (!url) throw new Error('no VSCODE_TEST_BRIDGE (only the code-server tier has the Playwright bridge)');
  const r = await fetch(url + '/' + op, { method: 'POST', body: JSON.stringify(args) });
  const j = /** @type {{ value?: any, error?: string }} */ (await r.json());
  if (j.error) throw new Error('bridge ' + op + ': ' + j.error);
  return j.value;
};

/** Resolve with the first event for which pred(e) holds; reject after ms. */
/** @param {(listener: (e: any) => void) => { dispose(): void }} event  @param {(e: any) => boolean} [pred] */
exports.waitFor = function waitFor(event, pred = () => true, ms = 15000, what = 'event') {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      d.dispose();
      reject(new Error('timeout waiting for ' + what));
    }, ms);
    const d = event((e) => {
      if (pred(e)) {
        clearTimeout(t);
        d.dispose();
        resolve(e);
      }
    });
  });
};

/**
 * `promise`, or a failure saying it hung: what a deadline on an awaited operation guards (it never
 * settles), not how fast it is — speed is measured by `npm run bench`, never asserted in a test.
 */
exports.settlesWithin = function settlesWithin(promise, ms, what) {
  let t;
  const deadline = new Promise((_resolve, reject) => {
    t = setTimeout(() => reject(new Error(`hung: ${what} did not settle within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(t));
};

/** Poll fn() every 250 ms until it returns something truthy; reject after ms. */
exports.poll = async function poll(fn, ms = 15000, what = 'condition') {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    last = await fn();
    if (last) return last;
    await sleep(250);
  }
  throw new Error('timeout waiting for ' + what + ' (last=' + JSON.stringify(last) + ')');
};
