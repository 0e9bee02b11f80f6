/**
 * What the sequence tells the person and the host on its less common paths: a veto, a judgment that timed
 * out, a packet that came too late, the scratch turn's file, an emergency the judgment may not veto, and a
 * compaction in a thread whose size was never reported.
 */
import * as assert from 'node:assert/strict';
import type { EngineEvent, EngineState } from '../../src/core/engine/types';
import type { Settings } from '../../src/core/settings/schema';
import { commitTurn, find, GOOD_PACKET, mkState, run, usedFor } from '../support/engine';

let clock = 1_700_000_000_000;
const at = () => (clock += 1000);
const started = (settings: Partial<Settings>) =>
  run(mkState({ judgment_enabled: false, ...settings }), [...commitTurn(at, 30), { type: 'evaluate', at: at(), point: 'turn_complete' }]);
const corrOf = (s: EngineState) => (s.seq.phase === 'assessing' ? s.seq.corrId : '');
const seqIdOf = (s: EngineState) => ('seqId' in s.seq ? s.seq.seqId : '');

describe('step: what the sequence says on its other paths', () => {
  it('a veto says the judgment would not compact, and why', () => {
    const { state } = started({ judgment_enabled: true });
    const r = run(state, [{ type: 'judgment_result', at: at(), corrId: corrOf(state), text: '{"should_compact": false, "reason": "mid-step"}' }]);
    assert.deepEqual(find(r.effects, 'annotate'), [{ type: 'annotate', level: 'info', text: '[rawr] not compacting: judgment said mid-step' }]);
  });

  it('an emergency that reaches the judgment (a stale route) is compacted even when the judgment says no', () => {
    const { state } = started({ judgment_enabled: true });
    assert.equal(state.seq.phase, 'assessing');
    const emergency: EngineState =
      state.seq.phase === 'assessing' ? { ...state, seq: { ...state.seq, decision: { ...state.seq.decision, tier: 'emergency' } } } : state;
    const r = run(emergency, [{ type: 'judgment_result', at: at(), corrId: corrOf(state), text: '{"should_compact": false, "reason": "mid-step"}' }]);
    assert.equal(find(r.effects, 'decision')[0]!.decision.action, 'compact');
    assert.equal(find(r.effects, 'sequence_started').length, 1);
  });

  it('a judgment that timed out is ended as timed out, then the fallback rule decides', () => {
    const { state } = started({ judgment_enabled: true });
    const corrId = corrOf(state);
    const r = run(state, [{ type: 'timeout', at: at(), timerId: `judgment:${corrId}` }]);
    assert.deepEqual(find(r.effects, 'judgment_ended'), [{ type: 'judgment_ended', corrId, outcome: 'timed_out' }]);
    assert.equal(find(r.effects, 'decision')[0]!.decision.code.startsWith('judgment_'), true);
  });

  it("a packet that did not come in time is replaced by rawr's, with a warning", () => {
    const { state } = started({});
    const r = run(state, [{ type: 'timeout', at: at(), timerId: `packet:${seqIdOf(state)}` }]);
    assert.deepEqual(find(r.effects, 'annotate'), [
      { type: 'annotate', level: 'warning', text: 'The agent did not produce its packet in time; rawr assembled one from the session trail.' },
    ]);
  });

  it("the scratch turn (watcher packet) is asked to write to the agent's scratch file, named in the request", () => {
    const { state, effects } = started({ packet_author: 'watcher' });
    const req = find(effects, 'request_scratch_write')[0]!;
    assert.ok(state.seq.phase === 'awaiting_scratch' && state.seq.scratchPath === req.path);
    assert.ok(req.text.includes(req.path), req.text);
  });

  it('the sequence remembers the size it compacts from', () => {
    const { state } = started({ packet_author: 'watcher', scratch_write_enabled: false });
    assert.ok(state.seq.phase === 'compacting');
    assert.equal(state.seq.tokensBefore, usedFor(30));
  });

  it('Compact Now in a thread whose size was never reported compacts without a percent and without a stall', () => {
    const events: EngineEvent[] = [
      { type: 'user_message', at: at(), text: 'Wrap up the importer, please.' },
      { type: 'compact_now', at: at(), instructions: 'keep the test list' },
    ];
    let r = run(mkState({ judgment_enabled: false }), events);
    const d = find(r.effects, 'decision')[0]!.decision;
    assert.deepEqual([d.percentRemaining, d.boundaries, d.matched], [null, [], []]);
    assert.match(d.reason, /instructions: keep the test list/);
    assert.equal(r.state.instructions, 'keep the test list');
    // The agent's packet may stand in for the summary: it is told what the person asked to keep.
    assert.match(find(r.effects, 'request_packet')[0]!.text, /\n\nAdditional instructions from the user for this compaction: keep the test list$/);
    const seqId = seqIdOf(r.state);
    r = run(r.state, [{ type: 'packet', at: at(), seqId, text: GOOD_PACKET }]);
    assert.ok(r.state.seq.phase === 'compacting' && r.state.seq.tokensBefore === null);
    r = run(r.state, [{ type: 'compaction_done', at: at(), seqId, tokensBefore: 150_000, tokensAfter: 140_000 }]);
    assert.equal(r.state.tokens, null);
    assert.equal(r.state.stall, 'none');
    assert.deepEqual(r.state.lastCompaction && [r.state.lastCompaction.percentBefore, r.state.lastCompaction.percentAfter], [null, null]);
  });
});
