/**
 * The vscode-free OpenAI-compatible core (src/host/lm/openaiChat.ts) against the scripted model server
 * over loopback, with the real `openai` client; plus the server's own contract (non-streaming, /v1/models,
 * API key) and the multi-phase script that the rest of the project's tests use.
 */
import * as assert from 'node:assert/strict';
import OpenAI from 'openai';
import {
  estimateTokens,
  OpenAIChatError,
  streamChat,
  TOKENS_PER_MESSAGE,
  type OpenAIChatMessage,
  type OpenAITool,
  type StreamPart,
} from '../../src/host/lm/openaiChat';
import {
  lastUserText,
  multiPhaseScript,
  phaseState,
  RAWR_MARKERS,
  startScriptedModel,
  type ScriptedModel,
  type ScriptMessage,
  type ScriptRequest,
  type ScriptRule,
} from '../support/scriptedModel';

const EDIT_TOOL: OpenAITool = {
  type: 'function',
  function: {
    name: 'edit_file',
    description: 'Edit a file',
    parameters: { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } }, required: ['path'] },
  },
};

async function collect(it: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const out: StreamPart[] = [];
  for await (const p of it) out.push(p);
  return out;
}
const textOfParts = (parts: StreamPart[]) =>
  parts
    .filter((p) => p.type === 'text')
    .map((p) => (p as { text: string }).text)
    .join('');
const callsOf = (parts: StreamPart[]) => parts.filter((p): p is Extract<StreamPart, { type: 'tool_call' }> => p.type === 'tool_call');

async function rejects(p: Promise<unknown>): Promise<OpenAIChatError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof OpenAIChatError, `expected OpenAIChatError, got ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}`);
    return e;
  }
  assert.fail('expected a rejection');
}

