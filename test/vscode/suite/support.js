// Helpers shared by the suites that drive @rawr and its panel (not a test file: no `.test.js`).
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { bridge, sleep } = require('./index');

// The request and the recording stream are shared with the unit tier (compiled from test/support/chatRequest.ts).
const { recordingStream, chatRequest } = require(path.join(__dirname, '../../../out/test/support/chatRequest.js'));
const request = (model, prompt, command) => chatRequest(model, prompt, command, 'test');

/** The panel's header text: how its webview frame is found among the workbench's frames. */
const PANEL_MARK = 'Rawr — compaction';
/** A six-phase plan: with 9,000 filler characters a phase, enough tokens for a compaction in a 20k window. */
const STEPS = ['Research the API', 'Draft the limiter', 'Implement the middleware', 'Harden: edge cases', 'Write the tests', 'Ship: docs and changelog'];

/** Points rawr's OpenAI-compatible provider at a scripted server, with one model of the given window. */
async function configureModel(url, { id = 'scripted', name = 'Scripted multi-phase', windowTokens = 20000 } = {}) {
  const cfg = vscode.workspace.getConfiguration('rawr');
  await cfg.update('openai.baseUrl', url, vscode.ConfigurationTarget.Workspace);
  await cfg.update(
    'openai.models',
    [{ id, name, contextWindow: windowTokens, maxOutputTokens: 4000, toolCalling: true }],
    vscode.ConfigurationTarget.Workspace,
  );
}

/**
 * Turns the phase forecast on or off (undefined: back to the default) for suites that check other mechanics
 * on scripted sessions whose compaction point the forecast moves (it compacts where the next phase will not
 * fit, e.g. at the end of a short session instead of mid-way); waits until the core has the value.
 */
async function setForecast(api, enabled) {
  const cfg = vscode.workspace.getConfiguration('rawr');
  await cfg.update('forecastEnabled', enabled, vscode.ConfigurationTarget.Workspace);
  const want = enabled === undefined ? true : enabled;
  const t0 = Date.now();
  while (Date.now() - t0 < 10000) {
    if ((await api.core.snapshot('tsettingsprobe')).state.settings.forecast_enabled === want) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the core did not pick up forecast_enabled=${want}`);
}

/** Removes what configureModel set. */
async function unconfigureModel() {
  const cfg = vscode.workspace.getConfiguration('rawr');
  await cfg.update('openai.baseUrl', undefined, vscode.ConfigurationTarget.Workspace);
  await cfg.update('openai.models', undefined, vscode.ConfigurationTarget.Workspace);
}

/** innerText of the panel's webview frame, or undefined while it is not rendered. */
async function panelText() {
  const frames = await bridge('frames');
  const f = frames.find((x) => x.text && x.text.includes(PANEL_MARK));
  return f && f.text;
}

/** Copies a screenshot over the README's copy in docs/images/, only under `node test/vscode/run.mjs --update-docs`:
 *  a plain test run never rewrites tracked files. */
function copyToDocs(file, name) {
  if (process.env.RAWR_UPDATE_DOCS_IMAGES !== '1') return;
  if (process.env.CI) throw new Error("RAWR_UPDATE_DOCS_IMAGES=1 under CI: updating the docs images is for a person's machine only");
  const dir = path.resolve(__dirname, '../../../docs/images');
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(file, path.join(dir, name));
}

/** The Chat view's input, as the end-to-end suites find it in VS Code 1.139. */
const CHAT_INPUT = {
  input: '.interactive-input-part .monaco-editor',
  inputLines: '.interactive-input-part .monaco-editor .view-lines',
  suggest: '.editor-widget.suggest-widget.visible',
};

/** Type into the real Chat input like a person: click it, clear the sticky "@rawr " prefill, type, Enter. */
async function sendInChat(text) {
  const typed = async () => (await bridge('text', { selector: CHAT_INPUT.inputLines })).join('').replace(/\s+/g, ' ').trim();
  for (let attempt = 1; ; attempt++) {
    await bridge('click', { selector: CHAT_INPUT.input });
    await sleep(200);
    await bridge('press', { key: 'Control+A' });
    await bridge('press', { key: 'Backspace' });
    await bridge('type', { text });
    await sleep(400);
    if ((await typed()) === text) break;
    // Focus can still be on its way back from a closing popup (the model picker): try again.
    if (attempt === 3) assert.fail(`the Chat input shows "${await typed()}" after typing "${text}"`);
    await sleep(1000);
  }
  // A completion list (participants, slash commands) may still be open: Enter would accept it instead of sending.
  if ((await bridge('text', { selector: CHAT_INPUT.suggest })).length) await bridge('press', { key: 'Escape' });
  await bridge('press', { key: 'Enter' });
}

module.exports = {
  sendInChat,
  setForecast,
  PANEL_MARK,
  STEPS,
  recordingStream,
  request,
  configureModel,
  unconfigureModel,
  panelText,
  copyToDocs,
};
