// The packaged extension: `node test/vscode/run.mjs --vsix rawr.vsix` installs the .vsix that
// `npm run package` built with code-server's --install-extension, and this suite checks that the installed
// copy (bundles only: no node_modules, no tsc output) activates, runs its core process and answers as @rawr.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { poll, info } = require('../suite/index');
const { recordingStream, request, configureModel, unconfigureModel } = require('../suite/support');

const REPO_ROOT = path.resolve(__dirname, '../../..');
const { startScriptedModel } = require(path.join(REPO_ROOT, 'out/test/support/scriptedModel.js'));

describe('the packaged .vsix, installed with --install-extension', function () {
  this.timeout(120000);
  let server;
  after(async () => {
    await unconfigureModel();
    if (server) await server.close();
  });

  it('is the installed copy, not this repository: bundles and prompts, no node_modules or tsc output', () => {
    const ext = vscode.extensions.getExtension('rawr.rawr');
    assert.ok(ext, 'rawr.rawr is installed');
    const dir = ext.extensionUri.fsPath;
    assert.notStrictEqual(path.resolve(dir), REPO_ROOT);
    assert.match(path.basename(dir), /^rawr\.rawr-\d+\.\d+\.\d+$/);
    for (const f of [
      'dist/extension.js',
      'dist/server.js',
      'prompts/rawr-auto-compact.md',
      'media/panel.js',
      'media/icon.png',
      'docs/images/golden-path.png',
    ]) {
      assert.ok(fs.existsSync(path.join(dir, f)), `${f} in the package`);
    }
    // vsce stores README.md and CHANGELOG.md as readme.md and changelog.md.
    const top = fs.readdirSync(dir).map((n) => n.toLowerCase());
    for (const f of ['readme.md', 'changelog.md', 'package.json']) assert.ok(top.includes(f), `${f} in the package: ${top.join(', ')}`);
    for (const f of ['node_modules', 'out', 'src', 'test']) assert.ok(!fs.existsSync(path.join(dir, f)), `no ${f}/ in the package`);
    info().vsix = { installedAt: dir, version: ext.packageJSON.version };
  });

  it('activates, runs its core process from dist/server.js, and @rawr answers through a model', async () => {
    const ext = vscode.extensions.getExtension('rawr.rawr');
    const api = await ext.activate();
    assert.strictEqual(typeof api.activationMs, 'number');
    const pid = await poll(() => api.core.pid(), 20000, 'the core process');
    assert.strictEqual(typeof pid, 'number', 'the core runs as its own process');

    server = await startScriptedModel([{ name: 'answer', when: () => true, reply: { text: 'VSIX-OK: the packaged rawr is answering.' } }]);
    await configureModel(server.url, { id: 'scripted-vsix', name: 'Scripted (vsix)' });
    const model = await poll(async () => (await vscode.lm.selectChatModels({ vendor: 'rawr-openai', id: 'scripted-vsix' }))[0], 20000, 'the scripted model');
    const rec = recordingStream();
    const r = await api.participant.handler(
      request(model, 'Say hello from the package.'),
      { history: [] },
      rec.stream,
      new vscode.CancellationTokenSource().token,
    );
    assert.ok(!r.errorDetails, r.errorDetails && r.errorDetails.message);
    assert.match(rec.text(), /VSIX-OK: the packaged rawr is answering\./);
    assert.ok(server.requests.length >= 1, 'the model was asked');
    info().vsixAnswer = { activationMs: api.activationMs, corePid: pid, requests: server.requests.length };
  });
});
