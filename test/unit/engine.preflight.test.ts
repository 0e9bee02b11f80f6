/**
 * The preflight: decided at a turn's end, run when the person's next message arrives (which waits until the
 * handoff), and dropped by anything that makes the decision stale or not allowed any more.
 */
import * as assert from 'node:assert/strict';
import type { EngineState } from '../../src/core/engine/types';
import type { Settings } from '../../src/core/settings/schema';
import { find, mkState, run, types, usedFor, WINDOW } from '../support/engine';

const T0 = 1_700_000_000_000;
let clock = T0;
const at = () => (clock += 1000);

/** A turn that ends with only its turn end as a boundary, at 20% left: the arbiter decides a preflight. */
function preflighted(settings: Partial<Settings> = {}): EngineState {
  const { state, effects } = run(mkState({ judgment_enabled: false, scratch_write_enabled: false, ...settings }), [
    { type: 'user_message', at: at(), text: 'Explain the design of the importer.' },
    { type: 'assistant_message', at: at(), text: 'The importer reads JSON Lines and normalises records into items.' },
    { type: 'tokens', at: at(), used: usedFor(20), window: WINDOW },
    { type: 'evaluate', at: at(), point: 'turn_complete' },
  ]);
  assert.equal(find(effects, 'decision')[0]!.decision.action, 'preflight');
  assert.ok(state.preflight);
  return state;
}

describe('step: preflight', () => {
  it('the next message is held, then a decision of its own (a new id, point preflight) starts the sequence', () => {
    const state = preflighted();
    const r = run(state, [{ type: 'user_message', at: at(), text: 'Now add the CLI.' }]);
    // Facts first (the decision, the sequence), then the commands (the message held, the heads-up).
    assert.deepEqual(types(r.effects).slice(0, 4), ['decision', 'sequence_started', 'hold_user_message', 'inject_heads_up']);
    assert.deepEqual(find(r.effects, 'hold_user_message')[0], { type: 'hold_user_message', text: 'Now add the CLI.', reason: 'preflight' });
    const d = find(r.effects, 'decision')[0]!.decision;
    assert.equal(d.id, `d${state.counter + 1}`);
    assert.notEqual(d.id, state.preflight!.id);
    assert.equal(d.point, 'preflight');
    assert.equal(d.action, 'compact');
    assert.equal(r.state.lastDecision, d);
    assert.equal(find(r.effects, 'sequence_started')[0]!.decisionId, d.id);
    // The decision and the sequence each take a number: no id is given twice.
    assert.equal(find(r.effects, 'sequence_started')[0]!.seqId, `s${state.counter + 2}`);
    assert.equal(r.state.counter, state.counter + 2);
    assert.equal(r.state.preflight, null);
  });

  it('with the mode no longer auto, the next message goes into the thread and the preflight is dropped', () => {
    const state = preflighted();
    const off = run(state, [
      { type: 'settings', at: at(), settings: { ...state.settings, mode: 'suggest' } },
      { type: 'user_message', at: at(), text: 'Now add the CLI.' },
    ]);
    assert.deepEqual(types(off.effects), ['append_user_message']);
    assert.equal(off.state.preflight, null);
    assert.equal(off.state.seq.phase, 'idle');
  });

  it('cancel with nothing running drops a waiting preflight (the next message goes into the thread)', () => {
    const state = preflighted();
    const c = run(state, [{ type: 'cancel', at: at() }]);
    assert.deepEqual(c.effects, []);
    assert.equal(c.state.preflight, null);
    assert.deepEqual(types(run(c.state, [{ type: 'user_message', at: at(), text: 'Next.' }]).effects), ['append_user_message']);
    // Nothing waiting and nothing running: cancel changes nothing at all.
    const idle = mkState();
    assert.equal(run(idle, [{ type: 'cancel', at: at() }]).state, idle);
  });
});
