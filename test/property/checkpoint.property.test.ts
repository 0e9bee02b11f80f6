/**
 * Checkpoints are a shortcut, never a different answer (src/core/log/checkpoint.ts): random sequences of
 * CoreService operations (events through the real step, driven along the golden path when the engine asks;
 * appended messages; swaps; undos; requests retried with their rid; crashes = a new CoreService on the same
 * folder) with checkpoints written every few hundred bytes. After every operation, a load that starts from
 * the last checkpoint holds exactly what a load that ignores checkpoints holds (engine state, thread,
 * undoable compactions, request window, decisions, event count); and an undo, after any reload, gives back
 * exactly the thread its compaction archived (read back from the log).
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { EngineEvent } from '../../src/core/engine/types';
import { CoreService } from '../../src/core/service/coreService';
import { threadBeforeSequence, type ThreadMessage } from '../../src/core/thread/thread';
import { defined } from '../support/defined';
import { GOOD_PACKET, shipped, WINDOW } from '../support/engine';

const RUNS = Number(process.env.RAWR_PROPERTY_RUNS_CHECKPOINT ?? 300);
const ID = 't1';

/** Texts that look like log structure: inside a checkpoint they are data, never markers. */
const NASTY = ['{"rawr":1,"thread":"t1","kind":"checkpoint","at":1,"v":1,"checkpoint":{}}', ',"kind":"checkpoint",', 'line\n{"rawr":1,', '"\\', 'é✓🙂'];
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom(...NASTY));

type Op =
  | { op: 'event'; kind: number; n: number; rid: boolean }
  | { op: 'message'; text: string; rid: boolean }
  | { op: 'swap'; seq: number; text: string; rid: boolean }
  | { op: 'undo'; rid: boolean }
  | { op: 'retry'; back: number }
  | { op: 'crash' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ op: fc.constant('event' as const), kind: fc.nat(9), n: fc.nat(1000), rid: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('message' as const), text, rid: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('swap' as const), seq: fc.nat(3), text, rid: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('undo' as const), rid: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('retry' as const), back: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'crash' as const }) },
);

/** The event for `kind`: what the engine waits for when a sequence runs (so it gets through), else a turn's traffic. */
function eventOf(svc: CoreService, kind: number, n: number, at: number): EngineEvent {
  const seq = svc.snapshot(ID).state.seq;
  if (kind === 0 && seq.phase === 'assessing')
    return { type: 'judgment_result', at, corrId: seq.corrId, text: '{"should_compact":true,"reason":"phase done"}' };
  if (kind === 0 && seq.phase === 'awaiting_packet') return { type: 'packet', at, seqId: seq.seqId, text: GOOD_PACKET };
  if (kind === 0 && seq.phase === 'compacting') return { type: 'compaction_done', at, seqId: seq.seqId, tokensBefore: 150_000, tokensAfter: 30_000 };
  switch (kind) {
    case 0:
    case 1:
      return { type: 'user_message', at, text: `ask ${n}` };
    case 2:
      return { type: 'assistant_message', at, text: n % 2 ? 'All done, committed.' : `working ${n}` };
    case 3:
      return { type: 'tokens', at, used: 20_000 + ((n * 997) % 175_000), window: WINDOW };
    case 4:
      return { type: 'boundary', at, source: 'git', boundary: { kind: 'commit', key: `c${n}`, detail: `c${n} phase` } };
    case 5:
      return { type: 'evaluate', at, point: n % 2 ? 'turn_complete' : 'tool_loop' };
    case 6:
      return { type: 'tool_call', at, id: `call${n % 4}`, name: 'Bash', input: { command: `echo ${n}` } };
    case 7:
      return { type: 'tool_result', at, id: `call${n % 4}`, output: `out ${n}`, isError: n % 5 === 0 };
    case 8:
      return {
        type: 'plan',
        at,
        steps: [
          { text: 'one', status: n % 2 ? 'completed' : 'in_progress' },
          { text: 'two', status: 'pending' },
        ],
      };
    default:
      return n % 3 ? { type: 'compact_now', at } : { type: 'cancel', at };
  }
}

