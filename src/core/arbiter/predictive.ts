/**
 * The predictive distribution of a thread's next phase size (issue 33): what the phases so far say the
 * next one adds, with odds that are right both where phases are drawn alike and where each is a multiple of
 * the last.
 *
 * In log space (a phase twice as large is as far as one half as large), three models of how a thread's
 * phase sizes run, each a Bayesian predictive with its parameters unknown (flat prior on the location, 1/σ
 * on the scale: a Student-t whose width carries how little a few phases tell):
 * - exchangeable: every phase drawn alike around an unknown level (after j phases: t with j − 1 degrees of
 *   freedom around their mean, scale s·√(1 + 1/j));
 * - walk: each phase the last times an unknown-spread step around 1 (after j phases, j − 1 steps: t with
 *   j − 1 degrees of freedom around the latest phase, scale the steps' root mean square);
 * - drift: the walk with a step of unknown mean (growth or shrinkage per phase: after j − 1 steps, t with
 *   j − 2 degrees of freedom around the latest phase times the mean step, scale s·√(1 + 1/(j − 1))).
 * They are weighed by how well each predicted this thread's own phases one step ahead (the product of its
 * one-step predictive densities: the prequential likelihood, i.e. Bayesian model averaging from a prior
 * of equal odds), on the phases every model could predict. The scenarios are equally weighted quantiles
 * of the mixture. Pure; O(history²) at most (history ≤ 20), no allocation beyond the result.
 */

/** A location-scale Student-t with an integer number of degrees of freedom (in log tokens). */
export interface StudentT {
  loc: number;
  scale: number;
  dof: number;
}

/** The standard Student-t's CDF for an integer dof ≥ 1 (Abramowitz & Stegun 26.7.3–4: exact, O(dof)). */
export function tCdf(t: number, dof: number): number {
  const th = Math.atan(t / Math.sqrt(dof));
  const c2 = Math.cos(th) ** 2;
  const s = Math.sin(th);
  let a: number;
  if (dof % 2 === 1) {
    let term = 1;
    let sum = dof > 1 ? 1 : 0;
    for (let k = 3; k <= dof - 2; k += 2) {
      term *= ((k - 1) / k) * c2;
      sum += term;
    }
    a = (2 / Math.PI) * (th + s * Math.cos(th) * sum);
  } else {
    let term = 1;
    let sum = 1;
    for (let k = 2; k <= dof - 2; k += 2) {
      term *= ((k - 1) / k) * c2;
      sum += term;
    }
    a = s * sum;
  }
  return 0.5 + a / 2;
}

/** The log density of the standard Student-t for an integer dof ≥ 1 (Γ((ν+1)/2)/Γ(ν/2) by its recursion). */
export function tLogPdf(t: number, dof: number): number {
  let c = dof % 2 === 1 ? 1 / Math.sqrt(Math.PI) : Math.sqrt(Math.PI) / 2;
  for (let v = dof % 2 === 1 ? 1 : 2; v < dof; v += 2) c *= (v + 1) / v;
  return Math.log(c / Math.sqrt(dof * Math.PI)) - ((dof + 1) / 2) * Math.log1p((t * t) / dof);
}

const logDensity = (y: number, p: StudentT) => tLogPdf((y - p.loc) / p.scale, p.dof) - Math.log(p.scale);

/**
 * The least scale of a predictive, in log: phases measured alike to the token would otherwise make a model
 * infinitely sure (and its density infinite); a phase's size is known to a few percent at best.
 */
const SCALE_FLOOR = 0.02;

