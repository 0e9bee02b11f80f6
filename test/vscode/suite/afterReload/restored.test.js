// Window reload, part 2: runs in the extension host started by the reload that reload.test.js asked for.
// Nothing here opens the panel: it must come back by itself, pinned to the thread picked before.
'use strict';
const assert = require('assert');
const path = require('path');
const vscode = require('vscode');
const { poll, bridge, skipWithoutBridge, reloadState, info } = require('../index');
const { STEPS, panelText, recordingStream, request, configureModel, unconfigureModel } = require('../support');

const repo = path.resolve(__dirname, '../../../..');
const { startScriptedModel, multiPhaseScript, textOf } = require(path.join(repo, 'out/test/support/scriptedModel.js'));

describe('window reload (part 2): what came back', function () {
  this.timeout(90000);
  let prior, api, server;

  before(async function () {
    skipWithoutBridge(this);
    prior = reloadState();
    assert.ok(prior && prior.threadId, 'part 1 left its state');
    // After a reload, as in a fresh window, rawr comes up by itself (its models must exist before the first
    // message: docs/ARCHITECTURE.md#activation) — nothing here activates it.
    const ext = vscode.extensions.getExtension('rawr.rawr');
    await poll(() => ext.isActive, 60000, 'rawr active after the reload without an activate() call');
    api = await ext.activate();
  });
  after(async () => {
    await unconfigureModel();
    if (server) await server.close();
  });

  it('the panel is restored by its serializer, still pinned to the picked thread, with its compaction', async () => {
    const t = await poll(
      async () => {
        const x = await panelText();
        return x && x.includes(`Thread ${prior.threadId} · updated`) && /Context compacted/.test(x) ? x : undefined;
      },
      60000,
      'the restored panel on the picked thread',
    );
    assert.ok(!t.includes('(following the active @rawr thread)'), 'pinned, not following');
    await bridge('screenshot', { name: 'reload-2-after' });
  });

  it('the status bar shows the thread of the last request again, with its last count (before any new request)', async () => {
    const want = prior.statusBar;
    assert.ok(want && want.threadId && typeof want.percentRemaining === 'number', JSON.stringify(want));
    await poll(() => api.statusBar.view.threadId === want.threadId, 15000, 'the status bar on the last active thread');
    assert.strictEqual(api.participant.activeThreadId, want.threadId);
    assert.strictEqual(api.statusBar.view.percentRemaining, want.percentRemaining);
    assert.strictEqual(api.statusBar.text, want.text);
    const items = await bridge('text', { selector: '#workbench\\.parts\\.statusbar [aria-label^="rawr:"]' });
    assert.ok(
      items.some((x) => x.includes(`${Math.floor(want.percentRemaining)}%`)),
      `the rendered status bar item: ${JSON.stringify(items)}`,
    );
    info().reloadStatusBar = { text: api.statusBar.text, rendered: items };
  });

  it('a new core process serves the thread from its log: same compactions and messages', async () => {
    const pid = await api.core.pid();
    assert.strictEqual(typeof pid, 'number');
    assert.notStrictEqual(pid, prior.corePid, 'the core process restarted with the window');
    // The old extension host took its core process with it: no orphan keeps serving (or writing) the thread.
    const alive = (p) => {
      try {
        process.kill(p, 0);
        return true;
      } catch {
        return false;
      }
    };
    const t0 = Date.now();
    const gone = await poll(() => !alive(prior.corePid), 15000, 'the old core process to exit').then(
      () => true,
      () => false,
    );
    info().reloadProcesses = {
      oldCoreGoneAfterMs: gone ? Date.now() - t0 : null,
      oldExtHostAlive: alive(prior.extHostPid),
      extHost: process.pid,
      oldExtHost: prior.extHostPid,
    };
    assert.ok(gone, `the old core process ${prior.corePid} is gone`);
    assert.notStrictEqual(process.pid, prior.extHostPid, 'a new extension host');
    const snap = await api.core.snapshot(prior.threadId);
    assert.strictEqual(snap.compactions.length, prior.compactions);
    assert.strictEqual(snap.messages.length, prior.messages);
    info().reloadAfter = { corePid: pid, compactions: snap.compactions.length, messages: snap.messages.length };
  });

  it('@rawr continues the thread: the model receives the compacted thread, then the new message', async () => {
    server = await startScriptedModel(multiPhaseScript({ steps: STEPS, fillerChars: 9000 }));
    await configureModel(server.url, { id: 'scripted-reload', name: 'Scripted (reload)' });
    const model = await poll(async () => (await vscode.lm.selectChatModels({ vendor: 'rawr-openai', id: 'scripted-reload' }))[0], 15000, 'the scripted model');
    const history = [new /** @type {any} */ (vscode.ChatResponseTurn)([], { metadata: { rawrThreadId: prior.threadId } }, 'rawr.rawr')];
    const r = await api.participant.handler(
      request(model, 'We reloaded the window. Where were we?'),
      { history },
      recordingStream().stream,
      new vscode.CancellationTokenSource().token,
    );
    assert.ok(!r.errorDetails, r.errorDetails && r.errorDetails.message);
    assert.strictEqual(r.metadata.rawrThreadId, prior.threadId);
    const first = server.requests.find((q) => q.messages.some((m) => textOf(m) === 'We reloaded the window. Where were we?'));
    assert.ok(first, 'the model got the new message');
    const texts = first.messages.map(textOf);
    const handoff = texts.findIndex((x) => x.includes('[rawr handoff]'));
    const asked = texts.lastIndexOf('We reloaded the window. Where were we?');
    assert.ok(handoff >= 0 && asked > handoff, `the handoff from before the reload (${handoff}) precedes the new message (${asked})`);
  });
});
