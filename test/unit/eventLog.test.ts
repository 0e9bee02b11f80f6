import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { initialState } from '../../src/core/engine/state';
import { step } from '../../src/core/engine/step';
import type { EngineEvent, EngineState } from '../../src/core/engine/types';
import { EventLog } from '../../src/core/log/eventLog';
import { parseLog, readLog, streamLog } from '../../src/core/logformat/reader';
import type { LogRecord, NewLogRecord } from '../../src/core/logformat/records';
import { rebuild } from '../../src/core/log/rebuild';
import { dirReader, shippedPromptsDir } from '../../src/core/prompts/fs';
import { loadPromptSet } from '../../src/core/prompts/promptSet';
import type { ThreadMessage } from '../../src/core/thread/thread';
import { rec, T0 } from '../support/logLine';

// This file compiles to out/test/unit/; the compiled log module sits at out/src/core/log/eventLog.js.
const COMPILED_EVENT_LOG = path.resolve(__dirname, '../../src/core/log/eventLog.js');

let tmp: string;
/** A fresh temp folder per test (called inside each describe: hooks at file level would apply to every file). */
function useTmpDir() {
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-log-'));
  });
  afterEach(() => {
    fs.rmSync(tmp, { recursive: true, force: true });
  });
}

describe('event log: append and read', () => {
  useTmpDir();
  it('round-trips every record kind, stamping rawr:1 and the thread, with 1-based line numbers', () => {
    const file = path.join(tmp, 'nested', 'dir', 'th-1.jsonl'); // the folder does not exist yet
    const log = new EventLog(file, 'th-1');
    const written: NewLogRecord[] = [
      { kind: 'event', at: T0, event: { type: 'user_message', at: T0, text: 'Implement the codex importer; commit when tests pass.' } },
      { kind: 'message', at: T0 + 1, message: { role: 'user', text: 'Implement the codex importer; commit when tests pass.' } },
      {
        kind: 'message',
        at: T0 + 2,
        message: {
          role: 'assistant',
          text: 'Reading the schema first.',
          toolCalls: [{ id: 'call_1', name: 'Read', input: { file_path: 'src/import/codex.ts' } }],
        },
      },
      { kind: 'message', at: T0 + 3, message: { role: 'tool', toolCallId: 'call_1', name: 'Read', text: 'export function importCodex…', isError: false } },
      { kind: 'decision', at: T0 + 4, decision: { id: 'd1', action: 'none', code: 'above_threshold', reason: '81% remaining', tier: null } },
      { kind: 'judgment', at: T0 + 5, corrId: 'j1', phase: 'request', text: '{"tier":"ready"}' },
      { kind: 'judgment', at: T0 + 6, corrId: 'j1', phase: 'result', text: '{"should_compact":true,"reason":"phase done"}', latencyMs: 812 },
      { kind: 'packet', at: T0 + 7, seqId: 's2', author: 'agent', text: '## What just completed\n…' },
      {
        kind: 'compaction',
        at: T0 + 8,
        seqId: 's2',
        tokensBefore: 140_000,
        tokensAfter: 31_000,
        archived: [{ role: 'user', text: 'x' }],
        replacement: [{ role: 'user', text: 'summary', synthetic: true, kind: 'summary' }],
      },
      { kind: 'undo', at: T0 + 9, seqId: 's2' },
    ];
    const returned = written.map((r) => log.append(r));
    log.close();
    const back = readLog(file);
    assert.deepEqual(back.problems, []);
    assert.deepEqual(
      back.records.map((r) => r.line),
      written.map((_, k) => k + 1),
    );
    assert.deepEqual(
      back.records.map((r) => r.record),
      written.map((r) => ({ rawr: 1, thread: 'th-1', ...r })),
    );
    // Each append says where its line is: the bytes there are exactly the record read back.
    const text = fs.readFileSync(file, 'utf8');
    const bytes = Buffer.from(text, 'utf8');
    assert.deepEqual(
      returned.map((w) => JSON.parse(bytes.toString('utf8', w.offset, w.offset + w.bytes)) as unknown),
      back.records.map((r) => r.record),
    );
    assert.deepEqual(
      returned.map((w) => bytes[w.offset + w.bytes]),
      returned.map(() => 0x0a),
    );
    // One JSON object per line, newline-terminated.
    assert.ok(text.endsWith('\n'));
    assert.equal(text.split('\n').length, written.length + 1);
  });

  it('appends to an existing file (after close, and from a second EventLog on the same path)', () => {
    const file = path.join(tmp, 'th.jsonl');
    const a = new EventLog(file, 'th-1');
    a.append({ kind: 'undo', at: 1, seqId: 's1' });
    a.close();
    a.append({ kind: 'undo', at: 2, seqId: 's2' }); // reopens
    const b = new EventLog(file, 'th-1');
    b.append({ kind: 'undo', at: 3, seqId: 's3' });
    a.close();
    b.close();
    const back = readLog(file);
    assert.deepEqual(
      back.records.map((r) => (r.record as Extract<LogRecord, { kind: 'undo' }>).seqId),
      ['s1', 's2', 's3'],
    );
  });

  it('multi-byte UTF-8 and newlines inside strings survive (one record = one line)', () => {
    const file = path.join(tmp, 'th.jsonl');
    const log = new EventLog(file, 'th-1');
    const text = 'Grüße — 日本語のテスト 🚀\nsecond line\r\nthird\u2028fourth';
    log.append({ kind: 'message', at: 1, message: { role: 'assistant', text } });
    log.close();
    const back = readLog(file);
    assert.equal(fs.readFileSync(file, 'utf8').split('\n').length, 2);
    assert.equal((back.records[0]!.record as Extract<LogRecord, { kind: 'message' }>).message.text, text);
  });

  it('a missing file reads as empty, without problems', () => {
    assert.deepEqual(readLog(path.join(tmp, 'nope.jsonl')), { records: [], problems: [], lines: 0 });
    assert.deepEqual(parseLog(''), { records: [], problems: [], lines: 0 });
  });
});

