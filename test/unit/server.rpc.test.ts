/**
 * The core process over JSON-RPC, as the extension talks to it: the compiled server (out/src/server/
 * main.js) forked with --node-ipc, a vscode-jsonrpc connection over the IPC channel. A realistic session
 * goes through the whole golden path; the process is then killed and a new one on the same log folder
 * answers with the same snapshot (the "dies, is restarted, replays its log" guarantee); bad requests
 * get JSON-RPC errors and leave the process serving.
 */
import * as assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as rpc from 'vscode-jsonrpc/node';
import type { Effect, EngineEvent } from '../../src/core/engine/types';
import { shippedPromptsDir } from '../../src/core/prompts/fs';
import type { Applied, ThreadInput, ThreadSnapshot } from '../../src/core/protocol/coreProtocol';
import type { ThreadMessage } from '../../src/core/thread/thread';
import { CORE_METHODS, MAX_INPUTS } from '../../src/core/protocol/coreProtocol';
import { GOOD_PACKET, usedFor, WINDOW } from '../support/engine';

/** The tsc build by default; RAWR_SERVER_MODULE=dist/server.js runs the same tests on the esbuild bundle. */
const SERVER = path.resolve(process.env.RAWR_SERVER_MODULE || path.join(__dirname, '../../src/server/main.js'));
const THREAD = 'thread-rpc-1';

