// The compaction panel in a real VS Code (issue 5). A scripted multi-phase session runs through @rawr's
// agent loop (rawr's OpenAI-compatible provider → the real `openai` client → a scripted model over
// loopback HTTP, as in participant.test.js); the panel is opened through its command while the session
// runs, and the webview's DOM is read with Playwright through the harness bridge ('frames' lists every
// frame with its innerText, webviews included). Checked in the rendered panel:
//  - the gauge's percent equals the status bar item's;
//  - a commit made in the workspace (child_process git) shows up as a boundary, with its sha;
//  - the compaction shows in the decision timeline with its reason (tier, boundary, judgment);
//  - the packet, which holds `<img src=x onerror=alert(1)>` and `<script>alert(1)</script>`, shows those
//    characters as text;
//  - hide → show redraws the same content (retainContextWhenHidden is off: state comes back via setState);
//  - the webview's "Cancel sequence" button (clicked inside its frame) stops a running sequence: the
//    request ends without compacting, and the panel says so;
//  - "Undo this compaction" (clicked in the webview) asks for confirmation in a modal dialog before anything
//    is undone (VS Code refuses modal dialogs under extension tests, so the question is read from the
//    notice the refusal leaves; the undo itself is tested through /undo in participant.test.js);
//  - the webview's mode picker changes rawr.mode, and the core follows.
// Screenshots in a light, a dark and a high-contrast theme: test-artifacts/vscode/panel-light.png,
// panel-dark.png, panel-high-contrast.png (copied over docs/images/ with --update-docs).
'use strict';
const assert = require('assert');
const cp = require('child_process');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { poll, bridge, skipWithoutBridge, sleep, info } = require('./index');
const { PANEL_MARK, STEPS, recordingStream, request, configureModel, unconfigureModel, panelText, copyToDocs, setForecast } = require('./support');

const repo = path.resolve(__dirname, '../../..');
const { startScriptedModel, multiPhaseScript, scriptedPacket, phaseState } = require(path.join(repo, 'out/test/support/scriptedModel.js'));

const XSS_IMG = '<img src=x onerror=alert(1)>';
const XSS_SCRIPT = '<script>alert(1)</script>';

const configure = (url) => configureModel(url, { id: 'scripted-panel', name: 'Scripted (panel)' });

/** The multi-phase script, with packets that carry HTML; `slowPacket` makes the packet answer crawl. */
function script(slowPacket) {
  const s = multiPhaseScript({ steps: STEPS, fillerChars: 9000 });
  // The packet turn also asks for the scratch notes: rule "scratch" answers it (packet text + notes call).
  const k = s.rules.findIndex((r) => r.name === 'scratch');
  const notes = s.rules[k].reply;
  s.rules[k] = {
    name: 'scratch',
    when: s.rules[k].when,
    reply: (r) => ({
      ...notes(r),
      text: `${scriptedPacket(phaseState(r, STEPS))}\n- Trap: a commit subject once held ${XSS_IMG} and ${XSS_SCRIPT}; both must stay text.`,
      // 'crawl': the packet takes minutes (cancel test); 'slow': a few seconds, so the panel is seen live.
      ...(slowPacket === 'crawl' ? { chunkDelayMs: 500, textChunkSize: 8 } : slowPacket === 'slow' ? { chunkDelayMs: 40, textChunkSize: 12 } : {}),
    }),
  };
  return s;
}

const waitPanel = (pred, ms, what) =>
  poll(
    async () => {
      const t = await panelText();
      return t && pred(t) ? t : undefined;
    },
    ms,
    what,
  );