describe('event log: damaged files are reported by line and skipped', () => {
  useTmpDir();
  it('a corrupt middle line and a truncated last line (crash mid-write)', () => {
    const lines = [
      rec({ kind: 'undo', seqId: 's1' }), // 1
      rec({ kind: 'undo', seqId: 's2' }), // 2
      '{"rawr":1,"thread":"th-1","at":1,"kind":"undo","seqId":"s3"}}garbage', // 3: corrupt
      '', // 4: blank (ignored, still counted)
      rec({ kind: 'undo', seqId: 's5' }), // 5
      rec({ kind: 'message', message: { role: 'user', text: 'a long message that was being writ' } }).slice(0, 60), // 6: truncated, no newline
    ];
    const text = lines.join('\n');
    const file = path.join(tmp, 'th.jsonl');
    fs.writeFileSync(file, text);
    const { records, problems } = readLog(file);
    assert.deepEqual(
      records.map((r) => [r.line, (r.record as { seqId?: string }).seqId]),
      [
        [1, 's1'],
        [2, 's2'],
        [5, 's5'],
      ],
    );
    assert.deepEqual(problems, [
      { line: 3, message: 'not valid JSON — skipped' },
      { line: 6, message: 'truncated last line (interrupted write?) — skipped' },
    ]);
  });

  it('streamLog (the core cold replay) gives the records and problems readLog gives, one at a time; a missing log is empty, a FIFO a problem', () => {
    const file = path.join(tmp, 'th.jsonl');
    fs.writeFileSync(file, [rec({ kind: 'undo', seqId: 's1' }), '{"rawr":1,garbage', '', rec({ kind: 'undo', seqId: 's4' }), '{"rawr":1,"th'].join('\n'));
    const problems: Array<{ line: number; message: string }> = [];
    const counted = { lines: 0 };
    const it = streamLog(file, problems, counted);
    const first = it.next();
    assert.equal(first.done, false);
    assert.deepEqual(problems, [], 'nothing past the first record is read yet');
    const streamed = [first.value, ...it];
    const whole = readLog(file);
    assert.deepEqual(streamed, whole.records);
    assert.deepEqual(problems, whole.problems);
    assert.equal(counted.lines, whole.lines);
    const none: unknown[] = [];
    assert.deepEqual([...streamLog(path.join(tmp, 'nope.jsonl'), none)], []);
    assert.deepEqual(none, []);
    if (process.platform !== 'win32') {
      const fifo = path.join(tmp, 'fifo.jsonl');
      spawnSync('mkfifo', [fifo]);
      const bad: Array<{ line: number; message: string }> = [];
      assert.deepEqual([...streamLog(fifo, bad)], []);
      assert.equal(bad.length, 1);
      assert.match(bad[0]!.message, /cannot read the log: .*not a regular file/);
    }
  });

  it('an invalid last line that does end with a newline is corrupt, not truncated', () => {
    const { problems } = parseLog(`${rec({ kind: 'undo', seqId: 's1' })}\n{"rawr":1,\n`);
    assert.deepEqual(problems, [{ line: 2, message: 'not valid JSON — skipped' }]);
  });

  it('appending after a truncated line (a crash): the torn line stays one problem, the new records survive', () => {
    const file = path.join(tmp, 'th.jsonl');
    fs.writeFileSync(file, `${rec({ kind: 'undo', seqId: 's1' })}\n{"rawr":1,"thr`);
    const log = new EventLog(file, 'th-1');
    log.append({ kind: 'undo', at: 5, seqId: 's9' });
    log.append({ kind: 'undo', at: 6, seqId: 's10' });
    log.close();
    const { records, problems } = readLog(file);
    assert.deepEqual(
      records.map((r) => [r.line, (r.record as { seqId?: string }).seqId]),
      [
        [1, 's1'],
        [3, 's9'],
        [4, 's10'],
      ],
    );
    assert.deepEqual(problems, [{ line: 2, message: 'not valid JSON — skipped' }]);
  });

  it('records failing the schema are reported with the failing field, valid neighbours survive', () => {
    const lines = [
      rec({ kind: 'message', message: { role: 'user', text: 'fine' } }), // 1 ok
      rec({ kind: 'message', message: { role: 'robot', text: 'beep' } }), // 2 bad role
      JSON.stringify({ rawr: 2, thread: 'th-1', at: T0, kind: 'undo', seqId: 's1' }), // 3 wrong version
      rec({ kind: 'teleport', seqId: 's1' }), // 4 unknown kind
      rec({ kind: 'compaction', seqId: 's1', tokensBefore: '140k', tokensAfter: 1, archived: [], replacement: [] }), // 5 bad type
      JSON.stringify({ rawr: 1, thread: '', at: T0, kind: 'undo', seqId: 's1' }), // 6 empty thread
      '[1,2,3]', // 7 not an object
      rec({ kind: 'event', event: { at: 1 } }), // 8 event without a type
      rec({ kind: 'undo', seqId: 's9' }), // 9 ok
    ];
    const { records, problems } = parseLog(`${lines.join('\n')}\n`);
    assert.deepEqual(
      records.map((r) => r.line),
      [1, 9],
    );
    assert.deepEqual(
      problems.map((p) => p.line),
      [2, 3, 4, 5, 6, 7, 8],
    );
    for (const p of problems) assert.match(p.message, /^not a rawr log record \(.+\) — skipped$/);
    assert.match(problems[0]!.message, /message/);
    assert.match(problems[1]!.message, /rawr/);
    assert.match(problems[3]!.message, /tokensBefore/);
    assert.match(problems[4]!.message, /thread/);
    assert.match(problems[6]!.message, /event\.type/);
  });

  it('CRLF line ends (a log copied through Windows) still parse', () => {
    const { records, problems } = parseLog(`${rec({ kind: 'undo', seqId: 'a' })}\r\n${rec({ kind: 'undo', seqId: 'b' })}\r\n`);
    assert.deepEqual(problems, []);
    assert.equal(records.length, 2);
  });
});

