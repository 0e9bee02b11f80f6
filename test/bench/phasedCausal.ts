/**
 * A causal reference (`node out/test/bench/phased.js --limits`): what two close rules of one form — decide
 * at each phase close from Monte-Carlo odds — reach on a generated family without seeing the judged
 * session's future. It is what that rule family reaches with the distribution known, not what any policy
 * could: a policy of another form (deciding between closes, say) is not bounded by it. BENCH ONLY: it knows the family's generating
 * distribution (it draws fresh sessions of the same family from phasedGen.ts), which the product never
 * does; nothing in src/ may use it.
 *
 * The oracle is the close-by-close rule (phasedLimits.ts) with a Monte-Carlo decision: at the first
 * signal of every phase close it conditions a pool of fresh sessions of the family on what the judged
 * session has shown so far — the number of phases (the plan's todo list names every step from the start),
 * the phases measured so far and the per-call growth — by nearest neighbours on those summaries (an
 * approximate Bayesian posterior), and reads, in each neighbour, the growth from this close to the end of
 * the next one. It compacts at the end of this close iff
 *
 *   P(emergency before the next close's end | wait) − P(emergency before it | compact now) > p,
 *
 * i.e. iff the risk a compaction now removes exceeds p (a phase larger than even a fresh context holds
 * ends in its emergency either way: compacting before it removes nothing). Sweeping p gives the frontier
 * of aligned share against count that a causal policy of this form reaches; with perfect knowledge of
 * the next phase the same rule is the greedy "compact at the latest boundary", which is the optimum on
 * every family but one-huge (`next phase known` in the --limits table).
 *
 * Honest conditioning: the pool's sessions are drawn with seeds disjoint from the judged ones; the
 * growth of a pool session is simulated exactly as generateSession grows the context (per-call steps,
 * the close's calls, the run-on call in the closing response, the records of a response sharing its usage,
 * and the recorded tool's own 83.5% compaction, whose step the judge drops), with a fresh random stream —
 * the same distribution, none of the judged session's draws.
 */
import { DEFAULT_POST_TOKENS, OPTIMUM_LIMIT_FRACTION, optimalSchedule, scoreSchedule, type PhaseLabels } from '../../src/core/replay/schedule';
import { rng, TEXT_NOISE_SHARE, type Family, type SessionShape } from './phasedGen';
import { closeRuleScheduleWith, type CloseRule, type CloseState } from './phasedLimits';

type Rand = () => number;
const between = (r: Rand, lo: number, hi: number) => lo + (hi - lo) * r();

/** A session's growth as the judge sees it: positive steps per point, and each close's first and last point. */
export interface Growth {
  n: number;
  /** Cumulative judged growth at each point (0 at the first). */
  grown: number[];
  first: number[];
  last: number[];
}

/**
 * The judged growth of a session of `shape`, drawn as generateSession draws it (phasedGen.ts): the same
 * calls in the same order, the same distributions, a different random stream.
 */
export function simulateGrowth(shape: SessionShape, r: Rand): Growth {
  const native = 0.835 * shape.window;
  let context = Math.round(shape.first);
  const ctx: number[] = [context];
  const first: number[] = [];
  const last: number[] = [];
  const grow = (tokens: number) => {
    context += Math.round(tokens);
    if (context >= native) context = Math.round(shape.first + between(r, 5000, 12_000));
  };
  const point = () => ctx.push(context) - 1;
  const perCall = () => shape.perCall * between(r, 1 - shape.spread, 1 + shape.spread);
  shape.phases.forEach((size, k) => {
    let left = size - 3 * shape.perCall;
    while (left > 0) {
      const g = Math.min(left, perCall());
      grow(g);
      left -= g;
      point();
      if (r() < TEXT_NOISE_SHARE) point(); // loose "done" wording: a text and a Read in one response (one usage)
    }
    grow(shape.perCall * between(r, 0.3, 1));
    first.push(point()); // the TodoWrite that completes the step
    grow(shape.perCall * between(r, 0.3, 1));
    point(); // the commit
    if (r() < 0.3) {
      grow(shape.perCall * between(r, 0.2, 0.5));
      point(); // --amend
    }
    grow(shape.perCall * between(r, 0.1, 0.3));
    last.push(point()); // the closing message
    if (k + 1 < shape.phases.length && r() >= 0.5) {
      point(); // runs straight on: the next call is in the closing response (its usage)
      grow(perCall()); // and its growth comes with its results
    }
  });
  const grown = [0];
  for (let i = 1; i < ctx.length; i++) grown.push(grown[i - 1]! + Math.max(0, ctx[i]! - ctx[i - 1]!));
  return { n: shape.phases.length, grown, first, last };
}

