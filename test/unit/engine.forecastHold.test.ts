/**
 * The forecast hold in the step: a forecast compaction at a phase close seen mid-turn waits for the close
 * to end (arbiter.forecast.test.ts has the path); here, where it does not wait, and the growth it counts.
 */
import * as assert from 'node:assert/strict';
import type { Decision, EngineEvent, EngineState, EvaluationPoint } from '../../src/core/engine/types';
import type { Settings } from '../../src/core/settings/schema';
import { mkState, run, WINDOW } from '../support/engine';

let clock = 1_700_000_000_000;
const at = () => (clock += 1000);

/** One phase: the context grows to `used`, then plan step k completes (a phase close), evaluated at `point`. */
function phase(used: number, k: number, point: EvaluationPoint = 'tool_loop'): EngineEvent[] {
  const plan = Array.from({ length: 6 }, (_, i) => ({ text: `step ${i + 1}`, status: i <= k ? ('completed' as const) : ('pending' as const) }));
  return [
    { type: 'tool_call', at: at(), id: `c${k}`, name: 'rawr_update_plan', input: {} },
    { type: 'plan', at: at(), steps: plan },
    { type: 'tool_result', at: at(), id: `c${k}`, output: 'Plan recorded', isError: false },
    { type: 'tokens', at: at(), used, window: WINDOW },
    { type: 'evaluate', at: at(), point },
  ];
}
const decisions = (fx: ReturnType<typeof run>['effects']): Decision[] => fx.flatMap((e) => (e.type === 'decision' ? [e.decision] : []));
const BASE: Partial<Settings> = { judgment_enabled: false, packet_author: 'watcher', scratch_write_enabled: false, cooldown_seconds: 0, cooldown_turns: 0 };

/** Phase 1 (20k → 80k) fits; phase 2's close at 140k is where the forecast wants to compact. */
function beforeSecondClose(settings: Partial<Settings> = {}): EngineState {
  const s = run(mkState({ ...BASE, ...settings }), [
    { type: 'user_message', at: at(), text: 'Build the parser, phase by phase, committing each.' },
    { type: 'tokens', at: at(), used: 20_000, window: WINDOW },
  ]).state;
  return run(s, phase(80_000, 0)).state;
}

/** The state right after phase 2's close mid-turn, its forecast compaction held (the reference case below). */
function heldAtSecondClose(): EngineState & { forecastHold: NonNullable<EngineState['forecastHold']> } {
  const s = run(beforeSecondClose(), phase(140_000, 1)).state;
  assert.ok(s.forecastHold);
  return s as EngineState & { forecastHold: NonNullable<EngineState['forecastHold']> };
}

describe('step: the forecast hold', () => {
  it('held mid-turn (the reference case)', () => {
    assert.equal(decisions(run(beforeSecondClose(), phase(140_000, 1)).effects)[0]!.code, 'forecast_held');
  });

  it('a close seen at the end of a turn is not held: the compaction is decided at once', () => {
    const r = run(beforeSecondClose(), phase(140_000, 1, 'turn_complete'));
    const d = decisions(r.effects)[0]!;
    assert.notEqual(d.code, 'forecast_held');
    assert.notEqual(d.action, 'none');
    assert.equal(r.state.forecastHold, null);
  });

  it('in suggest mode the forecast only offers Compact now, at once: nothing is held', () => {
    const r = run(beforeSecondClose({ mode: 'suggest' }), phase(140_000, 1));
    const d = decisions(r.effects)[0]!;
    assert.equal(d.action, 'suggest');
    assert.equal(r.state.forecastHold, null);
  });

  it('the forecast turned off while a hold waits: the next evaluation ignores the hold', () => {
    const held = heldAtSecondClose();
    const r = run(held, [
      { type: 'settings', at: at(), settings: { ...held.settings, forecast_enabled: false } },
      { type: 'evaluate', at: at(), point: 'tool_loop' },
    ]);
    const d = decisions(r.effects)[0]!;
    assert.notEqual(d.code, 'forecast');
    assert.equal(d.forecast ?? null, null);
  });

  it('token counts during a sequence, or from another window, are not growth of the phase', () => {
    const s = beforeSecondClose();
    const other = run(s, [{ type: 'tokens', at: at(), used: 90_000, window: WINDOW * 2 }]).state;
    assert.equal(other.forecast, s.forecast);
    const grown = run(s, [{ type: 'tokens', at: at(), used: 90_000, window: WINDOW }]).state;
    assert.notEqual(grown.forecast, s.forecast);
    const seq = run(s, [{ type: 'compact_now', at: at() }]).state;
    assert.notEqual(seq.seq.phase, 'idle');
    assert.equal(run(seq, [{ type: 'tokens', at: at(), used: 95_000, window: WINDOW }]).state.forecast, seq.forecast);
  });

  it('the held compaction, when it fires, names the close it waited for (its boundary is in the decision)', () => {
    const held = heldAtSecondClose();
    const d = decisions(run(held, [{ type: 'evaluate', at: at(), point: 'tool_loop' }]).effects)[0]!;
    assert.equal(d.code, 'forecast');
    assert.equal(d.action, 'compact');
    assert.deepEqual(d.matched, held.forecastHold.matched);
    assert.ok(d.matched.length > 0);
    // The close's own signal is one of the decision's boundaries: the heads-up and the panel name it.
    assert.deepEqual(
      d.boundaries.filter((b) => d.matched.includes(b.id)).map((b) => b.kind),
      ['plan_checkpoint'],
    );
  });

  // At the next tool call or at the turn's end, and with the judgment on (auto mode would ask it first).
  for (const mode of ['suggest', 'tag'] as const)
    for (const point of ['tool_loop', 'turn_complete'] as const)
      it(`the mode switched to ${mode} while a hold waits: the hold ends as ${mode === 'suggest' ? 'an offer' : 'an annotation'} (${point}), never a compaction`, () => {
        const held = heldAtSecondClose();
        const r = run(held, [
          { type: 'settings', at: at(), settings: { ...held.settings, mode, judgment_enabled: true } },
          { type: 'evaluate', at: at(), point },
        ]);
        const d = decisions(r.effects)[0]!;
        assert.equal(d.action, mode);
        assert.equal(d.code, 'forecast');
        // Nothing of a compaction starts: no compaction, no packet or scratch write asked for.
        assert.deepEqual(
          r.effects.filter((e) => e.type === 'compact' || e.type === 'request_packet' || e.type === 'request_scratch_write'),
          [],
        );
      });
});
