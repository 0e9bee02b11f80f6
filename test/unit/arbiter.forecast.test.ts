/** The phase forecast: phase sizes, the estimate, and what it makes the engine do at a phase close. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  compactionBuys,
  compareNowAndWait,
  outlook,
  emergenciesIn,
  emptyForecast,
  forecastNext,
  forecastVerdict,
  onCompacted,
  onPhaseClose,
  onTokens,
  phaseScenarios,
  calibratedScenarios,
  calibratedFit,
  withPrior,
  type PhaseForecast,
} from '../../src/core/arbiter/forecast';
import type { Decision, EngineEvent, EngineState } from '../../src/core/engine/types';
import type { BoundarySignal } from '../../src/core/signals/types';
import { CoreService, workspacePhasePrior } from '../../src/core/service/coreService';
import { mkState, run, shipped, WINDOW } from '../support/engine';

let clock = 1_700_000_000_000;
const at = () => (clock += 1000);

/** One phase: the context grows by `grow` tokens, then a plan step completes (a phase close), mid-turn. */
function phase(used: number, k: number, steps = 6): EngineEvent[] {
  const plan = Array.from({ length: steps }, (_, i) => ({ text: `step ${i + 1}`, status: i <= k ? ('completed' as const) : ('pending' as const) }));
  return [
    { type: 'tool_call', at: at(), id: `c${k}`, name: 'rawr_update_plan', input: {} },
    { type: 'plan', at: at(), steps: plan },
    { type: 'tool_result', at: at(), id: `c${k}`, output: 'Plan recorded', isError: false },
    { type: 'tokens', at: at(), used, window: WINDOW },
    { type: 'evaluate', at: at(), point: 'tool_loop' },
  ];
}

const decisions = (fx: ReturnType<typeof run>['effects']): Decision[] => fx.flatMap((e) => (e.type === 'decision' ? [e.decision] : []));

describe('phase forecast: sizes and estimate', () => {
  it('growth counts every change of the context, never below the last close; a close records the phase', () => {
    let f = emptyForecast();
    f = onTokens(f, null, 20_000); // the first count is the start, not growth
    assert.equal(f.grown, 0);
    f = onTokens(f, 20_000, 70_000);
    f = onTokens(f, 70_000, 66_000); // an estimate corrected down
    assert.equal(f.grown, 46_000);
    f = onPhaseClose(f, WINDOW);
    assert.deepEqual(f.phases, [46_000]);
    // The commit two tool calls after the plan step is the same close (< 3% of the window later).
    f = onTokens(f, 66_000, 69_000);
    f = onPhaseClose(f, WINDOW);
    assert.deepEqual(f.phases, [46_000]);
    assert.equal(f.closeAt, 46_000);
  });

  it('a phase keeps what it grew before a compaction cut it: a drop as large as a compaction is one, not negative growth (issue 33)', () => {
    // 100k grown, then the agent's own (emergency) compaction reported as a count: 120k -> 30k. The phase
    // goes on to 70k and closes: it was 140k, not the 40k grown since the cut (a small phase at the next
    // close would make rawr wait into the next emergency).
    let f = onTokens(emptyForecast(), null, 20_000);
    f = onTokens(f, 20_000, 120_000);
    f = onTokens(f, 120_000, 30_000);
    assert.equal(f.grown, 100_000);
    assert.equal(f.fresh, 30_000, 'what the compaction left is what the next one will leave');
    f = onTokens(f, 30_000, 70_000);
    // A small correction down is still an estimate corrected, counted as it is.
    assert.equal(onTokens(f, 70_000, 66_000).grown, 136_000);
    f = onPhaseClose(f, WINDOW);
    assert.deepEqual(f.phases, [140_000]);
  });

  it('the estimate is the largest of the recent phases; a prior stands in before the first', () => {
    const s = { ...shipped.settings, forecast_recent_phases: 3, forecast_first_phase_percent: 30 };
    const f = { ...emptyForecast(), phases: [90_000, 40_000, 50_000, 45_000] };
    assert.equal(forecastNext(f, s, WINDOW, null).nextPhaseTokens, 50_000); // 90k is older than the last 3
    assert.equal(forecastNext(f, s, WINDOW, null).basis, 'thread');
    assert.deepEqual(forecastNext(emptyForecast(), s, WINDOW, null), {
      nextPhaseTokens: 60_000,
      basis: 'settings',
      samples: [60_000],
      phases: 0,
      sinceClose: 0,
      planFinished: false,
      freshTokens: 0,
      remainingPhases: null,
    });
    const fromWorkspace = forecastNext(withPrior(emptyForecast(), [30_000, -1, Number.NaN, 35_000]), s, WINDOW, null);
    assert.deepEqual([fromWorkspace.nextPhaseTokens, fromWorkspace.basis], [35_000, 'workspace']);
  });
});

