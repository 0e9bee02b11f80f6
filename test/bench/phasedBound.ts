/**
 * `node out/test/bench/phased.js --bound [--seed N] [--to M] [--count N]`: per generated family, what ANY
 * causal policy can reach (the Bayes-optimal causal policy of phasedBayes.ts, one per lambda, run on the
 * judged sessions themselves and scored by the judge's scoreSchedule) beside the hindsight optimum and
 * rawr, and whether the issue-33 target point is reachable by a causal policy. BENCH ONLY.
 */
import type { Prompts } from '../../src/core/prompts/promptSet';
import { scoreSchedule } from '../../src/core/replay/schedule';
import type { Settings } from '../../src/core/settings/schema';
import { alignedTarget, evaluateSessions, share, TARGETS, totals } from './phased';
import { BayesPolicy, bayesSchedule, generatorSampler, hindsightSameRule, paramsOf, RESOLUTION, type PhaseDP, type Resolution } from './phasedBayes';
import { FAMILIES, generateSession, rng, sessionSeed } from './phasedGen';
import { LEARN_RESOLUTION, LearningPolicy, STEADY_LAWS, type LearnResolution } from './phasedLearn';
import { DEFAULT_SPREAD, SPREAD_BINS, type SpreadPrior } from './phasedSpread';

/** The weights of a compaction outside a close swept for the frontier. */
export const BOUND_LAMBDAS = [0, 0.5, 1, 2, 3, 4, 8, 64] as const;

type Tally = { compactions: number; aligned: number };

export interface BoundPoint {
  lambda: number;
  compactions: number;
  aligned: number;
  overflows: number;
}

export interface FamilyBound {
  family: string;
  /** Realized on the judged sessions (scoreSchedule). */
  points: BoundPoint[];
  /** What the DP expects on the same sessions from each one's first close on (the bound in expectation; fractional). */
  expected: Tally[];
  /** Schedules that did better than the hindsight optimum under the same rule (must be 0: the sanity check). */
  beatsHindsight: number;
}

/** One family's sessions of the seeds, each with its model (the generator's draws) and its labels. */
export function familySessions(f: number, seeds: readonly number[], count: number) {
  const family = FAMILIES[f]!;
  return seeds.flatMap((sd) =>
    Array.from({ length: count }, (_, k) => {
      const s = sessionSeed(sd, f, k);
      const shape = family.shape(rng(s));
      return { model: paramsOf(family, s), phases: shape.phases, session: generateSession(`${family.name}-${k + 1}@${sd}`, shape, s + 1) };
    }),
  );
}
export type FamilySession = ReturnType<typeof familySessions>[number];

/** Per session: its policy at each lambda (the transitions shared across lambdas) and the state it is in after phase k. */
export type Policies = (s: FamilySession) => { at: (lambda: number) => PhaseDP; zAfter: (k: number) => number };

/** The bound told the session's drawn parameters (phasedBayes.ts). */
export const toldPolicies =
  (res: Resolution = RESOLUTION): Policies =>
  (s) => {
    const m = s.model!;
    const sampler = generatorSampler(m);
    let first: BayesPolicy | undefined;
    return {
      at: (lambda) => (first = new BayesPolicy(m.window, m.n, sampler, lambda, res, undefined, first)),
      zAfter: m.phases.zAfter,
    };
  };

/** The bound that learns a steady family's mean (and, given a prior over it, its spread) from the session's phases (phasedLearn.ts, phasedSpread.ts). */
/**
 * A prior of the session's mean phase other than the family's (`--mean-lo A --mean-hi B`, shares of the window, with
 * `--learn-spread`): m ~ U(A, B) of the window — a learner that does not know the family's range of means either.
 */