interface Core {
  child: ChildProcess;
  conn: rpc.MessageConnection;
  request<R>(method: string, params?: unknown): Promise<R>;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running: Core[] = [];

async function startCore(logDir: string, init: Record<string, unknown> = {}): Promise<Core> {
  const child = fork(SERVER, ['--node-ipc'], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], execArgv: [] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout!.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const conn = rpc.createMessageConnection(new rpc.IPCMessageReader(child), new rpc.IPCMessageWriter(child));
  conn.onNotification(() => undefined); // window/logMessage and friends
  conn.listen();
  const core: Core = {
    child,
    conn,
    request: <R>(method: string, params?: unknown) => (params === undefined ? conn.sendRequest<R>(method) : conn.sendRequest<R>(method, params)),
    stderr: () => err,
    exited,
  };
  running.push(core);
  const result = await conn.sendRequest<{ capabilities: Record<string, unknown> }>('initialize', {
    processId: process.pid,
    rootUri: null,
    capabilities: {},
    initializationOptions: { logDir, promptDirs: [shippedPromptsDir()], ...init },
  });
  assert.ok(result.capabilities.hoverProvider, 'advertises hover');
  await conn.sendNotification('initialized', {});
  return core;
}

async function kill(core: Core): Promise<void> {
  core.child.kill('SIGKILL');
  await core.exited;
  core.conn.dispose();
}

/** The errors a JSON-RPC client sees (vscode-jsonrpc ResponseError). */
async function rpcError(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (e) {
    return e as { code: number; message: string };
  }
  assert.fail('expected a JSON-RPC error');
}

let clock = 1_700_000_000_000;
const at = () => (clock += 1000);
const find = <T extends Effect['type']>(fx: Effect[], t: T) => fx.filter((e): e is Extract<Effect, { type: T }> => e.type === t);

describe('core process (JSON-RPC over IPC)', function () {
  this.timeout(30_000);
  let logDir: string;

  beforeEach(() => {
    logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-core-rpc-'));
  });
  afterEach(async () => {
    for (const c of running.splice(0)) {
      if (c.child.exitCode === null && c.child.signalCode === null) await kill(c);
    }
    fs.rmSync(logDir, { recursive: true, force: true });
  });

  it('steps a session through the golden path, persists it, and a restarted process replays it', async () => {
    const core = await startCore(logDir);
    assert.equal(await core.request<number>(CORE_METHODS.pid), core.child.pid);
    // What a step said, its facts before its commands (the event log's order).
    const apply = (inputs: ThreadInput[]) => core.request<Applied>(CORE_METHODS.apply, { threadId: THREAD, inputs });
    const step = async (event: EngineEvent): Promise<Effect[]> => {
      const out = await apply([{ kind: 'event', event }]);
      return [...out.facts, ...out.commands];
    };
    const append = (message: ThreadMessage) => apply([{ kind: 'message', message }]);

    // A user turn: ask (the core puts it into the thread itself), run the commit in a terminal, the commit
    // boundary, the agent's answer, tokens at 30% left.
    const ask = 'Implement phase 2: the codex importer, with tests, then commit.';
    const asked = await apply([{ kind: 'event', event: { type: 'user_message', at: at(), text: ask } }]);
    assert.deepEqual(asked.commands, [{ type: 'append_user_message', text: ask }]);
    assert.deepEqual(asked.appended, [{ role: 'user', text: ask }]);
    assert.equal(asked.length, 1);
    await step({ type: 'tool_call', at: at(), id: 't-1', name: 'run_in_terminal', input: { command: 'git commit -am "importer"' } });
    await append({ role: 'assistant', text: '', toolCalls: [{ id: 't-1', name: 'run_in_terminal', input: { command: 'git commit -am "importer"' } }] });
    await step({ type: 'tool_result', at: at(), id: 't-1', output: '[main a1b2c3d] importer\n 2 files changed', isError: false, exitCode: 0 });
    await append({ role: 'tool', toolCallId: 't-1', name: 'run_in_terminal', text: '[main a1b2c3d] importer' });
    await step({ type: 'boundary', at: at(), source: 'terminal', boundary: { kind: 'commit', key: 'a1b2c3d', detail: 'a1b2c3d importer' } });
    await step({ type: 'assistant_message', at: at(), text: 'Committed the importer. Phase 2 is done; next is the CLI.' });
    await append({ role: 'assistant', text: 'Committed the importer. Phase 2 is done; next is the CLI.' });
    await step({ type: 'tokens', at: at(), used: usedFor(30), window: WINDOW });

    // The evaluation point: ready tier + commit → a judgment request (judgment is on in the shipped policy).
    let fx = await step({ type: 'evaluate', at: at(), point: 'turn_complete' });
    const judge = find(fx, 'request_judgment');
    assert.equal(judge.length, 1, JSON.stringify(fx.map((e) => e.type)));
    assert.equal(find(fx, 'decision')[0]!.decision.action, 'judge');

    fx = await step({ type: 'judgment_result', at: at(), corrId: judge[0]!.corrId, text: '{"should_compact": true, "reason": "phase 2 complete"}' });
    assert.equal(find(fx, 'decision')[0]!.decision.code, 'judgment_approved');
    assert.match(find(fx, 'inject_heads_up')[0]!.text, /commit a1b2c3d/);
    // One turn for the scratch notes and the packet.
    const request = find(fx, 'request_packet')[0]!;
    assert.match(request.scratchPath ?? '', /^\.scratch\/agent-.+\.scratch\.md$/);
    fx = await step({ type: 'packet', at: at(), seqId: request.seqId, text: GOOD_PACKET, scratchWritten: true });
    const compact = find(fx, 'compact')[0]!;
    assert.ok(compact.packet.includes('## What just completed'));

    // The host compacts: the atomic swap and the result, in one request; the core appends the handoff.
    const replacement: ThreadMessage[] = [{ role: 'user', text: 'summary of the conversation', synthetic: true, kind: 'summary' }];
    const done = await apply([
      { kind: 'swap', compaction: { seqId: compact.seqId, tokensBefore: usedFor(30), tokensAfter: 31_000, replacement } },
      { kind: 'event', event: { type: 'compaction_done', at: at(), seqId: compact.seqId, tokensBefore: usedFor(30), tokensAfter: 31_000 } },
    ]);
    fx = [...done.facts, ...done.commands];
    assert.deepEqual(
      fx.map((e) => e.type),
      ['compacted', 'sequence_ended', 'show_compacted', 'inject_handoff'],
    );
    assert.deepEqual(done.appended, [{ role: 'user', text: find(fx, 'inject_handoff')[0]!.text, synthetic: true, kind: 'handoff' }]);
    assert.equal(done.length, 2, 'the replacement, then the handoff');
    assert.equal(done.status.phase, 'idle');

    // Undo restores the archived thread (4 messages); a second undo has nothing left.
    const undone = await core.request<{ seqId: string; messages: ThreadMessage[] }>(CORE_METHODS.undo, { threadId: THREAD });
    assert.equal(undone.seqId, compact.seqId);
    assert.equal(undone.messages.length, 4);
    assert.equal(await core.request(CORE_METHODS.undo, { threadId: THREAD }), null);

    const before = await core.request<ThreadSnapshot>(CORE_METHODS.snapshot, { threadId: THREAD });
    assert.equal(before.state.turn, 1);
    assert.equal(before.state.seq.phase, 'idle');
    assert.equal(before.state.tokens?.used, 31_000);
    assert.deepEqual(
      before.messages.map((m) => m.role),
      ['user', 'assistant', 'tool', 'assistant'],
    );
    assert.deepEqual(
      before.decisions.map((d) => d.code),
      ['judgment_pending', 'judgment_approved'],
    );
    assert.deepEqual(before.compactions, []);
    assert.deepEqual(await core.request(CORE_METHODS.listThreads), [THREAD]);
    const exported = await core.request<string>(CORE_METHODS.exportLog, { threadId: THREAD });
    const kinds = exported
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { kind: string }).kind);
    assert.deepEqual([...new Set(kinds)].sort(), ['checkpoint', 'compaction', 'decision', 'effect', 'event', 'judgment', 'message', 'packet', 'undo']);

    // The process dies; a new one on the same folder rebuilds the thread from its log on first use.
    await kill(core);
    const again = await startCore(logDir);
    assert.notEqual(again.child.pid, core.child.pid);
    const after = await again.request<ThreadSnapshot>(CORE_METHODS.snapshot, { threadId: THREAD });
    assert.deepEqual(after.messages, before.messages);
    assert.equal(after.state.turn, before.state.turn);
    assert.deepEqual(after.decisions, before.decisions);
    assert.deepEqual(after.state, before.state, 'the whole engine state is rebuilt');
    assert.deepEqual(after.compactions, before.compactions);
    assert.deepEqual(after.problems, []);
    assert.equal(await again.request<string>(CORE_METHODS.exportLog, { threadId: THREAD }), exported);

    // …and keeps going from there.
    await again.request(CORE_METHODS.apply, { threadId: THREAD, inputs: [{ kind: 'event', event: { type: 'user_message', at: at(), text: 'Now the CLI.' } }] });
    assert.equal((await again.request<ThreadSnapshot>(CORE_METHODS.snapshot, { threadId: THREAD })).state.turn, 2);
  });

