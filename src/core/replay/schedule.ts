/**
 * Schedule quality on labelled phase-structured sessions: how a compaction schedule (a list of lines where
 * a policy decided to compact) is judged, the plain threshold policy, and the hindsight-optimal schedule.
 * The rules (docs/benchmarks.md, "Forecasting the next phase"; the same for every policy):
 *
 * - the context is modelled over the labelled points (one per model call): it starts at the first point's
 *   tokens and adds every positive step between consecutive points (a drop is the recorded tool's own
 *   compaction and is ignored); after a compaction decided at line L the first point after L is at
 *   `postTokens` plus that point's own step, and growth continues from there;
 * - an overflow is a point whose modelled context reaches the window;
 * - a compaction is aligned when its line falls in a phase window `[first, last + 2]`;
 * - the optimum, with perfect foresight, compacts at points only, never lets a point reach the limit
 *   (rawr's emergency line, 88% of the window) and minimises first the unaligned compactions, then all.
 *
 * Pure: no I/O. The labels are untrusted input and are validated with zod.
 */
import * as z from 'zod';

export const PhaseLabelsSchema = z
  .object({
    window: z.number().positive(),
    points: z.array(z.tuple([z.number().int().nonnegative(), z.number().nonnegative()])).min(1),
    windows: z.array(z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()])),
    original_compactions: z.array(z.number().int().nonnegative()).optional(),
  })
  .loose();
export type PhaseLabels = z.infer<typeof PhaseLabelsSchema>;

/** labels.json: one entry per session file name. */
export const PhaseLabelFileSchema = z.record(z.string(), PhaseLabelsSchema);

export const DEFAULT_POST_TOKENS = 30_000;
export const OPTIMUM_LIMIT_FRACTION = 0.88;
export const THRESHOLD_FRACTION = 0.835;

export interface ScheduleScore {
  compactions: number;
  aligned: number;
  /** Points whose modelled context reached the window. */
  overflows: number;
  /** Highest modelled context at any point. */
  peak: number;
  lines: number[];
}

/** The growth added at point i (0 for the first point): positive steps only. */
const stepAt = (pts: PhaseLabels['points'], i: number) => (i === 0 ? 0 : Math.max(0, pts[i]![1] - pts[i - 1]![1]));

export function isAligned(labels: Pick<PhaseLabels, 'windows'>, line: number): boolean {
  return alignedClose(labels, line) >= 0;
}

/** The phase close (window index) a line is aligned with, the first whose window holds it; -1: none. */
export const alignedClose = (labels: Pick<PhaseLabels, 'windows'>, line: number): number =>
  labels.windows.findIndex(([first, last]) => first <= line && line <= last + 2);

/** The modelled context at every point under a schedule (compaction lines, any order). */
export function modelContext(labels: PhaseLabels, compactionLines: readonly number[], postTokens = DEFAULT_POST_TOKENS): number[] {
  const lines = [...compactionLines].sort((a, b) => a - b);
  const pts = labels.points;
  const out: number[] = [];
  let k = 0; // next compaction line not yet applied
  let c = 0;
  for (let i = 0; i < pts.length; i++) {
    const line = pts[i]![0];
    let restarted = false;
    while (k < lines.length && lines[k]! < line) {
      restarted = true;
      k++;
    }
    if (i === 0) c = restarted ? postTokens : pts[0]![1];
    else c = (restarted ? postTokens : c) + stepAt(pts, i);
    out.push(c);
  }
  return out;
}

export function scoreSchedule(labels: PhaseLabels, compactionLines: readonly number[], postTokens = DEFAULT_POST_TOKENS): ScheduleScore {
  const ctx = modelContext(labels, compactionLines, postTokens);
  return {
    compactions: compactionLines.length,
    aligned: compactionLines.filter((l) => isAligned(labels, l)).length,
    overflows: ctx.filter((c) => c >= labels.window).length,
    peak: ctx.reduce((m, c) => Math.max(m, c), 0),
    lines: [...compactionLines],
  };
}

/** A plain threshold compactor: compacts at a point whose modelled context reached `fraction` of the window. */
export function thresholdSchedule(labels: PhaseLabels, fraction = THRESHOLD_FRACTION, postTokens = DEFAULT_POST_TOKENS): number[] {
  const pts = labels.points;
  const lines: number[] = [];
  let c = pts[0]![1];
  let compacted = false;
  for (let i = 1; i < pts.length; i++) {
    c = (compacted ? postTokens : c) + stepAt(pts, i);
    compacted = c >= fraction * labels.window;
    if (compacted) lines.push(pts[i]![0]);
  }
  return lines;
}

export interface OptimalSchedule {
  lines: number[];
  unaligned: number;
  compactions: number;
}

/**
 * The hindsight optimum by dynamic programming over the points. best[k] is the lexicographically smallest
 * (unaligned, total) of a feasible schedule whose last compaction is at point k; a schedule is feasible
 * when every point stays below the limit. From a compaction at j (or the start), the points j+1… are
 * reachable until one would reach the limit; the session is complete when the last point is reachable.
 * O(n²) over n points. Returns null when no schedule can keep under the limit (one step alone too big).
 */
export function optimalSchedule(labels: PhaseLabels, limitFraction = OPTIMUM_LIMIT_FRACTION, postTokens = DEFAULT_POST_TOKENS): OptimalSchedule | null {
  const pts = labels.points;
  const n = pts.length;
  const limit = limitFraction * labels.window;
  const INF: [number, number] = [Infinity, Infinity];
  const less = (a: readonly [number, number], b: readonly [number, number]) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
  const best: Array<[number, number]> = Array.from({ length: n }, () => INF);
  const prev = new Array<number>(n).fill(-2);
  let end: [number, number] = INF;
  let endFrom = -2;
  // j = -1 is the start of the session (no compaction yet); compactions at j are relaxed in increasing
  // order, so best[j] is final when j is expanded (every predecessor of j is < j).
  for (let j = -1; j < n; j++) {
    const base: [number, number] = j < 0 ? [0, 0] : best[j]!;
    if (base[0] === Infinity) continue;
    let c = 0;
    let reachedEnd = j === n - 1;
    for (let i = j + 1; i < n; i++) {
      c = i === 0 ? pts[0]![1] : (i === j + 1 ? postTokens : c) + stepAt(pts, i);
      if (c >= limit) break;
      const cand: [number, number] = [base[0] + (isAligned(labels, pts[i]![0]) ? 0 : 1), base[1] + 1];
      if (less(cand, best[i]!)) {
        best[i] = cand;
        prev[i] = j;
      }
      if (i === n - 1) reachedEnd = true;
    }
    if (reachedEnd && less(base, end)) {
      end = base;
      endFrom = j;
    }
  }
  if (endFrom === -2) return null;
  const lines: number[] = [];
  for (let j = endFrom; j >= 0; j = prev[j]!) lines.push(pts[j]![0]);
  lines.reverse();
  return { lines, unaligned: end[0], compactions: end[1] };
}
