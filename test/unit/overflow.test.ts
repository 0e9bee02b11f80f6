import * as assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { Effect, EngineState } from '../../src/core/engine/types';
import { step } from '../../src/core/engine/step';
import { compactedThread, selectRecentTail, tailBudget } from '../../src/core/sequence/recentTail';
import type { ThreadMessage } from '../../src/core/thread/thread';
import { streamChat, toOpenAIChatError, type OpenAIChatMessage } from '../../src/host/lm/openaiChat';
import { callWithOverflowRecovery, isContextOverflow } from '../../src/host/participant/overflow';
import { mkState, run, usedFor, WINDOW } from '../support/engine';
import { contextLengthExceeded, startScriptedModel, type ScriptedModel, type ScriptRequest } from '../support/scriptedModel';

describe('overflow recovery: recognising "too long"', () => {
  it("knows the servers' wordings and OpenAI's code, through cause chains; not other errors", () => {
    for (const msg of [
      "This model's maximum context length is 8192 tokens. However, your messages resulted in 10000 tokens.",
      'prompt is too long: 210345 tokens > 200000 maximum',
      'the request exceeds the available context size, try increasing it',
      "rawr-openai/x: the request is too long for the model's context (HTTP 400 context_length_exceeded: …)",
      'Input is too long for requested model.',
    ])
      assert.ok(isContextOverflow(new Error(msg)), msg);
    assert.ok(isContextOverflow({ message: 'Bad request', code: 'context_length_exceeded' }));
    assert.ok(isContextOverflow(new Error('request failed', { cause: new Error('prompt is too long') })));
    for (const msg of [
      'Invalid API key',
      'Rate limit reached',
      'tools[0].function.parameters is not valid JSON schema',
      'model "x" not found',
      'context canceled',
    ]) {
      assert.ok(!isContextOverflow(new Error(msg)), msg);
    }
    assert.ok(!isContextOverflow(undefined));
  });
});

describe('overflow recovery: the engine', () => {
  const working = (): EngineState =>
    run(mkState(), [
      { type: 'user_message', at: 1, text: 'Refactor the parser.' },
      { type: 'tool_call', at: 2, id: 'c1', name: 'Edit', input: { file_path: '/r/parser.ts' } },
      { type: 'tool_result', at: 3, id: 'c1', output: 'ok', isError: false },
      { type: 'tokens', at: 4, used: usedFor(60), window: WINDOW },
    ]).state;

  it('an overflow compacts at once with the watcher packet and no model call; the handoff follows', () => {
    const r = run(working(), [{ type: 'overflow', at: 5, error: 'maximum context length is 8192 tokens' }]);
    const types = r.effects.map((e) => e.type);
    const d = r.effects.find((e): e is Extract<Effect, { type: 'decision' }> => e.type === 'decision')!.decision;
    assert.equal(d.code, 'overflow');
    assert.match(d.reason, /rejected the request as too long/);
    for (const t of ['request_judgment', 'request_scratch_write', 'request_packet']) assert.ok(!types.includes(t as Effect['type']), `no ${t}`);
    assert.equal(r.effects.find((e): e is Extract<Effect, { type: 'show_packet' }> => e.type === 'show_packet')!.author, 'watcher');
    const compact = r.commands.find((e): e is Extract<Effect, { type: 'compact' }> => e.type === 'compact')!;
    assert.equal(compact.summarise, false);
    assert.match(compact.packet, /\/r\/parser\.ts/);
    const done = run(r.state, [{ type: 'compaction_done', at: 6, seqId: compact.seqId, tokensBefore: usedFor(60), tokensAfter: 2000 }]);
    assert.match(done.effects.find((e): e is Extract<Effect, { type: 'compacted' }> => e.type === 'compacted')!.text, /no summary call/);
    assert.ok(done.effects.some((e) => e.type === 'inject_handoff'));
    assert.equal(done.state.seq.phase, 'idle');
  });

  it('an overflow while a sequence runs leaves that sequence alone', () => {
    const s = run(working(), [{ type: 'compact_now', at: 5 }]).state;
    assert.notEqual(s.seq.phase, 'idle');
    const r = step(s, { type: 'overflow', at: 6, error: 'prompt is too long' });
    assert.deepEqual(
      [...r.facts, ...r.commands].map((e) => e.type),
      ['annotate'],
    );
    assert.equal(r.state.seq, s.seq);
  });
});

