/**
 * Time for the host side of a thread: event times and the deadlines of model calls. A real boundary, so
 * the unit tests swap in a fake clock and check that a deadline is a fixed end time (test/support).
 */
export interface Clock {
  now(): number;
  /** Calls `fn` after `ms` milliseconds, unless disposed first. */
  setTimer(fn: () => void, ms: number): { dispose(): void };
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => {
    const t = setTimeout(fn, ms);
    return { dispose: () => clearTimeout(t) };
  },
};
