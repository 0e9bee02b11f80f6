/**
 * EXPERIMENT (issue 33): the next phase's law as a Bayesian predictive, from the first phase of a thread on.
 *
 * The log phase sizes follow a local-level model: y_t = θ_t + v_t, θ_t = θ_{t−1} + w_t, v ~ N(0, σ²),
 * w ~ N(0, qσ²). q = 0 is phases drawn alike around one unknown size; a large q is a walk. σ² is unknown
 * (conjugate inverse-gamma prior, `PRIOR_DF` pseudo-phases at a spread of `PRIOR_SD` in log), the level
 * diffuse (it starts at the first phase), q one of Q_GRID with equal prior odds, each weighed by its
 * marginal likelihood (the product of its one-step predictive densities: no in-sample winner's curse).
 * The predictive of the next log size is a mixture of Student-t laws (West & Harrison's conjugate DLM).
 * Pure and O(history × |Q_GRID|).
 */

/** Signal-to-noise ratios of the walk against the noise (0: phases drawn alike). */
const Q_GRID: readonly number[] = process.env.RAWR_DLM_Q ? process.env.RAWR_DLM_Q.split(',').map(Number) : [0, 0.1, 0.5, 2, 10];

const PRIOR_DF = Number(process.env.RAWR_DLM_DF ?? 2);
const PRIOR_SD = Number(process.env.RAWR_DLM_SD ?? 0.21);

/** Stratified quantiles per component. */
const K = Number(process.env.RAWR_DLM_K ?? 16);

const tCache = new Map<number, number[]>();

/** The standardized Student-t's quantiles at (k + 0.5) / K, by integrating its density on a grid. */
function tQuantiles(df: number): number[] {
  const key = Math.round(df * 1000);
  const hit = tCache.get(key);
  if (hit) return hit;
  const N = 4000;
  const lo = -30;
  const hi = 30;
  const h = (hi - lo) / N;
  const cdf = new Float64Array(N + 1);
  let acc = 0;
  let prev = Math.pow(1 + (lo * lo) / df, -(df + 1) / 2);
  for (let j = 1; j <= N; j++) {
    const z = lo + j * h;
    const d = Math.pow(1 + (z * z) / df, -(df + 1) / 2);
    acc += ((prev + d) / 2) * h;
    cdf[j] = acc;
    prev = d;
  }
  const out: number[] = [];
  let j = 0;
  for (let k = 0; k < K; k++) {
    const p = ((k + 0.5) / K) * acc;
    while (j < N && cdf[j + 1]! < p) j++;
    const f = (p - cdf[j]!) / Math.max(1e-300, cdf[j + 1]! - cdf[j]!);
    out.push(lo + (j + f) * h);
  }
  tCache.set(key, out);
  return out;
}