describe('phase forecast: decisions at phase closes', () => {
  const settings = { judgment_enabled: false, packet_author: 'watcher' as const, scratch_write_enabled: false, cooldown_seconds: 0, cooldown_turns: 0 };
  const start = (): EngineState =>
    run(mkState(settings), [
      { type: 'user_message', at: at(), text: 'Build the parser, phase by phase, committing each.' },
      { type: 'tokens', at: at(), used: 20_000, window: WINDOW },
    ]).state;

  it('above the early threshold: compacts at the end of the close when the next phase will not fit', () => {
    // Phase 1 adds 60k (20k → 80k: 60% left, no tier) and fits in the 96k left before emergency.
    let r = run(start(), phase(80_000, 0));
    let d = decisions(r.effects)[0]!;
    assert.equal(d.code, 'above_threshold');
    assert.equal(d.forecast?.verdict, 'fits');
    // Phase 2 adds 60k more: 140k used, 36k left before the emergency line (176k), next phase ≈ 60k.
    r = run(r.state, phase(140_000, 1));
    d = decisions(r.effects)[0]!;
    assert.equal(d.tier, 'ready');
    assert.equal(d.code, 'forecast_held');
    assert.match(
      d.reason,
      /compacting when this phase close ends avoids an emergency in the next phase( \(in \d+ of \d+ forecast scenarios, \d+% by recency weight\))?: forecast \d+k, room 36k before emergency/,
    );
    assert.ok(!r.effects.some((e) => e.type === 'inject_heads_up'), 'not at the first signal of the close');
    // The close ends at the next evaluation point: the compaction cites the plan step.
    r = run(r.state, [{ type: 'evaluate', at: at(), point: 'turn_complete' }]);
    d = decisions(r.effects)[0]!;
    assert.equal(d.code, 'forecast');
    assert.equal(d.action, 'preflight');
    assert.ok(d.matched.some((id) => id.startsWith('plan_checkpoint')));
    assert.match(
      d.reason,
      /compacting at the end of this phase close avoids an emergency in the next phase( \(in \d+ of \d+ forecast scenarios, \d+% by recency weight\))?: forecast \d+k, room 36k before emergency/,
    );
  });

  it('a held close continued by another close signal: the compaction names the held signal too', () => {
    // Phase 2's plan step is held (forecast_held); the agent's commit of the same phase arrives as the next
    // close signal. The compaction that follows names the plan step the hold was made at and the commit.
    let r = run(start(), phase(80_000, 0));
    r = run(r.state, phase(140_000, 1));
    assert.equal(decisions(r.effects)[0]!.code, 'forecast_held');
    r = run(r.state, [
      { type: 'boundary', at: at(), source: 'tool_result', boundary: { kind: 'commit', key: 'abc1234', detail: 'abc1234 phase 2' } },
      { type: 'evaluate', at: at(), point: 'tool_loop' },
    ]);
    // Still inside the close: held again, now with both signals; the next evaluation point compacts.
    assert.equal(decisions(r.effects).at(-1)!.code, 'forecast_held');
    r = run(r.state, [{ type: 'evaluate', at: at(), point: 'tool_loop' }]);
    const d = decisions(r.effects).at(-1)!;
    assert.equal(d.code, 'forecast', `${d.code}: ${d.reason}`);
    assert.ok(
      r.effects.some((e) => e.type === 'compact' || e.type === 'inject_heads_up'),
      'the compaction starts',
    );
    assert.ok(
      d.matched.some((id) => id.startsWith('plan_checkpoint')),
      `the held plan step: ${d.matched.join(', ')}`,
    );
    assert.ok(
      d.matched.some((id) => id.startsWith('commit')),
      `the commit: ${d.matched.join(', ')}`,
    );
  });

  it('a forecast compaction above every threshold (a long phase seen, far from any tier)', () => {
    const s = mkState({ ...settings, forecast_margin_percent: 0 });
    let st = run(s, [
      { type: 'user_message', at: at(), text: 'Go.' },
      { type: 'tokens', at: at(), used: 10_000, window: WINDOW },
    ]).state;
    // Phase 1 adds 70k (80k used, 96k left: fits); phase 2 only 28k: 108k used, 46% left (no tier).
    st = run(st, phase(80_000, 0)).state;
    assert.equal(st.lastDecision!.forecast?.verdict, 'fits');
    const r = run(st, phase(108_000, 1));
    const d = decisions(r.effects)[0]!;
    assert.equal(d.tier, null);
    assert.equal(d.code, 'forecast_held');
    assert.match(
      d.reason,
      /^46\.0% remaining; plan_checkpoint .*: compacting when this phase close ends avoids an emergency in the next phase( \(in \d+ of \d+ forecast scenarios, \d+% by recency weight\))?: forecast \d+k, room 68k before emergency/,
    );
    const fired = run(r.state, [{ type: 'evaluate', at: at(), point: 'tool_loop' }]);
    assert.equal(decisions(fired.effects)[0]!.code, 'forecast');
    assert.ok(fired.effects.some((e) => e.type === 'compact'));
  });

  it('the judgment request carries the forecast as context', () => {
    let st = run(mkState({ ...settings, judgment_enabled: true }), [
      { type: 'user_message', at: at(), text: 'Go.' },
      { type: 'tokens', at: at(), used: 20_000, window: WINDOW },
    ]).state;
    st = run(st, phase(80_000, 0)).state;
    st = run(st, phase(140_000, 1)).state;
    const r = run(st, [{ type: 'evaluate', at: at(), point: 'tool_loop' }]);
    const req = r.effects.find((e) => e.type === 'request_judgment');
    assert.ok(req && req.type === 'request_judgment');
    assert.match(req.user, /Phase forecast/);
    assert.match(
      req.user,
      /- next phase ≈ \d+k tokens, 36k left before emergency \(estimate from the largest of this thread's recent phases \(2 completed\)\)/,
    );
    assert.match(
      req.user,
      /verdict: compact at this phase close: it avoids an emergency in the next phase( \(in \d+ of \d+ forecast scenarios, \d+% by recency weight\))?: forecast \d+k, room 36k before emergency/,
    );
  });

  it('holds back a tier compaction when the next phase fits', () => {
    // Phases of 25k: at 115k used (42% left, tier early) a plan step would compact; 61k are left.
    let st = start();
    for (const [k, used] of [
      [0, 45_000],
      [1, 70_000],
      [2, 95_000],
      [3, 115_000],
    ] as const)
      st = run(st, phase(used, k)).state;
    const d = st.lastDecision!;
    assert.equal(d.tier, 'early');
    assert.equal(d.code, 'forecast_fits');
    assert.equal(d.action, 'none');
    assert.match(
      d.reason,
      /next phase ≈ 25k tokens, 61k left before emergency: it fits, and compacting now avoids nothing over the 2 planned phases ahead, waiting for a later boundary/,
    );
  });

  it('never touches emergency, and does nothing when disabled', () => {
    let st = run(start(), phase(80_000, 0)).state;
    let r = run(st, phase(180_000, 1)); // 10% left
    assert.equal(decisions(r.effects)[0]!.code, 'emergency');
    st = run(mkState({ ...settings, forecast_enabled: false }), [
      { type: 'user_message', at: at(), text: 'Go.' },
      { type: 'tokens', at: at(), used: 20_000, window: WINDOW },
    ]).state;
    st = run(st, phase(80_000, 0)).state;
    r = run(st, phase(140_000, 1));
    const d = decisions(r.effects)[0]!;
    assert.equal(d.code, 'compact');
    assert.equal(d.forecast, undefined);
  });

  it('the finished plan: no compaction mid-turn; before the next request if that phase will not fit', () => {
    let st = start();
    st = run(st, phase(80_000, 0, 2)).state;
    const r = run(st, phase(140_000, 1, 2)); // 2/2 done
    assert.equal(decisions(r.effects)[0]!.code, 'forecast_plan_done');
    const end = run(r.state, [{ type: 'evaluate', at: at(), point: 'turn_complete' }]);
    const d = decisions(end.effects)[0]!;
    assert.equal(d.code, 'forecast');
    assert.equal(d.action, 'preflight');
    assert.match(
      d.reason,
      /compacting before the next request \(the plan is finished\) avoids an emergency in the next phase( \(in \d+ of \d+ forecast scenarios, \d+% by recency weight\))?: forecast \d+k, room 36k before emergency/,
    );
  });
});

describe('phase forecast: the workspace prior', () => {
  it('a new thread starts from the phases of the last earlier thread in the workspace log', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-prior-'));
    try {
      const svc = new CoreService(dir, shipped);
      const step = (ev: EngineEvent) => svc.step('first', ev);
      step({ type: 'user_message', at: at(), text: 'Go.' });
      step({ type: 'tokens', at: at(), used: 20_000, window: WINDOW });
      for (const ev of phase(60_000, 0)) step(ev);
      for (const ev of phase(90_000, 1)) step(ev);
      assert.deepEqual(workspacePhasePrior(dir, 'second'), [40_000, 30_000]);
      // The second thread's forecast rests on them before it completes a phase of its own.
      const snap = svc.snapshot('second');
      assert.deepEqual(snap.state.forecast.prior, [40_000, 30_000]);
      assert.equal(forecastNext(snap.state.forecast, snap.state.settings, WINDOW, null).basis, 'workspace');
      svc.dispose();
      // A garbage log beside them changes nothing.
      fs.writeFileSync(path.join(dir, 'junk.jsonl'), '{"kind":"decision","decision":{"forecast":{"basis":"thread","samples":"x"}}}\nnot json\n');
      assert.deepEqual(workspacePhasePrior(dir, 'third'), [40_000, 30_000]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('phase forecast: what compacting now buys (issue 21)', () => {
  const s = shipped.settings; // emergency below 12%: the line is at 176k of 200k; margin 5%
  const forecast = (samples: number[], freshTokens = 30_000): PhaseForecast => ({
    nextPhaseTokens: Math.max(...samples),
    basis: 'thread',
    samples,
    phases: samples.length,
    sinceClose: 0,
    planFinished: false,
    freshTokens,
  });
  const commit: BoundarySignal[] = [
    { id: 'commit:abc', kind: 'commit', strength: 'strong', source: 'tool_result', detail: 'abc phase 2', at: 0, turn: 1, synthetic: false },
  ];
  const verdict = (samples: number[], used: number, freshTokens?: number) =>
    forecastVerdict({ forecast: forecast(samples, freshTokens), settings: s, used, window: WINDOW, point: 'tool_loop', boundaries: commit });

  it('counts the emergencies a phase needs from a context: one at the line, one more per fresh context filled', () => {
    assert.equal(emergenciesIn(100_000, 70_000, 176_000, 30_000), 0);
    assert.equal(emergenciesIn(100_000, 80_000, 176_000, 30_000), 1);
    assert.equal(emergenciesIn(150_000, 250_000, 176_000, 30_000), 2); // 176k, then 30k + 146k again
    assert.equal(emergenciesIn(30_000, 250_000, 176_000, 30_000), 1);
    assert.equal(emergenciesIn(100_000, 100_000, 176_000, 180_000), Number.POSITIVE_INFINITY);
  });

  it('compacts when that avoids an emergency in the next phase, and says so', () => {
    const v = verdict([60_000], 140_000);
    assert.equal(v.kind, 'compact');
    assert.ok(v.kind === 'compact');
    assert.equal(v.avoids, 'avoids an emergency in the next phase: forecast 72k, room 36k before emergency'); // 60k, +15% (one phase seen), +5% margin
    assert.match(v.why, /^compacting at this commit avoids an emergency in the next phase: forecast 72k, room 36k before emergency$/);
  });

  it('does not compact where a fresh context could not hold the phase either (the old rule did: forecast > room)', () => {
    // 55% left (90k used): the forecast rests on a phase that itself ended in an emergency (160k > the 146k a
    // fresh context has): compacting now cannot prevent the next phase's emergency, it only adds a compaction.
    const v = verdict([160_000], 90_000);
    assert.equal(v.kind, 'fits');
    assert.match(v.kind === 'fits' ? v.why : '', /more than even a fresh context's 146k before emergency: compacting now would not avoid its emergency/);
    // With a smaller recent phase beside it, that scenario decides: 140k used, 50k (±15%: two phases seen) ahead does not fit.
    const w = verdict([160_000, 50_000], 140_000);
    assert.equal(w.kind, 'compact');
    assert.match(
      w.kind === 'compact' ? w.why : '',
      /avoids an emergency in the next phase \(in 6 of 8 forecast scenarios, 86% by recency weight\): forecast 60k, room 36k/,
    );
  });

  it('a huge phase from a full context needs two emergencies, from a fresh one only one: compacting buys one', () => {
    const v = verdict([250_000], 150_000);
    assert.equal(v.kind, 'compact');
    assert.match(v.kind === 'compact' ? v.avoids : '', /^avoids an emergency in the next phase: forecast 263k/);
    assert.equal(compactionBuys({ used: 150_000, grow: 250_000, fresh: 30_000, window: WINDOW, settings: s }), 1);
    assert.equal(compactionBuys({ used: 90_000, grow: 168_000, fresh: 30_000, window: WINDOW, settings: s }), 0);
  });

  it('what a compaction leaves is learned: the first count, then what the last compaction left', () => {
    let f = onTokens(emptyForecast(), null, 25_000);
    assert.equal(f.fresh, 25_000);
    f = onTokens(f, 25_000, 90_000);
    assert.equal(f.fresh, 25_000);
    f = onCompacted(f, 41_000);
    assert.equal(forecastNext(f, s, WINDOW, null).freshTokens, 41_000);
    // A fresh context of 125k: a 60k phase (51k at the least) from 140k needs an emergency either way.
    assert.equal(verdict([60_000], 140_000, 125_000).kind, 'fits');
    assert.equal(verdict([60_000], 140_000, 100_000).kind, 'compact');
  });

  it('growing for four phases: every recent phase is carried forward by the growth they show; three rising keep the linear trend', () => {
    // 30k, 40k, 50k, 60k: the last three grew by sqrt(60/40) per phase; each is carried to the next phase.
    assert.deepEqual(phaseScenarios([40_000, 50_000, 60_000], [30_000, 40_000, 50_000, 60_000]), [73_485, 75_000, 73_485]);
    // The fourth-last was larger: three rising only, the linear trend is one more scenario (as before).
    assert.deepEqual(phaseScenarios([40_000, 50_000, 60_000], [55_000, 40_000, 50_000, 60_000]), [40_000, 50_000, 60_000, 70_000]);
    // 101k used, 75k left: the recent sizes and the linear trend (70k) all fit and rawr waits. With four phases of the
    // thread the scenarios come from its forecast errors (calibratedScenarios): a thread that has grown for four phases
    // is predicted best by its latest phase (60k), which came out 1.33, 1.25 and 1.2x the level before it: 80k, 75k and
    // 72k, 84k with the margin, most of them above the room: compacting now avoids the emergency.
    const at = (history: number[]) =>
      forecastVerdict({
        forecast: { ...forecast([40_000, 50_000, 60_000]), history, phases: history.length },
        settings: s,
        used: 101_000,
        window: WINDOW,
        point: 'tool_loop',
        boundaries: commit,
      });
    assert.equal(at([55_000, 40_000, 50_000, 60_000]).kind, 'fits');
    const v = at([30_000, 40_000, 50_000, 60_000]);
    assert.equal(v.kind, 'compact');
    assert.match(
      v.kind === 'compact' ? v.avoids : '',
      /^avoids an emergency in the next phase \(in 5 of 6 forecast scenarios from this thread's forecast errors\): forecast 84k, room 75k before emergency$/,
    );
  });

  it('growing phases: the trend carried one phase further is a scenario; two in a row are not a trend', () => {
    assert.deepEqual(phaseScenarios([30_000, 40_000, 50_000]), [30_000, 40_000, 50_000, 60_000]);
    assert.deepEqual(phaseScenarios([50_000, 40_000, 50_000]), [50_000, 40_000, 50_000]);
    // 118k used: 58k left; the largest phase (50k, 52.5k with the margin) fits, the trend (60k) does not.
    const v = verdict([30_000, 40_000, 50_000], 118_000);
    assert.equal(v.kind, 'compact');
    assert.match(
      v.kind === 'compact' ? v.avoids : '',
      /avoids an emergency in the next phase \(in 2 of 8 forecast scenarios, 40% by recency weight\): forecast 63k, room 58k/,
    );
  });
});

describe('phase forecast: compacting now against waiting over the phases ahead (issue 21)', () => {
  const s = shipped.settings; // the emergency line at 176k of 200k; margin 5%
  const LINE = 176_000;

  it('outlook: compacts at a later close only where the next phase would not fit; counts emergencies', () => {
    // 100k + 50k fits; 150k + 50k does not: one compaction at the close before the second phase.
    assert.deepEqual(outlook(100_000, [50_000, 50_000, 50_000], LINE, 30_000, false), { compactions: 1, emergencies: 0, end: 130_000 });
    assert.deepEqual(outlook(100_000, [50_000, 50_000, 50_000], LINE, 30_000, true), { compactions: 2, emergencies: 0, end: 80_000 });
    // A phase that exceeds the room ends in an emergency from any start.
    assert.equal(outlook(100_000, [200_000], LINE, 30_000, true).emergencies, 1);
    assert.equal(outlook(100_000, [200_000], LINE, 30_000, false).emergencies, 1);
  });

  const cmp = (samples: number[], used: number, remaining: number | null, phases = samples.length) =>
    compareNowAndWait({ used, samples, fresh: 30_000, window: WINDOW, settings: s, remaining, phases });

  it('the plan says where the session ends: no compaction when the phases left fit, though the next alone would not fit a later one', () => {
    // 150k used, phases of 20k: one planned phase left fits in the 26k room: compacting buys nothing.
    assert.equal(cmp([20_000, 20_000, 20_000], 150_000, 1).compact, false);
    // With many phases ahead (no plan) the same point is worth a compaction only if it avoids an emergency:
    // 20k (21k with the margin) fits 26k: it waits.
    assert.equal(cmp([20_000, 20_000, 20_000], 150_000, null).compact, false);
  });

  it('the open horizon counts the typical phase, the median by size: two fresh contexts of 9k phases are 33 phases', () => {
    // Line 176k, fresh 30k: 146k of room a context. The median of 5k, 9k, 20k and 100k is 9k (sorted by
    // size, not as text, where 100k sorts first and the median would be 20k: a horizon of 15).
    assert.equal(cmp([100_000, 5_000, 20_000, 9_000], 120_000, null, 3).horizon, Math.ceil((2 * 146_000) / 9_000));
  });

  it('phases that fell five times in a row: the stale larger sizes are dropped, the next taken as large as the latest (issue 33)', () => {
    // 125k, 100k, 80k, 64k, 51k: at 110k used (66k of room) the 80k of three phases ago would not fit,
    // but the trend says the next phase is about the latest (51k) at most.
    assert.deepEqual(phaseScenarios([80_000, 64_000, 51_000], [125_000, 100_000, 80_000, 64_000, 51_000]), [51_000, 51_000, 51_000]);
    const shrinking = (history?: number[]) =>
      compareNowAndWait({
        used: 110_000,
        samples: [80_000, 64_000, 51_000],
        fresh: 30_000,
        window: WINDOW,
        settings: s,
        remaining: null,
        phases: 5,
        ...(history ? { history } : {}),
      });
    assert.equal(shrinking([125_000, 100_000, 80_000, 64_000, 51_000]).compact, false);
    assert.equal(shrinking().compact, true, 'without the trend, the 80k phase says compact');
    // One rise among the five: no trend, but the thread's forecast errors (calibratedScenarios) say the next phase is
    // 0.8-1.1x the latest (its level): 41-57k, 60k with the margin, fits the 66k of room. Without them (three phases
    // known), the 80k phase of three ago still says compact.
    assert.equal(shrinking([90_000, 100_000, 80_000, 64_000, 51_000]).compact, false);
    assert.equal(
      compareNowAndWait({ used: 110_000, samples: [80_000, 64_000, 51_000], fresh: 30_000, window: WINDOW, settings: s, remaining: null, phases: 3 }).compact,
      true,
    );
  });

  it('calibrated scenarios: the level the thread predicts itself best with, times its own forecast errors (issue 33)', () => {
    const none = () => false;
    // Fewer than four phases that fit: no distribution of errors, the recent phases decide.
    assert.equal(calibratedScenarios([40_000, 50_000, 60_000], none), null);
    assert.equal(
      calibratedScenarios([40_000, 50_000, 200_000, 60_000], (x) => x > 150_000),
      null,
    );
    // Small phases and one rare large one: the large phase stays a scenario (its ratio to the level before it) long
    // after it left the recent three.
    const rare = calibratedScenarios([20_000, 22_000, 90_000, 20_000, 21_000, 19_000, 22_000], none)!;
    assert.equal(rare.length, 6);
    assert.ok(Math.max(...rare) > 80_000, `the large phase is a scenario: ${rare.join(', ')}`);
    // A walk that fell (by 0.8 each time): the level follows the latest (51k) and the scenarios are its steps, not the stale sizes.
    const fell = calibratedScenarios([125_000, 100_000, 80_000, 64_000, 51_000], none)!;
    assert.deepEqual(fell, [40_800, 40_800, 40_800, 40_641]);
    // Growing: every error is above 1, so every scenario is above the latest phase.
    assert.ok(calibratedScenarios([30_000, 40_000, 50_000, 60_000], none)!.every((x) => x > 60_000));
    // A phase that exceeded the room is kept out of the level and the errors, and stays a scenario of its own
    // while among the last three.
    const huge = calibratedScenarios([40_000, 42_000, 38_000, 40_000, 220_000, 41_000], (x) => x > 150_000)!;
    assert.equal(huge.length, 5);
    assert.equal(huge.at(-1), 220_000);
    assert.ok(
      huge.slice(0, -1).every((x) => x < 50_000),
      huge.join(', '),
    );
    assert.equal(calibratedScenarios([220_000, 40_000, 42_000, 38_000, 40_000, 41_000], (x) => x > 150_000)!.length, 4);
  });

  it('calibratedFit says which smoothing the scenarios rest on and how many errors (what bench/phasedCalibration splits by)', () => {
    const none = () => false;
    // The walk that fell: the latest phase alone (smoothing 1) predicts it best; five phases, four errors.
    assert.deepEqual(calibratedFit([125_000, 100_000, 80_000, 64_000, 51_000], none), {
      scenarios: [40_800, 40_800, 40_800, 40_641],
      smoothing: 1,
      errors: 4,
    });
    // Phases that alternate around one size: a long memory (0.25) predicts them best. A phase that exceeded
    // the room is no error (four phases fit: three errors) but stays a scenario while among the last three.
    const alike = calibratedFit([50_000, 30_000, 50_000, 30_000, 50_000, 30_000], none)!;
    assert.equal(alike.smoothing, 0.25);
    assert.equal(alike.errors, 5);
    assert.equal(calibratedFit([40_000, 42_000, 220_000, 38_000, 41_000], (x) => x > 150_000)!.errors, 3);
    assert.deepEqual(calibratedFit([40_000, 42_000, 220_000, 38_000, 41_000], (x) => x > 150_000)!.scenarios.at(-1), 220_000);
  });

  it('a later phase weighs more than an older one: one long phase fades over the closes after it instead of counting as much as the latest', () => {
    // The same three sizes, three planned phases left, 92k used (84k of room): a 140k phase would not fit,
    // a 60k one would. As the oldest of the three (a long first phase, then two of 60k) the long one is
    // the least likely next: waiting is cheaper. As the latest, it is the likeliest: compacting now is.
    const older = cmp([140_000, 60_000, 60_000], 92_000, 3);
    const latest = cmp([60_000, 60_000, 140_000], 92_000, 3);
    assert.equal(older.compact, false, `oldest long: now ${older.now} vs wait ${older.wait}`);
    assert.equal(latest.compact, true, `latest long: now ${latest.now} vs wait ${latest.wait}`);
    // Either way the scenarios are the same ones: only their weights differ.
    assert.equal(older.scenarios, latest.scenarios);
    assert.equal(older.avoidsIn, latest.avoidsIn);
  });

  it('a recent phase that exceeded the room does not make rawr compact where it cannot help; the later phases are the median', () => {
    // A 200k phase (an emergency from any start), then two of 40k: at 100k used the 200k scenario needs
    // one emergency whether rawr compacts now or not, and the typical 40k phase fits the 76k room.
    const c = cmp([200_000, 40_000, 40_000], 100_000, 5);
    assert.equal(c.compact, false);
    assert.equal(c.avoidsIn, 0);
    assert.equal(
      forecastVerdict({
        forecast: {
          nextPhaseTokens: 200_000,
          basis: 'thread',
          samples: [200_000, 40_000, 40_000],
          phases: 3,
          sinceClose: 0,
          planFinished: false,
          freshTokens: 30_000,
          remainingPhases: 5,
        },
        settings: s,
        used: 100_000,
        window: WINDOW,
        point: 'tool_loop',
        boundaries: [{ id: 'commit:a', kind: 'commit', strength: 'strong', source: 'tool_result', detail: 'a', at: 0, turn: 1, synthetic: false }],
      }).kind,
      'fits',
    );
  });

  it('a likely emergency is avoided: every scenario of the next phase overflows the room', () => {
    const c = cmp([70_000, 75_000, 72_000], 130_000, 4);
    assert.equal(c.compact, true);
    assert.equal(c.avoidsIn, c.scenarios);
    assert.ok(c.now < c.wait);
  });

  it('few phases seen: the forecast is wider (±15%), so a phase close just under the line compacts', () => {
    // One 70k phase seen, 100k used, 76k room: 70k and 73.5k fit, 80.5k and 84.5k do not.
    const one = cmp([70_000], 100_000, 6);
    assert.equal(one.scenarios, 6);
    assert.equal(one.avoidsIn, 2);
    // Three phases seen: no extra spread; 73.5k fits the 76k room.
    assert.equal(cmp([70_000, 70_000, 70_000], 100_000, 6).avoidsIn, 0);
  });

  it('a phase larger than a fresh context holds is not spread: it says phases can be that large, not that the next is', () => {
    const c = cmp([160_000], 90_000, 5);
    assert.equal(c.scenarios, 2);
    assert.equal(c.avoidsIn, 0);
    assert.equal(c.compact, false);
  });

  it('later in the same close, the part of the next phase already in the context is not counted twice', () => {
    // Phases are measured from the first signal of a close to the first of the next: at the commit 4k
    // after the plan step (the same close), 4k of the next phase is in `used` already. Three 70k phases,
    // 103k used (+4k since the close began): the next phase's 66k still to come (69.5k with the margin)
    // fits the 73k room; counted twice (73.5k on top of 103k) it would not.
    const from = (into: number) =>
      compareNowAndWait({ used: 103_000, samples: [70_000, 70_000, 70_000], fresh: 30_000, window: WINDOW, settings: s, remaining: 6, phases: 3, into });
    assert.equal(from(0).avoidsIn, 3);
    assert.equal(from(4_000).avoidsIn, 0);
    assert.equal(from(4_000).compact, false);
  });
});