const mean = (xs: readonly number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
const sumSq = (xs: readonly number[], m: number) => xs.reduce((a, x) => a + (x - m) ** 2, 0);
const steps = (ys: readonly number[]) => ys.slice(1).map((y, j) => y - ys[j]!);
const scaled = (loc: number, variance: number, dof: number): StudentT => ({ loc, scale: Math.max(SCALE_FLOOR, Math.sqrt(variance)), dof });

export type PhaseModel = 'exchangeable' | 'walk' | 'drift';

/** The predictive of the next log phase size after `ys` (log sizes, oldest first) under a model; null: too few phases for it. */
export function predictiveOf(model: PhaseModel, ys: readonly number[]): StudentT | null {
  const j = ys.length;
  switch (model) {
    case 'exchangeable': {
      if (j < 2) return null;
      const m = mean(ys);
      return scaled(m, (sumSq(ys, m) / (j - 1)) * (1 + 1 / j), j - 1);
    }
    case 'walk': {
      if (j < 2) return null;
      const d = steps(ys);
      return scaled(ys[j - 1]!, sumSq(d, 0) / d.length, d.length);
    }
    case 'drift': {
      if (j < 3) return null;
      const d = steps(ys);
      const m = mean(d);
      return scaled(ys[j - 1]! + m, (sumSq(d, m) / (d.length - 1)) * (1 + 1 / d.length), d.length - 1);
    }
  }
}

/** Phases a model needs before it predicts the next one. */
const NEEDS: Record<PhaseModel, number> = { exchangeable: 2, walk: 2, drift: 3 };

export const PHASE_MODELS: readonly PhaseModel[] = ['exchangeable', 'walk', 'drift'];

/**
 * Each model's predictive of the next log phase size after `ys` and its posterior weight: its one-step
 * predictive densities multiplied over the phases every model could predict (from equal prior odds).
 * Fewer phases than every model needs, plus one scored: the models weigh alike.
 */
export function modelMixture(ys: readonly number[], models: readonly PhaseModel[] = PHASE_MODELS): Array<{ model: PhaseModel; p: StudentT; weight: number }> {
  const from = Math.max(...models.map((m) => NEEDS[m]));
  const fitted = models.flatMap((model) => {
    const p = predictiveOf(model, ys);
    if (!p) return [];
    let ll = 0;
    for (let t = from; t < ys.length; t++) ll += logDensity(ys[t]!, predictiveOf(model, ys.slice(0, t))!);
    return [{ model, p, ll }];
  });
  const top = Math.max(...fitted.map((f) => f.ll));
  const total = fitted.reduce((a, f) => a + Math.exp(f.ll - top), 0);
  return fitted.map(({ model, p, ll }) => ({ model, p, weight: Math.exp(ll - top) / total }));
}

/** The mixture's CDF at y. */
const mixtureCdf = (mix: ReadonlyArray<{ p: StudentT; weight: number }>, y: number) =>
  mix.reduce((a, { p, weight }) => a + weight * tCdf((y - p.loc) / p.scale, p.dof), 0);

/** The `k` equally weighted quantiles ((i + ½)/k) of the mixture, by bisection on its CDF (in log). */
export function mixtureQuantiles(mix: ReadonlyArray<{ p: StudentT; weight: number }>, k: number): number[] {
  const wide = 1000 * Math.max(...mix.map((m) => m.p.scale));
  const lo0 = Math.min(...mix.map((m) => m.p.loc)) - wide;
  const hi0 = Math.max(...mix.map((m) => m.p.loc)) + wide;
  return Array.from({ length: k }, (_, i) => {
    const q = (i + 0.5) / k;
    let lo = lo0;
    let hi = hi0;
    for (let it = 0; it < 60 && hi - lo > 1e-6; it++) {
      const mid = (lo + hi) / 2;
      if (mixtureCdf(mix, mid) < q) lo = mid;
      else hi = mid;
    }
    return (lo + hi) / 2;
  });
}

/** Quantiles the next phase's scenarios are taken at. */
export const PREDICTIVE_QUANTILES = 20;

/**
 * The next phase's sizes (tokens), PREDICTIVE_QUANTILES equally likely scenarios of the model mixture
 * after the thread's phases `sizes` (positive, oldest first); null: fewer than two.
 */
export function predictiveSizes(sizes: readonly number[], models: readonly PhaseModel[] = PHASE_MODELS, k = PREDICTIVE_QUANTILES): number[] | null {
  if (sizes.length < 2) return null;
  const mix = modelMixture(
    sizes.map((x) => Math.log(x)),
    models,
  );
  if (mix.length === 0) return null;
  return mixtureQuantiles(mix, k).map((y) => Math.round(Math.exp(y)));
}

/**
 * EXPERIMENT: each model's own empirical predictive (its residuals rescaled to the precision its parameters have
 * now), weighed by the model's posterior weight: scenarios in tokens with weights summing to `total`.
 */
export function empiricalScenarios(
  sizes: readonly number[],
  models: readonly PhaseModel[] = PHASE_MODELS,
  total = PREDICTIVE_QUANTILES,
): Array<{ x: number; weight: number; model: PhaseModel }> | null {
  if (sizes.length < 3) return null;
  const ys = sizes.map((x) => Math.log(x));
  const n = ys.length;
  const mix = modelMixture(ys, models);
  const d = steps(ys);
  const k = d.length;
  const out: Array<{ x: number; weight: number; model: PhaseModel }> = [];
  for (const { model, weight } of mix) {
    let sc: number[];
    switch (model) {
      case 'exchangeable': {
        const m = mean(ys);
        const sum = ys.reduce((a, y) => a + y, 0);
        const f = Math.sqrt((1 + 1 / n) / (1 + 1 / (n - 1)));
        sc = ys.map((y) => m + (y - (sum - y) / (n - 1)) * f);
        break;
      }
      case 'walk':
        sc = d.flatMap((s) => [ys[n - 1]! + s, ys[n - 1]! - s]);
        break;
      case 'drift': {
        const m = mean(d);
        const f = k > 1 ? Math.sqrt((1 + 1 / k) / (1 - 1 / k)) : 1;
        sc = d.map((s) => ys[n - 1]! + m + (s - m) * f);
        break;
      }
    }
    for (const y of sc) out.push({ x: Math.round(Math.exp(y)), weight: (total * weight) / sc.length, model });
  }
  return out;
}
