/**
 * The bound of what any causal policy can reach (test/bench/phasedBayes.ts, `phased.js --bound`): the DP
 * finds the schedule known by hand on a family whose phases are fixed, its phase models read each
 * family's own draws (every real phase lies where the model says the next phase can be), it never does
 * better than hindsight under the same rule on judged sessions, and the frontier's summaries are right.
 */
import * as assert from 'node:assert/strict';
import { optimalSchedule, scoreSchedule, type PhaseLabels } from '../../src/core/replay/schedule';
import { BayesPolicy, bayesSchedule, generatorSampler, hindsightSameRule, MODELS, paramsOf, type Sampler } from '../bench/phasedBayes';
import { bestAt, leastAt } from '../bench/phasedBound';
import { FAMILIES, generateSession, rng, sessionSeed } from '../bench/phasedGen';

const W = 200_000;
const WORK = 10;
const WORK_STEP = 4000;
const CLOSE_STEP = 1000;

/**
 * A session of n phases of fixed growth: 10 work calls of 4k, the close's three calls of 1k (todo, commit,
 * closing message) and the next phase's first call of 1k at the closing message's line + 2 (aligned).
 * From a fresh 30k each phase adds 44k: three fit under the line (162k), a fourth does not (206k).
 */
function fixedSession(n: number, work: readonly number[] = Array<number>(WORK).fill(WORK_STEP)): PhaseLabels {
  const points: Array<[number, number]> = [];
  const windows: Array<[number, number]> = [];
  let c = 30_000;
  const push = (step: number) => points.push([2 * points.length + 1, (c += step)]);
  points.push([1, c]);
  for (let k = 0; k < n; k++) {
    for (const step of work) push(step);
    push(CLOSE_STEP);
    const first = points[points.length - 1]![0];
    push(CLOSE_STEP);
    push(CLOSE_STEP);
    windows.push([first, points[points.length - 1]![0]]);
    if (k + 1 < n) push(CLOSE_STEP);
  }
  return { window: W, points, windows };
}

/** The same phases as the DP's transition law. */
const fixedSampler = (n: number, work: readonly number[] = Array<number>(WORK).fill(WORK_STEP)): Sampler => ({
  key: (j) => (j === n - 1 ? 1 : 0),
  sample: (j) => {
    const steps = [...work, CLOSE_STEP, CLOSE_STEP, CLOSE_STEP, ...(j < n - 1 ? [CLOSE_STEP] : [])];
    const grown = new Float64Array(steps.length);
    steps.forEach((s, i) => (grown[i] = (i ? grown[i - 1]! : 0) + s));
    return { grown, aligned: Uint8Array.from(steps, (_, i) => (i >= work.length ? 1 : 0)), z: 0, runOn: false };
  },
});