/** ln Γ(x), Lanczos (g = 7, n = 9). */
export function lgamma(x: number): number {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - lgamma(1 - x);
  x -= 1;
  let a = c[0]!;
  const t = x + 7.5;
  for (let k = 1; k < 9; k++) a += c[k]! / (x + k);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

export interface Belief {
  scenarios: Array<{ x: number; weight: number }>;
  /** The mixture's one-step predictive log density of each log phase size from the second on (index t: phase t). */
  logPred: number[];
  /** The least upper-tail probability the mixture gave a phase before it came (1 with fewer than two phases). */
  leastTail: number;
  /** Posterior odds of each q. */
  odds: number[];
}

/** The next phase's scenarios (sizes and weights summing to 1) from the phases that fit, oldest first. */
export function phaseBelief(fit: readonly number[]): Belief | null {
  const xs = fit.filter((x) => x > 0);
  if (xs.length === 0) return null;
  const x1 = xs[0]!;
  // Each model on the log sizes and (RAWR_DLM_LIN=1) on the sizes themselves (in units of the first phase), the
  // latter's densities carried to log sizes by the Jacobian (x / x1) so that both are scored alike.
  const logYs = xs.map((x) => Math.log(x));
  const linYs = xs.map((x) => x / x1);
  const TAU2 = Number(process.env.RAWR_DLM_TAU2 ?? 0.5);
  const slopes: readonly number[] = process.env.RAWR_DLM_SLOPEQ ? process.env.RAWR_DLM_SLOPEQ.split(',').map(Number) : [];
  const base = [...Q_GRID.map((q) => ({ q, tau2: 0 })), ...slopes.map((q) => ({ q, tau2: TAU2 }))];
  const models = [...base.map((m) => ({ ...m, lin: false })), ...(process.env.RAWR_DLM_LIN === '1' ? base.map((m) => ({ ...m, lin: true })) : process.env.RAWR_DLM_LIN === '0' ? [{ q: 0, tau2: 0, lin: true }] : process.env.RAWR_DLM_LIN === 'q' ? Q_GRID.map((q) => ({ q, tau2: 0, lin: true })) : [])];
  const comps = models.map(({ q, tau2, lin }) => {
    const ys = lin ? linYs : logYs;
    // Every model predicts the second phase alike (one phase: no history to weigh): its prior scale is set so.
    let S = (PRIOR_SD * PRIOR_SD * 2) / (2 + q + tau2);
    let n = PRIOR_DF;
    // State (level, slope), scaled covariance [[c00, c01], [c01, c11]].
    let m0 = ys[0]!;
    let m1 = 0;
    let c00 = 1;
    let c01 = 0;
    let c11 = tau2;
    let ll = 0;
    const lp: number[] = [];
    const tail: number[] = [];
    // Prior of the step: G = [[1, 1], [0, 1]], W = diag(q, 0).
    const predict = () => ({ a0: m0 + m1, a1: m1, r00: c00 + 2 * c01 + c11 + q, r01: c01 + c11, r11: c11 });
    for (let t = 1; t < ys.length; t++) {
      const { a0, a1, r00, r01, r11 } = predict();
      const Qs = r00 + 1;
      const e = ys[t]! - a0;
      const scale2 = S * Qs;
      const term = -0.5 * Math.log(scale2) - ((n + 1) / 2) * Math.log(1 + (e * e) / (n * scale2)) + (lin ? Math.log(linYs[t]!) : 0);
      tail[t] = upperT(e / Math.sqrt(scale2), n);
      lp[t] = term + lgamma((n + 1) / 2) - lgamma(n / 2) - 0.5 * Math.log(n * Math.PI);
      ll += term;
      const A0 = r00 / Qs;
      const A1 = r01 / Qs;
      m0 = a0 + A0 * e;
      m1 = a1 + A1 * e;
      c00 = r00 - A0 * A0 * Qs;
      c01 = r01 - A0 * A1 * Qs;
      c11 = r11 - A1 * A1 * Qs;
      const d = n * S + (e * e) / Qs;
      n += 1;
      S = d / n;
    }
    const { a0, r00 } = predict();
    return { lin, ll, lp, tail, m: a0, scale: Math.sqrt(S * (r00 + 1)), n };
  });
  const top = Math.max(...comps.map((c) => c.ll));
  const P0 = Number(process.env.RAWR_DLM_P0 ?? 1);
  const ws = comps.map((c, k) => Math.exp(c.ll - top) * (k === 0 ? P0 : 1));
  const total = ws.reduce((a, b) => a + b, 0);
  const scenarios: Array<{ x: number; weight: number }> = [];
  comps.forEach((c, i) => {
    const w = ws[i]! / total;
    if (w < 1e-6) return;
    for (const z of tQuantiles(process.env.RAWR_DLM_NORMAL === '1' ? 1e4 : c.n)) scenarios.push({ x: Math.max(1, Math.round(c.lin ? x1 * (c.m + c.scale * z) : Math.exp(c.m + c.scale * z))), weight: w / K });
  });
  // The mixture's predictive density of each phase from the second on, each model weighed by its odds before it.
  const logPred: number[] = [];
  const cum = comps.map(() => 0);
  let leastTail = 1;
  for (let t = 1; t < xs.length; t++) {
    const top2 = Math.max(...cum);
    const pri = comps.map((_, k) => Math.exp(cum[k]! - top2) * (k === 0 ? P0 : 1));
    const z = pri.reduce((a, b) => a + b, 0);
    leastTail = Math.min(leastTail, comps.reduce((acc, c, k) => acc + (pri[k]! / z) * c.tail[t]!, 0));
    logPred[t] = Math.log(comps.reduce((acc, c, k) => acc + (pri[k]! / z) * Math.exp(c.lp[t]!), 0));
    comps.forEach((c, k) => (cum[k] = cum[k]! + c.lp[t]!));
  }
  return { scenarios, logPred, leastTail, odds: ws.map((w) => w / total) };
}

/** P(T > z) for a Student-t with `df` degrees of freedom (a normal approximation of the t, good from df 5). */
function upperT(z: number, df: number): number {
  const w = (z * (1 - 1 / (4 * df))) / Math.sqrt(1 + (z * z) / (2 * df));
  return 0.5 * erfc(w / Math.SQRT2);
}

/** erfc (Numerical Recipes' Chebyshev fit, relative error < 1.2e-7). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return x >= 0 ? r : 2 - r;
}
