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
'use strict';
const path = require('path');
const fs = require('fs');

const SUITE_DIR = __dirname;

function findTests(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...findTests(p));
    else if (e.isFile() && e.name.endsWith('.test.js')) out.push(p);
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

exports.run = async function run() {
  const out = process.env.VSCODE_TEST_RESULTS;
  const result = { started: Date.now(), finished: null, state: 'running', current: null, stats: null, tests: [], info: {}, error: null, failures: 0 };
  globalThis.__testInfo = result.info; // tests may record facts here; the harness prints them
  const write = () => {
    if (!out) return;
    try { fs.writeFileSync(out + '.tmp', JSON.stringify(result, null, 2)); fs.renameSync(out + '.tmp', out); } catch { /* best effort */ }
  };
  write();
  try {
    const Mocha = loadMocha();
    const mocha = new Mocha({ ui: 'bdd', timeout: Number(process.env.VSCODE_TEST_TIMEOUT || 30000), color: false, reporter: function () {} });
    const files = findTests(SUITE_DIR);
    result.info.files = files.map((f) => path.relative(SUITE_DIR, f));
    for (const f of files) mocha.addFile(f);
    if (process.env.VSCODE_TEST_GREP) mocha.grep(process.env.VSCODE_TEST_GREP);
    result.failures = await new Promise((resolve) => {
      const runner = mocha.run(resolve);
      const rec = (state) => (t, err) => {
        result.tests.push({
          fullTitle: t.fullTitle(), state, duration: t.duration,
          err: err ? { message: String((err && err.message) || err), stack: String((err && err.stack) || err).split('\n').slice(0, 8).join('\n') } : undefined,
        });
        result.current = null;
        write();
      };
      runner.on('test', (t) => { result.current = t.fullTitle(); write(); });
      runner.on('hook', (h) => { result.current = h.fullTitle(); });
      runner.on('pass', rec('passed'));
      runner.on('fail', rec('failed'));
      runner.on('pending', rec('pending'));
      runner.on('end', () => { result.stats = runner.stats; });
    });
  } catch (e) {
    result.error = String((e && e.stack) || e);
    result.failures = Math.max(1, result.failures || 0);
  }
  result.finished = Date.now();
  result.state = 'done';
  write();
  if (result.failures) throw new Error(`${result.failures} test(s) failed`);
};

// ---- helpers for test files ----------------------------------------------------------------------
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
exports.sleep = sleep;

/** Facts recorded here are printed by the harness as `info: {...}`. */
exports.info = () => globalThis.__testInfo || {};

exports.hasBridge = () => !!process.env.VSCODE_TEST_BRIDGE;
/** In a mocha `function () {}` test/hook: skip when the Playwright bridge is unavailable (test-electron tier). */
exports.skipWithoutBridge = (ctx) => { if (!process.env.VSCODE_TEST_BRIDGE) ctx.skip(); };

/** Ask the Playwright side of the harness to look at / drive the real UI. */
exports.bridge = async function bridge(op, args = {}) {
  const url = process.env.VSCODE_TEST_BRIDGE;
  if (!url) throw new Error('no VSCODE_TEST_BRIDGE (only the code-server tier has the Playwright bridge)');
  const r = await fetch(url + '/' + op, { method: 'POST', body: JSON.stringify(args) });
  const j = await r.json();
  if (j.error) throw new Error('bridge ' + op + ': ' + j.error);
  return j.value;
};

/** Resolve with the first event for which pred(e) holds; reject after ms. */
exports.waitFor = function waitFor(event, pred = () => true, ms = 15000, what = 'event') {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => { d.dispose(); reject(new Error('timeout waiting for ' + what)); }, ms);
    const d = event((e) => { if (pred(e)) { clearTimeout(t); d.dispose(); resolve(e); } });
  });
};

/** Poll fn() every 250 ms until it returns something truthy; reject after ms. */
exports.poll = async function poll(fn, ms = 15000, what = 'condition') {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) { last = await fn(); if (last) return last; await sleep(250); }
  throw new Error('timeout waiting for ' + what + ' (last=' + JSON.stringify(last) + ')');
};
