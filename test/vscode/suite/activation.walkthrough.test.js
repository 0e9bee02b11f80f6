// The Getting Started walkthrough (package.json `contributes.walkthroughs`, issue 31) in the real VS Code, the
// way a new user meets it: "Rawr: Get Started" opens it, no step is done yet, and each step is completed by
// what its own button starts — the endpoint settings, a first @rawr message (with no model: the answer's
// button leads back here), the compaction panel, the Claude Code hooks — checked in the walkthrough's own
// DOM. A screenshot of the finished walkthrough goes to test-artifacts/vscode/walkthrough.png.
// Named to sort right after activation.test.js: the suites after it send @rawr messages, open the panel and
// install hooks, which would complete these steps before the walkthrough is looked at.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { bridge, poll, skipWithoutBridge } = require('./index');
const { recordingStream, request } = require('./support');

const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8'));
const walkthrough = pkg.contributes.walkthroughs[0];
const title = (id) => walkthrough.steps.find((s) => s.id === id).title;

/** The titles of the steps the walkthrough shows as done (VS Code checks a finished step: aria-checked). */
async function doneSteps() {
  return (await bridge('text', { selector: '.gettingStartedContainer .getting-started-step[aria-checked="true"]' })).join('\n');
}

/** "Rawr: Get Started", then wait until the walkthrough's page is shown. */
async function openWalkthrough() {
  await vscode.commands.executeCommand('rawr.getStarted');
  await poll(async () => (await bridge('text', { selector: '.gettingStartedContainer' })).join(' ').includes(walkthrough.title), 30000, 'the walkthrough');
}

/** Selects a step (it unfolds, showing its buttons), then clicks the button with this label. */
async function clickButton(stepId, label) {
  await openWalkthrough();
  await bridge('click', { selector: `.gettingStartedContainer .getting-started-step:has-text(${JSON.stringify(title(stepId))})` });
  await poll(
    async () => (await bridge('text', { selector: `.gettingStartedContainer :text-is(${JSON.stringify(label)})` })).length > 0,
    10000,
    `the "${label}" button`,
  );
  await bridge('click', { selector: `.gettingStartedContainer :text-is(${JSON.stringify(label)})` });
}

async function completes(stepId) {
  await openWalkthrough();
  try {
    await poll(async () => (await doneSteps()).includes(title(stepId)), 30000, `step "${title(stepId)}" marked done`);
  } finally {
    await bridge('screenshot', { name: `walkthrough-${stepId}` });
  }
}

describe('Getting Started walkthrough (real VS Code)', function () {
  this.timeout(180000);
  let api;

  before(async function () {
    skipWithoutBridge(this);
    api = await vscode.extensions.getExtension('rawr.rawr').activate();
  });

  it('opens from "Rawr: Get Started" with its four steps, none done yet', async () => {
    await openWalkthrough();
    const text = (await bridge('text', { selector: '.gettingStartedContainer' })).join('\n');
    for (const s of walkthrough.steps) assert.ok(text.includes(s.title), `step "${s.title}" shown`);
    assert.strictEqual(await doneSteps(), '', 'no step is done before its action');
  });

  it('1. choose a model: "Configure an Endpoint" opens the endpoint settings and completes the step', async () => {
    await clickButton('chooseModel', 'Configure an Endpoint');
    // The Settings editor, filtered to the endpoint's two settings (a query that finds nothing would show
    // "No Settings Found").
    await poll(async () => (await bridge('text', { selector: '.settings-editor' })).join(' ').includes('Base Url'), 20000, 'the endpoint settings');
    await completes('chooseModel');
  });

  it('2. first @rawr message: with no model, the answer says so with a button back to the walkthrough; the step is done', async () => {
    const rec = recordingStream();
    const cts = new vscode.CancellationTokenSource();
    await api.participant.handler(request(undefined, 'Add input validation, phase by phase'), { history: [] }, rec.stream, cts.token);
    assert.match(rec.text(), /No language model is selected/);
    const buttons = rec.parts.filter((p) => p.kind === 'button').map((p) => p.value);
    assert.deepStrictEqual(
      buttons.map((b) => b.command),
      ['rawr.getStarted'],
      JSON.stringify(buttons),
    );
    await completes('firstMessage');
  });

  it('3. open the panel: "Open the Compaction Panel" opens it and completes the step', async () => {
    await clickButton('openPanel', 'Open the Compaction Panel');
    await poll(async () => (await bridge('frames')).some((f) => f.text && f.text.includes('Rawr — compaction')), 30000, 'the panel');
    await completes('openPanel');
  });

  it('4. Claude Code or Codex: "Install Claude Code Hooks" writes the hooks and completes the step; screenshot', async () => {
    const folder = vscode.workspace.workspaceFolders[0].uri.fsPath;
    const settings = path.join(folder, '.claude', 'settings.local.json');
    const gitignore = path.join(folder, '.gitignore');
    const ignoreBefore = fs.existsSync(gitignore) ? fs.readFileSync(gitignore) : undefined;
    try {
      await clickButton('installHooks', 'Install Claude Code Hooks');
      await poll(() => fs.existsSync(settings), 20000, '.claude/settings.local.json');
      await completes('installHooks');
      const done = await doneSteps();
      for (const s of walkthrough.steps) assert.ok(done.includes(s.title), `"${s.title}" done`);
      await bridge('screenshot', { name: 'walkthrough' });
    } finally {
      // Leave the workspace as the later suites expect it (hooksInstall.test.js installs into a clean folder).
      fs.rmSync(path.join(folder, '.claude'), { recursive: true, force: true });
      fs.rmSync(path.join(folder, '.rawr', 'claude'), { recursive: true, force: true });
      if (ignoreBefore === undefined) fs.rmSync(gitignore, { force: true });
      else fs.writeFileSync(gitignore, ignoreBefore);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });
});