describe('event log: concurrent writers', function () {
  useTmpDir();
  this.timeout(120_000);
  const WRITERS = 3;
  const PER_WRITER = 2000;

  /** The record text of writer w, number i: deterministic, so the reader can check every byte. */
  const CHILD = String.raw`
    const { EventLog } = require(process.env.RAWR_EVENT_LOG_JS);
    const fs = require('node:fs');
    const w = Number(process.env.W), n = Number(process.env.N), writers = Number(process.env.WRITERS);
    const textOf = (w, i) => {
      const unit = i % 3 === 0 ? 'Grüße 日本語 🚀 ' : i % 3 === 1 ? 'ascii only payload ' : 'naïve café — ';
      const size = i % 10 === 0 ? 9000 + (i * 37) % 12000 : 20 + (i * 53) % 900;
      let s = '';
      while (s.length < size) s += unit;
      return 'w' + w + ':' + i + ':' + s.slice(0, size);
    };
    const log = new EventLog(process.env.FILE, 'shared-thread');
    // Barrier: announce readiness, then wait until every writer is ready, so all of them write at once.
    fs.writeFileSync(process.env.FILE + '.ready.' + w, '');
    const deadline = Date.now() + 60000;
    while (Date.now() < deadline) {
      let all = true;
      for (let k = 0; k < writers; k++) if (!fs.existsSync(process.env.FILE + '.ready.' + k)) all = false;
      if (all) break;
    }
    for (let i = 0; i < n; i++) {
      log.append({ kind: 'event', at: Date.now(), event: { type: 'assistant_message', at: Date.now(), text: textOf(w, i) } });
    }
    log.close();
  `;
  const textOf = (w: number, i: number) => {
    const unit = i % 3 === 0 ? 'Grüße 日本語 🚀 ' : i % 3 === 1 ? 'ascii only payload ' : 'naïve café — ';
    const size = i % 10 === 0 ? 9000 + ((i * 37) % 12000) : 20 + ((i * 53) % 900);
    let s = '';
    while (s.length < size) s += unit;
    return `w${w}:${i}:${s.slice(0, size)}`;
  };

  it(`${WRITERS} processes × ${PER_WRITER} records (some > 8 KB, multi-byte) into one file: no torn or lost line`, async () => {
    assert.ok(fs.existsSync(COMPILED_EVENT_LOG), COMPILED_EVENT_LOG);
    const file = path.join(tmp, 'shared.jsonl');
    const runs = Array.from(
      { length: WRITERS },
      (_, w) =>
        new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
          const child = spawn(process.execPath, ['-e', CHILD], {
            env: { ...process.env, RAWR_EVENT_LOG_JS: COMPILED_EVENT_LOG, FILE: file, W: String(w), N: String(PER_WRITER), WRITERS: String(WRITERS) },
            stdio: ['ignore', 'ignore', 'pipe'],
          });
          let stderr = '';
          child.stderr.on('data', (d) => (stderr += d));
          child.on('error', reject);
          child.on('close', (code) => resolve({ code, stderr }));
        }),
    );
    for (const r of await Promise.all(runs)) assert.equal(r.code, 0, r.stderr);

    const text = fs.readFileSync(file, 'utf8');
    const rawLines = text.split('\n');
    assert.equal(rawLines.pop(), ''); // ends with a newline
    // A writer that checks the file's last byte while another is mid-write sees an apparently torn line
    // and ends it in its own append: the result is an empty line (which readers skip), never a lost record.
    const nonBlank = rawLines.filter((l) => l !== '');
    assert.equal(nonBlank.length, WRITERS * PER_WRITER);
    // Every line parses on its own (no interleaving inside a line).
    for (const [k, l] of rawLines.entries()) if (l !== '') assert.doesNotThrow(() => JSON.parse(l), `line ${k + 1}`);

    const { records, problems } = parseLog(text);
    assert.deepEqual(problems, []);
    const seen = Array.from({ length: WRITERS }, () => [] as number[]);
    let big = 0;
    for (const { record } of records) {
      assert.equal(record.kind, 'event');
      const { text: evText } = (record as Extract<LogRecord, { kind: 'event' }>).event as unknown as { text: string };
      const [, wText, iText] = /^w(\d+):(\d+):/.exec(evText) ?? [];
      const ev = { writer: Number(wText), i: Number(iText), text: evText };
      assert.equal(ev.text, textOf(ev.writer, ev.i), `writer ${ev.writer} record ${ev.i} corrupted`);
      if (Buffer.byteLength(ev.text) > 8192) big++;
      seen[ev.writer]!.push(ev.i);
    }
    // Exact counts per writer, each writer's records in its own order, nothing twice.
    for (let w = 0; w < WRITERS; w++)
      assert.deepEqual(
        seen[w],
        Array.from({ length: PER_WRITER }, (_, i) => i),
        `writer ${w}`,
      );
    assert.equal(big, WRITERS * (PER_WRITER / 10));
    // The writers really overlapped (otherwise this test proves nothing about concurrency).
    const order = records.map((r) => ((r.record as Extract<LogRecord, { kind: 'event' }>).event as unknown as { text: string }).text.split(':')[0]);
    let switches = 0;
    for (let k = 1; k < order.length; k++) if (order[k] !== order[k - 1]) switches++;
    assert.ok(switches >= 10, `writers did not interleave (only ${switches} switches)`);
  });
});