/**
 * The recovery end to end below the VS Code API: the scripted model over HTTP through the real openai
 * client (the provider's client code), the real engine, and the compaction the executor does for an
 * overflow (no summary call): recent turns verbatim, then the handoff.
 */
describe('overflow recovery: scripted model answering HTTP 400 context_length_exceeded', () => {
  let server: ScriptedModel;
  let rejectAll = false;
  const isHandoffLast = (r: ScriptRequest) => JSON.stringify(r.messages.at(-1)?.content ?? '').includes('[rawr handoff]');
  before(async () => {
    server = await startScriptedModel({
      rules: [
        { name: 'too-long', when: (r) => rejectAll || !isHandoffLast(r), reply: contextLengthExceeded(8192) },
        { name: 'continue', when: () => true, reply: { text: 'Continuing from the handoff: next I run the parser tests.' } },
      ],
    });
  });
  after(async () => server.close());

  async function session(): Promise<{ thread: ThreadMessage[]; state: EngineState; say: string[]; client: OpenAI }> {
    const thread: ThreadMessage[] = [{ role: 'user', text: 'Refactor the parser.' }];
    let state = mkState();
    for (let k = 0; k < 6; k++) {
      thread.push({ role: 'assistant', text: `step ${k}`, toolCalls: [{ id: `c${k}`, name: 'Edit', input: { file_path: `/r/p${k}.ts` } }] });
      thread.push({ role: 'tool', toolCallId: `c${k}`, name: 'Edit', text: `edited ${'x'.repeat(3000)}` });
      state = run(state, [
        { type: 'tool_call', at: 10 + k, id: `c${k}`, name: 'Edit', input: { file_path: `/r/p${k}.ts` } },
        { type: 'tool_result', at: 10 + k, id: `c${k}`, output: 'edited', isError: false },
      ]).state;
    }
    state = run(state, [
      { type: 'user_message', at: 1, text: 'Refactor the parser.' },
      { type: 'tokens', at: 20, used: 9000, window: 8192 },
    ]).state;
    return { thread, state, say: [], client: new OpenAI({ baseURL: server.url, apiKey: 'k', maxRetries: 0 }) };
  }

  const toOpenAI = (t: ThreadMessage[]): OpenAIChatMessage[] =>
    t.map((m) => (m.role === 'tool' ? { role: 'user', content: `[${m.name}] ${m.text}` } : { role: m.role, content: m.text }));

  async function recover(s: Awaited<ReturnType<typeof session>>) {
    const call = async () => {
      let text = '';
      try {
        for await (const p of streamChat(s.client, { model: 'scripted', messages: toOpenAI(s.thread) })) if (p.type === 'text') text += p.text;
      } catch (err) {
        throw toOpenAIChatError(err);
      }
      return text;
    };
    return callWithOverflowRecovery(call, {
      say: (md) => s.say.push(md),
      // What the effect executor does with the engine's effects for an overflow.
      compact: async (error) => {
        let r = step(s.state, { type: 'overflow', at: 30, error });
        s.state = r.state;
        const compact = r.commands.find((e): e is Extract<Effect, { type: 'compact' }> => e.type === 'compact');
        if (!compact || compact.summarise !== false) return false;
        const replacement = compactedThread(null, compact.packet, selectRecentTail(s.thread, tailBudget(4000, 8192, 9000)));
        r = step(s.state, { type: 'compaction_done', at: 31, seqId: compact.seqId, tokensBefore: 9000, tokensAfter: 1500 });
        s.state = r.state;
        s.thread.splice(0, s.thread.length, ...replacement);
        for (const e of r.commands) if (e.type === 'inject_handoff') s.thread.push({ role: 'user', text: e.text, synthetic: true, kind: 'handoff' });
        return true;
      },
    });
  }

  it('first rejection: compacts without a model call, sends once more, the turn continues', async () => {
    rejectAll = false;
    const before = server.requests.length;
    const s = await session();
    const r = await recover(s);
    assert.deepEqual(r, { ok: true, value: 'Continuing from the handoff: next I run the parser tests.' });
    const reqs = server.requests.slice(before);
    assert.equal(reqs.length, 2, 'the rejected request and its one retry: no summary call');
    assert.ok(reqs[1]!.messages.length < reqs[0]!.messages.length);
    assert.match(JSON.stringify(reqs[1]!.messages.at(-1)), /CONTEXT COMPACTION DETECTED[\s\S]*\/r\/p5\.ts/);
    assert.match(s.say.join(''), /rejected the request as too long[\s\S]*Compacting now/);
  });

  it('second rejection: stops with a clear message, no third request, the compacted thread intact', async () => {
    rejectAll = true;
    const before = server.requests.length;
    const s = await session();
    const r = await recover(s);
    assert.equal(r.ok, false);
    assert.match((r as { message: string }).message, /too long again[\s\S]*thread is intact/);
    assert.equal(server.requests.length - before, 2);
    assert.equal(s.thread.at(-1)!.role === 'user' && s.thread.at(-1)!.text.startsWith('[rawr handoff]'), true);
    assert.equal(s.state.seq.phase, 'idle');
  });

  it('other errors are not overflow: they propagate untouched, nothing is compacted', async () => {
    const s = await session();
    let compacted = false;
    await assert.rejects(
      callWithOverflowRecovery(
        async () => {
          throw new Error('Invalid API key');
        },
        { say: () => undefined, compact: async () => (compacted = true) },
      ),
      /Invalid API key/,
    );
    assert.equal(compacted, false);
    assert.equal(s.thread.length, 13);
  });
});