  it('configure applies to every thread; a restart given the config in initializationOptions starts with it', async () => {
    const core = await startCore(logDir);
    await core.request(CORE_METHODS.apply, { threadId: THREAD, inputs: [{ kind: 'event', event: { type: 'user_message', at: at(), text: 'hi' } }] });
    const snap = await core.request<ThreadSnapshot>(CORE_METHODS.snapshot, { threadId: THREAD });
    assert.equal(snap.state.settings.mode, 'auto');
    const config = { settings: { ...snap.state.settings, mode: 'suggest' }, prompts: snap.state.prompts, sources: {}, problems: [] };
    for (const name of Object.keys(snap.state.prompts)) (config.sources as Record<string, string>)[name] = 'built-in';
    assert.equal(await core.request(CORE_METHODS.configure, { config }), null);
    assert.equal((await core.request<ThreadSnapshot>(CORE_METHODS.snapshot, { threadId: THREAD })).state.settings.mode, 'suggest');
    assert.equal((await core.request<ThreadSnapshot>(CORE_METHODS.snapshot, { threadId: 'other' })).state.settings.mode, 'suggest');

    await kill(core);
    const fresh = await startCore(logDir);
    assert.equal((await fresh.request<ThreadSnapshot>(CORE_METHODS.snapshot, { threadId: THREAD })).state.settings.mode, 'auto', 'the files alone');
    await kill(fresh);
    const restarted = await startCore(logDir, { config });
    assert.equal((await restarted.request<ThreadSnapshot>(CORE_METHODS.snapshot, { threadId: THREAD })).state.settings.mode, 'suggest');
  });

  it('invalid params get a JSON-RPC error naming the field; the process keeps serving', async () => {
    const core = await startCore(logDir);
    const event = (ev: unknown) => ({ kind: 'event', event: ev });
    let e = await rpcError(
      core.request(CORE_METHODS.apply, { threadId: '../../etc/passwd', inputs: [event({ type: 'tokens', at: 1, used: 'lots', window: 1 })] }),
    );
    assert.equal(e.code, -32602);
    assert.match(e.message, /^rawr\/apply: invalid params: threadId: thread id must be 1–80 characters/);
    assert.match(e.message, /inputs\.0\.event\.used: Invalid input: expected number, received string/);

    e = await rpcError(core.request(CORE_METHODS.apply, { threadId: THREAD, inputs: [event({ type: 'explode', at: 1 })] }));
    assert.equal(e.code, -32602);
    assert.match(e.message, /inputs\.0\.event\.type: Invalid discriminator value\. Expected 'user_message' \| /);
    e = await rpcError(core.request(CORE_METHODS.apply, { threadId: THREAD, inputs: [{ kind: 'message', message: { role: 'robot', text: 'x' } }] }));
    assert.equal(e.code, -32602);
    e = await rpcError(core.request(CORE_METHODS.apply, { threadId: THREAD, inputs: [{ kind: 'swap' }] }));
    assert.match(e.message, /inputs\.0\.compaction: Invalid input: expected object, received undefined/);
    e = await rpcError(
      core.request(CORE_METHODS.apply, { threadId: THREAD, inputs: Array.from({ length: MAX_INPUTS + 1 }, () => event({ type: 'cancel', at: 1 })) }),
    );
    assert.match(e.message, /inputs: Too big/);
    e = await rpcError(core.request(CORE_METHODS.snapshot));
    assert.equal(e.code, -32602);
    e = await rpcError(core.request(CORE_METHODS.configure, { config: { settings: { mode: 'loud' } } }));
    assert.equal(e.code, -32602);
    e = await rpcError(core.request('rawr/explode', {}));
    assert.equal(e.code, -32601, 'unknown method');

    // Nothing of the above reached the log; the process is alive and answers.
    assert.deepEqual(await core.request(CORE_METHODS.listThreads), []);
    assert.equal(await core.request<number>(CORE_METHODS.pid), core.child.pid);
    assert.equal(core.child.exitCode, null);
    assert.equal(core.stderr(), '');
  });