describe('openaiChat.streamChat against the scripted model (real openai client, loopback)', () => {
  let server: ScriptedModel;
  let client: OpenAI;
  const rules: ScriptRule[] = [
    {
      name: 'long-text',
      when: (r) => lastUserText(r) === 'say something long',
      reply: { text: 'The quick brown fox jumps over the lazy dog. '.repeat(5), textChunkSize: 7 },
    },
    {
      name: 'one-call',
      when: (r) => lastUserText(r) === 'edit please' && r.messages[r.messages.length - 1]!.role === 'user',
      reply: {
        text: 'Editing now.',
        toolCalls: [{ name: 'edit_file', arguments: { path: 'src/a.ts', text: 'export const a = "{\\"x\\": [1, 2]}";' }, id: 'call_edit_1' }],
        argChunks: 5,
      },
    },
    {
      name: 'after-tool',
      when: (r) => r.messages[r.messages.length - 1]!.role === 'tool',
      reply: (r) => ({ text: `Saw ${r.messages.filter((m) => m.role === 'tool').length} tool result(s).` }),
    },
    {
      name: 'two-calls',
      when: (r) => lastUserText(r) === 'two at once',
      reply: {
        toolCalls: [
          { name: 'edit_file', arguments: { path: 'a.ts' } },
          { name: 'read_file', arguments: { path: 'b.ts', lines: [1, 20] } },
        ],
        interleaveToolCalls: true,
        argChunks: 4,
      },
    },
    { name: 'bad-json', when: (r) => lastUserText(r) === 'bad json', reply: { toolCalls: [{ name: 'edit_file', arguments: '{"path": "a.ts", ' }] } },
    { name: 'no-args', when: (r) => lastUserText(r) === 'no args', reply: { toolCalls: [{ name: 'list_files', arguments: '' }] } },
    {
      name: '401',
      when: (r) => lastUserText(r) === 'unauthorized',
      reply: { status: 401, error: { message: 'Invalid API key: sk-…abcd', type: 'invalid_request_error', code: 'invalid_api_key' } },
    },
    { name: '500', when: (r) => lastUserText(r) === 'crash', reply: { status: 500, error: 'model backend exploded (CUDA out of memory)' } },
    { name: '404', when: (r) => lastUserText(r) === 'missing', reply: { status: 404, error: 'model "nope" not found' } },
    { name: 'slow', when: (r) => lastUserText(r) === 'slow', reply: { text: 'x'.repeat(400), textChunkSize: 4, chunkDelayMs: 15 } },
    {
      name: 'drop',
      when: (r) => lastUserText(r) === 'drop',
      reply: { text: 'partial answer that never ends', textChunkSize: 5, dropAfterChunks: 3, chunkDelayMs: 10 },
    },
  ];

  before(async () => {
    server = await startScriptedModel({ rules, fallback: { text: 'fallback' } });
    // maxRetries 0: the error tests must see the first answer, not a retry.
    client = new OpenAI({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0 });
  });
  after(async () => server.close());

  const user = (content: string): OpenAIChatMessage[] => [{ role: 'user', content }];

  it('reassembles streamed text', async () => {
    const parts = await collect(streamChat(client, { model: 'scripted', messages: user('say something long') }));
    assert.equal(textOfParts(parts), 'The quick brown fox jumps over the lazy dog. '.repeat(5));
    assert.ok(parts.length > 10, `text arrives in pieces (${parts.length} parts)`);
    assert.equal(server.requests.at(-1)!.stream, true);
  });

  it('reassembles a tool call split over several chunks, with parsed arguments', async () => {
    const parts = await collect(streamChat(client, { model: 'scripted', messages: user('edit please'), tools: [EDIT_TOOL] }));
    assert.equal(textOfParts(parts), 'Editing now.');
    const calls = callsOf(parts);
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0], {
      type: 'tool_call',
      id: 'call_edit_1',
      name: 'edit_file',
      input: { path: 'src/a.ts', text: 'export const a = "{\\"x\\": [1, 2]}";' },
    });
    // the text came before the call, as streamed
    assert.equal(parts.at(-1)!.type, 'tool_call');
  });

  it('reassembles two parallel tool calls whose chunks are interleaved', async () => {
    const parts = await collect(streamChat(client, { model: 'scripted', messages: user('two at once'), tools: [EDIT_TOOL] }));
    const calls = callsOf(parts);
    assert.deepEqual(
      calls.map((c) => [c.name, c.input]),
      [
        ['edit_file', { path: 'a.ts' }],
        ['read_file', { path: 'b.ts', lines: [1, 20] }],
      ],
    );
    assert.notEqual(calls[0]!.id, calls[1]!.id);
  });

  it('empty tool-call arguments parse as {}', async () => {
    const calls = callsOf(await collect(streamChat(client, { model: 'scripted', messages: user('no args') })));
    assert.deepEqual(
      calls.map((c) => [c.name, c.input]),
      [['list_files', {}]],
    );
  });

  it('invalid tool-call JSON → a clear invalid_tool_call error naming the tool', async () => {
    const e = await rejects(collect(streamChat(client, { model: 'scripted', messages: user('bad json'), tools: [EDIT_TOOL] })));
    assert.equal(e.kind, 'invalid_tool_call');
    assert.match(e.message, /tool "edit_file"/);
    assert.match(e.message, /not valid JSON/);
    assert.match(e.message, /\{"path": "a\.ts",/);
  });

  it('HTTP 401 → an auth error carrying the server message', async () => {
    const e = await rejects(collect(streamChat(client, { model: 'scripted', messages: user('unauthorized') })));
    assert.equal(e.kind, 'auth');
    assert.equal(e.status, 401);
    assert.equal(e.serverMessage, 'Invalid API key: sk-…abcd');
    assert.match(e.message, /HTTP 401: Invalid API key: sk-…abcd/);
  });

  it('HTTP 500 → a server error carrying the server message', async () => {
    const e = await rejects(collect(streamChat(client, { model: 'scripted', messages: user('crash') })));
    assert.equal(e.kind, 'server');
    assert.equal(e.status, 500);
    assert.match(e.message, /HTTP 500: model backend exploded \(CUDA out of memory\)/);
  });

  it('HTTP 404 → not_found', async () => {
    const e = await rejects(collect(streamChat(client, { model: 'nope', messages: user('missing') })));
    assert.equal(e.kind, 'not_found');
    assert.match(e.serverMessage, /model "nope" not found/);
  });

  it('an unreachable server → a connection error', async () => {
    const dead = await startScriptedModel([]);
    await dead.close();
    const c = new OpenAI({ baseURL: dead.url, apiKey: 'x', maxRetries: 0 });
    const e = await rejects(collect(streamChat(c, { model: 'scripted', messages: user('hi') })));
    assert.equal(e.kind, 'connection');
    assert.match(e.message, /Cannot reach the OpenAI-compatible server/);
  });

  it('a stream the server cuts off mid-way fails instead of hanging', async () => {
    const parts: StreamPart[] = [];
    const e = await rejects(
      (async () => {
        for await (const p of streamChat(client, { model: 'scripted', messages: user('drop') })) parts.push(p);
      })(),
    );
    assert.equal(e.kind, 'connection');
    assert.match(e.message, /broke off mid-stream/);
    assert.ok(textOfParts(parts).length < 'partial answer that never ends'.length);
  });

  it('aborting mid-stream stops the stream and the server sees the client go away', async () => {
    const ac = new AbortController();
    const parts: StreamPart[] = [];
    const e = await rejects(
      (async () => {
        for await (const p of streamChat(client, { model: 'scripted', messages: user('slow'), signal: ac.signal })) {
          parts.push(p);
          if (parts.length === 5) ac.abort();
        }
      })(),
    );
    assert.equal(e.kind, 'aborted');
    assert.equal(parts.length, 5, 'no part after the abort');
    const rec = server.requests.at(-1)!;
    assert.equal(rec.rule, 'slow');
    await waitUntil(() => rec.clientClosed, 10_000, 'server saw the disconnect');
    // Counted, not timed: the server stopped writing before the end of its 100 text chunks.
    assert.ok(rec.chunksSent < 100, `the server stopped after ${rec.chunksSent} of its 100 text chunks`);
  });

  it('an already-aborted signal never sends the request', async () => {
    const n = server.requests.length;
    const ac = new AbortController();
    ac.abort();
    const e = await rejects(collect(streamChat(client, { model: 'scripted', messages: user('say something long'), signal: ac.signal })));
    assert.equal(e.kind, 'aborted');
    assert.equal(server.requests.length, n);
  });

  it('the server records the messages and tools it was sent, including tool-role messages', async () => {
    const messages: OpenAIChatMessage[] = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'edit please' },
      {
        role: 'assistant',
        content: 'Editing now.',
        tool_calls: [{ id: 'call_edit_1', type: 'function', function: { name: 'edit_file', arguments: '{"path":"src/a.ts"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_edit_1', content: 'edited src/a.ts (+3 -1)' },
    ];
    const parts = await collect(
      streamChat(client, { model: 'my-model', messages, tools: [EDIT_TOOL], toolChoice: 'required', maxTokens: 256, temperature: 0 }),
    );
    assert.equal(textOfParts(parts), 'Saw 1 tool result(s).');
    const rec = server.requests.at(-1)!;
    assert.equal(rec.rule, 'after-tool');
    assert.equal(rec.model, 'my-model');
    assert.deepEqual(rec.messages, messages);
    assert.deepEqual(rec.tools, [EDIT_TOOL]);
    assert.equal(rec.body.tool_choice, 'required');
    assert.equal(rec.body.max_tokens, 256);
    assert.equal(rec.body.temperature, 0);
    assert.equal(rec.headers.authorization, 'Bearer test-key');
  });

  it('no tools → neither tools nor tool_choice is sent', async () => {
    await collect(streamChat(client, { model: 'scripted', messages: user('hello'), toolChoice: 'required' }));
    const rec = server.requests.at(-1)!;
    assert.equal(rec.rule, 'fallback');
    assert.equal('tools' in rec.body, false);
    assert.equal('tool_choice' in rec.body, false);
  });
});

