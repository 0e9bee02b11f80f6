/**
 * The finite-horizon decision at a phase close (issue 33): compact now or wait, over every phase still to
 * come, by dynamic programming. The phases ahead are drawn from the thread's own distribution of phase
 * sizes (the forecast's scenarios, weighed); at every later close the schedule again picks the cheaper of
 * compacting and waiting, knowing only the phases before it — so the value of waiting counts what a later
 * close can still do, not a fixed rule for it. The cost is compactions, an emergency (a compaction outside a
 * close) weighing `emergencyWeight` of them; an emergency mid-phase leaves the rest of that phase in the
 * context a compaction leaves (`fresh`), so the close after it starts from there.
 *
 * Bounded: the context is a fixed grid between `fresh` and the emergency line, the horizon is capped
 * (HORIZON_CAP phases; beyond it, as on an open horizon, the room used up at the end costs its share of a
 * compaction), so the work is O(horizon × GRID × scenarios) and does not grow with history. Pure.
 */

/** Points of the context grid between what a compaction leaves and the emergency line. */
export const GRID = 25;

/** The most phases the decision looks ahead; further ones change today's decision little. */
export const HORIZON_CAP = 16;

export interface HorizonInput {
  /** The context now. */
  used: number;
  /** What a compaction leaves. */
  fresh: number;
  /** The emergency line in tokens. */
  line: number;
  /** Sizes the next phase may have and their weights (any scale). */
  scenarios: ReadonlyArray<{ x: number; weight: number }>;
  /** Sizes the phase `d` closes after the next may have (default: the same as the next). */
  later?: (d: number) => ReadonlyArray<{ x: number; weight: number }>;
  /** Of the next phase, this much is in `used` already. */
  into: number;
  /** Phases ahead (the next included). */
  horizon: number;
  /** The horizon is not where the session ends: the room used at its end costs its share of a compaction. */
  open: boolean;
  /** What an emergency costs, in compactions. */
  emergencyWeight: number;
}

/** Expected cost over the horizon of compacting at this close and of waiting. */
export interface HorizonValue {
  now: number;
  wait: number;
}

export function horizonValue(i: HorizonInput): HorizonValue {
  const lap = i.line - i.fresh;
  const norm = (xs: ReadonlyArray<{ x: number; weight: number }>) => {
    const total = xs.reduce((s, { weight }) => s + Math.max(0, weight), 0);
    return total > 0 ? xs.map(({ x, weight }) => ({ x: Math.max(0, x), p: Math.max(0, weight) / total })) : [];
  };
  const first = norm(i.scenarios);
  const laterAt = (d: number) => (i.later ? norm(i.later(d)) : first);
  if (lap <= 0 || first.length === 0 || i.horizon < 1) return { now: 1, wait: 0 };
  const horizon = Math.min(i.horizon, HORIZON_CAP);
  // Past the cap the session goes on: the end is as open as an open horizon's.
  const open = i.open || i.horizon > HORIZON_CAP;
  const step = lap / (GRID - 1);
  // The value of the phases still ahead from a context c (fresh ≤ c < line), on the grid.
  let next = new Float64Array(GRID);
  for (let j = 0; j < GRID; j++) next[j] = open ? j / (GRID - 1) : 0;
  const at = (v: Float64Array, c: number) => {
    const t = Math.max(0, (c - i.fresh) / step);
    const j = Math.min(GRID - 2, Math.floor(t));
    const f = Math.min(1, t - j);
    return v[j]! + f * (v[j + 1]! - v[j]!);
  };
  // One phase of `x` from a context `c`: its emergencies, then what is ahead from where it ends.
  const phase = (v: Float64Array, c: number, x: number) => {
    const end = c + x;
    if (end < i.line) return at(v, end);
    const over = end - i.line;
    return i.emergencyWeight * (1 + Math.floor(over / lap)) + at(v, i.fresh + (over % lap));
  };
  const expect = (v: Float64Array, c: number, ps: ReadonlyArray<{ x: number; p: number }>, less = 0) =>
    ps.reduce((s, { x, p }) => s + p * phase(v, c, Math.max(0, x - less)), 0);
  // Backwards over the later closes: at each, the cheaper of compacting and waiting.
  // The close with k phases left plays the phase horizon − k closes after the next.
  for (let k = 1; k < horizon; k++) {
    const ps = laterAt(horizon - k);
    if (ps.length === 0) continue;
    const v = new Float64Array(GRID);
    const stay = expect(next, i.fresh, ps);
    for (let j = 0; j < GRID; j++) v[j] = j === 0 ? stay : Math.min(1 + stay, expect(next, i.fresh + j * step, ps));
    next = v;
  }
  return { now: 1 + expect(next, Math.min(i.fresh, i.used), first, i.into), wait: expect(next, i.used, first, i.into) };
}
