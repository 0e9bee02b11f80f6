/**
 * The learning bound (`node out/test/bench/phased.js --bound --learn`): what any causal policy can reach on a
 * steady family (even, noisy, window-1M, big-steps) when it is NOT told the session's mean phase size. BENCH ONLY:
 * nothing in src/ may import it.
 *
 * phasedBayes.ts's bound is told the session's drawn mean m (its phases are m · U(1 − jitter, 1 + jitter), m drawn
 * once per session from U(lo, hi): phasedGen.ts `steady`). No causal policy knows m; it can only learn it from the
 * phases it has seen. This is the Bayes-optimal causal policy told everything that bound is told (the family's law,
 * the session's number of phases, per-call growth and spread, window, and each past phase's exact size) except m:
 * a belief-state DP (a POMDP solved on a grid). After phases x1…xk the posterior of m is the prior restricted to
 * [max x / (1 + jitter), min x / (1 − jitter)] with density ∝ m^−k (each phase's likelihood is 1 / (2 · jitter · m)
 * on its support), so the belief is (k, the bin of the lower end, the bin of the upper end) on `bins` bins of the
 * prior's range; between bin edges the posterior is ∝ m^−k on [edge of a, edge of b + 1] (a coarsening: the belief
 * forgets where in its end bins the support ends, so it knows slightly less than the phases say). The next phase's
 * law is the mixture over m (`sub` points a bin). The DP's state, decision points and costs are phasedBayes.ts's
 * (PhaseDP): a phase is drawn as `trajectories` equally likely draws, draw t the predictive's quantile (t + ½)/M
 * (stratified), its size rounded to one of `sizes` bins, its calls grown by the generator's own rule with noise
 * stream t (common across sizes and beliefs); the belief after it is the update by that size.
 *
 * A prior concentrated at one m (lo = hi) is the told bound computed by this machinery (the unit test checks it
 * decides as phasedBayes.ts does).
 *
 * Not told the spread either (`--learn --learn-spread`, or `--spread-lo A --spread-hi B`): the law's form
 * m · U(1 − j, 1 + j) with j ~ U(A, B) unknown too; the belief is phasedSpread.ts's SpreadBelief (the same DP, the
 * predictive mixed over the joint posterior of (m, j)).
 */
import { DEFAULT_POST_TOKENS } from '../../src/core/replay/schedule';
import { emptyOutcomes, PhaseDP, trajectoryOf, type Draw, type Outcomes, type Resolution, type SessionModel } from './phasedBayes';
import { rng } from './phasedGen';
import { SpreadBelief, type SpreadPrior } from './phasedSpread';

/**
 * A steady family's law of phase sizes: a session mean m ~ U(lo, hi), each phase m · U(1 − jitter, 1 + jitter);
 * with `spread`, the jitter is not told: j ~ U(spread.lo, spread.hi) (phasedSpread.ts), `jitter` unused.
 */
export interface SteadyLaw {
  lo: number;
  hi: number;
  jitter: number;
  /** The window the family's sessions run in (lo and hi are tokens of it). */
  window: number;
  spread?: SpreadPrior;
}

const W200 = 200_000;
/** The steady families' laws as phasedGen.ts draws them (d[1] is the mean's uniform draw: MODELS in phasedBayes.ts). */
export const STEADY_LAWS: Record<string, SteadyLaw> = {
  even: { lo: 0.25 * W200, hi: 0.45 * W200, jitter: 0.12, window: W200 },
  noisy: { lo: 0.25 * W200, hi: 0.4 * W200, jitter: 0.35, window: W200 },
  'window-1M': { lo: 150_000, hi: 400_000, jitter: 0.15, window: 1_000_000 },
  'big-steps': { lo: 0.2 * W200, hi: 0.45 * W200, jitter: 0.2, window: W200 },
};

/** The session's drawn mean (what the told bound knows): the law's range at the mean's draw d[1]. */
export const drawnMean = (law: SteadyLaw, d: readonly number[]): number => law.lo + (law.hi - law.lo) * d[1]!;

/** The grid (points a window), the draws of a phase, the bins of the mean's range and of the phase sizes. */
export interface LearnResolution extends Resolution {
  bins: number;
  sizes: number;
}
export const LEARN_RESOLUTION: LearnResolution = { grid: 300, trajectories: 150, bins: 16, sizes: 96 };
/** Points per bin of the mean when the predictive mixes over it. */
const SUB = 8;

/**
 * What a learner knows of a session's phase sizes: a state z after the phases seen (`prior` before any), its update
 * by a phase, and the posterior of the law's parameters (points m, j with weights w; the next phase is
 * m · U(1 − j, 1 + j) at each). `sizes`: the range every phase of the prior's laws lies in.
 */
export interface PhaseBelief {
  readonly prior: number;
  readonly sizes: readonly [number, number];
  update(z: number, x: number): number;
  of(sizes: readonly number[]): number;
  posterior(seen: number, z: number): Posterior;
}
export interface Posterior {
  m: number[];
  j: number[];
  w: number[];
}

/** The predictive's CDF at x: the mixture over the posterior's points of U(m(1 − j), m(1 + j)). */
export function predictiveCdf(p: Posterior, x: number): number {
  let f = 0;
  p.m.forEach((m, q) => {
    const j = p.j[q]!;
    f += p.w[q]! * (j > 0 ? Math.max(0, Math.min(1, (x - (1 - j) * m) / (2 * j * m))) : x >= m ? 1 : 0);
  });
  return f;
}

/** The belief over the session's mean: z = a · bins + b, the bins of the support's ends; seen phases give its m^−k. */
export class MeanBelief implements PhaseBelief {
  readonly bins: number;
  readonly sizes: readonly [number, number];
  private readonly width: number;