describe('agent_packet_replaces_summary', () => {
  it('a valid agent packet stands in for the summary call, with the trail facts appended; an invalid one does not', () => {
    const base = run(mkState({ scratch_write_enabled: false, judgment_enabled: false, agent_packet_replaces_summary: true }), [
      { type: 'user_message', at: 1, text: 'Refactor the parser.' },
      { type: 'tool_call', at: 2, id: 'c1', name: 'Bash', input: { command: 'git commit -am "parser: split"' } },
      { type: 'tool_result', at: 3, id: 'c1', output: '[main 9f8e7d6] parser: split', isError: false, exitCode: 0 },
      { type: 'compact_now', at: 4 },
    ]);
    const req = base.effects.find((e): e is Extract<Effect, { type: 'request_packet' }> => e.type === 'request_packet')!;
    const good = run(base.state, [{ type: 'packet', at: 5, seqId: req.seqId, text: GOOD }]);
    const compact = good.effects.find((e): e is Extract<Effect, { type: 'compact' }> => e.type === 'compact')!;
    assert.equal(compact.summarise, false);
    assert.ok(compact.packet.startsWith(GOOD.trim()));
    assert.match(compact.packet, /## Facts rawr recorded from the session trail[\s\S]*`9f8e7d6` parser: split/);
    const bad = run(base.state, [{ type: 'packet', at: 5, seqId: req.seqId, text: 'ok' }]);
    assert.equal(
      bad.effects.find((e): e is Extract<Effect, { type: 'compact' }> => e.type === 'compact')!.summarise,
      undefined,
      'the watcher packet still gets a summary',
    );
  });
});

const GOOD = `## What just completed
Split the parser into lexer and grammar; commit 9f8e7d6.

## Where we are now
Tests pass for the lexer; the grammar has no tests yet.

## What's next
Write grammar tests, then wire the CLI.

## Decisions, invariants and traps
Keep the lexer free of I/O. Do not change the public parse() signature.
`;