export interface MeanPrior {
  lo: number;
  hi: number;
}
export const learningPolicies =
  (family: string, res: LearnResolution = LEARN_RESOLUTION, spread?: SpreadPrior, mean?: MeanPrior): Policies =>
  (s) => {
    const told = STEADY_LAWS[family]!;
    const law = { ...told, ...(mean ? { lo: mean.lo * told.window, hi: mean.hi * told.window } : {}), spread };
    let first: LearningPolicy | undefined;
    const policy = (lambda: number) => (first = new LearningPolicy(s.model!, law, lambda, res, undefined, first));
    const belief = policy(0).belief;
    return { at: policy, zAfter: (k) => belief.of(s.phases.slice(0, k + 1)) };
  };

/** The causal-optimal frontier on one family's judged sessions. */
export function familyBound(
  f: number,
  sessions: readonly FamilySession[],
  lambdas: readonly number[] = BOUND_LAMBDAS,
  policies: Policies = toldPolicies(),
): FamilyBound | null {
  if (sessions.some((s) => !s.model)) return null;
  const points = lambdas.map((lambda) => ({ lambda, compactions: 0, aligned: 0, overflows: 0 }));
  const expected = lambdas.map(() => ({ compactions: 0, aligned: 0 }));
  let beatsHindsight = 0;
  for (const s of sessions) {
    const session = s.session;
    const made = policies(s);
    const hs = { lex: hindsightSameRule(session.labels, Infinity), fewest: hindsightSameRule(session.labels, 0) };
    lambdas.forEach((lambda, j) => {
      const run = bayesSchedule(session.labels, made.at(lambda), made.zAfter);
      const sc = scoreSchedule(session.labels, run.lines);
      expected[j]!.compactions += run.expected.count;
      expected[j]!.aligned += run.expected.count - run.expected.unaligned;
      const pt = points[j]!;
      pt.compactions += sc.compactions;
      pt.aligned += sc.aligned;
      pt.overflows += sc.overflows;
      if (sc.compactions - sc.aligned < hs.lex.unaligned || sc.compactions < hs.fewest.compactions) beatsHindsight++;
    });
  }
  return { family: FAMILIES[f]!.name, points, expected, beatsHindsight };
}

/**
 * The best aligned share at a count budget and the least count at an aligned share, over the lambda points
 * and over mixes of two of them (a policy that flips a coin per session between two lambdas reaches, in
 * expectation, every point on the segment between theirs).
 */
export function bestAt(points: readonly Tally[], budget: number): number | null {
  let best: number | null = null;
  for (const a of points) {
    if (a.compactions <= budget) best = Math.max(best ?? 0, share(a.aligned, a.compactions));
    for (const b of points) {
      if (!(a.compactions <= budget && b.compactions > budget)) continue;
      const p = (b.compactions - budget) / (b.compactions - a.compactions);
      best = Math.max(best ?? 0, (p * a.aligned + (1 - p) * b.aligned) / budget);
    }
  }
  return best;
}

export function leastAt(points: readonly Tally[], target: number): number | null {
  let best: number | null = null;
  const ok = (x: Tally) => x.aligned >= target * x.compactions - 1e-9;
  for (const a of points) {
    if (ok(a)) best = Math.min(best ?? Infinity, a.compactions);
    for (const b of points) {
      // a meets the target, b does not but has fewer compactions: the mix at exactly the target share.
      if (!ok(a) || ok(b) || b.compactions >= a.compactions) continue;
      const da = a.aligned - target * a.compactions;
      const db = b.aligned - target * b.compactions;
      const p = -db / (da - db);
      best = Math.min(best ?? Infinity, p * a.compactions + (1 - p) * b.compactions);
    }
  }
  return best;
}

/**
 * `--grid N` (points a window), `--draws M` (draws a transition), `--family NAME` (repeatable), `--learn` (the bound
 * that learns a steady family's mean, phasedLearn.ts, with `--bins B` bins of the mean), with `--learn-spread` or
 * `--spread-lo A --spread-hi B` (0 ≤ A ≤ B < 1; default 0.05-0.6) not told the spread either (phasedSpread.ts, `--bins`
 * then bins of the phase sizes, default 32): the bound's options.
 */
