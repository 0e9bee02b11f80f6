// Overflow recovery in a real VS Code: the scripted model, behind rawr's own OpenAI-compatible provider,
// rejects an agent request with HTTP 400 context_length_exceeded. @rawr must compact at once with its own
// packet (no summary call), send the request again once, and the turn continues; a second rejection stops
// the turn with a clear message and the thread intact (src/host/participant/overflow.ts).
'use strict';
const assert = require('assert');
const path = require('path');
const vscode = require('vscode');
const { poll } = require('./index');
const { recordingStream, request, configureModel, unconfigureModel } = require('./support');

const repo = path.resolve(__dirname, '../../..');
const { startScriptedModel, multiPhaseScript, contextLengthExceeded, RAWR_MARKERS } = require(path.join(repo, 'out/test/support/scriptedModel.js'));

const textOf = (m) => (typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map((p) => p.text || '').join('') : '');
const handoffLast = (r) => textOf(r.messages[r.messages.length - 1] || {}).includes(RAWR_MARKERS.handoff);

/** The multi-phase script with a first rule that rejects agent requests (they carry tools) as too long. */
function script(reject) {
  let agentRequests = 0;
  const s = multiPhaseScript({ steps: ['Parse the input', 'Validate it', 'Write the output'], fillerChars: 300 });
  s.rules.unshift({
    name: 'too-long',
    when: (r) => r.tools.length > 0 && reject(++agentRequests, r),
    reply: contextLengthExceeded(20000, 23456),
  });
  return s;
}

describe('@rawr overflow recovery (real VS Code, HTTP 400 context_length_exceeded from the OpenAI-compatible provider)', function () {
  this.timeout(120000);
  let api;
  before(async () => {
    api = await vscode.extensions.getExtension('rawr.rawr').activate();
  });
  after(async () => unconfigureModel());

  async function runTurn(server) {
    await configureModel(server.url, { windowTokens: 20000 });
    const model = await poll(async () => (await vscode.lm.selectChatModels({ vendor: 'rawr-openai', id: 'scripted' }))[0], 15000, 'the scripted model');
    const rec = recordingStream();
    const result = await api.participant.handler(
      request(model, 'Convert the CSV report, step by step.'),
      { history: [] },
      rec.stream,
      new vscode.CancellationTokenSource().token,
    );
    return { result, text: rec.text(), snap: await api.core.snapshot(result.metadata.rawrThreadId) };
  }

  it('a rejected request compacts without a model call, is sent once more, and the turn continues', async () => {
    // The third agent request is rejected once; its retry (the handoff last) is answered.
    const server = await startScriptedModel(script((n, r) => n === 3 && !handoffLast(r)));
    try {
      const before = server.requests.length;
      const { result, text, snap } = await runTurn(server);
      assert.ok(!result.errorDetails, result.errorDetails && result.errorDetails.message);
      const reqs = server.requests.slice(before);
      const rejected = reqs.findIndex((r) => r.rule === 'too-long');
      assert.ok(rejected >= 0, 'the model rejected a request');
      // The chat says what happened, in order: the rejection, the compaction (no summary call), the handoff, the agent going on.
      const at = (re, from = 0) => {
        const k = text.slice(from).search(re);
        assert.ok(k >= 0, `transcript lacks ${re} after ${from}:\n${text.slice(from, from + 1500)}`);
        return from + k;
      };
      const said = at(/rejected the request as too long[^\n]*context_length_exceeded[^\n]*Compacting now/);
      const compacted = at(/Context compacted — [\d.k]+ → [\d.k]+ tokens \([^)]*no summary call/, said);
      const handoff = at(/rawr handoff → agent/, compacted);
      at(/All done/, handoff);
      // No summary (or any other) model call between the rejection and the retry; the retry ends with the handoff.
      const retry = reqs[rejected + 1];
      assert.ok(retry && handoffLast(retry), 'the next request is the retry with the handoff last');
      assert.ok(!reqs.some((r) => JSON.stringify(r.messages).includes(RAWR_MARKERS.summary)), 'no summary call');
      assert.ok(retry.messages.length < reqs[rejected].messages.length, 'the retry is shorter');
      assert.strictEqual(snap.compactions.length, 1);
    } finally {
      await server.close();
    }
  });

  it('a second rejection stops the turn with a clear message; the thread stays intact', async () => {
    const server = await startScriptedModel(script((n) => n >= 3));
    try {
      const before = server.requests.length;
      const { result, text, snap } = await runTurn(server);
      assert.ok(!result.errorDetails, result.errorDetails && result.errorDetails.message);
      assert.match(text, /rejected the request as too long again, even after the emergency compaction[\s\S]*thread is intact/);
      const reqs = server.requests.slice(before);
      assert.strictEqual(reqs.filter((r) => r.rule === 'too-long').length, 2, 'rejected once, retried once, then stopped');
      assert.strictEqual(reqs[reqs.length - 1].rule, 'too-long', 'nothing was sent after the second rejection');
      const last = snap.messages[snap.messages.length - 1];
      assert.ok(last.role === 'user' && last.kind === 'handoff', 'the compacted thread ends with the handoff');
      assert.strictEqual(snap.compactions.length, 1);
      assert.ok(snap.compactions[0].tokensAfter < snap.compactions[0].tokensBefore, 'the compaction shrank the thread (and /undo can restore it)');
    } finally {
      await server.close();
    }
  });
});
