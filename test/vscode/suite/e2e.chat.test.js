// End to end, as a person would use it (issue 4): everything below goes through the real workbench UI
// in the code-server tier — the Chat view's model picker, the Chat input (typed key by key), the rendered
// chat, the command palette and its input box, the status bar — driven with Playwright via the harness's
// bridge. The model is rawr's own OpenAI-compatible provider talking through the real `openai` client to
// a scripted multi-phase model on loopback (out/test/support/scriptedModel.js).
//
// Steps, each with a screenshot in test-artifacts/vscode/e2e-*.png:
//  1. open the Chat view (Ctrl+Alt+I), pick "Scripted e2e model" in the model picker (a decoy model is
//     configured first, so the pick is a real choice; the server checks every request asked for the pick);
//  2. type `@rawr Build a token-bucket rate limiter, phase by phase.` and press Enter; the scripted model
//     holds two answers (the compaction summary, then the first answer after the handoff) just long
//     enough to photograph the golden path while the chat is scrolled to it;
//  3. read the rendered response and check, in order: heads-up, packet, "Context compacted — A → B
//     tokens", handoff ("CONTEXT COMPACTION DETECTED"), continuation (steps after the handoff, "All done");
//  4. type `@rawr /status` and check tier, % remaining and the last decision;
//  5. "Rawr: Compact Now" from the command palette (F1), instructions typed into its input box: a new
//     response shows heads-up … Context compacted … handoff again;
//  6. the status bar item's percent agrees with /status.
// The golden-path and /status screenshots are also copied to docs/images/ for the README.
'use strict';
const assert = require('assert');
const path = require('path');
const fs = require('fs');
const vscode = require('vscode');
const { poll, bridge, skipWithoutBridge, sleep, info } = require('./index');

const repo = path.resolve(__dirname, '../../..');
const { startScriptedModel, multiPhaseScript, RAWR_MARKERS } = require(path.join(repo, 'out/test/support/scriptedModel.js'));

const MODEL = { id: 'scripted-e2e', name: 'Scripted e2e model' };
const DECOY = { id: 'decoy', name: 'Decoy model (never used)' };
const PROMPT = '@rawr Build a token-bucket rate limiter, phase by phase.';
const STEPS = ['Research the API', 'Draft the limiter', 'Implement the middleware', 'Harden: edge cases', 'Write the tests', 'Ship: docs and changelog'];

const SEL = {
  input: '.interactive-input-part .monaco-editor',
  picker: '.interactive-input-part .model-picker-item',
  pickerLabel: '.interactive-input-part .model-picker-item .chat-input-picker-label',
  pickerRow: (name) => `.action-widget .monaco-list-row:has-text("${name}")`,
  response: '.interactive-item-container.interactive-response',
  suggest: '.editor-widget.suggest-widget.visible',
  quickInput: '.quick-input-widget',
  quickInputRows: '.quick-input-widget .monaco-list-row',
  statusBar: '#workbench\\.parts\\.statusbar',
  rawrStatusItem: '#workbench\\.parts\\.statusbar [aria-label^="rawr:"]',
};

const ART = process.env.VSCODE_TEST_ARTIFACTS || path.join(repo, 'test-artifacts/vscode');
const shots = [];
let shotNo = 0;
async function shot(name) {
  const p = await bridge('screenshot', { name: `e2e-${String(++shotNo).padStart(2, '0')}-${name}` });
  shots.push(path.basename(p));
  return p;
}

/** A promise with its resolve function outside: the scripted model waits on these. */
function latch() {
  let open;
  const p = new Promise((r) => (open = r));
  return { p, open };
}

/**
 * multiPhaseScript, with two answers held until the test lets them go: the compaction summary (so the
 * heads-up and the packet are on screen) and the first answer after the handoff (so the compacted line
 * and the handoff are). `reached` resolves when the model is waiting there.
 */
function gatedScript(opts) {
  const script = multiPhaseScript(opts);
  const gates = { summary: { reached: latch(), release: latch(), used: false }, afterHandoff: { reached: latch(), release: latch(), used: false } };
  const newest = (r) => {
    const m = r.messages[r.messages.length - 1];
    if (!m || m.role !== 'user') return '';
    return typeof m.content === 'string' ? m.content : (m.content || []).map((p) => p.text || '').join('');
  };
  const hold = (gate, reply) => async (r) => {
    if (!gate.used) {
      gate.used = true;
      gate.reached.open();
      await Promise.race([gate.release.p, sleep(30000)]); // never wedge the session if the test is gone
    }
    return typeof reply === 'function' ? reply(r) : reply;
  };
  script.rules = script.rules.map((rule) => {
    if (rule.name === 'summary') return { ...rule, reply: hold(gates.summary, rule.reply) };
    if (rule.name === 'work') {
      const plain = rule.reply;
      return { ...rule, reply: (r) => (newest(r).includes(RAWR_MARKERS.handoff) ? hold(gates.afterHandoff, plain)(r) : plain(r)) };
    }
    return rule;
  });
  return { script, gates };
}

