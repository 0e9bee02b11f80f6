// @rawr in a real VS Code: the participant's agent loop runs against rawr's own OpenAI-compatible
// provider, which talks through the real `openai` client to a scripted model served over loopback HTTP.
// The handler is invoked with a recording response stream (as vscode-copilot-chat's spy stream), and the
// transcript must show the whole golden path in order; then the real Chat view runs /status.
'use strict';
const assert = require('assert');
const path = require('path');
const fs = require('fs');
const vscode = require('vscode');
const { poll, bridge, skipWithoutBridge, info } = require('./index');
const { recordingStream, request, configureModel, unconfigureModel, setForecast, panelText } = require('./support');

const repo = path.resolve(__dirname, '../../..');
const { startScriptedModel, multiPhaseScript } = require(path.join(repo, 'out/test/support/scriptedModel.js'));

const configure = (url, windowTokens) => configureModel(url, { windowTokens });

describe('@rawr participant (real VS Code, scripted model over HTTP)', function () {
  this.timeout(120000);
  let api;
  let server;
  let model;

  before(async () => {
    api = await vscode.extensions.getExtension('rawr.rawr').activate();
    server = await startScriptedModel(
      multiPhaseScript({
        steps: ['Research the API', 'Draft the limiter', 'Implement the middleware', 'Harden: edge cases', 'Write the tests', 'Ship: docs and changelog'],
        fillerChars: 9000,
      }),
    );
    await configure(server.url, 20000);
    // These tests check the golden path's mechanics at a mid-session plan checkpoint; the forecast would
    // move this short session's compaction to its end (the e2e suites run with the default policy).
    await setForecast(api, false);
    model = await poll(
      async () => (await vscode.lm.selectChatModels({ vendor: 'rawr-openai', id: 'scripted' }))[0],
      15000,
      "the scripted model through rawr's provider",
    );
  });
  after(async () => {
    await setForecast(api, undefined);
    await unconfigureModel();
    if (server) await server.close();
  });

  it('runs a multi-phase session through the full golden path, in order, and the thread shrinks', async () => {
    assert.strictEqual(model.maxInputTokens, 20000);
    const rec = recordingStream();
    const cts = new vscode.CancellationTokenSource();
    const result = await api.participant.handler(
      request(model, 'Build a token-bucket rate limiter for our HTTP server, phase by phase.'),
      { history: [] },
      rec.stream,
      cts.token,
    );
    const t = rec.text();
    fs.mkdirSync(path.join(repo, 'test-artifacts/vscode'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'test-artifacts/vscode/golden-path-transcript.md'), t);
    const threadId = result.metadata.rawrThreadId;
    assert.match(threadId, /^t[a-z0-9]+$/);
    assert.ok(!result.errorDetails, result.errorDetails && result.errorDetails.message);

    const at = (re, from = 0) => {
      const k = t.slice(from).search(re);
      assert.ok(k >= 0, `expected ${re} after offset ${from} in the transcript (see test-artifacts/vscode/golden-path-transcript.md)`);
      return from + k;
    };
    const work = at(/Finished step 1 of 6/);
    const headsUp = at(/\*\*rawr watcher → agent\*\*/, work);
    const packet = at(/## What just completed/, headsUp);
    const progress = at(/<progress:Compacting thread context…>/, packet);
    const compacted = at(/\*\*Context compacted — [\d.k]+ → [\d.k]+ tokens \(tier \w+, boundary plan_checkpoint/, progress);
    const handoff = at(/\*\*rawr handoff → agent\*\*/, compacted);
    at(/CONTEXT COMPACTION DETECTED/, handoff);
    at(/git diff --stat/, handoff);
    at(/Continue from here\./, handoff);
    const continued = at(/(Starting|Finished) step \d of 6|All done/, handoff);
    assert.ok(continued > handoff);
    at(/All done: all 6 plan steps are complete/, continued);

    // The thread shrank: the compacted line and the core's record agree.
    const m = /Context compacted — ([\d.]+)k? → ([\d.]+)k? tokens/.exec(t);
    const snap = await api.core.snapshot(threadId);
    assert.ok(snap.compactions.length >= 1, 'a compaction was recorded');
    const c = snap.compactions[0];
    assert.ok(c.tokensAfter < c.tokensBefore / 2, `thread shrank: ${c.tokensBefore} → ${c.tokensAfter} (${m && m[0]})`);
    // The judgment was asked and its reason reached the compacted line.
    assert.match(t, /Context compacted[^\n]*judgment: phase boundary/);
    // The model really saw rawr's synthetic turns and the summary request.
    const saw = (s) => server.requests.some((r) => JSON.stringify(r.messages).includes(s));
    assert.ok(saw('[rawr] Write your continuation packet'), 'packet request reached the model');
    // The agent's packet stands in for the summary (agent_packet_replaces_summary): no summary call.
    assert.ok(!saw('Summarise the conversation so far'), 'no separate summary call');
    assert.ok(saw('[rawr handoff]'), 'the handoff reached the model');
    // The scratch file was written inside the workspace's .scratch/.
    const scratch = path.join(process.env.VSCODE_TEST_WORKSPACE, '.scratch');
    assert.ok(fs.existsSync(scratch) && fs.readdirSync(scratch).some((n) => /^agent-rawr-[a-z0-9]+\.scratch\.md$/.test(n)), 'scratch file written');
    // After the compaction the model-facing thread starts with the agent's base instructions (kept); the
    // packet comes back in the handoff, after the recent turns kept verbatim.
    assert.strictEqual(snap.messages[0].kind, 'instructions');
    assert.ok(!snap.messages.some((m) => m.kind === 'summary'), 'no summary message');
    const handoffMessage = snap.messages.find((m) => m.kind === 'handoff');
    assert.ok(handoffMessage && /<continuation-packet>[\s\S]*What just completed/.test(handoffMessage.text), 'the handoff carries the packet');
    info().goldenPath = { threadId, compactions: snap.compactions, requests: server.requests.length };

    // /undo in a chat that has no @rawr thread yet (no history) says so and undoes nothing.
    const undo = recordingStream();
    const before = snap.messages.length;
    await api.participant.handler(request(model, '', 'undo'), { history: [] }, undo.stream, cts.token);
    assert.match(undo.text(), /Nothing to undo: this chat has no @rawr thread yet/);
    assert.strictEqual((await api.core.snapshot(threadId)).messages.length, before, 'the golden-path thread is untouched');
    // /undo on the thread itself restores the archived thread.
    const session = await api.participant.session(threadId);
    const seq = await session.undo();
    assert.ok(seq, 'undo found the compaction');
    assert.ok(session.messages.length > before, `archived thread restored (${session.messages.length} > ${before} messages)`);
  });

  /** Applies rawr.* workspace settings and waits until the core has them. */
  async function rawrSettings(values) {
    const cfg = vscode.workspace.getConfiguration('rawr');
    for (const [k, v] of Object.entries(values)) await cfg.update(k, v, vscode.ConfigurationTarget.Workspace);
    await poll(
      async () => {
        const st = (await api.core.snapshot('tsettingsprobe')).state.settings;
        return Object.entries(values).every(
          ([k, v]) =>
            JSON.stringify(st[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)]) ===
            JSON.stringify(v === undefined ? st[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] : v),
        );
      },
      10000,
      'the core to pick up the settings',
    );
  }
  /** Tiers where rawr waits at a turn end: early and ready accept no boundary, asap only the turn end (a preflight). */
  const WAIT_AT_TURN_END = {
    earlyPercentRemainingLt: 70,
    readyPercentRemainingLt: 60,
    asapPercentRemainingLt: 50,
    emergencyPercentRemainingLt: 5,
    autoRequiresAnyBoundary: { early: [], ready: [], asap: ['turn_complete'] },
  };
  /** The same keys back to their defaults. */
  const unset = (values) => Object.fromEntries(Object.keys(values).map((k) => [k, undefined]));
  const responseTurn = (threadId) => new /** @type {any} */ (vscode.ChatResponseTurn)([], { metadata: { rawrThreadId: threadId } }, 'rawr.rawr');

  it('preflight: a turn that ends in asap with only turn_complete compacts before the next message, which is then delivered unchanged', async () => {
    const short = await startScriptedModel(multiPhaseScript({ steps: ['Research', 'Draft', 'Ship'], fillerChars: 9000, stopAfterEachPhase: true }));
    try {
      await configure(short.url, 12000);
      await rawrSettings(WAIT_AT_TURN_END);
      const m = await poll(async () => (await vscode.lm.selectChatModels({ vendor: 'rawr-openai', id: 'scripted' }))[0], 15000, 'model');
      const tok = new vscode.CancellationTokenSource().token;
      let history = [];
      let threadId;
      const transcripts = [];
      for (const prompt of ['Build the limiter in three phases.', 'continue', 'continue', 'Thanks! Now list what changed.']) {
        const rec = recordingStream();
        const r = await api.participant.handler(request(m, prompt), { history }, rec.stream, tok);
        assert.ok(!r.errorDetails, r.errorDetails && r.errorDetails.message);
        threadId = r.metadata.rawrThreadId;
        history = [...history, responseTurn(threadId)];
        transcripts.push(rec.text());
      }
      fs.writeFileSync(path.join(repo, 'test-artifacts/vscode/preflight-transcript.md'), transcripts.join('\n\n======== next request ========\n\n'));
      const snap = await api.core.snapshot(threadId);
      const pre = snap.decisions.filter((d) => d.action === 'preflight');
      assert.ok(pre.length >= 1, `a preflight decision: ${snap.decisions.map((d) => d.code).join(',')}`);
      assert.match(pre[0].reason, /only turn_complete/);
      // The request after the preflight decision runs the golden path first, then delivers the message.
      const k = transcripts.findIndex((t) => /rawr watcher → agent/.test(t));
      assert.ok(k >= 1, 'a later request ran the golden path');
      const t = transcripts[k];
      const order = [
        'Compacting before your message',
        '**rawr watcher → agent**',
        'What just completed',
        'Context compacted',
        '**rawr handoff → agent**',
        '**Your message, delivered after the handoff**',
      ].map((x) => t.indexOf(x));
      assert.ok(order.every((x) => x >= 0) && order.every((x, i) => i === 0 || x > order[i - 1]), `golden path then the held message, in order: ${order}`);
      assert.ok(
        t.lastIndexOf(['Build the limiter in three phases.', 'continue', 'continue', 'Thanks! Now list what changed.'][k]) > order[5],
        'the held message is delivered verbatim',
      );
      // The model saw the held message after the handoff, exactly once.
      const last = short.requests[short.requests.length - 1].messages.map((x) => (typeof x.content === 'string' ? x.content : JSON.stringify(x.content)));
      const handoffAt = last.findIndex((x) => x.includes('[rawr handoff]'));
      const heldAt = last.findIndex(
        (x, i) => i > handoffAt && x === ['Build the limiter in three phases.', 'continue', 'continue', 'Thanks! Now list what changed.'][k],
      );
      assert.ok(handoffAt >= 0 && heldAt > handoffAt, `the model saw handoff (${handoffAt}) then the held message (${heldAt})`);
    } finally {
      await rawrSettings(unset(WAIT_AT_TURN_END));
      await configure(server.url, 20000);
      await short.close();
    }
  });

  it('idle compaction: away past rawr.idleCompactMinutes, the golden path runs in the background; the next message opens with the receipt; the panel shows it', async function () {
    skipWithoutBridge(this); // the panel is checked in the real webview
    const short = await startScriptedModel(multiPhaseScript({ steps: ['Research', 'Draft', 'Ship'], fillerChars: 9000, stopAfterEachPhase: true }));
    try {
      await configure(short.url, 8000);
      // A short idle setting (0.05 min = 3 s) stands in for the 5-minute default; early and ready accept no
      // boundary, so rawr waits at the turn end in a tier (the case idle compaction is for).
      await rawrSettings({ ...WAIT_AT_TURN_END, idleCompactMinutes: 0.05 });
      const m = await poll(async () => (await vscode.lm.selectChatModels({ vendor: 'rawr-openai', id: 'scripted' }))[0], 15000, 'model');
      const tok = new vscode.CancellationTokenSource().token;
      const first = await api.participant.handler(request(m, 'Build the limiter in three phases.'), { history: [] }, recordingStream().stream, tok);
      assert.ok(!first.errorDetails, first.errorDetails && first.errorDetails.message);
      const threadId = first.metadata.rawrThreadId;
      const calls = short.requests.length;
      // Nobody writes: after ~3 s the background compaction runs (the packet turn through the real provider).
      const snap = await poll(
        async () => {
          const s = await api.core.snapshot(threadId);
          return s.compactions.length >= 1 ? s : undefined;
        },
        60000,
        'the idle compaction',
      );
      const idle = snap.decisions.find((d) => d.code === 'idle');
      assert.ok(idle, `an idle decision: ${snap.decisions.map((d) => d.code).join(',')}`);
      assert.match(idle.reason, /nobody wrote for 0\.05 min since the turn ended at .*avoids sending all [\d.k]+ tokens again/);
      assert.ok(short.requests.length > calls, 'the packet turn went to the model while nobody was there');
      const { tokensBefore, tokensAfter } = snap.compactions[0];
      assert.ok(tokensAfter < tokensBefore, `${tokensBefore} → ${tokensAfter}`);

      // The panel (following the active thread) shows the decision and the compaction.
      await vscode.commands.executeCommand('rawr.openPanel');
      const panel = await poll(
        async () => {
          const t = await panelText();
          return t && t.includes(threadId) && /compact · idle/.test(t) && /while you were away/.test(t) ? t : undefined;
        },
        30000,
        'the idle compaction in the panel',
      );
      fs.writeFileSync(path.join(repo, 'test-artifacts/vscode/idle-panel.txt'), panel);

      // The person comes back: the receipt first, then the agent goes on from the compacted thread.
      const rec = recordingStream();
      const back = await api.participant.handler(request(m, 'continue'), { history: [responseTurn(threadId)] }, rec.stream, tok);
      assert.ok(!back.errorDetails, back.errorDetails && back.errorDetails.message);
      const t = rec.text();
      fs.writeFileSync(path.join(repo, 'test-artifacts/vscode/idle-transcript.md'), t);
      assert.match(t, /^\s*\*\*Compacted while you were away at [^—]+ — [\d.k]+ → [\d.k]+ tokens\.\*\*/);
      assert.match(t, /Step 2 of 3 is complete|Finished step 2 of 3/);
      const sent = short.requests[short.requests.length - 1].messages.map((x) => (typeof x.content === 'string' ? x.content : JSON.stringify(x.content)));
      assert.ok(
        sent.some((x) => x.includes('[rawr handoff]')),
        'the next request starts from the handoff',
      );
    } finally {
      await rawrSettings(unset({ ...WAIT_AT_TURN_END, idleCompactMinutes: 0 }));
      await configure(server.url, 20000);
      await short.close();
    }
  });

  it('suggest mode offers a "Compact now" button instead of compacting; tag mode only annotates', async () => {
    for (const mode of ['suggest', 'tag']) {
      await rawrSettings({ mode, judgmentEnabled: false });
      try {
        const rec = recordingStream();
        const r = await api.participant.handler(
          request(model, 'Build a token-bucket rate limiter, phase by phase.'),
          { history: [] },
          rec.stream,
          new vscode.CancellationTokenSource().token,
        );
        const snap = await api.core.snapshot(r.metadata.rawrThreadId);
        assert.strictEqual(snap.compactions.length, 0, `${mode} mode never compacts`);
        assert.ok(!/rawr watcher → agent/.test(rec.text()), `${mode}: no heads-up`);
        if (mode === 'suggest') {
          const buttons = rec.parts.filter((p) => p.kind === 'button');
          assert.ok(buttons.length >= 1 && buttons[0].value.command === 'rawr.compactNow' && buttons[0].value.title === 'Compact now', 'a Compact now button');
        } else assert.match(rec.text(), /\[rawr\] would compact now — tier \w+/);
      } finally {
        await rawrSettings({ mode: undefined, judgmentEnabled: undefined });
      }
    }
  });

  it('/status in the real Chat view names the tier, percent and last decision', async function () {
    skipWithoutBridge(this);
    const res = /** @type {vscode.ChatResult | undefined} */ (
      await vscode.commands.executeCommand('workbench.action.chat.open', {
        query: '@rawr Build the limiter, phase by phase.',
        modelSelector: { vendor: 'rawr-openai', id: 'scripted' },
        blockOnResponse: true,
      })
    );
    assert.ok(res && res.metadata && res.metadata.rawrThreadId, `chat result ${JSON.stringify(res)}`);
    await vscode.commands.executeCommand('workbench.action.chat.open', {
      query: '@rawr /status',
      modelSelector: { vendor: 'rawr-openai', id: 'scripted' },
      blockOnResponse: true,
    });
    const txt = await poll(
      async () =>
        (await bridge('text', { selector: '.interactive-item-container.interactive-response' })).find((x) => /rawr status/.test(x) && /Compactions:/.test(x)),
      20000,
      'rendered /status (the chat renders progressively: wait for the whole block)',
    );
    assert.match(txt, new RegExp(res.metadata.rawrThreadId));
    assert.match(txt, /% remaining/);
    assert.match(txt, /Last decision: /);
    // The count is the thread plus the tool definitions every agent request carries (rawr's two tools here).
    const total = /Context: (\d+) \/ \d+ tokens/.exec(txt);
    const parts = /Counted: the thread (\d+) tokens \+ (\d+) tool definitions (\d+) tokens, with rawr's estimate/.exec(txt);
    assert.ok(total && parts, txt);
    assert.ok(Number(parts[2]) >= 2, `rawr's own tools are counted: ${parts[0]}`);
    assert.ok(Number(parts[3]) > 100, `their definitions take tokens: ${parts[0]}`);
    assert.strictEqual(Number(parts[1]) + Number(parts[3]), Number(total[1]), `${total[0]} = ${parts[0]}`);
    info().statusCounted = parts[0];
    await bridge('screenshot', { name: 'chat-status' });
  });

  it('a model error ends with a clear message and the thread stays consistent', async () => {
    const failing = await startScriptedModel([
      {
        when: () => true,
        reply: () => {
          throw Object.assign(new Error('scripted outage'), { status: 500 });
        },
      },
    ]);
    try {
      await configure(failing.url, 20000);
      const m = await poll(async () => (await vscode.lm.selectChatModels({ vendor: 'rawr-openai', id: 'scripted' }))[0], 15000, 'model');
      const rec = recordingStream();
      const r = await api.participant.handler(request(m, 'hello'), { history: [] }, rec.stream, new vscode.CancellationTokenSource().token);
      assert.ok(r.errorDetails, 'errorDetails set');
      assert.match(r.errorDetails.message, /scripted outage|500|failed/i);
      const snap = await api.core.snapshot(r.metadata.rawrThreadId);
      assert.deepStrictEqual(
        snap.messages.map((x) => `${x.role}:${x.kind || ''}`),
        ['user:instructions', 'user:'],
        'the instructions and the user message are kept, nothing half-written',
      );
    } finally {
      await configure(server.url, 20000);
      await failing.close();
    }
  });
});

describe("@rawr context count against the server's own count (real VS Code, calibration from usage)", function () {
  this.timeout(60000);
  let api;
  let server;

  before(async () => {
    api = await vscode.extensions.getExtension('rawr.rawr').activate();
    // A model whose tokenizer makes twice as many tokens as rawr's chars/4 estimate.
    server = await startScriptedModel(
      { rules: [], fallback: { text: 'Noted: the requirements are clear.' } },
      { tokenizer: (text) => Math.ceil(text.length / 2) },
    );
    await configureModel(server.url, { id: 'dense', name: 'Dense tokenizer', windowTokens: 200000 });
  });
  after(async () => {
    await unconfigureModel();
    if (server) await server.close();
  });

  it('after the first answer the thread is counted as the server counts it, tool definitions included', async () => {
    const model = await poll(async () => (await vscode.lm.selectChatModels({ vendor: 'rawr-openai', id: 'dense' }))[0], 15000, 'the dense model');
    const prompt = 'Requirements for the limiter: burst 20, refill 5/s, per-client keys, 429 with Retry-After. '.repeat(200);
    const rec = recordingStream();
    const result = await api.participant.handler(request(model, prompt), { history: [] }, rec.stream, new vscode.CancellationTokenSource().token);
    assert.ok(!result.errorDetails, result.errorDetails && result.errorDetails.message);
    const last = server.requests.at(-1);
    assert.ok(last.promptTokens > 9000, `the server counted ${last.promptTokens}`);
    // What the arbiter last saw: the thread after the answer (the request's messages + the reply) and the tools.
    const snap = await api.core.snapshot(result.metadata.rawrThreadId);
    const used = snap.state.tokens.used;
    const server_ = last.promptTokens + Math.ceil('Noted: the requirements are clear.'.length / 2) + 4;
    const off = Math.abs(used - server_) / server_;
    info().participantCalibration = { used, serverCount: server_, off: Number(off.toFixed(3)), uncalibratedWouldBe: Math.round(server_ / 2) };
    assert.ok(off < 0.05, `rawr counted ${used} tokens, the server ${server_} (${(off * 100).toFixed(1)}% apart); uncalibrated it would be about half`);
    // /status says how the count was made.
    const st = recordingStream();
    const history = [new /** @type {any} */ (vscode.ChatResponseTurn)([], { metadata: { rawrThreadId: result.metadata.rawrThreadId } }, 'rawr.rawr')];
    await api.participant.handler(request(model, '', 'status'), { history }, st.stream, new vscode.CancellationTokenSource().token);
    assert.match(
      st.text(),
      /Counted: the thread \d+ tokens \+ \d+ tool definitions \d+ tokens, with rawr's estimate ×2\.0\d, calibrated from the server's usage \(it counted \d+ prompt tokens where the estimate was \d+\)/,
      st.text(),
    );
    info().participantCalibrationStatus = /Counted: .*/.exec(st.text())[0];
  });
});
