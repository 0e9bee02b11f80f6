/**
 * The hindsight frontier of count against aligned (issue 33): for a budget of compactions, the most of
 * them at a phase close that any schedule without a point at the emergency line can make, with perfect
 * foresight. The optimum (schedule.ts) is its cheapest point; adding compactions at closes raises the share
 * up to where a family's phases larger than the room cap it. A policy's point (rawr's count and aligned)
 * is read against it: below the frontier at its own count is what better information or method could
 * still win, on the frontier is the best any schedule does at that count. Bench only: it sees the future.
 */
import { DEFAULT_POST_TOKENS, OPTIMUM_LIMIT_FRACTION, isAligned, type PhaseLabels } from '../../src/core/replay/schedule';

/**
 * most[c]: the most aligned compactions of a schedule with exactly c compactions that never lets a point
 * reach the limit (-1: none with c). Dynamic programming over (last compaction point, count), as the
 * optimum's, with the count bounded by `maxCount`: O(points × points one context holds × maxCount).
 */
export function alignedByCount(labels: PhaseLabels, maxCount: number, limitFraction = OPTIMUM_LIMIT_FRACTION, postTokens = DEFAULT_POST_TOKENS): number[] {
  const pts = labels.points;
  const n = pts.length;
  const limit = limitFraction * labels.window;
  const step = (i: number) => (i === 0 ? 0 : Math.max(0, pts[i]![1] - pts[i - 1]![1]));
  const aligned = pts.map(([l]) => (isAligned(labels, l) ? 1 : 0));
  // best[i][c]: most aligned with c compactions, the last at point i. -1: unreachable.
  const best = Array.from({ length: n }, () => new Array<number>(maxCount + 1).fill(-1));
  const most = new Array<number>(maxCount + 1).fill(-1);
  for (let j = -1; j < n; j++) {
    const from = j < 0 ? null : best[j]!;
    if (from && from.every((x) => x < 0)) continue;
    let c = 0;
    let end = j === n - 1;
    for (let i = j + 1; i < n; i++) {
      c = i === 0 ? pts[0]![1] : (i === j + 1 ? postTokens : c) + step(i);
      if (c >= limit) break;
      if (i === n - 1) end = true;
      for (let k = 0; k < maxCount; k++) {
        const base = from ? from[k]! : k === 0 ? 0 : -1;
        if (base < 0) continue;
        const cand = base + aligned[i]!;
        if (cand > best[i]![k + 1]!) best[i]![k + 1] = cand;
      }
    }
    if (!end) continue;
    for (let k = 0; k <= maxCount; k++) {
      const base = from ? from[k]! : k === 0 ? 0 : -1;
      if (base > most[k]!) most[k] = base;
    }
  }
  return most;
}

export interface FrontierPoint {
  /** The budget, as a multiple of the optimum's count. */
  ratio: number;
  compactions: number;
  aligned: number;
}

/**
 * The family's frontier at each budget ratio: the most aligned compactions over all its sessions with at
 * most ratio × the optimum's count in all (the budget shared among the sessions as best helps: a knapsack
 * over each session's alignedByCount), and the count that reaches it. Sessions without an optimum are left out.
 */
export function frontier(
  sessions: ReadonlyArray<{ labels: PhaseLabels }>,
  optimumCounts: ReadonlyArray<number | null>,
  ratios: readonly number[],
): FrontierPoint[] {
  const total = optimumCounts.reduce<number>((a, c) => a + (c ?? 0), 0);
  const budget = Math.floor(Math.max(...ratios) * total + 1e-9);
  // Per session: its options (count, aligned), up to half as many again as its own optimum makes (a
  // session's share of a 1.15x budget; a bound on the work, not on what the frontier may use elsewhere).
  const per = sessions.flatMap((s, k) => {
    const opt = optimumCounts[k];
    if (opt === null || opt === undefined) return [];
    const most = alignedByCount(s.labels, Math.min(opt + (budget - total), opt + Math.max(2, Math.ceil(opt / 2))));
    return [most.map((a, c) => ({ c, a })).filter(({ a }) => a >= 0)];
  });
  // dp[b]: the most aligned over the sessions so far with b compactions in all (-1: none).
  let dp = new Array<number>(budget + 1).fill(-1);
  dp[0] = 0;
  for (const options of per) {
    const next = new Array<number>(budget + 1).fill(-1);
    for (let b = 0; b <= budget; b++) {
      if (dp[b]! < 0) continue;
      for (const { c, a } of options) if (b + c <= budget && dp[b]! + a > next[b + c]!) next[b + c] = dp[b]! + a;
    }
    dp = next;
  }
  return ratios.map((ratio) => {
    const cap = Math.floor(ratio * total + 1e-9);
    let bestB = -1;
    for (let b = 0; b <= cap; b++) if (dp[b]! >= 0 && (bestB < 0 || dp[b]! > dp[bestB]!)) bestB = b;
    return { ratio, compactions: Math.max(0, bestB), aligned: bestB < 0 ? 0 : dp[bestB]! };
  });
}