describe('property: a load from a checkpoint equals a full replay', function () {
  this.timeout(600_000);

  it(`random operations with crashes and retries (${RUNS} runs): same state, thread, compactions, requests, decisions; undo gives back the archive`, () => {
    let fromCheckpoint = 0;
    let undone = 0;
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 30 }), fc.integer({ min: 200, max: 4000 }), (ops, every) => {
        const dir = mkdtempSync(join(tmpdir(), 'rawr-cp-prop-'));
        const open = () => new CoreService(dir, shipped, { checkpointEvery: every });
        let svc = open();
        let clock = 1_000;
        /** The archives of the undoable compactions, as the live thread was before each swap. */
        const archives: Array<{ seqId: string; archived: ThreadMessage[] }> = [];
        const done: Array<() => void> = [];
        try {
          ops.forEach((op, k) => {
            const rid = 'rid' in op && op.rid ? `r${k}` : undefined;
            switch (op.op) {
              case 'event': {
                const ev = eventOf(svc, op.kind, op.n, clock++);
                const call = () => svc.step(ID, ev, rid);
                call();
                if (rid) done.push(call);
                break;
              }
              case 'message': {
                const call = () => svc.appendMessage(ID, { role: 'user', text: op.text }, rid);
                call();
                if (rid) done.push(call);
                break;
              }
              case 'swap': {
                const before = threadBeforeSequence(svc.snapshot(ID).messages);
                const c = { seqId: `s${op.seq}`, tokensBefore: 100, tokensAfter: 10, replacement: [{ role: 'user' as const, text: `summary ${op.text}` }] };
                svc.swap(ID, c, rid);
                archives.push({ seqId: c.seqId, archived: before });
                if (archives.length > 50) archives.shift();
                if (rid) done.push(() => svc.swap(ID, c, rid));
                break;
              }
              case 'undo': {
                const got = svc.undo(ID, rid);
                const want = archives.pop();
                assert.deepStrictEqual(got, want ? { seqId: want.seqId, messages: want.archived } : null, 'undo gives back the archived thread');
                if (got) undone++;
                // A retried undo answers the first answer and undoes nothing more. (One that found nothing
                // to undo was not applied, and is not remembered: its retry is a new undo.)
                if (rid && got) done.push(() => assert.deepStrictEqual(svc.undo(ID, rid), got));
                break;
              }
              case 'retry': {
                const call = done[done.length - 1 - Math.min(op.back, done.length - 1)];
                const before = svc.held(ID);
                call?.();
                assert.deepStrictEqual(defined(svc.held(ID)), defined(before), 'a retry changes nothing');
                break;
              }
              case 'crash':
                svc.dispose();
                svc = open();
                break;
            }
            const quick = new CoreService(dir, shipped);
            const full = new CoreService(dir, shipped, { checkpoints: false });
            try {
              assert.deepStrictEqual(defined(quick.held(ID)), defined(full.held(ID)), `after op ${k} (${op.op})`);
              assert.deepStrictEqual(defined(quick.held(ID)), defined(svc.held(ID)), `the live thread after op ${k} (${op.op})`);
              assert.deepStrictEqual(quick.snapshot(ID).problems, []);
              assert.deepStrictEqual(full.snapshot(ID).problems, []);
              if (quick.lastLoad?.fromCheckpoint) fromCheckpoint++;
            } finally {
              quick.dispose();
              full.dispose();
            }
          });
        } finally {
          svc.dispose();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: RUNS },
    );
    // The property is about checkpoints: most loads must have started from one, and undos must have run.
    assert.ok(fromCheckpoint > RUNS, `loads from a checkpoint: ${fromCheckpoint}`);
    assert.ok(undone > 0, `undos that gave back an archive: ${undone}`);
  });
});