/** What the rule conditions on at close k: the phases so far and the per-call growth, in units of the window. */
function summary(seen: readonly number[], meanStep: number, window: number): number[] {
  const k = seen.length - 1;
  const f = [seen[0]!, seen[k]!, 10 * meanStep];
  if (k >= 1) {
    const rest = seen.slice(1);
    f.push(seen[k - 1]!, Math.min(...rest), Math.max(...rest), rest.reduce((a, b) => a + b, 0) / rest.length);
  }
  return f.map((x) => x / window);
}

interface PoolSession {
  g: Growth;
  /** Phases as the rule measures them: growth from one close's first point to the next. */
  measured: number[];
}

/** A pool of fresh sessions of the family (seeds disjoint from `exclude`: the judged sessions' seeds). */
export function familyPool(family: Family, familyIndex: number, size: number, exclude: ReadonlySet<number>): PoolSession[] {
  const seeds = rng(0x5eed_c0de + familyIndex * 7907);
  const pool: PoolSession[] = [];
  while (pool.length < size) {
    const s = Math.floor(seeds() * 2 ** 31);
    if (exclude.has(s)) continue;
    const g = simulateGrowth(family.shape(rng(s)), rng(s ^ 0x2545f491));
    const measured = g.first.map((p, k) => g.grown[p]! - (k > 0 ? g.grown[g.first[k - 1]!]! : 0));
    pool.push({ g, measured });
  }
  return pool;
}

/** How many pool sessions stand for the posterior at a close. */
const NEIGHBOURS = 150;

/** The pool's summaries at close k (they do not depend on the judged session: computed once). */
const featureCache = new WeakMap<readonly PoolSession[], Map<number, Array<number[] | null>>>();
function poolFeatures(pool: readonly PoolSession[], k: number, window: number): Array<number[] | null> {
  let byK = featureCache.get(pool);
  if (!byK) featureCache.set(pool, (byK = new Map()));
  let fs = byK.get(k);
  if (!fs) {
    fs = pool.map((p) => {
      if (p.g.n <= k + 1) return null;
      const fp = p.g.first[k]!;
      return summary(p.measured.slice(0, k + 1), p.g.grown[fp]! / Math.max(1, fp), window);
    });
    byK.set(k, fs);
  }
  return fs;
}

/** The pool sessions nearest to what the judged session has shown at this close: the posterior's draws. */
export function neighbours(pool: readonly PoolSession[], s: CloseState): PoolSession[] {
  const meanStep = s.steps.reduce((a, b) => a + b, 0) / Math.max(1, s.steps.length);
  const target = summary(s.seen, meanStep, s.window);
  const fs = poolFeatures(pool, s.k, s.window);
  const cands: Array<{ d: number; p: PoolSession }> = [];
  pool.forEach((p, j) => {
    const f = fs[j];
    if (!f || p.g.n !== s.n) return;
    let d = 0;
    for (let q = 0; q < f.length; q++) d += (f[q]! - target[q]!) ** 2;
    cands.push({ d, p });
  });
  cands.sort((a, b) => a.d - b.d);
  return cands.slice(0, NEIGHBOURS).map((c) => c.p);
}

/**
 * The risk a compaction at this close removes, by Monte-Carlo over the posterior's draws: the share of
 * them with an emergency before the next close's end if the policy waits, minus the share if it compacts.
 */
export function riskRemoved(near: readonly PoolSession[], s: CloseState): { removed: number; wait: number; now: number } {
  const k = s.k;
  let wait = 0;
  let now = 0;
  for (const p of near) {
    const G = p.g.grown;
    const [f, l, nextL] = [p.g.first[k]!, p.g.last[k]!, p.g.last[k + 1]!];
    if (s.c + G[nextL]! - G[f]! >= s.line) wait++;
    if (s.c + G[l]! - G[f]! >= s.line || s.post + G[nextL]! - G[l]! >= s.line) now++;
  }
  const m = Math.max(1, near.length);
  return { removed: (wait - now) / m, wait: wait / m, now: now / m };
}

/**
 * The rest of a draw's session from close k, compacting at the end of close k or not, then with
 * foresight of the draw (at each later close: compact iff waiting would reach the line before the next
 * close's end and compacting would mean fewer emergencies there): its compactions and the unaligned ones.
 */