const git = (cwd, ...a) =>
  cp
    .execFileSync('git', ['-c', 'user.name=rawr panel test', '-c', 'user.email=panel@example.invalid', ...a], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    .trim();

describe('compaction panel (real VS Code, scripted session, webview DOM via Playwright)', function () {
  this.timeout(180000);
  let api, server, model, ws, initialHead;
  /** The thread of the first test, with its compaction (the Undo test undoes it). */
  let compactedThread;
  const ART = process.env.VSCODE_TEST_ARTIFACTS || path.join(repo, 'test-artifacts/vscode');

  before(async function () {
    skipWithoutBridge(this);
    api = await vscode.extensions.getExtension('rawr.rawr').activate();
    server = await startScriptedModel(script('slow'));
    await configure(server.url);
    // The panel's cards are checked at a mid-session plan checkpoint; the forecast would move it.
    await setForecast(api, false);
    model = await poll(async () => (await vscode.lm.selectChatModels({ vendor: 'rawr-openai', id: 'scripted-panel' }))[0], 15000, 'the scripted model');
    ws = process.env.VSCODE_TEST_WORKSPACE || vscode.workspace.workspaceFolders[0].uri.fsPath;
    initialHead = git(ws, 'rev-parse', 'HEAD');
  });

  after(async () => {
    if (api) await setForecast(api, undefined);
    await unconfigureModel();
    await vscode.workspace.getConfiguration('workbench').update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
    if (ws && initialHead) {
      try {
        git(ws, 'reset', '--hard', initialHead);
      } catch {
        /* best effort */
      }
    }
    if (server) await server.close();
  });

  it('shows the live session: gauge = status bar, a workspace commit as a boundary, the compaction with its reason, the packet as text', async () => {
    assert.ok((await vscode.commands.getCommands(true)).includes('rawr.openPanel'), 'rawr.openPanel is registered');
    const rec = recordingStream();
    const running = api.participant.handler(
      request(model, 'Build a token-bucket rate limiter, phase by phase.'),
      { history: [] },
      rec.stream,
      new vscode.CancellationTokenSource().token,
    );
    const threadId = api.participant.activeThreadId;
    assert.match(threadId, /^t[a-z0-9]+$/);

    let finished = false;
    running.then(
      () => (finished = true),
      () => (finished = true),
    );
    // Open the panel through its command while the session runs; it follows the active thread and
    // updates live: the running sequence shows up while the agent writes its (slow) packet.
    await vscode.commands.executeCommand('rawr.openPanel');
    const live = await waitPanel(
      (t) => t.includes(threadId) && /Running s\d+/.test(t) && t.includes('Sequence in progress'),
      60000,
      'the panel showing the running sequence',
    );
    assert.ok(!finished, 'the running sequence was shown before the request ended');
    assert.match(live, /Cancel sequence/);
    info().panelWhileRunning = live.slice(0, 600);

    const result = await running;
    assert.ok(!result.errorDetails, result.errorDetails && result.errorDetails.message);
    assert.strictEqual(result.metadata.rawrThreadId, threadId);
    const snap = await api.core.snapshot(threadId);
    assert.ok(snap.compactions.length >= 1, 'the session compacted');

    // The compaction in the timeline, with its reason; the packet's HTML as literal text.
    const txt = await waitPanel((t) => /Context compacted — [\d.k]+ → [\d.k]+ tokens/.test(t), 30000, 'the compaction in the panel');
    assert.match(txt, /Context compacted — [\d.k]+ → [\d.k]+ tokens \(tier \w+, boundary plan_checkpoint[^\n]*judgment: phase boundary/);
    assert.match(txt, /Why: tier \w+, [\d.]+% remaining/);
    // The receipt: what of rawr's facts the agent's packet kept, and what rawr added.
    assert.match(txt, /Receipt: the agent's packet kept \d+ of rawr's \d+ facts; rawr added \d+/);
    assert.match(txt, /judge · judgment_pending/);
    assert.match(txt, /Judgment j\d+: approved in \d+ ms — phase boundary/);
    assert.ok(txt.includes(XSS_IMG), 'the <img onerror> of the packet shows as text');
    assert.ok(txt.includes(XSS_SCRIPT), 'the <script> of the packet shows as text');
    assert.match(txt, /Heads-up\s*→?\s*Packet\s*→?\s*Compact\s*→?\s*Handoff/);

    // The gauge's percent equals the status bar item's (same thread, same token count). The status bar
    // shows the last session that counted its tokens: if a request left running by an earlier suite
    // counted after ours, this thread counts again (as its next model call would) so both show it.
    const statusItems = async () => {
      let items = await bridge('text', { selector: '#workbench\\.parts\\.statusbar [aria-label^="rawr:"]' });
      if (!items.some((x) => /\d+%/.test(x))) items = await bridge('text', { selector: '#workbench\\.parts\\.statusbar' });
      return items;
    };
    let resynced = 0;
    let last = {};
    const match = await poll(
      async () => {
        const t = await panelText();
        const gauge = t && t.includes(`Thread ${threadId}`) ? /(\d+)% remaining/.exec(t) : null;
        const items = await statusItems();
        const bar = items.map((x) => /(\d+)%(?: · (?:early|ready|asap|emergency))?/.exec(x)).find(Boolean);
        last = { gauge: gauge && gauge[0], items, statusThread: api.statusBar.view.threadId };
        if (gauge && bar && gauge[1] === bar[1] && api.statusBar.text.includes(`${gauge[1]}%`)) return { gauge, items };
        if (api.statusBar.view.threadId !== threadId && resynced < 5) {
          resynced++;
          await (await api.participant.session(threadId)).syncTokens(model);
        }
        return undefined;
      },
      45000,
      'the panel gauge to equal the status bar',
    ).catch((e) => assert.fail(`${e.message}: ${JSON.stringify(last)}`));
    const gauge = match.gauge;
    const items = match.items;
    info().panelGaugeResynced = resynced;

    // A commit in the workspace reaches the panel as a boundary (git extension → bus → the thread's arbiter).
    fs.writeFileSync(path.join(ws, 'panel-boundary.txt'), `phase boundary ${Date.now()}\n`);
    git(ws, 'add', 'panel-boundary.txt');
    git(ws, 'commit', '-m', 'limiter: panel boundary');
    const sha = git(ws, 'rev-parse', '--short=7', 'HEAD');
    const withCommit = await waitPanel((t) => t.includes(sha), 30000, `commit ${sha} in the panel`);
    const row = withCommit.split('\n').find((l) => l.includes(sha));
    assert.match(row, /commit/);
    assert.match(row, /strong/);
    assert.match(row, /git|terminal/);
    assert.match(row, /pending/);
    info().panel = { threadId, gauge: gauge[0], statusBar: items, commitRow: row };
    compactedThread = threadId;
    fs.writeFileSync(path.join(ART, 'panel-text.txt'), withCommit);

    // Screenshots in a light and a dark theme, the panel alone in the window.
    for (const c of ['workbench.action.closeSidebar', 'workbench.action.closePanel', 'workbench.action.closeAuxiliaryBar'])
      await vscode.commands.executeCommand(c).then(undefined, () => undefined);
    await vscode.commands.executeCommand('rawr.openPanel');
    for (const [theme, name] of [
      ['Default Light Modern', 'panel-light'],
      ['Default Dark Modern', 'panel-dark'],
      ['Default High Contrast', 'panel-high-contrast'],
    ]) {
      await vscode.workspace.getConfiguration('workbench').update('colorTheme', theme, vscode.ConfigurationTarget.Global);
      await sleep(2500); // the theme reaches the webview's CSS variables asynchronously
      await waitPanel((t) => t.includes(sha), 10000, 'the panel after the theme change');
      const shot = await bridge('screenshot', { name });
      assert.ok(fs.existsSync(shot), shot);
      copyToDocs(shot, `${name}.png`);
    }

    // Hide (another editor on top in the same group), then show: the webview is recreated and redraws.
    const cover = await vscode.workspace.openTextDocument({ content: '' });
    await vscode.window.showTextDocument(cover, { preview: false });
    // retainContextWhenHidden is off: the webview's document goes away while hidden (recorded, not asserted:
    // how long the workbench keeps a hidden frame around is its business).
    info().panelFrameGoneWhenHidden = await poll(async () => !(await panelText()), 8000, 'the panel hidden').then(
      () => true,
      () => false,
    );
    await vscode.commands.executeCommand('rawr.openPanel');
    const again = await waitPanel((t) => t.includes(sha) && /Context compacted/.test(t), 20000, 'the panel redrawn after show');
    assert.ok(again.includes(threadId));
    // Close the editor that covered the panel (an empty untitled document: no save prompt).
    const coverTabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === cover.uri.toString());
    await vscode.window.tabGroups.close(coverTabs);
  });

  it('"Undo this compaction" in the webview asks for confirmation first; without a yes nothing is undone', async function () {
    if (!compactedThread) this.skip(); // the first test failed before its compaction
    const threadId = compactedThread;
    const before = await api.core.snapshot(threadId);
    const seqId = before.compactions.at(-1).seqId;
    const session = await api.participant.session(threadId);
    const messages = session.messages.length;
    await vscode.commands.executeCommand('rawr.openPanel');
    await waitPanel((t) => t.includes(`Thread ${threadId}`) && t.includes('Undo this compaction'), 20000, 'the panel with Undo for the latest compaction');
    await bridge('frame', { contains: PANEL_MARK, selector: `button[aria-label="Undo compaction ${seqId}"]`, action: 'click' });
    // The click reaches the host, which asks with a modal dialog. Under extension tests VS Code refuses
    // every modal prompt (DialogService.prompt throws "refused to show dialog in tests. Contents: …"), and
    // the panel shows that error as a notice: so the question that would have been asked is readable here.
    const notice = await waitPanel((t) => t.includes(`Undo compaction ${seqId}?`), 15000, 'the confirmation the host asked for');
    assert.match(notice, /undo failed: .*refused to show dialog in tests/);
    assert.match(notice, /The thread goes back to the \d+ tokens it had before it/);
    // No confirmation, no undo.
    const after = await api.core.snapshot(threadId);
    assert.strictEqual(after.compactions.at(-1).seqId, seqId);
    assert.strictEqual(session.messages.length, messages);
    assert.strictEqual(after.messages.length, before.messages.length);
    assert.ok((await panelText()).includes('Undo this compaction'), 'still undoable');
    info().panelUndoAsked = notice
      .split('\n')
      .find((l) => l.includes(`Undo compaction ${seqId}?`))
      .slice(0, 300);
  });

  it("the panel's Cancel sequence button stops a running sequence without compacting", async () => {
    server.setScript(script('crawl'));
    const rec = recordingStream();
    const running = api.participant.handler(
      request(model, 'Build the limiter again, phase by phase.'),
      { history: [] },
      rec.stream,
      new vscode.CancellationTokenSource().token,
    );
    const threadId = api.participant.activeThreadId;
    await vscode.commands.executeCommand('rawr.openPanel');
    // Wait for the slow packet: the sequence is running.
    await poll(
      async () => ['awaiting_packet', 'awaiting_scratch'].includes((await api.core.snapshot(threadId)).state.seq.phase),
      60000,
      'the sequence waiting for the packet',
    );
    const shown = await waitPanel(
      (t) => t.includes(threadId) && t.includes('Sequence in progress') && t.includes('Cancel sequence'),
      20000,
      'the running sequence with its Cancel button',
    );
    assert.match(shown, /Running s\d+/);
    const t0 = Date.now();
    const session = await api.participant.session(threadId);
    // The webview's own button, clicked inside its frame.
    await bridge('frame', { contains: PANEL_MARK, selector: 'button[aria-label="Cancel the running compaction sequence"]', action: 'click' });
    const result = await running;
    const took = Date.now() - t0;
    assert.ok(!result.errorDetails, result.errorDetails && result.errorDetails.message);
    assert.match(rec.text(), /stopped from the Rawr panel/);
    const snap = await api.core.snapshot(threadId);
    assert.strictEqual(snap.state.seq.phase, 'idle');
    assert.strictEqual(snap.compactions.length, 0, 'nothing was compacted');
    assert.ok(!session.sequenceRunning);
    const after = await waitPanel((t) => t.includes(threadId) && /Sequence s\d+ cancelled/.test(t), 20000, 'the cancelled sequence in the panel');
    assert.match(after, /Last sequence s\d+ — cancelled/);
    info().panelCancel = { threadId, tookMs: took };
  });

  it('the mode picker in the webview changes rawr.mode, and the core follows', async () => {
    await vscode.commands.executeCommand('rawr.openPanel');
    await waitPanel((t) => t.includes('Compaction') && t.includes('auto — run the golden path'), 20000, 'the panel');
    const cfg = () => vscode.workspace.getConfiguration('rawr');
    const before = cfg().inspect('mode');
    try {
      await bridge('frame', { contains: PANEL_MARK, selector: '#mode', action: 'select', value: 'suggest' });
      await poll(() => cfg().get('mode') === 'suggest', 10000, 'rawr.mode = suggest');
      // The core got it too: the thread's settings follow the VS Code settings.
      await poll(async () => (await api.core.snapshot('tsettingsprobe')).state.settings.mode === 'suggest', 10000, 'the core in suggest mode');
      await bridge('frame', { contains: PANEL_MARK, selector: '#mode', action: 'select', value: 'auto' });
      await poll(() => cfg().get('mode') === 'auto', 10000, 'rawr.mode = auto again');
    } finally {
      await cfg().update('mode', before && before.workspaceValue, vscode.ConfigurationTarget.Workspace);
      await cfg().update('mode', before && before.globalValue, vscode.ConfigurationTarget.Global);
    }
  });
});
