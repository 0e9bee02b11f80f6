// First real-VS-Code suite: the extension loads, activates and registers what it declares, in a
// workspace that is the harness's temp git repo; plus a check that the Playwright bridge works.
'use strict';
const assert = require('assert');
const cp = require('child_process');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { bridge, poll, info, skipWithoutBridge } = require('./index');

const EXT_ID = 'rawr.rawr';
const REPO_ROOT = path.resolve(__dirname, '../../..');
const declared = () => JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));

describe('activation', () => {
  let ext;

  it(`extension ${EXT_ID} is present (loaded from this repo)`, () => {
    ext = vscode.extensions.getExtension(EXT_ID);
    assert.ok(ext, `vscode.extensions.getExtension('${EXT_ID}') returned undefined`);
    assert.strictEqual(path.resolve(ext.extensionUri.fsPath), REPO_ROOT);
    info().vscode = {
      version: vscode.version,
      appName: vscode.env.appName,
      uiKind: vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop',
      remoteName: vscode.env.remoteName,
    };
  });

  it('activates by itself once the window has started: nothing calls activate() first (issue 18)', async () => {
    assert.ok(ext, 'extension missing');
    // The first @rawr message of a fresh window needs rawr's models registered before VS Code resolves the
    // request's model, i.e. before the participant's own activation event fires (docs/ARCHITECTURE.md#activation).
    await poll(() => ext.isActive, 60000, 'rawr activated after startup (onStartupFinished) without an activate() call');
  });

  it('activates', async () => {
    assert.ok(ext, 'extension missing');
    const t0 = Date.now();
    const api = await ext.activate();
    info().activateMs = Date.now() - t0; // from this call (0 when something activated rawr before)
    // What activate() itself took, as it measured and logged it ("rawr activated in N ms"); run.mjs prints it.
    assert.strictEqual(typeof api.activationMs, 'number', 'activate() reports how long it took');
    assert.ok(api.activationMs >= 0, String(api.activationMs));
    info().activationMs = api.activationMs;
    assert.strictEqual(ext.isActive, true);
  });

  it('registers every command declared in package.json contributes.commands', async () => {
    const want = ((declared().contributes || {}).commands || []).map((c) => c.command);
    assert.ok(want.length > 0, 'package.json declares no commands');
    assert.deepStrictEqual(
      ((ext.packageJSON.contributes || {}).commands || []).map((c) => c.command),
      want,
      'the loaded extension manifest differs from package.json on disk',
    );
    const all = new Set(await vscode.commands.getCommands(true));
    const missing = want.filter((c) => !all.has(c));
    assert.deepStrictEqual(missing, [], `declared but not registered: ${missing.join(', ')}`);
  });

  it('rawr.showDecisionLog runs (registered, resolves without an error)', async () => {
    // Declared commands activate the extension when run: registered by then, whatever ran before.
    await vscode.commands.executeCommand('rawr.showDecisionLog');
    assert.ok((await vscode.commands.getCommands(true)).includes('rawr.showDecisionLog'));
  });

  it('rawr.showDecisionLog shows the Rawr output channel (code-server tier: needs the DOM bridge)', async function () {
    skipWithoutBridge(this);
    await vscode.commands.executeCommand('rawr.showDecisionLog');
    // the Output view is a Monaco editor: it renders spaces as U+00A0
    const panelText = async () => (await bridge('text', { selector: '#workbench\\.parts\\.panel' })).map((t) => t.replace(/\u00a0/g, ' '));
    const text = await poll(async () => (await panelText()).find((t) => t.includes('rawr activated')), 10000, '"rawr activated" in the Output panel');
    assert.match(text, /\[info\] rawr activated in \d+ ms/);
  });
});

describe('workspace', () => {
  const ws = () => process.env.VSCODE_TEST_WORKSPACE;

  it('is the harness temp folder, a git repo with one commit', () => {
    const folders = vscode.workspace.workspaceFolders || [];
    assert.strictEqual(folders.length, 1, 'exactly one workspace folder');
    if (ws()) assert.strictEqual(folders[0].uri.fsPath, ws());
    const cwd = folders[0].uri.fsPath;
    const git = (...a) => cp.execFileSync('git', a, { cwd, encoding: 'utf8' }).trim();
    assert.strictEqual(git('rev-parse', '--show-toplevel'), fs.realpathSync(cwd));
    assert.strictEqual(git('rev-list', '--count', 'HEAD'), '1');
    assert.strictEqual(git('status', '--porcelain'), '', 'clean working tree');
  });

  it('the built-in git extension sees that repository', async () => {
    const api = (await vscode.extensions.getExtension('vscode.git').activate()).getAPI(1);
    const cwd = vscode.workspace.workspaceFolders[0].uri.fsPath;
    const repo = await poll(() => api.repositories.find((r) => r.rootUri.fsPath === cwd), 20000, 'git repository');
    const head = await poll(() => repo.state.HEAD && repo.state.HEAD.commit, 10000, 'HEAD');
    assert.strictEqual(head, cp.execFileSync('git', ['rev-parse', 'HEAD'], { cwd, encoding: 'utf8' }).trim());
  });
});

describe('Playwright bridge', () => {
  it('reads status bar DOM text and screenshots the workbench', async function () {
    skipWithoutBridge(this);
    const marker = `RAWR-BRIDGE-${process.pid}`;
    const item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 1000);
    try {
      item.text = `$(beaker) ${marker}`;
      item.show();
      const text = await poll(
        async () => (await bridge('text', { selector: '#workbench\\.parts\\.statusbar' })).find((t) => t.includes(marker)),
        10000,
        'marker in the status bar',
      );
      assert.ok(text.includes(marker));
      const png = await bridge('screenshot', { name: 'activation-workbench' });
      assert.ok(fs.statSync(png).size > 1000, `screenshot ${png} is empty`);
      info().screenshot = png;
    } finally {
      item.dispose();
    }
  });
});
