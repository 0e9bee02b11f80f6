/**
 * The life of the core process as the client sees it (CoreSupervisor, coreSupervisor.ts), as an explicit state machine:
 * `transition(state, event) → {state, action, log}`, pure (no vscode, no timers), so every path — start,
 * crash, restart, give up, shut down — is a unit test (test/unit/coreLifecycle.test.ts).
 *
 *   starting ──started──▶ running ──exited──▶ restarting ──started──▶ running …
 *      │                    │  ╲                  │
 *      │ start_failed       │   ╲ connection_error × (MAX_CONNECTION_ERRORS + 1)
 *      ▼                    ▼    ▼                ▼ exited more than MAX_RESTARTS times in RESTART_WINDOW_MS
 *   in_process ◀────────────────────────────────────
 *   any ──dispose──▶ disposed
 *
 * In `in_process` the arbiter runs in the extension host on the same logs (localCore.ts); `disposed` is
 * the window closing. Both are final.
 */

export const MAX_RESTARTS = 5;
export const RESTART_WINDOW_MS = 3 * 60_000;
/** Connection errors tolerated on one live process before the client stops it. */
export const MAX_CONNECTION_ERRORS = 3;

export type CoreLifecycle =
  | { phase: 'starting'; generation: 0; restarts: readonly number[] }
  /** `generation`: how many times a process came up (1 the first, 2 after one restart…). */
  | { phase: 'running'; generation: number; restarts: readonly number[]; connectionErrors: number }
  | { phase: 'restarting'; generation: number; restarts: readonly number[] }
  | { phase: 'in_process'; generation: number; why: string }
  | { phase: 'disposed'; generation: number };

export type CoreLifecycleEvent =
  /** The client reports a process running (the first start or a restart). */
  | { type: 'started' }
  /** The process could not be started (or its start timed out). */
  | { type: 'start_failed'; why: string }
  /** The process exited (or its connection closed). */
  | { type: 'exited'; at: number }
  /** An error on the connection; `closedPipe`: a write to a process whose exit is not seen yet. */
  | { type: 'connection_error'; closedPipe: boolean; message: string }
  | { type: 'dispose' };

/** What the client is told to do with the process (vscode-languageclient's CloseAction / ErrorAction). */
export type CoreAction = 'restart' | 'do_not_restart' | 'continue' | 'shutdown' | 'none';

export interface CoreTransition {
  state: CoreLifecycle;
  action: CoreAction;
  log?: { level: 'info' | 'warn' | 'error'; text: string };
}

export const initialLifecycle = (): CoreLifecycle => ({ phase: 'starting', generation: 0, restarts: [] });

type Final = Extract<CoreLifecycle, { phase: 'in_process' | 'disposed' }>;
const final = (s: CoreLifecycle): s is Final => s.phase === 'in_process' || s.phase === 'disposed';

export function transition(s: CoreLifecycle, e: CoreLifecycleEvent): CoreTransition {
  switch (e.type) {
    case 'dispose':
      return { state: { phase: 'disposed', generation: s.generation }, action: 'do_not_restart' };
    case 'started':
      if (final(s) || s.phase === 'running') return { state: s, action: 'none' };
      return { state: { phase: 'running', generation: s.generation + 1, restarts: s.restarts, connectionErrors: 0 }, action: 'none' };
    case 'start_failed':
      if (final(s)) return { state: s, action: 'none' };
      return {
        state: { phase: 'in_process', generation: s.generation, why: e.why },
        action: 'do_not_restart',
        log: { level: 'error', text: `rawr core process failed to start (${e.why})` },
      };
    case 'exited': {
      if (final(s)) return { state: s, action: 'do_not_restart' };
      const restarts = [...s.restarts.filter((t) => e.at - t <= RESTART_WINDOW_MS), e.at].slice(-(MAX_RESTARTS + 1));
      if (restarts.length > MAX_RESTARTS)
        return {
          state: { phase: 'in_process', generation: s.generation, why: 'it kept exiting' },
          action: 'do_not_restart',
          log: { level: 'error', text: `rawr core process exited ${restarts.length} times in ${RESTART_WINDOW_MS / 60_000} minutes; not restarting it` },
        };
      return {
        state: { phase: 'restarting', generation: s.generation, restarts },
        action: 'restart',
        log: {
          level: 'warn',
          text: `rawr core process exited; restarting it (${restarts.length}/${MAX_RESTARTS} in ${RESTART_WINDOW_MS / 60_000} min); threads are rebuilt from their logs`,
        },
      };
    }
    case 'connection_error': {
      // Writes to a process that just died fail until its exit is seen; then `exited` restarts it (bounded
      // there). Counting them would stop the client for good — the prompt files' language features with
      // it — when a burst of requests meets a crash; so only errors on a live connection count.
      if (e.closedPipe)
        return {
          state: s,
          action: 'continue',
          log: { level: 'warn', text: `rawr core connection lost (${e.message}); the process is restarted once its exit is seen` },
        };
      if (s.phase !== 'running') return { state: s, action: 'continue', log: { level: 'warn', text: `rawr core connection error: ${e.message}` } };
      const connectionErrors = s.connectionErrors + 1;
      if (connectionErrors <= MAX_CONNECTION_ERRORS)
        return {
          state: { ...s, connectionErrors },
          action: 'continue',
          log: { level: 'warn', text: `rawr core connection error (${connectionErrors}): ${e.message}` },
        };
      return {
        state: { phase: 'in_process', generation: s.generation, why: 'its connection kept failing' },
        action: 'shutdown',
        log: { level: 'error', text: `rawr core connection error (${connectionErrors}): ${e.message}; it keeps failing: stopping the core process` },
      };
    }
    default: {
      const unknown: never = e;
      throw new Error(`unknown core lifecycle event ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * Where a request goes now: to the process (one newer than generation `after`: a request lost with a
 * dying process waits for the next one), in-process, nowhere (the client is disposed), or it waits.
 */
export function routeOf(s: CoreLifecycle, after: number): 'process' | 'in-process' | 'disposed' | 'wait' {
  switch (s.phase) {
    case 'running':
      return s.generation > after ? 'process' : 'wait';
    case 'starting':
    case 'restarting':
      return 'wait';
    case 'in_process':
      return 'in-process';
    case 'disposed':
      return 'disposed';
    default: {
      const unknown: never = s;
      throw new Error(`unknown core lifecycle ${JSON.stringify(unknown)}`);
    }
  }
}
