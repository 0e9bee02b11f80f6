// Window reload, part 1 (part 2 is afterReload/restored.test.js): what a person has open when they run
// "Developer: Reload Window" mid-project — an @rawr thread that already compacted once, and the compaction
// panel pinned to that thread while another thread is the active one. This test sets that up and asks the
// harness for a reload (index.js: after every test has run, the window reloads and the new extension host
// runs afterReload/). Part 2 checks that the panel came back by itself (WebviewPanelSerializer) on the
// picked thread, and that the thread continues from its event log in the new core process.
'use strict';
const assert = require('assert');
const path = require('path');
const vscode = require('vscode');
const { poll, bridge, skipWithoutBridge, requestReload, info } = require('./index');

const repo = path.resolve(__dirname, '../../..');
const { startScriptedModel, multiPhaseScript } = require(path.join(repo, 'out/test/support/scriptedModel.js'));
const { PANEL_MARK, STEPS, panelText, recordingStream, request, configureModel, unconfigureModel } = require('./support');

describe('window reload (part 1): a compacted thread and the panel pinned to it', function () {
  this.timeout(120000);
  let server;

  before(function () {
    skipWithoutBridge(this);
  });
  after(async () => {
    await unconfigureModel();
    if (server) await server.close();
  });

  it('runs a session that compacts, pins the panel to it in the webview, and asks for a reload', async () => {
    const api = await vscode.extensions.getExtension('rawr.rawr').activate();
    server = await startScriptedModel(multiPhaseScript({ steps: STEPS, fillerChars: 9000 }));
    await configureModel(server.url, { id: 'scripted-reload', name: 'Scripted (reload)' });
    const model = await poll(async () => (await vscode.lm.selectChatModels({ vendor: 'rawr-openai', id: 'scripted-reload' }))[0], 15000, 'the scripted model');

    const tok = new vscode.CancellationTokenSource().token;
    const result = await api.participant.handler(request(model, 'Build the limiter, phase by phase.'), { history: [] }, recordingStream().stream, tok);
    assert.ok(!result.errorDetails, result.errorDetails && result.errorDetails.message);
    const threadId = result.metadata.rawrThreadId;
    const snap = await api.core.snapshot(threadId);
    assert.ok(snap.compactions.length >= 1, 'the session compacted before the reload');

    // Another thread becomes the active one, so following the active thread would not show ours.
    // A real request (not /status: a chat that never asked anything has no count to show), so the status
    // bar shows this other thread with a count that part 2 must find again after the reload.
    const other = await api.participant.handler(request(model, 'Now the rate-limit headers, phase by phase.'), { history: [] }, recordingStream().stream, tok);
    assert.notStrictEqual(other.metadata.rawrThreadId, threadId);
    const statusBar = { threadId: api.statusBar.view.threadId, percentRemaining: api.statusBar.view.percentRemaining, text: api.statusBar.text };
    assert.strictEqual(statusBar.threadId, other.metadata.rawrThreadId, 'the status bar shows the active thread');

    // Pin the panel to our thread with its own picker, inside the webview (what the webview saves with setState).
    await vscode.commands.executeCommand('rawr.openPanel');
    await poll(
      async () => {
        const t = await panelText();
        return t && t.includes('following the active @rawr thread') && t.includes(threadId);
      },
      30000,
      'the panel with our thread in its picker',
    );
    await bridge('frame', { contains: PANEL_MARK, selector: '#thread', action: 'select', value: threadId });
    const pinned = await poll(
      async () => {
        const t = await panelText();
        return t && t.includes(`Thread ${threadId} · updated`) ? t : undefined;
      },
      20000,
      'the panel pinned to our thread',
    );
    assert.match(pinned, /Context compacted/);
    await bridge('screenshot', { name: 'reload-1-before' });

    info().reloadBefore = {
      threadId,
      activeThread: other.metadata.rawrThreadId,
      compactions: snap.compactions.length,
      messages: snap.messages.length,
      corePid: await api.core.pid(),
      extHostPid: process.pid,
      statusBar,
    };
    requestReload(info().reloadBefore);
  });
});
