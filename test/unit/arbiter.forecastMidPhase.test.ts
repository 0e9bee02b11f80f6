/**
 * The phase forecast away from a phase close, and the schedule arithmetic the close decision rests on
 * (mutation round 4, `RAWR_MUT_SCOPE=forecast`): at a strong boundary that closes no phase (tests passing,
 * the agent done) the forecast only says whether the rest of this phase fits; `outlook` at its edges;
 * what the comparison's costs are, by hand; and which boundary a compaction names.
 */
import * as assert from 'node:assert/strict';
import { compareNowAndWait, forecastVerdict, outlook, roomBeforeEmergency, type PhaseForecast } from '../../src/core/arbiter/forecast';
import type { BoundaryKind, BoundarySignal } from '../../src/core/signals/types';
import { shipped, WINDOW } from '../support/engine';

const s = shipped.settings;
const signal = (kind: BoundaryKind): BoundarySignal => ({
  id: `${kind}:1`,
  kind,
  strength: 'strong',
  source: 'tool_result',
  detail: kind,
  at: 0,
  turn: 1,
  synthetic: false,
});
const forecast = (over: Partial<PhaseForecast> = {}): PhaseForecast => ({
  nextPhaseTokens: 60_000,
  basis: 'thread',
  samples: [60_000],
  phases: 3,
  sinceClose: 20_000,
  planFinished: false,
  freshTokens: 20_000,
  ...over,
});
const margin = 1 + s.forecast_margin_percent / 100;

describe('the forecast away from a phase close: only whether the rest of this phase fits', () => {
  const mid = (f: PhaseForecast, used: number, point: 'tool_loop' | 'turn_complete' = 'tool_loop') =>
    forecastVerdict({ forecast: f, settings: s, used, window: WINDOW, point, boundaries: [signal('agent_done')] });

  it('the rest of this phase (the forecast less what it grew since the close) fits before the line: it fits', () => {
    const f = forecast();
    const rest = f.nextPhaseTokens - f.sinceClose; // 40k
    // just enough room for the rest with its margin, and a token less
    const usedFits = roomBeforeEmergency(0, WINDOW, s) - Math.round(rest * margin) - 1;
    const v = mid(f, usedFits);
    assert.equal(v.kind, 'fits');
    assert.match((v as { why: string }).why, /^rest of this phase ≈ 40k tokens, \d+k left before emergency: it fits, waiting for a later boundary$/);
    assert.equal(mid(f, usedFits + 1).kind, 'defer', 'exactly the room needed is not "fits": the tier rules decide');
  });

  it('the rest of this phase is more than even a fresh context holds: it fits in the sense that compacting would not help', () => {
    const f = forecast({ nextPhaseTokens: 200_000, samples: [200_000], sinceClose: 10_000 });
    const v = mid(f, 150_000);
    assert.equal(v.kind, 'fits');
    assert.match(
      (v as { why: string }).why,
      /^rest of this phase ≈ 190k tokens, more than even a fresh context's \d+k before emergency: compacting now would not avoid its emergency/,
    );
    // a rest a fresh context holds, but not the context now: the tier rules decide
    assert.equal(mid(forecast({ nextPhaseTokens: 80_000, samples: [80_000], sinceClose: 0 }), 150_000).kind, 'defer');
  });

  it("without the thread's own phases (a workspace prior), or once the phase is longer than forecast, it says nothing", () => {
    assert.equal(mid(forecast({ basis: 'workspace' }), 10_000).kind, 'defer');
    assert.equal(mid(forecast({ sinceClose: 60_000 }), 10_000).kind, 'defer', 'nothing left of the forecast: defer');
    assert.equal(mid(forecast({ sinceClose: 59_000 }), 10_000).kind, 'fits');
  });

  it('at the end of the turn that finished the plan the whole next phase is weighed, over an open horizon', () => {
    const f = forecast({ planFinished: true, remainingPhases: 3, nextPhaseTokens: 100_000, samples: [100_000], sinceClose: 0 });
    const v = mid(f, 120_000, 'turn_complete');
    assert.equal(v.kind, 'compact');
    assert.match((v as { why: string }).why, /^compacting before the next request \(the plan is finished\) avoids an emergency in the next phase/);
    // mid-turn the same state is only the rest of the phase
    assert.notEqual(mid(f, 120_000, 'tool_loop').kind, 'compact');
  });
});

describe('which boundary a forecast compaction names', () => {
  const at = (kinds: BoundaryKind[]) => {
    const v = forecastVerdict({
      forecast: forecast({ nextPhaseTokens: 100_000, samples: [100_000], sinceClose: 0 }),
      settings: s,
      used: 120_000,
      window: WINDOW,
      point: 'tool_loop',
      boundaries: kinds.map(signal),
    });
    assert.equal(v.kind, 'compact');
    return (v as { why: string }).why;
  };
  it('a commit before a plan step before a PR step', () => {
    assert.match(at(['pr_checkpoint', 'plan_checkpoint', 'commit']), /^compacting at this commit /);
    assert.match(at(['pr_checkpoint', 'plan_checkpoint']), /^compacting at this plan step /);
    assert.match(at(['pr_checkpoint']), /^compacting at this PR step /);
  });
});