const responses = () => bridge('text', { selector: SEL.response });

/** Type into the real Chat input like a person: click it, clear the sticky "@rawr " prefill, type, Enter. */
async function sendInChat(text) {
  await bridge('click', { selector: SEL.input });
  await bridge('press', { key: 'Control+A' });
  await bridge('press', { key: 'Backspace' });
  await bridge('type', { text });
  await sleep(400);
  await shot('DEBUG-typed');
  info().dbgSuggest = await bridge('text', { selector: SEL.suggest });
  info().dbgInput = await bridge('text', { selector: '.interactive-input-part' });
  // A completion list (participants, slash commands) may still be open: Enter would accept it instead of sending.
  if ((await bridge('text', { selector: SEL.suggest })).length) await bridge('press', { key: 'Escape' });
  await bridge('press', { key: 'Enter' });
}

/** Wait for response number `index` (0-based) to be rendered and to satisfy `done`. Returns its text. */
async function responseText(index, done, ms, what) {
  return poll(async () => {
    const all = await responses();
    return all.length > index && done(all[index]) ? all[index] : undefined;
  }, ms, what);
}

/** Asserts each regex matches in order; returns their offsets. */
function inOrder(text, steps, artifact) {
  const at = [];
  let from = 0;
  for (const [name, re] of steps) {
    const k = text.slice(from).search(re);
    assert.ok(k >= 0, `expected ${name} (${re}) after offset ${from} in the rendered chat (see ${artifact})`);
    from += k;
    at.push({ name, offset: from });
    from += 1;
  }
  return at;
}

const GOLDEN_PATH = [
  ['the heads-up', /rawr watcher → agent/],
  ["the agent's packet", /What just completed/],
  ['the "Context compacted" line', /Context compacted — [\d.]+k? → [\d.]+k? tokens/],
  ['the handoff', /rawr handoff → agent/],
  ['the handoff banner', /CONTEXT COMPACTION DETECTED/],
];

function copyToDocs(file, name) {
  const dir = path.join(repo, 'docs/images');
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(file, path.join(dir, name));
}

