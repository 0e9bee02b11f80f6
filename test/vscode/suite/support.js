// Helpers shared by the suites that drive @rawr and its panel (not a test file: no `.test.js`).
'use strict';
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { bridge } = require('./index');

/** The panel's header text: how its webview frame is found among the workbench's frames. */
const PANEL_MARK = 'Rawr — compaction';
/** A six-phase plan: with 9,000 filler characters a phase, enough tokens for a compaction in a 20k window. */
const STEPS = ['Research the API', 'Draft the limiter', 'Implement the middleware', 'Harden: edge cases', 'Write the tests', 'Ship: docs and changelog'];

/** A ChatResponseStream that records what the participant streamed, in order (progress shown as markers). */
function recordingStream() {
  const parts = [];
  const rec = (kind) => (value) => parts.push({ kind, value });
  const stream = {
    markdown: (v) => parts.push({ kind: 'markdown', value: typeof v === 'string' ? v : v.value }),
    progress: rec('progress'),
    button: rec('button'),
    anchor: rec('anchor'),
    reference: rec('reference'),
    filetree: rec('filetree'),
    push: rec('push'),
  };
  return { stream, parts, text: () => parts.map((p) => (p.kind === 'progress' ? `\n<progress:${p.value}>\n` : p.kind === 'markdown' ? p.value : '')).join('') };
}

/** A ChatRequest as the Chat view builds it (no tool invocation token outside a real chat). */
function request(model, prompt, command) {
  return {
    prompt,
    command,
    references: [],
    toolReferences: [],
    toolInvocationToken: undefined,
    model,
    attempt: 0,
    enableCommandDetection: true,
    isParticipantDetected: false,
    id: `test-${Date.now()}`,
  };
}

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
  const dir = path.resolve(__dirname, '../../../docs/images');
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(file, path.join(dir, name));
}

module.exports = {
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
