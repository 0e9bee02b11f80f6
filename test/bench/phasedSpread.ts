/**
 * The learning bound not told the spread (`node out/test/bench/phased.js --bound --learn --learn-spread`, or
 * `--spread-lo A --spread-hi B`): the belief of a learner that knows a steady family's law only in its form —
 * phases m · U(1 − j, 1 + j), m ~ U(lo, hi) once per session — and learns both the mean m and the spread j from the
 * phases it has seen, j ~ U(A, B) a priori. BENCH ONLY: nothing in src/ may import it.
 *
 * Why (k, min, max) is the whole belief: phases x1…xk have likelihood (2 · j · m)^−k on {m(1 − j) ≤ min x,
 * max x ≤ m(1 + j)} and 0 elsewhere, so the posterior of (m, j) is the prior cut to that set with density
 * ∝ (j · m)^−k — it depends on the phases only through k, min x and max x, whether or not j is known. The belief
 * keeps the bin of min x and of max x on `bins` equal bins of every size the prior allows,
 * [(1 − B) · lo, (1 + B) · hi], and reads them at the edges that make it know less (min x at its bin's upper edge,
 * max x at its bin's lower edge): the set it keeps holds the true (m, j), and is wider than the phases allow by up
 * to a bin at each end. The predictive of the next phase is the mixture over the posterior (predictiveCdf in
 * phasedLearn.ts), integrated on J_POINTS values of j over the j the belief allows and M_POINTS values of m over the
 * m each of them allows (midpoint rule).
 */
import type { PhaseBelief, Posterior, SteadyLaw } from './phasedLearn';

/** A prior over the spread: j ~ U(lo, hi); lo = hi is the spread told. */
export interface SpreadPrior {
  lo: number;
  hi: number;
}

/** The prior's default range (docs/benchmarks.md says why): wider than every steady family's jitter (12-35%) on both sides. */
export const DEFAULT_SPREAD: SpreadPrior = { lo: 0.05, hi: 0.6 };
/** Belief bins over the prior's sizes when the spread is learned (`--bins`). */
export const SPREAD_BINS = 32;
const J_POINTS = 24;
const M_POINTS = 16;

/** The belief over (m, j): z = a · bins + b, the bins of min x and max x; before any phase a = bins − 1, b = 0. */
export class SpreadBelief implements PhaseBelief {
  readonly sizes: readonly [number, number];
  private readonly width: number;

  constructor(
    readonly law: SteadyLaw,
    readonly spread: SpreadPrior,
    readonly bins: number,
  ) {
    this.sizes = [(1 - spread.hi) * law.lo, (1 + spread.hi) * law.hi];
    this.width = (this.sizes[1] - this.sizes[0]) / bins;
  }

  private bin(x: number): number {
    return Math.max(0, Math.min(this.bins - 1, Math.floor((x - this.sizes[0]) / this.width)));
  }

  /** Nothing seen: min x above every bin, max x below (the update's min and max then take the first phase's bin). */
  get prior(): number {
    return (this.bins - 1) * this.bins;
  }

  update(z: number, x: number): number {
    const s = this.bin(x);
    return Math.min(Math.floor(z / this.bins), s) * this.bins + Math.max(z % this.bins, s);
  }

  of(sizes: readonly number[]): number {
    return sizes.reduce((z, x) => this.update(z, x), this.prior);
  }

  /** What belief z says of the phases: min x ≤ minHi, max x ≥ maxLo (no constraint before any phase). */
  ends(z: number): { minHi: number; maxLo: number } {
    const a = Math.floor(z / this.bins);
    const b = z % this.bins;
    if (a > b) return { minHi: this.sizes[1], maxLo: this.sizes[0] };
    return { minHi: this.sizes[0] + (a + 1) * this.width, maxLo: this.sizes[0] + b * this.width };
  }

  /** The least spread belief z allows (every j from it to the prior's top is possible): the ends fit in m(1 ± j) for some m in the prior. */
  leastSpread(z: number): number {
    const { minHi, maxLo } = this.ends(z);
    const { lo, hi } = this.law;
    return Math.min(this.spread.hi, Math.max(this.spread.lo, (maxLo - minHi) / (maxLo + minHi), maxLo / hi - 1, 1 - minHi / lo));
  }

  /** The means belief z allows with spread j: [max x / (1 + j), min x / (1 − j)] within the prior's range. */
  means(z: number, j: number): [number, number] {
    const { minHi, maxLo } = this.ends(z);
    return [Math.max(this.law.lo, maxLo / (1 + j)), Math.min(this.law.hi, minHi / (1 - j))];
  }

  /** Whether (m, j) is in the prior's range and consistent with belief z. */
  holds(z: number, m: number, j: number): boolean {
    const [mLo, mHi] = this.means(z, j);
    return j >= this.spread.lo && j <= this.spread.hi && m >= mLo - 1e-6 && m <= mHi + 1e-6;
  }

  /** The joint posterior after `seen` phases: ∝ (j · m)^−seen on what z allows, on a grid of j and, per j, of m. */
  posterior(seen: number, z: number): Posterior {
    const j0 = this.leastSpread(z);
    const jTop = this.spread.hi;
    const J = jTop > j0 ? J_POINTS : 1;
    const M = this.law.hi > this.law.lo ? M_POINTS : 1;
    const out: Posterior = { m: [], j: [], w: [] };
    for (let p = 0; p < J; p++) {
      const j = J > 1 ? j0 + ((p + 0.5) / J) * (jTop - j0) : j0;
      const [mLo, mHi] = this.means(z, j);
      if (mHi < mLo) continue; // only at the j grid's rounding: leastSpread makes every j above it feasible
      const dm = M > 1 ? (mHi - mLo) / M : 1;
      for (let q = 0; q < M; q++) {
        const m = M > 1 ? mLo + ((q + 0.5) / M) * (mHi - mLo) : mLo;
        out.m.push(m);
        out.j.push(j);
        out.w.push(dm * (jTop / j) ** seen * (this.law.lo / m) ** seen);
      }
    }
    const total = out.w.reduce((s, x) => s + x, 0);
    out.w = out.w.map((x) => x / total);
    return out;
  }
}