export function boundOptions(argv: readonly string[]): {
  res: LearnResolution;
  families: string[];
  learn: boolean;
  spread?: SpreadPrior;
  mean?: MeanPrior;
} {
  const learn = argv.includes('--learn');
  const arg = (flag: string) => {
    const k = argv.indexOf(flag);
    return k >= 0 ? Number(argv[k + 1]) : NaN;
  };
  const range = { lo: arg('--spread-lo'), hi: arg('--spread-hi') };
  const given = !Number.isNaN(range.lo) || !Number.isNaN(range.hi);
  const spread: SpreadPrior | undefined =
    learn && (given || argv.includes('--learn-spread'))
      ? { lo: Number.isNaN(range.lo) ? DEFAULT_SPREAD.lo : range.lo, hi: Number.isNaN(range.hi) ? DEFAULT_SPREAD.hi : range.hi }
      : undefined;
  if (spread && !(spread.lo >= 0 && spread.lo <= spread.hi && spread.hi < 1))
    throw new Error(`--spread-lo/--spread-hi: need 0 <= lo <= hi < 1, got ${spread.lo}-${spread.hi}`);
  const meanRange = { lo: arg('--mean-lo'), hi: arg('--mean-hi') };
  const mean: MeanPrior | undefined = spread && !Number.isNaN(meanRange.lo) && !Number.isNaN(meanRange.hi) ? meanRange : undefined;
  if (mean && !(mean.lo > 0 && mean.lo < mean.hi && mean.hi <= 1))
    throw new Error(`--mean-lo/--mean-hi: need 0 < lo < hi <= 1 (shares of the window), got ${mean.lo}-${mean.hi}`);
  const dflt: LearnResolution = learn ? { ...LEARN_RESOLUTION, bins: spread ? SPREAD_BINS : LEARN_RESOLUTION.bins } : { ...LEARN_RESOLUTION, ...RESOLUTION };
  const num = (flag: string, d: number, min = 10) => {
    const v = argv.includes(flag) ? arg(flag) : d;
    return Number.isInteger(v) && v >= min ? v : d;
  };
  const families = argv.flatMap((a, k) => (a === '--family' && argv[k + 1] ? [argv[k + 1]!] : []));
  return {
    res: { grid: num('--grid', dflt.grid), trajectories: num('--draws', dflt.trajectories), bins: num('--bins', dflt.bins, 2), sizes: dflt.sizes },
    families,
    learn,
    spread,
    mean,
  };
}

/** Whether the target point is on the reachable side of a frontier (a point, or a mix of two, within the count at the aligned target). */
export function verdictAt(points: readonly Tally[], opt: Tally, want: number): { atBudget: number | null; atTarget: number | null; verdict: string } {
  const budget = TARGETS.count * opt.compactions;
  const atBudget = bestAt(points, budget);
  const single = points.some((p) => p.compactions <= budget + 1e-9 && p.aligned >= want * p.compactions - 1e-9);
  const reachable = atBudget !== null && atBudget >= want - 1e-9;
  return { atBudget, atTarget: leastAt(points, want), verdict: single ? 'REACHABLE' : reachable ? 'REACHABLE (mixing two lambdas)' : 'NOT REACHABLE' };
}

