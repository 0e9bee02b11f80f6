/**
 * The learning bound (test/bench/phasedLearn.ts, `phased.js --bound --learn`): its laws are the generator's, its
 * belief holds the session's mean and no more than the phases allow, a prior concentrated at one mean decides as
 * the told bound (phasedBayes.ts) does, and learning never beats being told the mean (more information cannot hurt).
 */
import * as assert from 'node:assert/strict';
import { BayesPolicy, generatorSampler, paramsOf, recordedDraws } from '../bench/phasedBayes';
import { FAMILIES, generateSession, sessionSeed } from '../bench/phasedGen';
import { drawnMean, LearningPolicy, MeanBelief, STEADY_LAWS, type LearnResolution } from '../bench/phasedLearn';
import type { Draw } from '../bench/phasedBayes';
import { decisionsAlongPath, type PathAgreement } from '../support/decisionsAlongPath';

const RES: LearnResolution = { grid: 200, trajectories: 60, bins: 8, sizes: 64 };
const NOISY = FAMILIES.findIndex((f) => f.name === 'noisy');

/** Session k of noisy (seed 1): its model, its phases, its drawn mean and its labels. */
function noisySession(k: number) {
  const family = FAMILIES[NOISY]!;
  const s = sessionSeed(1, NOISY, k);
  const { d, shape } = recordedDraws(family, s);
  return { model: paramsOf(family, s)!, phases: shape.phases, m: drawnMean(STEADY_LAWS.noisy!, d), labels: generateSession('noisy', shape, s + 1).labels };
}

/** What a decision at close k is worth from context c: min(compact, wait) of count + lambda · unaligned. */
const worth = (p: { decide: LearningPolicy['decide']; lambda: number }, k: number, z: number, runOn: boolean, c: number) => {
  const d = p.decide(k, z, runOn, c);
  return d.count + p.lambda * d.unaligned;
};

/** The learner's draws of phase k + 1 from the state after phase k (the DP's transition law, open to the test). */
class OpenLearner extends LearningPolicy {
  drawsOf(k: number, z: number, runOn: boolean): readonly Draw[] {
    return this.draws(k, z, runOn);
  }
}

