/**
 * The first phases' scenarios from earlier threads of the workspace (docs/benchmarks.md, "A prior across
 * threads"). With one to three phases of its own, a thread says little about how far its next phase may land:
 * a walk's step and noise around a mean look alike. Earlier threads of the same workspace have been through
 * the same point: at each of them, how far phase j + 1 landed from the level of phases 1..j (j the number of
 * phases this thread knows) is a forecast error made with exactly this thread's information. Those errors,
 * pooled over the earlier threads, are the scenarios (split-conformal, as calibratedScenarios is within a
 * thread), and the level is the one that predicted the earlier threads best at that point (the latest phase
 * where they walk, the mean where phases are drawn alike). Pure; O(threads × phases × levels).
 */
import { levelOf } from './forecast';

/** Fewest earlier-thread errors at this point for a distribution; else the thread's recent phases decide. */
export const WORKSPACE_MIN_ERRORS = 5;

/** The levels an earlier thread's first phases may be read with: the latest phase, smoothed memories, the plain mean. */
const LEVELS: ReadonlyArray<{ name: string; of: (xs: readonly number[]) => number }> = [
  { name: 'latest', of: (xs) => xs[xs.length - 1]! },
  { name: 'smoothed 0.5', of: (xs) => levelOf(xs, 0.5) },
  { name: 'mean', of: (xs) => xs.reduce((a, x) => a + x, 0) / xs.length },
];

export interface WorkspaceFit {
  scenarios: number[];
  /** The level picked (by the least total log error over the earlier threads' errors). */
  level: string;
  errors: number;
}

/**
 * `own`: this thread's phases that fit (oldest first, at least one); `threads`: earlier threads' phase sizes
 * (each oldest first). null: fewer than WORKSPACE_MIN_ERRORS earlier threads reached phase own.length + 1.
 */
export function workspaceFit(own: readonly number[], threads: readonly (readonly number[])[]): WorkspaceFit | null {
  const j = own.length;
  if (j < 1) return null;
  const pairs = threads
    .map((t) => t.filter((x) => Number.isFinite(x) && x > 0))
    .filter((t) => t.length > j)
    .map((t) => ({ known: t.slice(0, j), next: t[j]! }));
  if (pairs.length < WORKSPACE_MIN_ERRORS) return null;
  const logError = (of: (xs: readonly number[]) => number) => pairs.reduce((e, p) => e + Math.abs(Math.log(p.next / of(p.known))), 0);
  const best = LEVELS.reduce((b, l) => (logError(l.of) < logError(b.of) - 1e-9 ? l : b));
  const level = best.of(own);
  return { scenarios: pairs.map((p) => Math.round((level * p.next) / best.of(p.known))), level: best.name, errors: pairs.length };
}
