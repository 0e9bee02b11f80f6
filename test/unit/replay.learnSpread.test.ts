/**
 * The learning bound not told the spread (test/bench/phasedSpread.ts, `phased.js --bound --learn --learn-spread`):
 * its belief holds the session's true (m, j) and no less than the phases allow, its posterior learns the spread
 * from the phases, a spread prior concentrated at the family's jitter decides as the learning bound told it does,
 * and not being told the spread never beats being told it (more information cannot hurt).
 */
import * as assert from 'node:assert/strict';
import { paramsOf, recordedDraws } from '../bench/phasedBayes';
import { boundOptions, familySessions, learningPolicies } from '../bench/phasedBound';
import { decisionsAlongPath, type PathAgreement } from '../support/decisionsAlongPath';
import { FAMILIES, generateSession, sessionSeed } from '../bench/phasedGen';
import { drawnMean, LearningPolicy, STEADY_LAWS, type LearnResolution, type Posterior } from '../bench/phasedLearn';
import { DEFAULT_SPREAD, SpreadBelief } from '../bench/phasedSpread';

const RES: LearnResolution = { grid: 200, trajectories: 60, bins: 8, sizes: 64 };
const NOISY = FAMILIES.findIndex((f) => f.name === 'noisy');
const noisy = STEADY_LAWS.noisy!;

function session(f: number, seed: number, k: number) {
  const family = FAMILIES[f]!;
  const s = sessionSeed(seed, f, k);
  const { d, shape } = recordedDraws(family, s);
  return {
    model: paramsOf(family, s)!,
    phases: shape.phases,
    m: drawnMean(STEADY_LAWS[family.name]!, d),
    labels: generateSession(family.name, shape, s + 1).labels,
  };
}

const meanJ = (p: Posterior) => p.j.reduce((s, j, q) => s + j * p.w[q]!, 0);

/** What a decision at close k is worth from context c: min(compact, wait) of count + lambda · unaligned. */
const worth = (p: LearningPolicy, k: number, z: number, c: number) => {
  const d = p.decide(k, z, false, c);
  return d.count + p.lambda * d.unaligned;
};

