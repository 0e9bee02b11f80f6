// The phase forecast at its edges (arbiter/forecast.ts): what counts as a compaction, a phase close and a
// phase, the bounds of its memory, when an emergency happens, and how recent phases become scenarios.
// Mutation testing (CONTRIBUTING.md) showed these could change unnoticed by arbiter.forecast.test.ts; each
// moves when rawr compacts.
import * as assert from 'node:assert/strict';
import type { BoundarySignal } from '../../src/core/signals/types';
import {
  compactionBuys,
  emergenciesIn,
  emptyForecast,
  forecastNext,
  isPhaseClose,
  kTok,
  onCompacted,
  onPhaseClose,
  onTokens,
  phaseScenarios,
  trendOf,
  withPrior,
  type ForecastState,
} from '../../src/core/arbiter/forecast';
import { shipped } from '../support/engine';

const S = shipped.settings;
const state = (f: Partial<ForecastState>): ForecastState => ({ ...emptyForecast(), ...f });

describe('the forecast state at its edges', () => {
  it('a first count sets what a compaction leaves only once; a drop of a quarter is still growth, more is a compaction', () => {
    assert.equal(onTokens(state({ fresh: 20_000 }), null, 150_000).fresh, 20_000, 'a resumed count is not a fresh context');
    assert.equal(onTokens(state({}), null, 30_000).fresh, 30_000);
    const f = state({ grown: 50_000, closeAt: 10_000 });
    assert.deepEqual(onTokens(f, 100_000, 75_000), state({ grown: 25_000, closeAt: 10_000 }), 'a 25% drop: an estimate corrected down');
    assert.deepEqual(onTokens(f, 100_000, 74_999), state({ grown: 50_000, closeAt: 10_000, fresh: 74_999 }), 'over 25%: a compaction');
    assert.equal(onTokens(f, 100_000, 100_000), f, 'no change');
    assert.equal(onCompacted(state({ fresh: 9 }), 0).fresh, 0, 'a compaction may leave nothing');
    assert.equal(onCompacted(state({ fresh: 9 }), -1).fresh, 9, 'a negative count is no count');
  });

  it('a phase close is a strong commit, plan step or PR step; a phase is at least 3% of the window, the latest 20 kept', () => {
    const b = (kind: BoundarySignal['kind'], strength: BoundarySignal['strength']) =>
      [{ id: 'x', kind, strength, source: 'git', at: 0, turn: 1 }] as BoundarySignal[];
    assert.equal(isPhaseClose(b('commit', 'strong')), true);
    assert.equal(isPhaseClose(b('commit', 'weak')), false);
    assert.equal(isPhaseClose(b('agent_done', 'strong')), false);
    assert.deepEqual(onPhaseClose(state({ grown: 3_000 }), 100_000).phases, [3_000], 'exactly 3%');
    assert.deepEqual(onPhaseClose(state({ grown: 2_999 }), 100_000).phases, [], 'under 3%: the same close');
    const twenty = Array.from({ length: 20 }, (_, k) => 10_000 + k);
    const before = state({ grown: 500_000, closeAt: 400_000, phases: twenty });
    const after = onPhaseClose(before, 100_000);
    assert.deepEqual(after.phases, [...twenty.slice(1), 100_000]);
    assert.equal(before.phases.length, 20, 'the previous state is not changed');
    const short = state({ grown: 50_000, phases: [10_000] });
    onPhaseClose(short, 100_000);
    assert.deepEqual(short.phases, [10_000], 'not changed either below the bound');
  });

  it("the workspace's prior: positive finite sizes, the latest 20; the forecast takes its recent ones", () => {
    const prior = [0, -5, Number.NaN, Number.POSITIVE_INFINITY, ...Array.from({ length: 22 }, (_, k) => 1_000 * (k + 1))];
    const f = withPrior(emptyForecast(), prior);
    assert.deepEqual(
      f.prior,
      Array.from({ length: 20 }, (_, k) => 1_000 * (k + 3)),
    );
    const next = forecastNext(f, S, 200_000, null);
    assert.deepEqual([next.basis, next.samples, next.nextPhaseTokens], ['workspace', [20_000, 21_000, 22_000], 22_000]);
  });

  it("the forecast's facts: history, growth since the close (never negative), an empty plan is no plan", () => {
    const f = state({ grown: 40_000, closeAt: 45_000, phases: [10_000, 20_000] });
    const next = forecastNext(f, S, 200_000, { steps: [], completed: [] });
    assert.deepEqual([next.history, next.sinceClose, next.planFinished, next.remainingPhases], [[10_000, 20_000], 0, false, null]);
    assert.notEqual(next.history, f.phases, 'a copy');
    assert.equal('history' in forecastNext(emptyForecast(), S, 200_000, null), false);
  });

  it('kTok: thousands from 1,000', () => {
    assert.deepEqual([999, 1000, 96_400].map(kTok), ['999', '1k', '96k']);
  });
});

describe('emergencies and what compacting buys, at their edges', () => {
  it('an emergency when a phase reaches the line, none before; every point is one when a compaction cannot get under it', () => {
    assert.equal(emergenciesIn(0, 10, 100, 20), 0);
    assert.equal(emergenciesIn(50, 50, 100, 20), 1);
    assert.equal(emergenciesIn(50, 50, 100, 100), Number.POSITIVE_INFINITY);
    assert.equal(compactionBuys({ used: 190_000, grow: 50_000, fresh: 190_000, window: 200_000, settings: S }), 0, 'hopeless either way: buys nothing');
  });
});

describe('phase scenarios at their edges', () => {
  it('rising for four phases: the last three carried forward by their growth', () => {
    assert.deepEqual(phaseScenarios([10, 20, 30, 40], [10, 20, 30, 40]), [57, 60, 57]);
    assert.deepEqual(phaseScenarios([30, 40], [10, 20, 30, 40]), [30, 40], 'fewer than three recent sizes: as they are');
  });

  it('falling for five phases: the latest size three times; a three-phase rise adds its next step; else as they are', () => {
    assert.deepEqual(phaseScenarios([40, 30, 20, 10], [50, 40, 30, 20, 10]), [10, 10, 10]);
    assert.deepEqual(phaseScenarios([10, 20, 30], [10, 20, 30]), [10, 20, 30, 40]);
    assert.deepEqual(phaseScenarios([10, 30, 20], [10, 30, 20]), [10, 30, 20]);
    assert.deepEqual(phaseScenarios([10, 20, 20], [10, 20, 20]), [10, 20, 20]);
  });

  it('a trend: strictly rising over the last four, strictly falling over the last five, no shorter', () => {
    assert.equal(trendOf([5, 1, 2, 3, 4]), 1);
    assert.equal(trendOf([10, 20, 30]), 0);
    assert.equal(trendOf([10, 20, 20, 30]), 0);
    assert.equal(trendOf([50, 40, 40, 30, 20]), 0);
    assert.equal(trendOf([3, 1, 2, 5, 4]), 0);
    assert.equal(trendOf([50, 40, 30, 20, 10]), -1);
  });
});