describe('End to end, as a person would use it (Chat view, scripted model over HTTP)', function () {
  this.timeout(300000);
  this.bail(true); // each step builds on the one before

  afterEach(async function () {
    if (this.currentTest && this.currentTest.state === 'failed' && process.env.VSCODE_TEST_BRIDGE) {
      await bridge('screenshot', { name: `e2e-FAILED-${this.currentTest.title.slice(0, 2).replace(/\W/g, '')}` }).catch(() => undefined);
    }
  });
  let server;
  let gates;
  let responsesBefore = 0;
  let statusPercent;

  before(async function () {
    skipWithoutBridge(this);
    await vscode.extensions.getExtension('rawr.rawr').activate();
    const gated = gatedScript({ steps: STEPS, fillerChars: 9000 });
    gates = gated.gates;
    server = await startScriptedModel(gated.script);
    const cfg = vscode.workspace.getConfiguration('rawr');
    await cfg.update('openai.baseUrl', server.url, vscode.ConfigurationTarget.Workspace);
    await cfg.update('openai.models', [
      { ...DECOY, contextWindow: 128000, maxOutputTokens: 4000 },
      { ...MODEL, contextWindow: 20000, maxOutputTokens: 4000 },
    ], vscode.ConfigurationTarget.Workspace);
    await poll(async () => (await vscode.lm.selectChatModels({ vendor: 'rawr-openai', id: MODEL.id }))[0], 15000, 'the scripted model through rawr\'s provider');
    // Room for the chat: the Chat view (secondary side bar) maximized; layout only, not the scenario.
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
  });

  after(async () => {
    if (!server) return;
    for (const g of Object.values(gates || {})) g.release.open();
    // Leave a clean chat for later suites (they read the rendered responses too).
    await vscode.commands.executeCommand('workbench.action.chat.newChat').then(undefined, () => undefined);
    await vscode.commands.executeCommand('workbench.action.restoreAuxiliaryBar').then(undefined, () => undefined);
    const cfg = vscode.workspace.getConfiguration('rawr');
    await cfg.update('openai.baseUrl', undefined, vscode.ConfigurationTarget.Workspace);
    await cfg.update('openai.models', undefined, vscode.ConfigurationTarget.Workspace);
    await server.close();
    info().e2eScreenshots = shots;
  });

  it('1. opens the Chat view and picks the scripted model in the model picker', async () => {
    await bridge('press', { key: 'Control+Alt+KeyI' }); // View: Open Chat
    await poll(async () => (await bridge('text', { selector: SEL.picker })).length > 0, 20000, 'the Chat view with its model picker');
    await vscode.commands.executeCommand('workbench.action.maximizeAuxiliaryBar').then(undefined, () => undefined);
    const initial = (await bridge('text', { selector: SEL.pickerLabel })).join('');
    info().e2ePickerBefore = initial; // the first configured model (the decoy) unless VS Code remembered another
    await bridge('click', { selector: SEL.picker });
    // The picker lists the default model and folds the rest under "Other Models": search, as a person would.
    await poll(async () => (await bridge('text', { selector: '.action-widget' })).length > 0, 10000, 'the model picker');
    await bridge('type', { text: 'Scripted' });
    await poll(async () => (await bridge('text', { selector: SEL.pickerRow(MODEL.name) })).length > 0, 10000, `"${MODEL.name}" in the model picker`);
    await shot('model-picker');
    await bridge('click', { selector: SEL.pickerRow(MODEL.name) });
    const label = await poll(async () => (await bridge('text', { selector: SEL.pickerLabel })).find((t) => t.includes(MODEL.name)), 10000, 'the picked model in the picker label');
    assert.ok(label.includes(MODEL.name));
    responsesBefore = (await responses()).length;
  });

  it('2. types @rawr … into the Chat input and watches the golden path happen mid-session', async () => {
    const t0 = Date.now();
    await sendInChat(PROMPT);
    // Held at the compaction: heads-up and packet are the newest things in the chat.
    await Promise.race([gates.summary.reached.p, sleep(90000).then(() => { throw new Error('no compaction within 90 s'); })]);
    await responseText(responsesBefore, (t) => /rawr watcher → agent/.test(t) && /Decisions, invariants and traps/.test(t), 20000, 'heads-up and packet rendered');
    await sleep(800); // let the chat finish scrolling to the bottom
    const packetShot = await shot('golden-path-headsup-packet');
    gates.summary.release.open();
    // Held after the handoff: the compacted line and the handoff are the newest things.
    await Promise.race([gates.afterHandoff.reached.p, sleep(60000).then(() => { throw new Error('no handoff within 60 s'); })]);
    await responseText(responsesBefore, (t) => /CONTEXT COMPACTION DETECTED/.test(t) && /Continue from here\./.test(t), 20000, 'compacted line and handoff rendered');
    await sleep(800);
    const handoffShot = await shot('golden-path-compacted-handoff');
    gates.afterHandoff.release.open();
    const text = await responseText(responsesBefore, (t) => /All done/.test(t), 90000, '"All done" in the rendered response');
    const elapsed = Date.now() - t0;
    await sleep(500);
    await shot('golden-path-all-done');
    fs.writeFileSync(path.join(ART, 'e2e-golden-path-rendered.txt'), text);

    const at = inOrder(text, [
      ['work before the boundary', /Finished step \d of 6/],
      ...GOLDEN_PATH,
      ['the continuation', /(Starting|Finished) step \d of 6/],
      ['the end of the session', /All done: all 6 plan steps are complete/],
    ], 'test-artifacts/vscode/e2e-golden-path-rendered.txt');
    const compacted = /Context compacted — ([\d.]+k?) → ([\d.]+k?) tokens[^\n]*/.exec(text);
    const num = (s) => (s.endsWith('k') ? parseFloat(s) * 1000 : parseFloat(s));
    assert.ok(num(compacted[2]) < num(compacted[1]) / 2, `the thread shrank: ${compacted[0]}`);
    // The person picked the scripted model: every request asked for it, none for the decoy.
    const asked = [...new Set(server.requests.map((r) => r.model))];
    assert.deepStrictEqual(asked, [MODEL.id], `models requested: ${asked}`);
    assert.ok(server.requests.some((r) => r.rule === 'judgment') && server.requests.some((r) => r.rule === 'packet') && server.requests.some((r) => r.rule === 'summary'));
    copyToDocs(handoffShot, 'golden-path.png');
    copyToDocs(packetShot, 'golden-path-packet.png');
    info().e2eGoldenPath = { ms: elapsed, compacted: compacted[0], order: at.map((a) => a.name), requests: server.requests.length };
  });

  it('3. @rawr /status shows the tier, the percent remaining and the last decision', async () => {
    const n = (await responses()).length;
    await sendInChat('@rawr /status');
    const txt = await responseText(n, (t) => /rawr status/.test(t) && /Compactions:/.test(t), 30000, 'rendered /status');
    assert.match(txt, new RegExp(`model ${MODEL.name}`));
    const m = /Context: \d+ \/ 20000 tokens, ([\d.]+)% remaining, tier (\w+)/.exec(txt);
    assert.ok(m, `context line in /status: ${txt}`);
    statusPercent = Number(m[1]);
    assert.match(txt, /Last decision: \w+ — .*(tier|%)/);
    assert.match(txt, /Compactions: [1-9]/);
    await sleep(500);
    copyToDocs(await shot('status'), 'status.png');
    // The status bar item says the same, rounded down.
    const bar = await poll(async () => (await bridge('text', { selector: SEL.rawrStatusItem }))[0], 10000, 'rawr status bar item');
    const p = /(\d+)%/.exec(bar);
    assert.ok(p, `percent in the status bar item: "${bar}"`);
    assert.ok(Math.abs(Number(p[1]) - statusPercent) <= 2, `status bar ${p[1]}% vs /status ${statusPercent}%`);
    info().e2eStatus = { status: m[0], statusBar: bar.trim() };
  });

  it('4. "Rawr: Compact Now" from the command palette runs the golden path again', async () => {
    const n = (await responses()).length;
    const requestsBefore = server.requests.length;
    await bridge('press', { key: 'F1' });
    await poll(async () => (await bridge('text', { selector: SEL.quickInput })).some((t) => t.trim() !== ''), 10000, 'the command palette');
    await bridge('type', { text: 'Rawr: Compact Now' });
    await poll(async () => (await bridge('text', { selector: SEL.quickInputRows })).some((t) => /Rawr: Compact Now/.test(t)), 10000, '"Rawr: Compact Now" in the command palette');
    await shot('command-palette');
    await bridge('press', { key: 'Enter' });
    await poll(async () => (await bridge('text', { selector: SEL.quickInput })).some((t) => /Optional instructions/.test(t)), 10000, "Compact Now's input box");
    await bridge('type', { text: 'keep the limiter API notes verbatim' });
    await shot('compact-now-instructions');
    await bridge('press', { key: 'Enter' });
    const text = await responseText(n, (t) => /CONTEXT COMPACTION DETECTED/.test(t) && /All done/.test(t), 90000, 'the Compact Now response');
    await sleep(800);
    await shot('compact-now-golden-path');
    fs.writeFileSync(path.join(ART, 'e2e-compact-now-rendered.txt'), text);
    inOrder(text, GOLDEN_PATH, 'test-artifacts/vscode/e2e-compact-now-rendered.txt');
    // The instructions typed into the input box reached the compaction summary request.
    const summary = server.requests.slice(requestsBefore).find((r) => r.rule === 'summary');
    assert.ok(summary && JSON.stringify(summary.messages).includes('keep the limiter API notes verbatim'), 'instructions reached the summary request');
  });

  it('5. the status bar item agrees with /status', async () => {
    const n = (await responses()).length;
    await sendInChat('@rawr /status');
    const txt = await responseText(n, (t) => /rawr status/.test(t) && /Compactions:/.test(t), 30000, 'rendered /status');
    const m = /([\d.]+)% remaining, tier (\w+)/.exec(txt);
    assert.ok(m, txt);
    assert.match(txt, /Compactions: [2-9]/, 'the Compact Now compaction is counted');
    const bar = (await bridge('text', { selector: SEL.rawrStatusItem }))[0] || '';
    const p = /(\d+)%/.exec(bar);
    assert.ok(p, `percent in the status bar item: "${bar}"`);
    assert.ok(Math.abs(Number(p[1]) - Number(m[1])) <= 2, `status bar ${p[1]}% vs /status ${m[1]}%`);
    if (m[2] !== 'none') assert.ok(bar.includes(`% · ${m[2]}`), `tier ${m[2]} in the status bar: "${bar}"`);
    const whole = (await bridge('text', { selector: SEL.statusBar })).join(' ');
    assert.ok(whole.includes(`${p[1]}%`), whole);
    await shot('status-bar');
    info().e2eStatusBar = { status: m[0], statusBar: bar.trim() };
  });
});