describe("streamChat's usage part: the server's own token count (loopback, real openai client)", () => {
  let plain: ScriptedModel;
  let dense: ScriptedModel;
  before(async () => {
    plain = await startScriptedModel([], {});
    // A model whose tokenizer makes twice as many tokens as the chars/4 estimate (CJK text, dense JSON).
    dense = await startScriptedModel([], { tokenizer: (t) => Math.ceil(t.length / 2) });
  });
  after(async () => {
    await plain.close();
    await dense.close();
  });
  const long: OpenAIChatMessage[] = [
    { role: 'system', content: 'You are a careful engineer. '.repeat(40) },
    { role: 'user', content: 'Explain the token bucket algorithm in detail. '.repeat(60) },
  ];

  it('with includeUsage: stream_options is sent and a usage part carries the prompt count', async () => {
    const c = new OpenAI({ baseURL: plain.url, apiKey: 'x', maxRetries: 0 });
    const parts = await collect(streamChat(c, { model: 'scripted', messages: long, includeUsage: true }));
    assert.deepEqual(plain.requests.at(-1)!.body.stream_options, { include_usage: true });
    const usage = parts.filter((p) => p.type === 'usage');
    assert.equal(usage.length, 1);
    const u = usage[0] as Extract<StreamPart, { type: 'usage' }>;
    // The default scripted tokenizer is chars/4, like the estimate: they agree within a few tokens.
    assert.ok(Math.abs(u.promptTokens - estimateTokens(long)) <= 4, `${u.promptTokens} vs estimate ${estimateTokens(long)}`);
    assert.ok(u.completionTokens! > 0);
    assert.equal(parts.at(-1)!.type, 'usage', 'the usage chunk comes last');
  });

  it("a denser tokenizer's count is what the usage part reports", async () => {
    const c = new OpenAI({ baseURL: dense.url, apiKey: 'x', maxRetries: 0 });
    const parts = await collect(streamChat(c, { model: 'scripted', messages: long, includeUsage: true }));
    const u = parts.find((p) => p.type === 'usage') as Extract<StreamPart, { type: 'usage' }>;
    const ratio = u.promptTokens / estimateTokens(long);
    assert.ok(ratio > 1.9 && ratio < 2.1, `ratio ${ratio}`);
  });

  it('a server that rejects stream_options is asked again without it, once, and the caller is told', async () => {
    // As older Azure OpenAI API versions answer an unknown argument.
    const strict = await startScriptedModel({
      rules: [
        {
          name: 'reject-stream-options',
          when: (r) => r.body.stream_options !== undefined,
          reply: { status: 400, error: { message: 'Unrecognized request argument supplied: stream_options', type: 'invalid_request_error', code: null } },
        },
      ],
      fallback: { text: 'answered without usage' },
    });
    try {
      const c = new OpenAI({ baseURL: strict.url, apiKey: 'x', maxRetries: 0 });
      const rejected: string[] = [];
      const parts = await collect(streamChat(c, { model: 'scripted', messages: long, includeUsage: true, onUsageRejected: (m) => rejected.push(m) }));
      assert.equal(textOfParts(parts), 'answered without usage');
      assert.deepEqual(rejected, ['Unrecognized request argument supplied: stream_options']);
      assert.deepEqual(
        strict.requests.map((r) => r.rule),
        ['reject-stream-options', 'fallback'],
      );
      assert.equal(strict.requests[1]!.body.stream_options, undefined);
      // Any other 400 is the caller's error, not retried.
      strict.setScript({ rules: [{ name: 'bad', when: () => true, reply: { status: 400, error: 'messages: too long' } }] });
      const e = await rejects(collect(streamChat(c, { model: 'scripted', messages: long, includeUsage: true, onUsageRejected: (m) => rejected.push(m) })));
      assert.equal(e.kind, 'bad_request');
      assert.equal(rejected.length, 1);
      assert.equal(strict.requests.length, 3);
    } finally {
      await strict.close();
    }
  });

  it('without includeUsage: no stream_options, no usage part', async () => {
    const c = new OpenAI({ baseURL: plain.url, apiKey: 'x', maxRetries: 0 });
    const parts = await collect(streamChat(c, { model: 'scripted', messages: long }));
    assert.equal(plain.requests.at(-1)!.body.stream_options, undefined);
    assert.deepEqual(
      parts.map((p) => p.type),
      parts.map(() => 'text'),
    );
  });
});