describe('outlook at its edges: the schedule the comparison counts', () => {
  // line 100, a compaction leaves 20: a lap of 80
  it('a later close compacts before a phase that would reach the line exactly, not after it', () => {
    assert.deepEqual(outlook(20, [30, 50], 100, 20, false), { compactions: 1, emergencies: 0, end: 70 });
  });
  it('a context already at what a compaction leaves is not compacted again: the phase meets its emergency', () => {
    assert.deepEqual(outlook(20, [0, 90], 100, 20, false), { compactions: 1, emergencies: 1, end: 30 });
  });
  it('reaching the line exactly is an emergency; each further lap is one more, and the rest carries on', () => {
    assert.deepEqual(outlook(20, [80], 100, 20, false), { compactions: 1, emergencies: 1, end: 20 });
    assert.deepEqual(outlook(20, [170], 100, 20, false), { compactions: 2, emergencies: 2, end: 30 });
  });
  it('no room at all between a compaction and the line: every phase that reaches it is endless, the context stays', () => {
    const o = outlook(10, [15], 20, 20, false);
    assert.equal(o.emergencies, Number.POSITIVE_INFINITY);
    assert.equal(o.end, 25);
  });
});

describe("the comparison's costs, by hand", () => {
  const line = WINDOW * (1 - s.emergency_percent_remaining_lt / 100);
  const cmp = (used: number, remaining: number | null, samples = [60_000]) =>
    compareNowAndWait({
      used,
      samples,
      fresh: 20_000,
      window: WINDOW,
      settings: { ...s, forecast_margin_percent: 0 },
      remaining,
      phases: 3, // no ±15% spread
      emergencyWeight: { recent: 3, calibrated: 3 },
    });

  it('one planned phase that reaches the line if rawr waits: waiting costs the emergency (3), compacting one compaction', () => {
    const c = cmp(line - 50_000, 1);
    assert.equal(c.wait, 3);
    assert.equal(c.now, 1);
    assert.equal(c.compact, true);
    assert.equal(c.avoidsIn, c.scenarios, 'every scenario (the sample, and with its margin of 0) avoids it');
  });

  it('an open horizon charges the room used at its end as a share of a compaction', () => {
    // two phases of 60k from 100k, no plan: waiting compacts once at the next close and ends at 20k + 60k
    const c = cmp(100_000, null);
    const lap = line - 20_000;
    assert.equal(c.horizon, Math.max(2, Math.ceil((2 * lap) / 60_000)));
    assert.equal(c.planned, false);
    const byHand = (from: number, now: boolean) => {
      const o = outlook(
        from,
        Array.from({ length: c.horizon }, () => 60_000),
        line,
        20_000,
        now,
      );
      return o.compactions + 2 * o.emergencies + Math.max(0, o.end - 20_000) / lap;
    };
    assert.ok(Math.abs(c.wait - byHand(100_000, false)) < 1e-9, `${c.wait} vs ${byHand(100_000, false)}`);
    assert.ok(Math.abs(c.now - byHand(100_000, true)) < 1e-9, `${c.now} vs ${byHand(100_000, true)}`);
  });

  it('the largest scenario whose emergency compacting avoids is the one named, from the sample it came from', () => {
    const c = cmp(line - 50_000, 1, [60_000, 40_000, 70_000]); // no trend: the three as they are
    assert.equal(c.largest, 70_000);
    assert.equal(c.largestFrom, 70_000);
    assert.equal(c.scenarios, 6);
    assert.equal(c.avoidsIn, 4, '60k and 70k reach the line from 50k of room, 40k does not (each twice: with its margin)');
    assert.ok(c.avoidsShare > 0 && c.avoidsShare < 1);
  });
});

describe('at a phase close where the comparison waits, what the forecast says', () => {
  const atClose = (samples: number[], used: number, over: Partial<PhaseForecast> = {}) =>
    forecastVerdict({
      forecast: forecast({ nextPhaseTokens: Math.max(...samples), samples, phases: samples.length, sinceClose: 0, ...over }),
      settings: s,
      used,
      window: WINDOW,
      point: 'tool_loop',
      boundaries: [signal('commit')],
    });
  const why = (v: ReturnType<typeof forecastVerdict>) => (v as { why?: string }).why ?? '';

  it('the largest phase would not fit, but compacting costs more than the risk: it says by how much, over the plan', () => {
    const v = atClose([10_000, 10_000, 80_000], 93_000, { freshTokens: 5_000, remainingPhases: 1 });
    assert.equal(v.kind, 'fits');
    assert.match(
      why(v),
      /^next phase ≈ 80k tokens, 83k left before emergency: compacting now would cost more than the risk it avoids over the 1 planned phase ahead \(expected 1\.00 vs 0\.88 compactions\), waiting for a later boundary$/,
    );
  });

  it('a next phase larger than a fresh context holds: compacting would not avoid its emergency', () => {
    const v = atClose([10_000, 10_000, 150_000], 20_000, { remainingPhases: null });
    assert.equal(v.kind, 'fits');
    assert.match(why(v), /^next phase ≈ 150k tokens, more than even a fresh context's 156k before emergency: compacting now would not avoid its emergency/);
  });

  it('a phase that fits with room: it fits, and compacting avoids nothing over the open horizon', () => {
    const v = atClose([10_000, 10_000, 10_000], 5_000, { freshTokens: 5_000, remainingPhases: null });
    assert.equal(v.kind, 'fits');
    assert.match(
      why(v),
      /^next phase ≈ 10k tokens, 171k left before emergency: it fits, and compacting now avoids nothing over the next 35 phases \(no plan: an open horizon\)/,
    );
  });

  it('a workspace prior never says a phase fits: the tier rules decide', () => {
    assert.equal(atClose([10_000, 10_000, 10_000], 5_000, { freshTokens: 5_000, basis: 'workspace' }).kind, 'defer');
  });
});
