/**
 * The event log's reader on the lines a damaged or huge log really has (src/core/logformat/reader.ts): a
 * line over the length limit, a line of blanks, a torn fragment glued to a line that is not a record
 * either, a compaction record larger than the line reader's own default, and a read that starts at a
 * checkpoint's offset. Each was a surviving mutant of the logformat scope (CONTRIBUTING.md, sixth round).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { RawLine } from '../../src/core/io/lines';
import { DEFAULT_MAX_LINE_BYTES } from '../../src/core/io/lines';
import { fastLogRecord } from '../../src/core/logformat/fastRecord';
import { MAX_LOG_LINE_BYTES, parseLog, readLog, streamLog } from '../../src/core/logformat/reader';
import { rec, T0 } from '../support/logLine';

const seqIds = (records: ReadonlyArray<{ record: unknown }>) => records.map((r) => (r.record as { seqId?: string }).seqId);

describe('event log reader: lines a damaged or huge log has', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-reader-'));
  });
  afterEach(() => {
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('a line over the length limit (given as the line reader reports it) is one problem with its size; the records around it are read', () => {
    const lines: RawLine[] = [
      { line: 1, text: rec({ kind: 'undo', seqId: 's1' }) },
      { line: 2, tooLong: MAX_LOG_LINE_BYTES + 10 },
      { line: 3, text: rec({ kind: 'undo', seqId: 's3' }) },
    ];
    const log = parseLog(lines);
    assert.deepEqual(seqIds(log.records), ['s1', 's3']);
    assert.deepEqual(log.problems, [{ line: 2, message: `line of ${MAX_LOG_LINE_BYTES + 10} bytes is over the 64 MiB limit — skipped` }]);
    assert.equal(log.lines, 3);
  });

  it('a line of blanks (spaces, a tab) is skipped without a problem, as an empty line is', () => {
    const log = parseLog([rec({ kind: 'undo', seqId: 's1' }), '   ', '\t', '', rec({ kind: 'undo', seqId: 's5' })].join('\n'));
    assert.deepEqual(seqIds(log.records), ['s1', 's5']);
    assert.deepEqual(log.problems, []);
  });

  it('a torn fragment glued to a line that is no record either: one problem, nothing yielded for it', () => {
    // The fragment, then the start of a record that is itself cut: nothing whole follows the fragment.
    const glued = `{"rawr":1,"thread":"th-1","at":1,"kind":"und${rec({ kind: 'undo' }).slice(0, 30)}`;
    // The fragment, then a whole JSON object that is not a valid record (no seqId).
    const invalid = `{"rawr":1,"thr${rec({ kind: 'undo' })}`;
    const log = parseLog([rec({ kind: 'undo', seqId: 's1' }), glued, invalid, rec({ kind: 'undo', seqId: 's4' })].join('\n'));
    assert.deepEqual(seqIds(log.records), ['s1', 's4']);
    assert.deepEqual(
      log.problems.map((p) => p.line),
      [2, 3],
    );
    assert.ok(log.problems.every((p) => p.message === 'not valid JSON — skipped'));
    // The fragment before a whole record still yields the record (the salvage the check above must not widen).
    const salvaged = parseLog(`{"rawr":1,"thr${rec({ kind: 'undo', seqId: 's9' })}`);
    assert.deepEqual(seqIds(salvaged.records), ['s9']);
    assert.match(salvaged.problems[0]!.message, /a torn record \(14 bytes, an interrupted write\) precedes this record/);
  });

  it('a compaction record larger than the line reader’s default (a long thread archived) is read back from the file whole', function () {
    this.timeout(60_000);
    const big = 'x'.repeat(DEFAULT_MAX_LINE_BYTES + 1024);
    const file = path.join(tmp, 'th.jsonl');
    fs.writeFileSync(
      file,
      `${rec({ kind: 'compaction', seqId: 's1', tokensBefore: 180_000, tokensAfter: 9000, archived: [{ role: 'user', text: big }], replacement: [] })}\n${rec({ kind: 'undo', seqId: 's2' })}\n`,
    );
    const log = readLog(file);
    assert.deepEqual(log.problems, []);
    assert.deepEqual(seqIds(log.records), ['s1', 's2']);
    const archived = (log.records[0]!.record as { archived: Array<{ text: string }> }).archived;
    assert.equal(archived[0]!.text.length, big.length);
  });

  it('streamLog from a checkpoint’s offset reads only the lines after it, counted from there, each with its offset and size', () => {
    const file = path.join(tmp, 'th.jsonl');
    const lines = [rec({ kind: 'undo', seqId: 's1' }), rec({ kind: 'undo', seqId: 's2' }), rec({ kind: 'undo', seqId: 's3' })];
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const whole = [...streamLog(file, [])];
    assert.deepEqual(seqIds(whole), ['s1', 's2', 's3']);
    const from = whole[1]!.offset!;
    assert.equal(from, Buffer.byteLength(lines[0]!) + 1);
    const problems: unknown[] = [];
    const counted = { lines: 0 };
    const after = [...streamLog(file, problems, counted, from)];
    assert.deepEqual(seqIds(after), ['s2', 's3']);
    assert.deepEqual(
      after.map((r) => r.line),
      [1, 2],
    );
    assert.equal(counted.lines, 2);
    assert.deepEqual(problems, []);
    // Each record says where its line is: the bytes at that offset are the record's own line.
    for (const r of after)
      assert.equal(
        fs
          .readFileSync(file)
          .subarray(r.offset!, r.offset! + r.bytes!)
          .toString('utf8')
          .trimEnd(),
        JSON.stringify(r.record),
      );
  });

  it('a plan step that is not a step (not an object, a text that is not a string, no status) fails the log like the schema says, never passes the fast check', () => {
    const plan = (steps: unknown[]) => ({ rawr: 1, thread: 'th-1', at: T0, kind: 'event', event: { type: 'plan', at: T0, steps } });
    const good = plan([{ text: 'read', status: 'completed' }]);
    assert.deepEqual(fastLogRecord(good), good, 'a good plan takes the fast path');
    const bad = [
      [null],
      ['read'],
      [{ text: 5, status: 'pending' }],
      [{ status: 'pending' }],
      [{ text: 'read', status: 7 }],
      [{ text: 'read', status: 'done' }],
    ];
    for (const steps of bad) {
      assert.equal(fastLogRecord(plan(steps)), undefined, JSON.stringify(steps));
      const log = parseLog(`${JSON.stringify(plan(steps))}\n${rec({ kind: 'undo', seqId: 's2' })}`);
      assert.deepEqual(seqIds(log.records), ['s2'], JSON.stringify(steps));
      assert.match(log.problems[0]?.message ?? '', /^not a rawr log record \(event\.steps\.0/, JSON.stringify(steps));
    }
  });
});