/** A draw's growth over its phase: its context at the phase's end from an empty context (grid cell 0, under the line). */
const growthOf = (p: LearningPolicy, d: Draw) => d.o.end[d.row * p.cells]!;
const mean = (xs: readonly number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;

describe('the learning bound (phasedLearn.ts)', () => {
  it('draws each phase as the generator grows it: a close runs on about half the time, never after the last phase, and a run-on carries its call into the next phase', () => {
    // Known by hand from phasedBayes.ts phaseCalls: a close runs on when a fair coin says so (r() >= 0.5),
    // except the session's last, which ends it; after a close that ran on, the unfinished call's growth
    // comes in the next phase's first call, and that phase's first call was not already seen at the close
    // (it is subtracted only when the close did not run on): about two calls (2 · perCall) more growth.
    const { model, m } = noisySession(0);
    const p = new OpenLearner(model, { ...STEADY_LAWS.noisy!, lo: m, hi: m }, 4, RES);
    const z = p.belief.prior;
    const second = p.drawsOf(0, z, false);
    const ranOn = second.filter((d) => d.runOn).length;
    assert.ok(ranOn >= 0.3 * second.length && ranOn <= 0.7 * second.length, `${ranOn} of ${second.length} closes ran on`);
    // The last phase (k + 1 = n - 1), asked after an earlier phase's draws were made: none runs on.
    for (const runOn of [false, true]) {
      const last = p.drawsOf(model.n - 2, z, runOn);
      assert.equal(last.filter((d) => d.runOn).length, 0, `the last phase never runs on (after a close that ran on: ${runOn})`);
    }
    // The same phase sizes (the draws are the predictive's quantiles), after a close that ran on and one that did not.
    const afterRunOn = p.drawsOf(0, z, true);
    const extra = mean(afterRunOn.map((d) => growthOf(p, d))) - mean(second.map((d) => growthOf(p, d)));
    assert.ok(
      extra > 1.5 * model.perCall && extra < 2.5 * model.perCall,
      `a run-on close adds ${extra.toFixed(0)} tokens to the next phase (per call ${model.perCall})`,
    );
    // The last phase has no call A_j after its close (the next phase's first call, or the run-on call).
    const notLast = p.drawsOf(model.n - 3, z, false);
    const lastPhase = p.drawsOf(model.n - 2, z, false);
    const less = mean(notLast.map((d) => growthOf(p, d))) - mean(lastPhase.map((d) => growthOf(p, d)));
    assert.ok(less > 0.25 * model.perCall && less < 0.75 * model.perCall, `the last phase grows ${less.toFixed(0)} tokens less (half the closes add a call)`);
  });

  it("holds the family's law: the drawn mean in the prior's range, every phase in its jitter, the belief's support around the mean and within a bin of what the phases allow", () => {
    for (const [name, law] of Object.entries(STEADY_LAWS)) {
      const f = FAMILIES.findIndex((x) => x.name === name);
      const belief = new MeanBelief(law, 16);
      const width = (law.hi - law.lo) / 16;
      for (let k = 0; k < 12; k++) {
        const { d, shape } = recordedDraws(FAMILIES[f]!, sessionSeed(3, f, k));
        const m = drawnMean(law, d);
        assert.ok(m >= law.lo && m <= law.hi, `${name} ${k}: mean ${m}`);
        for (const x of shape.phases) assert.ok(Math.abs(x - m) <= law.jitter * m + 1, `${name} ${k}: phase ${x} around ${m}`);
        for (let j = 1; j <= shape.phases.length; j++) {
          const seen = shape.phases.slice(0, j);
          const [lo, hi] = belief.support(belief.of(seen));
          assert.ok(lo <= m && m <= hi, `${name} ${k} after ${j}: ${m} outside [${lo}, ${hi}]`);
          const exact = [Math.max(law.lo, Math.max(...seen) / (1 + law.jitter)), Math.min(law.hi, Math.min(...seen) / (1 - law.jitter))];
          assert.ok(lo >= exact[0]! - width - 1e-6 && hi <= exact[1]! + width + 1e-6, `${name} ${k} after ${j}: [${lo}, ${hi}] wider than ${exact.join('-')}`);
        }
      }
    }
  });

  it('with a prior concentrated at the drawn mean it decides as the bound told the mean does', () => {
    const tally: PathAgreement = { closes: 0, agree: 0, expected: { reference: 0, other: 0 } };
    for (let k = 0; k < 4; k++) {
      const { model, m, labels } = noisySession(k);
      for (const lambda of [1, 4]) {
        const told = new BayesPolicy(model.window, model.n, generatorSampler(model), lambda, RES);
        const point = new LearningPolicy(model, { ...STEADY_LAWS.noisy!, lo: m, hi: m }, lambda, RES);
        decisionsAlongPath(labels, { policy: told, zAfter: () => 0 }, { policy: point, zAfter: () => 0 }, tally);
      }
    }
    // The two differ by their sampling (the told bound draws each phase's size afresh; this one at stratified quantiles, in size bins).
    const { closes, agree, expected } = tally;
    assert.ok(agree >= 0.95 * closes, `${agree} of ${closes} decisions agree`);
    assert.ok(Math.abs(expected.other / expected.reference - 1) < 0.05, `expected ${expected.other} against ${expected.reference} told`);
  });

  it('never does better than being told the mean: its value is at least the posterior average of the told values', () => {
    for (let k = 0; k < 3; k++) {
      const { model, phases } = noisySession(k);
      const law = STEADY_LAWS.noisy!;
      const learner = new LearningPolicy(model, law, 4, RES);
      const z = learner.belief.of(phases.slice(0, 1));
      const post = learner.belief.posterior(1, z);
      // The told values at the posterior's points (the mean's law given the first phase; told policies are cheap: one state a close).
      const told = post.m.map((m, q) => ({ w: post.w[q]!, p: new LearningPolicy(model, { ...law, lo: m, hi: m }, 4, RES) }));
      for (const c of [40_000, 90_000, 130_000]) {
        const learn = worth(learner, 0, z, false, c);
        const average = told.reduce((s, t) => s + t.w * worth(t.p, 0, 0, false, c), 0);
        assert.ok(learn >= average - 0.03 * average, `session ${k} at ${c}: learning ${learn.toFixed(3)} < told ${average.toFixed(3)}`);
      }
    }
  });
});