  it('a failing service call is a JSON-RPC error, not a crash', async () => {
    const notADir = path.join(logDir, 'file');
    fs.writeFileSync(notADir, 'x');
    const core = await startCore(notADir);
    const e = await rpcError(core.request(CORE_METHODS.apply, { threadId: THREAD, inputs: [{ kind: 'message', message: { role: 'user', text: 'hi' } }] }));
    assert.equal(e.code, -32803);
    assert.match(e.message, /^rawr\/apply failed: (ENOTDIR|EEXIST)/);
    assert.equal(await core.request<number>(CORE_METHODS.pid), core.child.pid);
  });

  it('serves the prompt files: diagnostics pushed on open and change, hover, completion', async () => {
    const core = await startCore(logDir);
    const diagnostics: Array<{ uri: string; diagnostics: Array<{ range: { start: { line: number; character: number } }; message: string }> }> = [];
    let notify: () => void = () => undefined;
    core.conn.onNotification('textDocument/publishDiagnostics', (p: (typeof diagnostics)[number]) => {
      diagnostics.push(p);
      notify();
    });
    const next = (n: number) =>
      new Promise<void>((resolve) => {
        notify = () => diagnostics.length >= n && resolve();
        notify();
      });
    const uri = 'file:///ws/.rawr/prompts/rawr-auto-compact.md';
    const text = '---\nmode: loud\nfoo: 1\n---\nbody\n';
    await core.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'markdown', version: 1, text } });
    await next(1);
    assert.equal(diagnostics[0]!.uri, uri);
    assert.deepEqual(
      diagnostics[0]!.diagnostics.map((d) => [d.range.start.line, d.range.start.character, d.message.slice(0, 24)]),
      [
        [1, 6, 'invalid value for "mode"'],
        [2, 5, 'unknown setting "foo" (i'],
      ],
    );
    await core.conn.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [{ range: { start: { line: 1, character: 6 }, end: { line: 1, character: 10 } }, text: 'auto' }],
    });
    await next(2);
    assert.deepEqual(
      diagnostics[1]!.diagnostics.map((d) => d.range.start.line),
      [2],
    );

    const hover = await core.request<{ contents: { value: string } }>('textDocument/hover', { textDocument: { uri }, position: { line: 1, character: 1 } });
    assert.match(hover.contents.value, /^\*\*`mode`\*\* — rawr setting/);
    const items = await core.request<Array<{ label: string }>>('textDocument/completion', { textDocument: { uri }, position: { line: 1, character: 6 } });
    assert.deepEqual(
      items.map((i) => i.label),
      ['off', 'tag', 'suggest', 'auto'],
    );

    await core.conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
    await next(3);
    assert.deepEqual(diagnostics[2], { uri, diagnostics: [] });
  });

  it('bad initializationOptions fail the initialize request with a clear message', async () => {
    const child = fork(SERVER, ['--node-ipc'], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], execArgv: [] });
    const exited = new Promise<void>((r) => child.on('exit', () => r()));
    const conn = rpc.createMessageConnection(new rpc.IPCMessageReader(child), new rpc.IPCMessageWriter(child));
    conn.listen();
    try {
      const e = await rpcError(
        conn.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {}, initializationOptions: { promptDirs: 'x' } }),
      );
      assert.match(e.message, /rawr core: bad initializationOptions \(logDir: Invalid input: expected string, received undefined; promptDirs: /);
    } finally {
      child.kill('SIGKILL');
      await exited;
      conn.dispose();
    }
  });
});
