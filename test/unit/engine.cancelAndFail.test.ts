/**
 * What a cancel and a failure say, and which timer they stop: the judgment's or the packet turn's own, the
 * outcome the next cooldown reads, and the queued messages delivered as one turn.
 */
import * as assert from 'node:assert/strict';
import type { EngineState } from '../../src/core/engine/types';
import type { Settings } from '../../src/core/settings/schema';
import { commitTurn, find, mkState, run } from '../support/engine';

let clock = 1_700_000_000_000;
const at = () => (clock += 1000);
const started = (settings: Partial<Settings>) =>
  run(mkState({ judgment_enabled: false, ...settings }), [...commitTurn(at, 30), { type: 'evaluate', at: at(), point: 'turn_complete' }]).state;
const seqIdOf = (s: EngineState) => ('seqId' in s.seq ? s.seq.seqId : '');
const corrOf = (s: EngineState) => (s.seq.phase === 'assessing' ? s.seq.corrId : '');

describe('step: cancel and failure', () => {
  it('cancelling the judgment stops its timer and says nothing changed', () => {
    const state = started({ judgment_enabled: true });
    const r = run(state, [{ type: 'cancel', at: at() }]);
    assert.deepEqual(find(r.effects, 'cancel_timer'), [{ type: 'cancel_timer', timerId: `judgment:${corrOf(state)}` }]);
    assert.deepEqual(find(r.effects, 'judgment_ended'), [{ type: 'judgment_ended', corrId: corrOf(state), outcome: 'cancelled' }]);
    assert.deepEqual(find(r.effects, 'annotate'), [{ type: 'annotate', level: 'info', text: 'Compaction judgment cancelled; nothing changed.' }]);
  });

  it('cancelling the packet turn stops its deadline and says the thread is unchanged', () => {
    const state = started({});
    const r = run(state, [{ type: 'cancel', at: at() }]);
    assert.deepEqual(find(r.effects, 'cancel_timer'), [{ type: 'cancel_timer', timerId: `packet:${seqIdOf(state)}` }]);
    assert.deepEqual(find(r.effects, 'annotate'), [{ type: 'annotate', level: 'info', text: 'Compaction sequence cancelled; the thread is unchanged.' }]);
  });

  it('a judgment answered or not parseable ends as answered or invalid, its timer stopped', () => {
    const state = started({ judgment_enabled: true });
    const corrId = corrOf(state);
    const ok = run(state, [{ type: 'judgment_result', at: at(), corrId, text: '{"should_compact": true, "reason": "phase done"}' }]);
    assert.deepEqual(find(ok.effects, 'judgment_ended'), [{ type: 'judgment_ended', corrId, outcome: 'answered' }]);
    assert.deepEqual(find(ok.effects, 'cancel_timer')[0], { type: 'cancel_timer', timerId: `judgment:${corrId}` });
    const bad = run(state, [{ type: 'judgment_result', at: at(), corrId, text: 'maybe?' }]);
    assert.deepEqual(find(bad.effects, 'judgment_ended'), [{ type: 'judgment_ended', corrId, outcome: 'invalid' }]);
    const none = run(state, [{ type: 'judgment_unavailable', at: at(), corrId, why: 'no model' }]);
    assert.deepEqual(find(none.effects, 'cancel_timer')[0], { type: 'cancel_timer', timerId: `judgment:${corrId}` });
  });

  it('a failed swap warns with the error and records a failed attempt; one cancelled by the person is an info and cancelled', () => {
    const compacting = started({ packet_author: 'watcher', scratch_write_enabled: false });
    const seqId = seqIdOf(compacting);
    const failed = run(compacting, [{ type: 'compaction_failed', at: at(), seqId, error: 'model unavailable' }]);
    assert.deepEqual(find(failed.effects, 'annotate'), [
      { type: 'annotate', level: 'warning', text: 'Compaction failed (model unavailable); the thread is unchanged.' },
    ]);
    assert.equal(failed.state.lastCompaction?.outcome, 'failed');
    assert.deepEqual(find(failed.effects, 'sequence_ended'), [{ type: 'sequence_ended', seqId, outcome: 'failed' }]);
    const cancelled = run(compacting, [
      { type: 'cancel', at: at() },
      { type: 'compaction_failed', at: at(), seqId, error: 'aborted' },
    ]);
    assert.deepEqual(find(cancelled.effects, 'annotate'), [{ type: 'annotate', level: 'info', text: 'Compaction cancelled; the thread is unchanged.' }]);
    assert.equal(cancelled.state.lastCompaction?.outcome, 'cancelled');
    assert.deepEqual(find(cancelled.effects, 'sequence_ended'), [{ type: 'sequence_ended', seqId, outcome: 'cancelled' }]);
  });

  it('messages typed during a sequence are delivered one by one and make one turn, separated by a blank line', () => {
    const state = started({});
    const r = run(state, [
      { type: 'user_message', at: at(), text: 'first' },
      { type: 'user_message', at: at(), text: 'second' },
      { type: 'cancel', at: at() },
    ]);
    assert.deepEqual(
      find(r.effects, 'deliver_queued_input').map((d) => d.text),
      ['first', 'second'],
    );
    assert.equal(r.state.trail.userRequests.at(-1)!.text, 'first\n\nsecond');
    assert.equal(r.state.turn, state.turn + 1);
  });
});