describe('scripted model server', () => {
  it('answers non-streaming requests with text and tool calls', async () => {
    const m = await startScriptedModel([{ when: () => true, reply: { text: 'plain', toolCalls: [{ name: 't', arguments: { a: 1 } }] } }]);
    try {
      const c = new OpenAI({ baseURL: m.url, apiKey: 'k', maxRetries: 0 });
      const r = await c.chat.completions.create({ model: 'scripted', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(r.choices[0]!.message.content, 'plain');
      const tc = r.choices[0]!.message.tool_calls![0]!;
      assert.equal(tc.type, 'function');
      assert.deepEqual(tc.type === 'function' && [tc.function.name, JSON.parse(tc.function.arguments)], ['t', { a: 1 }]);
      assert.equal(r.choices[0]!.finish_reason, 'tool_calls');
      assert.ok(r.usage!.prompt_tokens > 0);
      assert.equal(m.requests[0]!.stream, false);
    } finally {
      await m.close();
    }
  });

  it('lists its models at GET /v1/models', async () => {
    const m = await startScriptedModel([], { models: ['a', 'b'] });
    try {
      const c = new OpenAI({ baseURL: m.url, apiKey: 'k', maxRetries: 0 });
      const ids: string[] = [];
      for await (const model of c.models.list()) ids.push(model.id);
      assert.deepEqual(ids, ['a', 'b']);
      assert.match(m.url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    } finally {
      await m.close();
    }
  });

  it('enforces apiKey when configured (401 with the server message), and rule `times`', async () => {
    const m = await startScriptedModel(
      [
        { name: 'once', when: () => true, reply: { text: 'first' }, times: 1 },
        { name: 'then', when: () => true, reply: { text: 'second' } },
      ],
      { apiKey: 'sk-right' },
    );
    try {
      const wrong = new OpenAI({ baseURL: m.url, apiKey: 'sk-wrong', maxRetries: 0 });
      const e = await rejects(collect(streamChat(wrong, { model: 'm', messages: [{ role: 'user', content: 'x' }] })));
      assert.equal(e.kind, 'auth');
      assert.equal(e.serverMessage, 'Incorrect API key provided.');
      const right = new OpenAI({ baseURL: m.url, apiKey: 'sk-right', maxRetries: 0 });
      const texts = [];
      for (let i = 0; i < 3; i++) texts.push(textOfParts(await collect(streamChat(right, { model: 'm', messages: [{ role: 'user', content: 'x' }] }))));
      assert.deepEqual(texts, ['first', 'second', 'second']);
      assert.deepEqual(
        m.requests.map((r) => r.rule),
        ['(unauthorized)', 'once', 'then', 'then'],
      );
      const usage = await right.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'x' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let sawUsage = false;
      for await (const ch of usage) if (ch.usage) sawUsage = true;
      assert.ok(sawUsage, 'usage chunk when stream_options.include_usage');
    } finally {
      await m.close();
    }
  });
});

describe('estimateTokens', () => {
  it('is chars/4 (rounded up) for text', () => {
    assert.equal(estimateTokens(''), 0);
    assert.equal(estimateTokens('abcd'), 1);
    assert.equal(estimateTokens('abcde'), 2);
    assert.equal(estimateTokens('x'.repeat(4000)), 1000);
  });
  it('adds a per-message overhead and counts tool calls and tool results', () => {
    const one: OpenAIChatMessage = { role: 'user', content: 'x'.repeat(40) };
    assert.equal(estimateTokens(one), 10 + TOKENS_PER_MESSAGE);
    const withCall: OpenAIChatMessage[] = [
      one,
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'abcd', arguments: '{"k":"vvvvvvv"}' } }] },
      { role: 'tool', tool_call_id: 'c', content: 'y'.repeat(20) },
    ];
    assert.equal(estimateTokens(withCall), Math.ceil((40 + 4 + 15 + 20) / 4) + 3 * TOKENS_PER_MESSAGE);
    assert.equal(estimateTokens([]), 0);
  });
});