describe('the learning bound not told the spread (phasedSpread.ts)', () => {
  it("holds the session's mean and the family's spread after every phase, and no more than a bin beyond what the phases allow", () => {
    for (const [name, law] of Object.entries(STEADY_LAWS)) {
      const f = FAMILIES.findIndex((x) => x.name === name);
      const belief = new SpreadBelief(law, DEFAULT_SPREAD, 32);
      const width = (belief.sizes[1] - belief.sizes[0]) / 32;
      for (let k = 0; k < 12; k++) {
        const { phases, m } = session(f, 3, k);
        for (let n = 1; n <= phases.length; n++) {
          const seen = phases.slice(0, n);
          const z = belief.of(seen);
          assert.ok(belief.holds(z, m, law.jitter), `${name} ${k} after ${n}: (${m}, ${law.jitter}) not held`);
          // The least spread the phases allow (with a bin's slack at each end), against the belief's.
          const lo = Math.min(...seen) + width;
          const hi = Math.max(...seen) - width;
          const exact = Math.max(DEFAULT_SPREAD.lo, (hi - lo) / (hi + lo), hi / law.hi - 1, 1 - lo / law.lo);
          assert.ok(
            belief.leastSpread(z) <= law.jitter + 1e-9 && belief.leastSpread(z) >= exact - 1e-9,
            `${name} ${k} after ${n}: least spread ${belief.leastSpread(z)}`,
          );
          const post = belief.posterior(n, z);
          assert.ok(Math.abs(post.w.reduce((s, w) => s + w, 0) - 1) < 1e-9);
          post.m.forEach((mq, q) =>
            assert.ok(belief.holds(z, mq, post.j[q]!), `${name} ${k} after ${n}: a posterior point (${mq}, ${post.j[q]}) the belief does not hold`),
          );
        }
      }
    }
  });

  it("not told the family's range of means either (--mean-lo/--mean-hi): holds the true (m, j) and is less sure of m after a phase", () => {
    const opts = boundOptions(['--bound', '--learn', '--learn-spread', '--mean-lo', '0.05', '--mean-hi', '0.75']);
    assert.deepEqual(opts.mean, { lo: 0.05, hi: 0.75 });
    assert.throws(() => boundOptions(['--learn', '--learn-spread', '--mean-lo', '0.5', '--mean-hi', '0.2']), /--mean-lo/);
    assert.equal(boundOptions(['--learn', '--mean-lo', '0.05', '--mean-hi', '0.75']).mean, undefined, 'only with the spread learned');
    // the bound's policies learn under that prior, not the family's
    const [one] = familySessions(NOISY, [3], 1);
    const belief = (learningPolicies('noisy', RES, DEFAULT_SPREAD, opts.mean)(one!).at(1) as LearningPolicy).belief as SpreadBelief;
    assert.deepEqual([belief.law.lo, belief.law.hi], [0.05 * noisy.window, 0.75 * noisy.window]);
    const wide = new SpreadBelief({ ...noisy, lo: 0.05 * noisy.window, hi: 0.75 * noisy.window }, DEFAULT_SPREAD, 64);
    const told = new SpreadBelief(noisy, DEFAULT_SPREAD, 64);
    const range = (p: Posterior) => Math.max(...p.m) - Math.min(...p.m);
    for (let k = 0; k < 12; k++) {
      const { phases, m } = session(NOISY, 3, k);
      for (let n = 1; n <= phases.length; n++) {
        const z = wide.of(phases.slice(0, n));
        assert.ok(wide.holds(z, m, noisy.jitter), `${k} after ${n}: (${m}, ${noisy.jitter}) not held`);
      }
      const first = phases.slice(0, 1);
      assert.ok(range(wide.posterior(1, wide.of(first))) > range(told.posterior(1, told.of(first))), `${k}: the wide prior knows less of m`);
    }
  });

  it("learns the spread: over noisy's sessions the posterior's mean spread moves from the prior's toward the family's 35% as phases come", () => {
    const belief = new SpreadBelief(noisy, DEFAULT_SPREAD, 32);
    const at = { first: 0, all: 0 };
    for (let k = 0; k < 40; k++) {
      const { phases } = session(NOISY, 5, k);
      at.first += meanJ(belief.posterior(1, belief.of(phases.slice(0, 1)))) / 40;
      at.all += meanJ(belief.posterior(phases.length, belief.of(phases))) / 40;
    }
    // Measured: 0.30 after one phase (the prior's U(5%, 60%) weighted by 1/j), 0.34 after a session's 6-10.
    assert.ok(
      Math.abs(at.all - noisy.jitter) < 0.03 && Math.abs(at.all - noisy.jitter) < Math.abs(at.first - noisy.jitter),
      `E[j] ${at.first.toFixed(3)} -> ${at.all.toFixed(3)}`,
    );
  });

  it('with a spread prior concentrated at the family jitter it decides as the learning bound told the spread does', () => {
    const tally: PathAgreement = { closes: 0, agree: 0, expected: { reference: 0, other: 0 } };
    for (let k = 0; k < 3; k++) {
      const { model, labels, phases } = session(NOISY, 1, k);
      for (const lambda of [1, 4]) {
        const told = new LearningPolicy(model, noisy, lambda, RES);
        const point = new LearningPolicy(model, { ...noisy, spread: { lo: noisy.jitter, hi: noisy.jitter } }, lambda, { ...RES, bins: 24 });
        const zAfter = (p: LearningPolicy) => (j: number) => p.belief.of(phases.slice(0, j + 1));
        decisionsAlongPath(labels, { policy: told, zAfter: zAfter(told) }, { policy: point, zAfter: zAfter(point) }, tally);
      }
    }
    // They differ by their beliefs' bins (of the mean there, of the phase sizes here).
    const { closes, agree, expected } = tally;
    assert.ok(agree >= 0.95 * closes, `${agree} of ${closes} decisions agree`);
    assert.ok(Math.abs(expected.other / expected.reference - 1) < 0.05, `expected ${expected.other} against ${expected.reference} told`);
  });

  it('never does better than being told the mean and the spread: its value is at least the posterior average of the told values', () => {
    for (let k = 0; k < 2; k++) {
      const { model, phases } = session(NOISY, 1, k);
      const law = { ...noisy, spread: DEFAULT_SPREAD };
      const learner = new LearningPolicy(model, law, 4, { ...RES, bins: 24 });
      const z = learner.belief.of(phases.slice(0, 1));
      const post = learner.belief.posterior(1, z);
      // The posterior in cells of 4 j values x 4 m values (its grid is 24 x 16), each told at its weighted centre.
      const cells = new Map<number, { w: number; m: number; j: number }>();
      post.m.forEach((m, q) => {
        const id = Math.floor(Math.floor(q / 16) / 6) * 4 + Math.floor((q % 16) / 4);
        const c = cells.get(id) ?? { w: 0, m: 0, j: 0 };
        const w = post.w[q]!;
        cells.set(id, { w: c.w + w, m: c.m + w * m, j: c.j + w * post.j[q]! });
      });
      const told = [...cells.values()].map((c) => ({
        w: c.w,
        p: new LearningPolicy(model, { lo: c.m / c.w, hi: c.m / c.w, jitter: c.j / c.w, window: 200_000 }, 4, RES),
      }));
      for (const c of [40_000, 90_000, 130_000]) {
        const learn = worth(learner, 0, z, c);
        const average = told.reduce((s, t) => s + t.w * worth(t.p, 0, 0, c), 0);
        assert.ok(learn >= average - 0.03 * average, `session ${k} at ${c}: learning ${learn.toFixed(3)} < told ${average.toFixed(3)}`);
      }
    }
  });
});