describe('event log: rebuild', () => {
  useTmpDir();
  const shipped = loadPromptSet([dirReader(shippedPromptsDir())]);
  const WINDOW = 200_000;
  const PACKET = `## What just completed
The codex importer: src/core/replay/import/codex.ts parses rollouts 0.58 and 0.104; commit a1b2c3d.

## Where we are now
All importer tests pass (41). The replay CLI still ignores --window for codex files.

## What's next
1. Honour --window in src/cli/replayCommand.ts. 2. Add the 10 MB bench. 3. Update the README table.

## Decisions, invariants and traps
- Codex arguments are JSON strings: parse, never eval; a redacted argument stays a raw string.
`;
  // The phase forecast would hold this commit's compaction to the end of the phase close (the next
  // evaluation point); this test is about the rebuild, so it keeps the compaction at the commit.
  const fresh = () => initialState({ threadId: 'th-1', settings: { ...shipped.settings, forecast_enabled: false }, prompts: shipped.prompts });

  /**
   * Runs a session "live": steps each event, executes the effects the way the extension would (judgment,
   * scratch, packet, compaction) by stepping the answering events, and logs events, thread messages and
   * the compaction, like the real host. Returns the live state and thread.
   */
  function liveSession(log: EventLog) {
    let state: EngineState = fresh();
    let thread: ThreadMessage[] = [];
    let clock = T0;
    const compactions: string[] = [];
    const message = (m: ThreadMessage) => {
      thread.push(m);
      log.append({ kind: 'message', at: clock, message: m });
    };
    const feed = (ev: EngineEvent) => {
      log.append({ kind: 'event', at: clock, event: ev });
      const r = step(state, ev);
      state = r.state;
      for (const fx of [...r.facts, ...r.commands]) {
        clock += 1000;
        switch (fx.type) {
          case 'request_judgment':
            feed({ type: 'judgment_result', at: clock, corrId: fx.corrId, text: '{"should_compact": true, "reason": "the importer phase is committed"}' });
            break;
          case 'inject_heads_up':
            message({ role: 'user', text: fx.text, synthetic: true, kind: 'heads_up' });
            break;
          case 'request_scratch_write':
            feed({ type: 'scratch_written', at: clock, seqId: fx.seqId, path: fx.path });
            break;
          case 'request_packet':
            message({ role: 'assistant', text: PACKET, synthetic: true, kind: 'packet' });
            feed({ type: 'packet', at: clock, seqId: fx.seqId, text: PACKET });
            break;
          case 'compact': {
            const replacement: ThreadMessage[] = [
              { role: 'user', text: `Summary of the conversation so far.\n${fx.packet.slice(0, 80)}`, synthetic: true, kind: 'summary' },
            ];
            log.append({
              kind: 'compaction',
              at: clock,
              seqId: fx.seqId,
              tokensBefore: state.tokens!.used,
              tokensAfter: 31_000,
              archived: thread,
              replacement,
            });
            thread = replacement.slice();
            compactions.push(fx.seqId);
            feed({ type: 'compaction_done', at: clock, seqId: fx.seqId, tokensBefore: state.tokens!.used, tokensAfter: 31_000 });
            break;
          }
          case 'inject_handoff':
            message({ role: 'user', text: fx.text, synthetic: true, kind: 'handoff' });
            break;
          default:
            break;
        }
      }
    };
    const at = () => (clock += 1000);

    // Turn 1: work, a commit, context at 32% remaining → ready tier with a commit boundary → compaction.
    const ask = 'Implement the codex importer (phase 2 of PLAN.md) and commit when the tests pass.';
    message({ role: 'user', text: ask });
    feed({ type: 'user_message', at: at(), text: ask });
    feed({ type: 'tokens', at: at(), used: 24_000, window: WINDOW });
    message({
      role: 'assistant',
      text: 'Running the tests, then committing.',
      toolCalls: [{ id: 'toolu_01', name: 'Bash', input: { command: 'npm test && git commit -am "importer: codex"' } }],
    });
    feed({ type: 'assistant_message', at: at(), text: 'Running the tests, then committing.' });
    feed({
      type: 'tool_call',
      at: at(),
      id: 'toolu_01',
      name: 'Bash',
      input: { command: 'npm test && git commit -am "importer: codex"', description: 'test + commit' },
    });
    const out = '41 passing (2s)\n[main a1b2c3d] importer: codex\n 3 files changed, 210 insertions(+)';
    message({ role: 'tool', toolCallId: 'toolu_01', name: 'Bash', text: out });
    feed({ type: 'tool_result', at: at(), id: 'toolu_01', output: out, isError: false, exitCode: 0 });
    feed({ type: 'boundary', at: at(), source: 'tool_result', boundary: { kind: 'commit', key: 'a1b2c3d', detail: 'a1b2c3d importer: codex' } });
    feed({
      type: 'plan',
      at: at(),
      steps: [
        { text: 'Codex importer', status: 'completed' },
        { text: 'Replay CLI', status: 'in_progress' },
      ],
    });
    feed({ type: 'tokens', at: at(), used: 136_000, window: WINDOW });
    feed({ type: 'evaluate', at: at(), point: 'tool_loop' });
    const afterCompaction = { state, thread: thread.slice(), compactions: compactions.slice() };

    // Turn 2 after the handoff: a settings change and ordinary work, no new compaction (cooldown).
    feed({ type: 'settings', at: at(), settings: { ...shipped.settings, forecast_enabled: false, cooldown_turns: 3 } });
    const ask2 = 'Now honour --window in the replay CLI.';
    message({ role: 'user', text: ask2 });
    feed({ type: 'user_message', at: at(), text: ask2 });
    message({ role: 'assistant', text: 'Done: --window is passed through to replay().' });
    feed({ type: 'assistant_message', at: at(), text: 'Done: --window is passed through to replay().' });
    feed({ type: 'tokens', at: at(), used: 52_000, window: WINDOW });
    feed({ type: 'evaluate', at: at(), point: 'turn_complete' });
    return { state, thread, compactions, afterCompaction };
  }

  it('cold rebuild from the log equals the live run: engine state, thread after compaction, thread after undo', () => {
    const file = path.join(tmp, 'th-1.jsonl');
    const log = new EventLog(file, 'th-1');
    const live = liveSession(log);

    // The live run really went through the golden path (otherwise the comparison below is weak).
    assert.equal(live.compactions.length, 1);
    assert.equal(live.afterCompaction.state.lastCompaction?.percentBefore, 32);
    assert.equal(live.state.seq.phase, 'idle');
    assert.equal(live.state.turn, 2);
    assert.equal(live.state.settings.cooldown_turns, 3);
    assert.deepEqual(
      live.thread.map((m) => (m.role === 'tool' ? 'tool' : (m.kind ?? m.role))),
      ['summary', 'handoff', 'user', 'assistant'],
    );

    // Undo the compaction (the host logs it; the engine state is not involved).
    log.append({ kind: 'undo', at: T0 + 999_000, seqId: live.compactions[0]! });
    log.close();

    const { records, problems } = readLog(file);
    assert.deepEqual(problems, []);
    const eventCount = records.filter((r) => r.record.kind === 'event').length;
    assert.ok(eventCount >= 15, String(eventCount));

    const full = rebuild(records, fresh());
    assert.deepEqual(full.state, live.state);
    assert.equal(full.events, eventCount);
    // After undo: the archived (pre-compaction) thread is current again and nothing is left to undo.
    const compactionRec = records.find((r) => r.record.kind === 'compaction')!.record as Extract<LogRecord, { kind: 'compaction' }>;
    assert.deepEqual(full.thread, compactionRec.archived);
    assert.deepEqual(
      full.thread.map((m) => (m.role === 'user' || m.role === 'assistant' ? (m.kind ?? m.role) : m.role)),
      ['user', 'assistant', 'tool', 'heads_up', 'packet'],
    );
    assert.deepEqual(full.compactions, []);

    // Up to just before the undo: the thread is the replacement plus what followed, the compaction undoable.
    const beforeUndo = rebuild(
      records.filter((r) => r.record.kind !== 'undo'),
      fresh(),
    );
    assert.deepEqual(beforeUndo.thread, live.thread);
    assert.deepEqual(beforeUndo.state, live.state);
    assert.deepEqual(
      beforeUndo.compactions.map((c) => [c.seqId, c.tokensBefore, c.tokensAfter]),
      [[live.compactions[0], 136_000, 31_000]],
    );

    // Up to the compaction record only: the thread is exactly the replacement.
    const k = records.findIndex((r) => r.record.kind === 'compaction');
    const atCompaction = rebuild(records.slice(0, k + 1), fresh());
    assert.deepEqual(atCompaction.thread, compactionRec.replacement);
  });

  it('rebuild on a prefix of the log equals the live state at that point', () => {
    const file = path.join(tmp, 'th-1.jsonl');
    const log = new EventLog(file, 'th-1');
    const live = liveSession(log);
    log.close();
    const { records } = readLog(file);
    const k = records.findIndex((r) => r.record.kind === 'event' && (r.record.event as { type: string }).type === 'settings');
    const prefix = rebuild(records.slice(0, k), fresh());
    assert.deepEqual(prefix.state, live.afterCompaction.state);
    assert.deepEqual(prefix.thread, live.afterCompaction.thread);
  });

  it('damaged lines in the log are skipped: rebuild still runs over the rest', () => {
    const file = path.join(tmp, 'th-1.jsonl');
    const log = new EventLog(file, 'th-1');
    liveSession(log);
    log.close();
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    // Corrupt the first thread message and truncate the end.
    const firstMessage = lines.findIndex((l) => l.includes('"kind":"message"'));
    lines[firstMessage] = lines[firstMessage]!.slice(0, 30);
    fs.writeFileSync(file, `${lines.join('\n').trimEnd()}\n{"rawr":1,"thread":"th-1","at":`);
    const { records, problems } = readLog(file);
    assert.deepEqual(
      problems.map((p) => p.line),
      [firstMessage + 1, lines.length],
    );
    const r = rebuild(records, fresh());
    assert.equal(r.state.turn, 2);
  });

  it('an undo of an unknown compaction changes nothing; an undo of an older one drops the later ones too', () => {
    const m = (text: string): ThreadMessage => ({ role: 'user', text });
    const records: Array<{ record: LogRecord }> = [
      { record: { rawr: 1, thread: 't', at: 1, kind: 'message', message: m('a') } },
      {
        record: { rawr: 1, thread: 't', at: 2, kind: 'compaction', seqId: 's1', tokensBefore: 10, tokensAfter: 2, archived: [m('a')], replacement: [m('S1')] },
      },
      { record: { rawr: 1, thread: 't', at: 3, kind: 'message', message: m('b') } },
      {
        record: {
          rawr: 1,
          thread: 't',
          at: 4,
          kind: 'compaction',
          seqId: 's2',
          tokensBefore: 10,
          tokensAfter: 2,
          archived: [m('S1'), m('b')],
          replacement: [m('S2')],
        },
      },
      { record: { rawr: 1, thread: 't', at: 5, kind: 'undo', seqId: 'nope' } },
    ];
    const r1 = rebuild(records, fresh());
    assert.deepEqual(r1.thread, [m('S2')]);
    assert.deepEqual(
      r1.compactions.map((c) => c.seqId),
      ['s1', 's2'],
    );
    const r2 = rebuild([...records, { record: { rawr: 1, thread: 't', at: 6, kind: 'undo', seqId: 's2' } }], fresh());
    assert.deepEqual(r2.thread, [m('S1'), m('b')]);
    assert.deepEqual(
      r2.compactions.map((c) => c.seqId),
      ['s1'],
    );
    const r3 = rebuild([...records, { record: { rawr: 1, thread: 't', at: 6, kind: 'undo', seqId: 's1' } }], fresh());
    assert.deepEqual(r3.thread, [m('a')]);
    assert.deepEqual(r3.compactions, []);
    assert.equal(r3.events, 0);
    assert.deepEqual(r3.state, fresh());
  });
});
