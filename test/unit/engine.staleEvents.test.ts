/**
 * Events that do not belong to the current phase or sequence are stale: the step ignores them (same state,
 * nothing said). Each report is checked in a phase it does not belong to with the current sequence's own
 * id, and in its own phase with another id, so that both halves of every guard are needed.
 */
import * as assert from 'node:assert/strict';
import type { EngineEvent, EngineState } from '../../src/core/engine/types';
import type { Settings } from '../../src/core/settings/schema';
import { commitTurn, find, GOOD_PACKET, mkState, run, usedFor } from '../support/engine';

const T0 = 1_700_000_000_000;
let clock = T0;
const at = () => (clock += 1000);

/** A sequence started at a commit with 30% left; the settings choose the phase it waits in. */
const started = (settings: Partial<Settings>) =>
  run(mkState({ judgment_enabled: false, ...settings }), [...commitTurn(at, 30), { type: 'evaluate', at: at(), point: 'turn_complete' }]).state;

const PHASES = {
  assessing: () => started({ judgment_enabled: true }),
  awaiting_scratch: () => started({ packet_author: 'watcher' }),
  awaiting_packet: () => started({}),
  compacting: () => started({ packet_author: 'watcher', scratch_write_enabled: false }),
} as const;

const idOf = (s: EngineState) => ('seqId' in s.seq ? s.seq.seqId : '');
const corrOf = (s: EngineState) => (s.seq.phase === 'assessing' ? s.seq.corrId : '');

/** Every report of the sequence, for the sequence (and judgment) `seqId` / `corrId`. */
const reports = (seqId: string, corrId: string): EngineEvent[] => [
  { type: 'judgment_result', at: at(), corrId, text: '{"should_compact": true, "reason": "ok"}' },
  { type: 'judgment_unavailable', at: at(), corrId, why: 'no judge' },
  { type: 'scratch_written', at: at(), seqId, path: '/tmp/x.md' },
  { type: 'packet', at: at(), seqId, text: GOOD_PACKET },
  { type: 'compaction_done', at: at(), seqId, tokensBefore: usedFor(30), tokensAfter: usedFor(80) },
  { type: 'compaction_failed', at: at(), seqId, error: 'boom' },
];
/** The phase each report belongs to. */
const OWN: Record<string, keyof typeof PHASES> = {
  judgment_result: 'assessing',
  judgment_unavailable: 'assessing',
  scratch_written: 'awaiting_scratch',
  packet: 'awaiting_packet',
  compaction_done: 'compacting',
  compaction_failed: 'compacting',
};

function assertIgnored(state: EngineState, ev: EngineEvent, why: string): void {
  const r = run(state, [ev]);
  assert.deepEqual(r.effects, [], `${ev.type} ${why}: nothing said`);
  assert.equal(r.state, state, `${ev.type} ${why}: the state is untouched`);
}

describe('step: stale reports are ignored', () => {
  for (const [phase, make] of Object.entries(PHASES)) {
    it(`while ${phase}: a report of another phase, even with this sequence's id, is ignored`, () => {
      const state = make();
      assert.equal(state.seq.phase, phase);
      for (const ev of reports(idOf(state), `j${state.counter}`)) if (OWN[ev.type] !== phase) assertIgnored(state, ev, `in ${phase}`);
    });
  }

  it("in its own phase, a report for another sequence or judgment is ignored (only the current one's counts)", () => {
    for (const [phase, make] of Object.entries(PHASES)) {
      const state = make();
      for (const ev of reports('s999', 'j999')) if (OWN[ev.type] === phase) assertIgnored(state, ev, `in ${phase} for another id`);
    }
  });

  it('in its own phase with the current id, each report moves the sequence on (the guards let the right one through)', () => {
    for (const [phase, make] of Object.entries(PHASES)) {
      const state = make();
      for (const ev of reports(idOf(state), corrOf(state))) {
        if (OWN[ev.type] !== phase) continue;
        const r = run(state, [ev]);
        assert.notEqual(r.state.seq.phase, phase, `${ev.type} ends ${phase}`);
      }
    }
  });
});

describe('step: what happens during a sequence stays out of the thread', () => {
  it('Compact Now while a sequence runs says one is already running and starts nothing', () => {
    const state = PHASES.awaiting_packet();
    const r = run(state, [{ type: 'compact_now', at: at(), instructions: 'keep the API notes' }]);
    assert.deepEqual(r.effects, [{ type: 'annotate', level: 'info', text: 'A compaction is already running.' }]);
    assert.equal(r.state, state);
  });

  it('an overflow while a sequence runs warns and lets that compaction continue', () => {
    const state = PHASES.compacting();
    const r = run(state, [{ type: 'overflow', at: at(), error: 'prompt is too long' }]);
    assert.deepEqual(
      find(r.effects, 'annotate').map((a) => a.level),
      ['warning'],
    );
    assert.equal(r.effects.length, 1);
    assert.equal(r.state, state);
  });

  it("the sequence's own tool calls are tracked as open (rule 3) but never enter the trail", () => {
    const state = PHASES.awaiting_packet();
    const r = run(state, [{ type: 'tool_call', at: at(), id: 'scratch-1', name: 'rawr_write_scratch', input: { file_path: '/tmp/notes.md' } }]);
    assert.deepEqual(r.state.openToolCalls, [...state.openToolCalls, 'scratch-1']);
    assert.equal(r.state.trail, state.trail);
    assert.equal(r.state.workActivityThisTurn, state.workActivityThisTurn);
    assert.deepEqual(r.effects, []);
    // Its result closes it; a result for a call that is not open is ignored outright.
    const done = run(r.state, [{ type: 'tool_result', at: at(), id: 'scratch-1', output: 'ok', isError: false }]);
    assert.deepEqual(done.state.openToolCalls, state.openToolCalls);
    const stray = run(r.state, [{ type: 'tool_result', at: at(), id: 'nobody', output: 'ok', isError: false }]);
    assert.equal(stray.state, r.state);
  });

  it('a plan step completed during a sequence is noted as ignored, though the plan is kept', () => {
    const state = PHASES.awaiting_packet();
    const r = run(state, [{ type: 'plan', at: at(), steps: [{ text: 'phase 3', status: 'completed' }] }]);
    const noted = find(r.effects, 'boundary_noted');
    assert.deepEqual(
      noted.map((n) => [n.status, n.why, n.boundary.source]),
      [['ignored', 'during_sequence', 'plan_tool']],
    );
    assert.deepEqual(r.state.pending, state.pending);
    assert.deepEqual(r.state.plan?.steps, [{ text: 'phase 3', status: 'completed' }]);
  });
});