  constructor(
    readonly law: SteadyLaw,
    bins: number,
  ) {
    this.bins = law.hi > law.lo ? bins : 1;
    this.width = (law.hi - law.lo) / this.bins;
    this.sizes = [(1 - law.jitter) * law.lo, (1 + law.jitter) * law.hi];
  }

  private bin(m: number): number {
    return this.width > 0 ? Math.max(0, Math.min(this.bins - 1, Math.floor((m - this.law.lo) / this.width))) : 0;
  }

  /** The belief before any phase: the whole prior. */
  get prior(): number {
    return this.bins - 1;
  }

  /** The belief after a phase of size x: the support cut to [x / (1 + jitter), x / (1 − jitter)]. */
  update(z: number, x: number): number {
    const a = Math.max(Math.floor(z / this.bins), this.bin(x / (1 + this.law.jitter)));
    const b = Math.max(a, Math.min(z % this.bins, this.bin(x / (1 - this.law.jitter))));
    return a * this.bins + b;
  }

  /** The belief after the given phases. */
  of(sizes: readonly number[]): number {
    return sizes.reduce((z, x) => this.update(z, x), this.prior);
  }

  /** The support's ends [lo, hi] of the mean under belief z. */
  support(z: number): [number, number] {
    const a = Math.floor(z / this.bins);
    const b = z % this.bins;
    return [this.law.lo + a * this.width, this.law.lo + (b + 1) * this.width];
  }

  /** The posterior's points and weights (∝ m^−seen on the support, SUB points a bin; one point for a point prior). */
  posterior(seen: number, z: number): Posterior {
    const [lo, hi] = this.support(z);
    const count = this.width > 0 ? SUB * Math.round((hi - lo) / this.width) : 1;
    const m = Array.from({ length: count }, (_, q) => lo + ((q + 0.5) / count) * (hi - lo));
    const w = m.map((x) => (lo / x) ** seen);
    const total = w.reduce((s, x) => s + x, 0);
    return { m, j: m.map(() => this.law.jitter), w: w.map((x) => x / total) };
  }
}

/** The Bayes-optimal causal policy that learns the session's mean (and, with law.spread, the spread) from its phases (the header). */
export class LearningPolicy extends PhaseDP {
  readonly belief: PhaseBelief;
  /** Phase-size bins: the belief's range of sizes ([(1 − jitter) · lo, (1 + jitter) · hi] told the jitter) in `sizes` equal bins. */
  private readonly sizeLo: number;
  private readonly sizeStep: number;
  private readonly rows: Map<number, Outcomes> = new Map();
  private readonly drawn: Map<string, Draw[]> = new Map();
  private readonly quantile: Map<string, Int32Array> = new Map();

  constructor(
    private readonly model: SessionModel,
    law: SteadyLaw,
    lambda: number,
    readonly lres: LearnResolution = LEARN_RESOLUTION,
    post = DEFAULT_POST_TOKENS,
    shared?: LearningPolicy,
  ) {
    super(model.window, model.n, lambda, lres, post);
    this.belief = law.spread ? new SpreadBelief(law, law.spread, lres.bins) : new MeanBelief(law, lres.bins);
    [this.sizeLo] = this.belief.sizes;
    this.sizeStep = (this.belief.sizes[1] - this.sizeLo) / lres.sizes;
    if (shared) {
      // The same transitions and beliefs, another lambda.
      this.rows = shared.rows;
      this.drawn = shared.drawn;
      this.quantile = shared.quantile;
    }
  }

  private sizeOf(s: number): number {
    return this.sizeLo + (s + 0.5) * this.sizeStep;
  }

  /** Per draw t, the size bin of the predictive's quantile (t + ½)/M given the belief (seen phases, z). */
  private quantiles(seen: number, z: number): Int32Array {
    const id = `${seen}|${z}`;
    const hit = this.quantile.get(id);
    if (hit) return hit;
    const post = this.belief.posterior(seen, z);
    const S = this.lres.sizes;
    const cdf = Float64Array.from({ length: S + 1 }, (_, s) => predictiveCdf(post, this.sizeLo + s * this.sizeStep));
    const M = this.res.trajectories;
    const out = new Int32Array(M);
    let s = 0;
    for (let t = 0; t < M; t++) {
      const u = (t + 0.5) / M;
      while (s < S - 1 && cdf[s + 1]! < u) s++;
      out[t] = s;
    }
    this.quantile.set(id, out);
    return out;
  }

  /** Draw t of a phase of size bin s (its calls with noise stream t: common across sizes and beliefs). */
  private row(runOn: boolean, last: boolean, s: number, t: number): Outcomes {
    const id = ((Number(runOn) * 2 + Number(last)) * this.lres.sizes + s) * this.res.trajectories + t;
    const hit = this.rows.get(id);
    if (hit) return hit;
    const out = emptyOutcomes(1, this.cells);
    const r = rng(0x1ea4 + t * 7919 + (runOn ? 104_729 : 0) + (last ? 15_485_863 : 0));
    this.fill(out, 0, trajectoryOf(this.model, last ? this.model.n - 1 : 0, this.sizeOf(s), 0, runOn, r));
    this.rows.set(id, out);
    return out;
  }

  protected draws(k: number, z: number, runOn: boolean): readonly Draw[] {
    const id = `${k}|${z}|${runOn ? 1 : 0}`;
    const hit = this.drawn.get(id);
    if (hit) return hit;
    const last = k + 1 === this.n - 1;
    const ds = Array.from(this.quantiles(k + 1, z), (s, t) => {
      const o = this.row(runOn, last, s, t);
      return { o, row: 0, z: this.belief.update(z, this.sizeOf(s)), runOn: o.runOn[0] === 1 };
    });
    this.drawn.set(id, ds);
    return ds;
  }
}