describe('multiPhaseScript (the project-wide scripted session)', () => {
  let server: ScriptedModel;
  let client: OpenAI;
  before(async () => {
    server = await startScriptedModel(multiPhaseScript());
    client = new OpenAI({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
  });
  after(async () => server.close());

  const RAWR_TOOLS: OpenAITool[] = [
    { type: 'function', function: { name: 'rawr_update_plan', description: 'plan', parameters: { type: 'object' } } },
    { type: 'function', function: { name: 'rawr_write_scratch', description: 'scratch', parameters: { type: 'object' } } },
  ];
  async function turn(messages: OpenAIChatMessage[]): Promise<{ text: string; calls: ReturnType<typeof callsOf> }> {
    const parts = await collect(streamChat(client, { model: 'scripted', messages, tools: RAWR_TOOLS }));
    return { text: textOfParts(parts), calls: callsOf(parts) };
  }
  /** Runs the tool loop like @rawr would: append the assistant message and a tool result per call. */
  async function loop(messages: OpenAIChatMessage[], maxCalls = 20): Promise<string[]> {
    const texts: string[] = [];
    for (let i = 0; i < maxCalls; i++) {
      const r = await turn(messages);
      texts.push(r.text);
      if (r.calls.length === 0) return texts;
      messages.push({
        role: 'assistant',
        content: r.text || null,
        tool_calls: r.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } })),
      });
      for (const c of r.calls) messages.push({ role: 'tool', tool_call_id: c.id, content: 'ok' });
    }
    assert.fail('the tool loop did not end');
  }

  it('plays the plan phase by phase with rawr_update_plan (one step completed per phase), then says it is done', async () => {
    const messages: OpenAIChatMessage[] = [{ role: 'user', content: 'Add rate limiting to the API server.' }];
    const texts = await loop(messages);
    const plans = messages
      .flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []) : []))
      .map((c) => JSON.parse(c.function.arguments) as { steps: Array<{ text: string; status: string }> });
    assert.equal(plans.length, 6, '3 steps × (start, complete)');
    assert.deepEqual(
      plans.map((p) => p.steps.map((s) => s.status[0]).join('')),
      ['ipp', 'cpp', 'cip', 'ccp', 'cci', 'ccc'],
    );
    assert.ok(plans.every((p) => p.steps.every((s) => typeof s.text === 'string' && s.text.length > 0)));
    assert.match(texts.at(-1)!, /^All done/);
  });

  it('judgment prompt → strict JSON', async () => {
    const r = await turn([
      { role: 'system', content: '[rawr] You are an internal scheduler deciding whether to trigger RAWR auto-compaction **right now**.' },
      { role: 'user', content: 'Context: tier ready' },
    ]);
    const v = JSON.parse(r.text) as { should_compact: unknown; reason: unknown };
    assert.equal(v.should_compact, true);
    assert.equal(typeof v.reason, 'string');
    assert.equal(r.calls.length, 0);
  });

  it('scratch request → rawr_write_scratch {content} (with the packet request too: the packet as its text); its result → a one-line confirmation; packet → four sections', async () => {
    const messages: OpenAIChatMessage[] = [{ role: 'user', content: 'Add rate limiting to the API server.' }];
    // play up to the first completed step
    for (let i = 0; i < 2; i++) {
      const r = await turn(messages);
      messages.push({
        role: 'assistant',
        content: r.text,
        tool_calls: r.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } })),
      });
      for (const c of r.calls) messages.push({ role: 'tool', tool_call_id: c.id, content: 'ok' });
    }
    messages.push({
      role: 'user',
      content: '[rawr] Save your working notes: call the `rawr_write_scratch` tool once with them (they go to `.scratch/agent-rawr.scratch.md`).',
    });
    // Asked for the notes and the packet in one turn (the agent packet): the packet is the text, the notes a call.
    const both = await turn([...messages.slice(0, -1), { role: 'user', content: `${String(messages.at(-1)!.content)}\n\n${RAWR_MARKERS.packet} now.` }]);
    assert.deepEqual(
      both.calls.map((c) => c.name),
      ['rawr_write_scratch'],
    );
    assert.match(both.text, /## What just completed[\s\S]*## Decisions, invariants and traps/);
    const s = await turn(messages);
    assert.deepEqual(
      s.calls.map((c) => c.name),
      ['rawr_write_scratch'],
    );
    const content = (s.calls[0]!.input as { content: string }).content;
    assert.match(content, /Steps completed: 1 of 3/);
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: s.calls[0]!.id, type: 'function', function: { name: 'rawr_write_scratch', arguments: JSON.stringify(s.calls[0]!.input) } }],
    });
    messages.push({ role: 'tool', tool_call_id: s.calls[0]!.id, content: 'written' });
    const confirm = await turn(messages);
    assert.match(confirm.text, /Working notes written to `\.scratch\/agent-rawr\.scratch\.md`/);
    messages.push({ role: 'assistant', content: confirm.text });

    messages.push({ role: 'user', content: `${RAWR_MARKERS.packet} now. It is the only thing that survives the compaction.` });
    const packet = await turn(messages);
    assert.equal(packet.calls.length, 0);
    assert.ok(packet.text.length >= 400, `packet is ${packet.text.length} chars`);
    const order = ['## What just completed', '## Where we are now', "## What's next", '## Decisions, invariants and traps'].map((h) => packet.text.indexOf(h));
    assert.ok(
      order.every((i) => i >= 0),
      'all four sections',
    );
    assert.deepEqual(
      [...order].sort((a, b) => a - b),
      order,
      'in order',
    );
    assert.match(packet.text, /Steps completed: 1 of 3/);

    // summary, then the handoff: the work continues with step 2 (state recovered from the packet)
    const summary = await turn([{ role: 'system', content: '[rawr] Summarise the conversation so far for the same agent.' }, ...messages]);
    assert.match(summary.text, /Steps completed: 1 of 3/);
    assert.match(summary.text, /Add rate limiting to the API server/);
    const after: OpenAIChatMessage[] = [
      { role: 'user', content: summary.text },
      {
        role: 'user',
        content: `[rawr handoff] ⚠️ CONTEXT COMPACTION DETECTED\n<continuation-packet>\n${packet.text}\n</continuation-packet>\nContinue from here.`,
      },
    ];
    const next = await turn(after);
    assert.match(next.text, /step 2 of 3/i);
    assert.deepEqual(
      (next.calls[0]!.input as { steps: Array<{ status: string }> }).steps.map((x) => x.status),
      ['completed', 'in_progress', 'pending'],
    );
    const req: ScriptRequest = { index: 0, model: 'm', messages: after as ScriptMessage[], tools: [], stream: true, body: {}, headers: {} };
    assert.equal(phaseState(req).task, 'Add rate limiting to the API server.');
  });

  it('stopAfterEachPhase ends the turn after each completed step', async () => {
    const m = await startScriptedModel(multiPhaseScript({ stopAfterEachPhase: true, steps: ['one', 'two'], fillerChars: 500 }));
    try {
      client = new OpenAI({ baseURL: m.url, apiKey: 'k', maxRetries: 0 });
      const messages: OpenAIChatMessage[] = [{ role: 'user', content: 'go' }];
      const t1 = await loop(messages);
      assert.match(t1.at(-1)!, /Step 1 of 2 is complete/);
      assert.ok(
        t1.some((t) => t.length > 500),
        'filler grows the context',
      );
      messages.push({ role: 'assistant', content: t1.at(-1)! }, { role: 'user', content: 'continue' });
      const t2 = await loop(messages);
      assert.match(t2.at(-1)!, /^All done: all 2 plan steps/, 'the last step ends with "All done"');
    } finally {
      await m.close();
      client = new OpenAI({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
    }
  });
});

async function waitUntil(pred: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) assert.fail(`timeout: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