export function restWithForesight(
  p: PoolSession,
  k: number,
  c0: number,
  line: number,
  post: number,
  compactNow: boolean,
): { total: number; unaligned: number } {
  const G = p.g.grown;
  const { first, last, n } = p.g;
  let total = 0;
  let unaligned = 0;
  // Runs the context from point a (context c there) to point b; emergencies at the line.
  const run = (a: number, c: number, b: number) => {
    let base = c - G[a]!;
    for (;;) {
      if (base + G[b]! < line) return base + G[b]!;
      // The first point reaching the line (G is non-decreasing): an emergency there.
      let lo = a + 1;
      let hi = b;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (base + G[mid]! >= line) hi = mid;
        else lo = mid + 1;
      }
      total++;
      unaligned++;
      a = lo;
      base = post - G[lo]!;
      if (post >= line) return post; // never under the line again
    }
  };
  // Decide at first[k] (context c0), compaction at last[k].
  let c = run(first[k]!, c0, last[k]!);
  let at = last[k]!;
  if (compactNow) {
    total++;
    c = post;
  }
  for (let j = k + 1; j < n; j++) {
    c = run(at, c, first[j]!);
    at = first[j]!;
    if (j + 1 < n) {
      const wait = c + G[last[j + 1]!]! - G[at]!;
      const closeEnd = c + G[last[j]!]! - G[at]!;
      const fresh = post + G[last[j + 1]!]! - G[last[j]!]!;
      const lap = Math.max(1, line - post);
      const emergWait = wait < line ? 0 : 1 + Math.floor((wait - line) / lap);
      const emergNow = fresh < line ? 0 : 1 + Math.floor((fresh - line) / lap);
      // No emergency in the close itself (closeEnd < line): the compaction at its end starts from post.
      if (closeEnd < line && emergNow < emergWait) {
        total++;
        c = post;
        at = last[j]!;
      }
    }
  }
  run(at, c, G.length - 1);
  return { total, unaligned };
}

/** The P rule: compact iff the risk removed exceeds p. */
export const causalRule =
  (pool: readonly PoolSession[], p: number): CloseRule =>
  (s) =>
    riskRemoved(neighbours(pool, s), s).removed > p;

/**
 * The lookahead rule: compact iff, over the posterior's draws, compacting now then going on with foresight
 * costs less than waiting then going on with foresight, where a compaction costs 1 and one outside a
 * boundary 1 + lambda. It knows where the session ends (the plan), so it compacts early where that is free
 * (the rest needs a compaction anyway and fits after it) — what the optimum does with hindsight.
 */
export const lookaheadRule =
  (pool: readonly PoolSession[], lambda: number): CloseRule =>
  (s) => {
    const near = neighbours(pool, s);
    let now = 0;
    let wait = 0;
    for (const p of near) {
      const a = restWithForesight(p, s.k, s.c, s.line, s.post, true);
      const b = restWithForesight(p, s.k, s.c, s.line, s.post, false);
      now += a.total + lambda * a.unaligned;
      wait += b.total + lambda * b.unaligned;
    }
    return now < wait - 1e-9;
  };

export const CAUSAL_PS = [0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5] as const;
export const LOOKAHEAD_LAMBDAS = [0, 0.5, 1, 2, 4, 8, 20] as const;

export interface CausalPoint {
  param: number;
  compactions: number;
  aligned: number;
  overflows: number;
}

/** The frontier on one family's sessions: one point per parameter of the rule, and the optimum's count and aligned. */
export function causalFrontier(
  sessions: ReadonlyArray<{ labels: PhaseLabels }>,
  rule: (param: number) => CloseRule,
  params: readonly number[],
): { optimum: { compactions: number; aligned: number }; points: CausalPoint[] } {
  const optimum = { compactions: 0, aligned: 0 };
  for (const s of sessions) {
    const o = optimalSchedule(s.labels, OPTIMUM_LIMIT_FRACTION);
    optimum.compactions += o?.compactions ?? 0;
    optimum.aligned += o ? o.compactions - o.unaligned : 0;
  }
  const points = params.map((param) => {
    const pt: CausalPoint = { param, compactions: 0, aligned: 0, overflows: 0 };
    for (const s of sessions) {
      const sc = scoreSchedule(s.labels, closeRuleScheduleWith(s.labels, rule(param), DEFAULT_POST_TOKENS));
      pt.compactions += sc.compactions;
      pt.aligned += sc.aligned;
      pt.overflows += sc.overflows;
    }
    return pt;
  });
  return { optimum, points };
}