describe('the causal bound (phasedBayes.ts)', () => {
  it('compacts at every third close on phases of which exactly three fit a context: all aligned, the optimum count', () => {
    const n = 10;
    const labels = fixedSession(n);
    for (const lambda of [1, 64]) {
      const policy = new BayesPolicy(W, n, fixedSampler(n), lambda, { grid: 400, trajectories: 4 });
      const { lines, expected } = bayesSchedule(labels, policy, () => 0);
      // The phases are what the DP expects: it expects what it makes.
      assert.ok(Math.abs(expected.count - 3) < 1e-9 && Math.abs(expected.unaligned) < 1e-9, JSON.stringify(expected));
      // Closes 2, 5 and 8 (0-based): the next phase would reach the line there. The compaction is at the
      // close's last aligned call: the next phase's first call, at its closing message's line + 2.
      assert.deepEqual(
        lines,
        [2, 5, 8].map((k) => labels.windows[k]![1] + 2),
        `lambda ${lambda}`,
      );
      const sc = scoreSchedule(labels, lines);
      assert.deepEqual([sc.compactions, sc.aligned, sc.overflows], [3, 3, 0]);
      assert.equal(optimalSchedule(labels)!.compactions, 3);
    }
  });

  it('with no weight on alignment it takes the emergencies instead (fewer or as many compactions, none aligned)', () => {
    const n = 10;
    const labels = fixedSession(n);
    const lines = bayesSchedule(labels, new BayesPolicy(W, n, fixedSampler(n), 0, { grid: 400, trajectories: 4 }), () => 0).lines;
    const sc = scoreSchedule(labels, lines);
    assert.ok(sc.compactions <= 3, `${sc.compactions} compactions`);
    assert.equal(sc.aligned, 0);
    assert.equal(sc.overflows, 0);
  });

  it('never lets a call jump past the window, even when emergencies are free (a 30k first call after a close at 175.5k)', () => {
    // Phases of 48.5k whose first call adds 30k: from 30k, closes at 78.5k, 127k, 175.5k; waiting at the
    // third would put the next call at 205.5k, past the window: the DP compacts there even at lambda 0.
    const n = 6;
    const work = [30_000, ...Array<number>(10).fill(1450)];
    const labels = fixedSession(n, work);
    const lines = bayesSchedule(labels, new BayesPolicy(W, n, fixedSampler(n, work), 0, { grid: 400, trajectories: 4 }), () => 0).lines;
    assert.equal(scoreSchedule(labels, lines).overflows, 0, `lines ${lines.join(',')}`);
  });

  it("reads each family's own draws: every real phase lies where its model says the next phase can be", () => {
    for (const [f, family] of FAMILIES.entries()) {
      assert.ok(MODELS[family.name], `a model for ${family.name}`);
      for (let k = 0; k < 12; k++) {
        const s = sessionSeed(3, f, k);
        const phases = family.shape(rng(s)).phases;
        const m = paramsOf(family, s)!;
        assert.equal(m.n, phases.length);
        const r = rng(k + 1);
        for (let j = 1; j < phases.length; j++) {
          const draws = Array.from({ length: 1000 }, () => m.phases.draw(j, m.phases.zAfter(j - 1), r).size);
          const [lo, hi] = [Math.min(...draws), Math.max(...draws)];
          // Walks know their size to a bin (±3%); the others exactly, up to the 1000 draws' reach (1% of the range).
          const tol = family.name === 'shrinking' || family.name === 'drifting' ? 0.03 * phases[j]! : 0.01 * (hi - lo) + 1;
          assert.ok(phases[j]! >= lo - tol && phases[j]! <= hi + tol, `${family.name} session ${k} phase ${j}: ${phases[j]} outside [${lo}, ${hi}]`);
        }
      }
    }
  });

  it('never does better than hindsight under the same rule on judged sessions, and never overflows', () => {
    for (const [f, family] of FAMILIES.entries()) {
      const s = sessionSeed(1, f, 0);
      const labels = generateSession(family.name, family.shape(rng(s)), s + 1).labels;
      const m = paramsOf(family, s)!;
      const sampler = generatorSampler(m);
      const lex = hindsightSameRule(labels, Infinity);
      const fewest = hindsightSameRule(labels, 0);
      for (const lambda of [0, 4]) {
        const sc = scoreSchedule(
          labels,
          bayesSchedule(labels, new BayesPolicy(m.window, m.n, sampler, lambda, { grid: 200, trajectories: 40 }), m.phases.zAfter).lines,
        );
        assert.equal(sc.overflows, 0, family.name);
        assert.ok(sc.compactions - sc.aligned >= lex.unaligned, `${family.name} lambda ${lambda}: unaligned`);
        assert.ok(sc.compactions >= fewest.compactions, `${family.name} lambda ${lambda}: count`);
      }
    }
  });

  it('reads the frontier at a count budget and at an aligned target, mixing two points', () => {
    const pts = [
      { compactions: 10, aligned: 5 },
      { compactions: 20, aligned: 20 },
    ];
    assert.equal(bestAt(pts, 10), 0.5);
    assert.equal(bestAt(pts, 15), (0.5 * 5 + 0.5 * 20) / 15);
    assert.equal(bestAt(pts, 9), null);
    assert.equal(leastAt(pts, 1), 20);
    // 0.75: p·(5 − 7.5) + (1 − p)·(20 − 15) = 0 at p = 2/3: 2/3·10 + 1/3·20.
    assert.ok(Math.abs(leastAt(pts, 0.75)! - 40 / 3) < 1e-9);
  });
});
