/**
 * What a forecast from past phases can reach (`node out/test/bench/phased.js --limits [--seed N]`): on the
 * labelled sessions, a close-by-close rule — at the first signal of every phase close, compact (at the
 * close's end) when the predicted next phase does not fit before the emergency line, else wait; an
 * emergency where the line is reached — run with different predictors of the next phase and judged by the
 * same rules as rawr (src/core/replay/schedule.ts). "next phase known" is told the real size of the next
 * phase (not the ones after it): it shows how close the rule itself comes to the hindsight optimum; the
 * others see only the phases so far, as rawr does. Rawr's engine is not involved: this measures the
 * information, not the implementation.
 */
import { DEFAULT_POST_TOKENS, OPTIMUM_LIMIT_FRACTION, optimalSchedule, scoreSchedule, type PhaseLabels } from '../../src/core/replay/schedule';

/** Predicts the next phase from the phases so far (oldest first); `real` only for the known-next reference. */
export type Predictor = (seen: readonly number[], real: number) => number;

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: readonly number[]) => (xs.length < 2 ? 0 : Math.sqrt(xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1)));

export const PREDICTORS: ReadonlyArray<{ name: string; predict: Predictor }> = [
  { name: 'next phase known', predict: (_, real) => real },
  { name: 'largest of the last 3', predict: (seen) => Math.max(...seen.slice(-3)) },
  { name: 'mean of the last 3', predict: (seen) => mean(seen.slice(-3)) },
  { name: 'mean + 1 sd of all', predict: (seen) => mean(seen) + sd(seen) },
];

/** What a close-by-close rule sees at the first signal of a phase close (all of it from the session so far). */
export interface CloseState {
  /** Phases measured so far (growth from one close's first signal to the next), oldest first; the last is the one closing. */
  seen: readonly number[];
  /** Index of the closing phase (0-based) and the number of phases (the plan's steps, known from its first todo list). */
  k: number;
  n: number;
  /** Modelled context now, the emergency line, the window and what a compaction leaves. */
  c: number;
  line: number;
  window: number;
  post: number;
  /** Positive growth steps of every point so far (the per-call growth the session has shown). */
  steps: readonly number[];
  /** The real size of the next phase: only for the "next phase known" reference, never for a causal rule. */
  real: number;
}

/** Decides at a phase close whether to compact at the close's end. */
export type CloseRule = (s: CloseState) => boolean;

/** The close-by-close rule's compaction lines on one session with one predictor. */
export function closeRuleSchedule(labels: PhaseLabels, predict: Predictor, postTokens = DEFAULT_POST_TOKENS): number[] {
  return closeRuleScheduleWith(labels, (s) => predict(s.seen, s.real) >= s.line - s.c, postTokens);
}

/** The same schedule with any rule at the closes (emergencies at the line as always). */
export function closeRuleScheduleWith(labels: PhaseLabels, rule: CloseRule, postTokens = DEFAULT_POST_TOKENS): number[] {
  const pts = labels.points;
  const line = OPTIMUM_LIMIT_FRACTION * labels.window;
  // Growth up to each point (positive steps only, as the judge counts it).
  const grown: number[] = [0];
  const steps: number[] = [];
  for (let i = 1; i < pts.length; i++) {
    steps.push(Math.max(0, pts[i]![1] - pts[i - 1]![1]));
    grown.push(grown[i - 1]! + steps[i - 1]!);
  }
  const grownAt = (l: number) => {
    let g = 0;
    pts.forEach(([pl], i) => {
      if (pl <= l) g = grown[i]!;
    });
    return g;
  };
  const wins = labels.windows;
  const lines: number[] = [];
  const seen: number[] = [];
  let c = pts[0]![1];
  let decided = -1;
  let pendingAt: number | null = null;
  for (let i = 1; i < pts.length; i++) {
    const at = pts[i]![0];
    c += steps[i - 1]!;
    if (c >= line) {
      lines.push(at);
      c = postTokens;
      pendingAt = null;
      continue;
    }
    const k = wins.findIndex(([first, last]) => first <= at && at <= last);
    if (k >= 0 && k !== decided) {
      decided = k;
      seen.push(grownAt(wins[k]![0]) - (k > 0 ? grownAt(wins[k - 1]![0]) : 0));
      const next = wins[k + 1];
      const state: CloseState = {
        seen,
        k,
        n: wins.length,
        c,
        line,
        window: labels.window,
        post: postTokens,
        steps: steps.slice(0, i),
        real: next ? grownAt(next[0]) - grownAt(wins[k]![0]) : 0,
      };
      if (next && rule(state)) pendingAt = wins[k]![1];
    }
    if (pendingAt !== null && at >= pendingAt) {
      lines.push(at);
      c = postTokens;
      pendingAt = null;
    }
  }
  return lines;
}

/**
 * A lower bound for policies that never risk a phase reaching the emergency line where a compaction at
 * the close before it would have prevented it, and that cannot see the future. Such a policy must compact at
 * a close whenever some next phase the session could still have would not fit; every phase of this
 * session that fits a fresh context is such a size (its phases are drawn alike: each could have come
 * next), so the policy compacts at least wherever the session's largest fitting phase would not fit.
 * Compacting at exactly those closes, as late as that allows, is the fewest compactions under that guard
 * (the greedy argument of the hindsight optimum). Told the session's own phases, it is not a policy; it
 * bounds from below what a causal policy that takes no such risk can reach. A policy that takes risks can
 * land below it on a sample where the risks did not happen: the bound is on the risk, not the outcome.
 */
export function guardSchedule(labels: PhaseLabels, postTokens = DEFAULT_POST_TOKENS): number[] {
  const sizes: number[] = [];
  closeRuleScheduleWith(
    labels,
    (s) => {
      sizes.push(s.real);
      return false;
    },
    postTokens,
  );
  const line = OPTIMUM_LIMIT_FRACTION * labels.window;
  const guard = Math.max(0, ...sizes.filter((x) => postTokens + x < line));
  return closeRuleScheduleWith(labels, (s) => guard >= s.line - s.c, postTokens);
}

export interface LimitRow {
  predictor: string;
  compactions: number;
  aligned: number;
  overflows: number;
}

export const GUARD_BOUND = 'bound: no avoidable emergency';

/** One schedule's totals over the sessions, judged by the labels' rules. */
function tally(predictor: string, sessions: ReadonlyArray<{ labels: PhaseLabels }>, schedule: (labels: PhaseLabels) => number[]): LimitRow {
  const row: LimitRow = { predictor, compactions: 0, aligned: 0, overflows: 0 };
  for (const s of sessions) {
    const sc = scoreSchedule(s.labels, schedule(s.labels));
    row.compactions += sc.compactions;
    row.aligned += sc.aligned;
    row.overflows += sc.overflows;
  }
  return row;
}

/** Each predictor's totals over the sessions, guardSchedule's bound (families whose phases are exchangeable), and the optimum's count. */
export function limits(sessions: ReadonlyArray<{ labels: PhaseLabels }>, exchangeable: boolean): { rows: LimitRow[]; optimum: number; bound: LimitRow | null } {
  const optimum = sessions.reduce((n, s) => n + (optimalSchedule(s.labels)?.compactions ?? 0), 0);
  const rows = PREDICTORS.map(({ name, predict }) => tally(name, sessions, (labels) => closeRuleSchedule(labels, predict)));
  return { rows, optimum, bound: exchangeable ? tally(GUARD_BOUND, sessions, (labels) => guardSchedule(labels)) : null };
}
