/**
 * Checkpoints as untrusted input (src/core/log/checkpoint.ts, docs/robustness.md): a damaged, foreign or
 * lying checkpoint is never used — the load falls back to the checkpoint before it or to the full replay,
 * holds exactly what a full replay holds, and says why in the thread's problems; an archive whose offset
 * is wrong is found by a scan; nothing crashes. Also: a swap is followed by a checkpoint, and a log with
 * none (an older rawr's) loads by a full replay.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreService } from '../../src/core/service/coreService';
import type { ThreadMessage } from '../../src/core/thread/thread';
import { defined } from '../support/defined';
import { shipped } from '../support/engine';

const ID = 't1';
const HEAD = `{"rawr":1,"thread":"${ID}","kind":"checkpoint"`;
const user = (text: string): ThreadMessage => ({ role: 'user', text });

describe('checkpoints: hostile or damaged ones fall back, with a problem', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rawr-checkpoint-'));
    file = join(dir, `${ID}.jsonl`);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A thread with two compactions (each followed by a checkpoint) and records after the last one. */
  function history(): { first: ThreadMessage[]; archive: ThreadMessage[] } {
    const svc = new CoreService(dir, shipped, { checkpointEvery: 1_000_000 });
    svc.appendMessage(ID, user('first ask'));
    svc.step(ID, { type: 'user_message', at: 1, text: 'first ask' }, 'r1');
    const first = svc.snapshot(ID).messages;
    svc.swap(ID, { seqId: 's1', tokensBefore: 100, tokensAfter: 10, replacement: [user('summary 1')] });
    // Enough log after the first checkpoint that the second compaction gets one too (CHECKPOINT_GROWTH).
    svc.appendMessage(ID, user(`second ask ${'.'.repeat(300_000)}`), 'r2');
    svc.step(ID, { type: 'tokens', at: 2, used: 50_000, window: 200_000 });
    const archive = svc.snapshot(ID).messages;
    svc.swap(ID, { seqId: 's2', tokensBefore: 100, tokensAfter: 10, replacement: [user('summary 2')] });
    svc.appendMessage(ID, user('third ask'));
    svc.step(ID, { type: 'user_message', at: 3, text: 'third ask' });
    svc.dispose();
    return { first, archive };
  }

  const lines = () => readFileSync(file, 'utf8').split('\n');
  /** Rewrites the last checkpoint line with `edit` applied to its parsed record. */
  function editLastCheckpoint(edit: (rec: { thread: string; v: number; checkpoint: Record<string, unknown> }) => void): void {
    const all = lines();
    const k = all.map((l) => l.startsWith(HEAD)).lastIndexOf(true);
    assert.ok(k >= 0, 'the log has a checkpoint');
    const rec = JSON.parse(all[k]!) as { thread: string; v: number; checkpoint: Record<string, unknown> };
    edit(rec);
    all[k] = JSON.stringify(rec);
    writeFileSync(file, all.join('\n'));
  }

  /** Loads with and without checkpoints: both hold the same; returns the checkpoint load's problems and stats. */
  function loadBoth(): { problems: string[]; fromCheckpoint: boolean } {
    const quick = new CoreService(dir, shipped);
    const full = new CoreService(dir, shipped, { checkpoints: false });
    try {
      assert.deepStrictEqual(defined(quick.held(ID)), defined(full.held(ID)));
      return { problems: quick.snapshot(ID).problems, fromCheckpoint: quick.lastLoad!.fromCheckpoint };
    } finally {
      quick.dispose();
      full.dispose();
    }
  }

  it('a sound log loads from its last checkpoint, reading only the records after it, with no problem', () => {
    history();
    const svc = new CoreService(dir, shipped);
    assert.deepStrictEqual(svc.snapshot(ID).problems, []);
    assert.deepStrictEqual(svc.lastLoad, { events: 3, stepped: 1, read: 4, fromCheckpoint: true });
    svc.dispose();
    assert.deepStrictEqual(loadBoth(), { problems: [], fromCheckpoint: true });
  });

  it('a swap is followed by its checkpoint: the load after it reads no record', () => {
    const svc = new CoreService(dir, shipped);
    svc.appendMessage(ID, user('ask'));
    svc.swap(ID, { seqId: 's1', tokensBefore: 100, tokensAfter: 10, replacement: [user('summary')] });
    svc.dispose();
    const again = new CoreService(dir, shipped);
    assert.deepStrictEqual(again.snapshot(ID).messages, [user('summary')]);
    assert.deepStrictEqual(again.lastLoad, { events: 0, stepped: 0, read: 0, fromCheckpoint: true });
    again.dispose();
  });

  it('wrong state shape: the checkpoint before it is used', () => {
    history();
    editLastCheckpoint((r) => ((r.checkpoint.state as Record<string, unknown>).turn = 'many'));
    const { problems, fromCheckpoint } = loadBoth();
    assert.ok(fromCheckpoint, 'the earlier checkpoint');
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0]!, /checkpoint at byte \d+: invalid \(state\.turn: .*\) — not used/);
  });

  it('a checkpoint of another thread (its record, or its state) is not used', () => {
    history();
    editLastCheckpoint((r) => (r.thread = 'other-thread'));
    assert.match(loadBoth().problems.join('\n'), /of another thread \(other-thread\) — not used/);
    history(); // a fresh pair of checkpoints after the edited one
    editLastCheckpoint((r) => ((r.checkpoint.state as Record<string, unknown>).threadId = 'other-thread'));
    assert.match(loadBoth().problems.join('\n'), /its state is of another thread — not used/);
  });

  it('another version v is not used', () => {
    history();
    editLastCheckpoint((r) => (r.v = 2));
    assert.match(loadBoth().problems.join('\n'), /version 2, this rawr reads 1 — not used/);
  });

  it('a truncated checkpoint (the last line, or a torn line with records after it) is not used', () => {
    history();
    const text = readFileSync(file, 'utf8');
    const at = text.lastIndexOf(HEAD);
    writeFileSync(file, text.slice(0, at + 200)); // the writer died in the middle of the checkpoint
    const cut = loadBoth();
    assert.match(cut.problems.join('\n'), /checkpoint at byte \d+: unterminated .* — not used/);
    // Another writer went on (the log ends the torn line first): the records after it count.
    const svc = new CoreService(dir, shipped);
    svc.appendMessage(ID, user('after the tear'));
    svc.dispose();
    const { problems } = loadBoth();
    assert.match(problems.join('\n'), /checkpoint at byte \d+: not valid JSON — not used/);
  });

  it('every checkpoint bad: the full replay', () => {
    history();
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll(`${HEAD},`, `${HEAD},"v":7,"x":`));
    const { problems, fromCheckpoint } = loadBoth();
    assert.equal(fromCheckpoint, false);
    assert.ok(problems.length >= 2, problems.join('\n'));
  });

  it('a log with no checkpoint (an older rawr) loads by a full replay, with no problem, and gets one at its next write past the interval', () => {
    history();
    writeFileSync(
      file,
      lines()
        .filter((l) => !l.startsWith(HEAD))
        .join('\n'),
    );
    assert.deepStrictEqual(loadBoth(), { problems: [], fromCheckpoint: false });
    const svc = new CoreService(dir, shipped, { checkpointEvery: readFileSync(file).length - 1 });
    svc.appendMessage(ID, user('one more'));
    svc.dispose();
    assert.equal(lines().filter((l) => l.startsWith(HEAD)).length, 1);
    assert.deepStrictEqual(loadBoth(), { problems: [], fromCheckpoint: true });
  });

  it('offsets that point at garbage: undo finds the archive by a scan, and says so', () => {
    const { first, archive } = history();
    editLastCheckpoint((r) => {
      const cs = r.checkpoint.compactions as Array<{ offset: number; bytes: number }>;
      cs[0]!.offset = 0; // the first record: not a compaction
      cs[1]!.offset = 10_000_000; // beyond the end of the file
    });
    const svc = new CoreService(dir, shipped);
    assert.deepStrictEqual(svc.snapshot(ID).problems, [], 'nothing is read at the offsets before an undo');
    assert.deepStrictEqual(svc.undo(ID), { seqId: 's2', messages: archive });
    assert.match(svc.snapshot(ID).problems.join('\n'), /compaction s2: its record is not at byte 10000000 — looked for it in the whole log/);
    assert.deepStrictEqual(svc.undo(ID), { seqId: 's1', messages: first });
    assert.match(svc.snapshot(ID).problems.join('\n'), /compaction s1: its record is not at byte 0/);
    svc.dispose();
  });

  it('an archive that is nowhere in the log: undo answers null and says so, the thread stays as it is', () => {
    history();
    editLastCheckpoint((r) => ((r.checkpoint.compactions as Array<{ seqId: string }>)[1]!.seqId = 'gone'));
    const svc = new CoreService(dir, shipped);
    const before = svc.snapshot(ID).messages;
    assert.equal(svc.undo(ID), null);
    assert.match(svc.snapshot(ID).problems.join('\n'), /compaction gone: no record of it in the log — it cannot be undone/);
    assert.deepStrictEqual(svc.snapshot(ID).messages, before);
    svc.dispose();
  });

  it('a message that spells a checkpoint record is data: it is not taken for one', () => {
    const svc = new CoreService(dir, shipped);
    const fake = `${HEAD},"at":1,"v":1,"checkpoint":{}}`;
    svc.appendMessage(ID, user(`line one\n${fake}`));
    svc.appendMessage(ID, { role: 'assistant', text: 'x', kind: 'checkpoint' });
    svc.dispose();
    assert.deepStrictEqual(loadBoth(), { problems: [], fromCheckpoint: false });
  });
});