export function printBound(settings: Settings, prompts: Prompts, seed: number, count: number, last = seed, argv: readonly string[] = []): void {
  const started = Date.now();
  const { res, families, learn, spread, mean } = boundOptions(argv);
  const seeds = Array.from({ length: last - seed + 1 }, (_, k) => seed + k);
  const pct = (x: number | null) => (x === null ? '—' : `${Math.round(x * 100)}%`);
  const which = last > seed ? `seeds ${seed}-${last}` : `seed ${seed}`;
  const policy = spread
    ? `the Bayes-optimal causal policy that learns the session's mean phase and the family's spread (phasedLearn.ts, phasedSpread.ts: knows the law's form m * U(1 - j, 1 + j), ${mean ? `not the family's prior of m (its own: m ~ U(${mean.lo}, ${mean.hi}) of the window)` : 'the prior of m'} and the session's other drawn parameters, learns m and j ~ U(${spread.lo}, ${spread.hi}) from the phases it has seen; the steady families only)`
    : learn
      ? `the Bayes-optimal causal policy that learns the session's mean phase (phasedLearn.ts: knows the family's law and the session's drawn parameters but its mean phase, which it learns from the phases it has seen; the steady families only)`
      : `the Bayes-optimal causal policy (phasedBayes.ts: knows the family's law and the session's drawn parameters, never a future phase)`;
  console.log(
    `what any causal policy can reach (${which}, ${count} per family and seed): ${policy}, one per lambda (a compaction outside a close costs 1 + lambda), run on the judged sessions; cells per lambda: count = x the optimum, aligned share, realized on the sessions and as the DP expects them from each one's first close on; grid ${res.grid} points a window, ${res.trajectories} draws a ${spread ? `phase, ${res.bins} bins of the phase sizes` : learn ? `phase, ${res.bins} bins of the mean` : 'transition'}`,
  );
  for (let f = 0; f < FAMILIES.length; f++) {
    const family = FAMILIES[f]!;
    if (families.length && !families.includes(family.name)) continue;
    if (learn && !STEADY_LAWS[family.name]) continue;
    const sessions = familySessions(f, seeds, count);
    const b = familyBound(f, sessions, BOUND_LAMBDAS, learn ? learningPolicies(family.name, res, spread, mean) : toldPolicies(res));
    if (!b) {
      console.log(`  ${family.name}: no phase model (MODELS in phasedBayes.ts)`);
      continue;
    }
    const t = totals(
      evaluateSessions(
        sessions.map((s) => s.session),
        settings,
        prompts,
      ),
    );
    const opt = t.optimum;
    const x = (c: number) => `${(c / Math.max(1, opt.compactions)).toFixed(2)}x`;
    const want = alignedTarget(opt);
    console.log(
      `  ${family.name.padEnd(11)} optimum ${opt.compactions} (${pct(share(opt.aligned, opt.compactions))}); rawr ${x(t.rawr.compactions)} ${pct(share(t.rawr.aligned, t.rawr.compactions))}${t.rawr.overflows ? ` ${t.rawr.overflows} overflows` : ''}${b.beatsHindsight ? `; ${b.beatsHindsight} schedule(s) beat the hindsight optimum of the same rule: A BUG` : ''}`,
    );
    const overflows = b.points.reduce((n, p) => n + p.overflows, 0);
    for (const [what, pts] of [
      ['realized', b.points],
      ['expected', b.expected],
    ] as const) {
      const v = verdictAt(pts, opt, want);
      console.log(
        `    ${what}: ${pts.map((p, j) => `${BOUND_LAMBDAS[j]}: ${x(p.compactions)} ${pct(share(p.aligned, p.compactions))}`).join(' | ')}${what === 'realized' && overflows ? ` (${overflows} overflows!)` : ''}`,
      );
      console.log(
        `      at <= ${TARGETS.count}x: ${pct(v.atBudget)} aligned; at the target ${pct(want)}: ${v.atTarget === null ? 'not reached at any lambda' : x(v.atTarget)} -> ${v.verdict} (margin ${v.atBudget === null ? '—' : `${((v.atBudget - want) * 100).toFixed(1)} points`}${v.atTarget === null ? '' : `, ${(v.atTarget / Math.max(1, opt.compactions) - TARGETS.count).toFixed(2)}x`})`,
      );
    }
  }
  console.log(
    `  the target: aligned >= the optimum's share - ${TARGETS.slack * 100} points (${TARGETS.full * 100}% where it is 100%) at <= ${TARGETS.count}x its count, 0 overflows. "at <= ${TARGETS.count}x": the best aligned share of a lambda point or a mix of two within that count; "margin": that share minus the target (negative: out of reach of every causal policy, up to the sample's noise), then the least count at the target minus ${TARGETS.count}x. (${((Date.now() - started) / 1000).toFixed(0)} s)`,
  );
}
