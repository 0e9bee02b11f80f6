/**
 * The core client's lifecycle (src/host/core/coreLifecycle.ts): start, crash, restart, give up, shut
 * down — each path as a sequence of events, with what the client is told to do and where requests go.
 * The real process is exercised by test/unit/server.rpc.test.ts and the real-VS-Code tier.
 */
import * as assert from 'node:assert/strict';
import {
  initialLifecycle,
  MAX_CONNECTION_ERRORS,
  MAX_RESTARTS,
  RESTART_WINDOW_MS,
  routeOf,
  transition,
  type CoreLifecycle,
  type CoreLifecycleEvent,
  type CoreTransition,
} from '../../src/host/core/coreLifecycle';

/** Runs events from the initial state; returns every transition. */
function run(...events: CoreLifecycleEvent[]): CoreTransition[] {
  let s: CoreLifecycle = initialLifecycle();
  return events.map((e) => {
    const t = transition(s, e);
    s = t.state;
    return t;
  });
}
const last = (ts: CoreTransition[]) => ts[ts.length - 1]!;
const started: CoreLifecycleEvent = { type: 'started' };
const exited = (at: number): CoreLifecycleEvent => ({ type: 'exited', at });
const connError = (closedPipe = false): CoreLifecycleEvent => ({ type: 'connection_error', closedPipe, message: 'boom' });

describe('core client lifecycle (state machine)', () => {
  it('start: requests wait until the first process runs, then go to it (generation 1)', () => {
    const s0 = initialLifecycle();
    assert.equal(routeOf(s0, -1), 'wait');
    const t = transition(s0, started);
    assert.deepEqual(t.state, { phase: 'running', generation: 1, restarts: [], connectionErrors: 0 });
    assert.equal(routeOf(t.state, 0), 'process');
  });

  it('start fails: in-process from then on, with the reason, and the client does not restart', () => {
    const t = last(run({ type: 'start_failed', why: 'server module missing' }));
    assert.deepEqual(t.state, { phase: 'in_process', generation: 0, why: 'server module missing' });
    assert.equal(t.action, 'do_not_restart');
    assert.equal(t.log?.level, 'error');
    assert.equal(routeOf(t.state, -1), 'in-process');
    // A late "started" (the client's own retry) does not bring the process back: in-process is final.
    assert.equal(transition(t.state, started).state.phase, 'in_process');
  });

  it('crash → restart: the client restarts, a request lost with the dead process waits for the next generation', () => {
    const ts = run(started, exited(1_000));
    assert.equal(last(ts).action, 'restart');
    assert.equal(last(ts).log?.level, 'warn');
    const restarting = last(ts).state;
    assert.equal(restarting.phase, 'restarting');
    assert.equal(routeOf(restarting, 0), 'wait', 'the request sent on generation 1 waits');
    const back = transition(restarting, started).state;
    assert.equal(back.generation, 2);
    assert.equal(routeOf(back, 1), 'process', 'the retry goes to generation 2');
    assert.equal(routeOf(back, 2), 'wait', 'never back to the process it was lost with');
  });

  it(`gives up after more than ${MAX_RESTARTS} exits within the window: in-process, no restart`, () => {
    const events: CoreLifecycleEvent[] = [started];
    for (let k = 0; k < MAX_RESTARTS; k++) events.push(exited(k * 1_000), started);
    const before = run(...events);
    assert.equal(last(before).state.phase, 'running', `${MAX_RESTARTS} exits are restarted`);
    const t = transition(last(before).state, exited(MAX_RESTARTS * 1_000));
    assert.equal(t.action, 'do_not_restart');
    assert.deepEqual(t.state, { phase: 'in_process', generation: MAX_RESTARTS + 1, why: 'it kept exiting' });
    assert.equal(routeOf(t.state, 0), 'in-process');
  });

  it('exits spread over more than the window are restarted for ever (old ones are forgotten, the memory is bounded)', () => {
    let s: CoreLifecycle = transition(initialLifecycle(), started).state;
    for (let k = 0; k < 50; k++) {
      const t = transition(s, exited(k * (RESTART_WINDOW_MS / 2 + 1)));
      assert.equal(t.action, 'restart', `exit ${k + 1}`);
      assert.ok(t.state.phase === 'restarting' && t.state.restarts.length <= MAX_RESTARTS + 1);
      s = transition(t.state, started).state;
    }
    assert.equal(s.generation, 51);
  });

  it(`shuts the process down after ${MAX_CONNECTION_ERRORS} tolerated connection errors on a live process`, () => {
    const errors = Array.from({ length: MAX_CONNECTION_ERRORS }, () => connError());
    const tolerated = run(started, ...errors);
    assert.ok(tolerated.slice(1).every((t) => t.action === 'continue'));
    assert.equal(last(tolerated).state.phase, 'running');
    const t = transition(last(tolerated).state, connError());
    assert.equal(t.action, 'shutdown');
    assert.deepEqual(t.state, { phase: 'in_process', generation: 1, why: 'its connection kept failing' });
    // The stopped process's close is not restarted.
    assert.equal(transition(t.state, exited(5)).action, 'do_not_restart');
  });

  it('writes to a process that just died (closed pipe) never count: its exit restarts it', () => {
    const many = Array.from({ length: 20 }, () => connError(true));
    const ts = run(started, ...many, exited(1));
    assert.ok(ts.slice(1, -1).every((t) => t.action === 'continue' && t.state.phase === 'running'));
    assert.equal(last(ts).action, 'restart');
  });

  it('the errors of one process are not held against the next', () => {
    const errors = Array.from({ length: MAX_CONNECTION_ERRORS }, () => connError());
    const ts = run(started, ...errors, exited(1), started, ...errors);
    assert.equal(last(ts).state.phase, 'running');
    assert.equal(last(ts).action, 'continue');
  });

  it('shut down (the window closes): requests are refused, an exit is not restarted, from any state', () => {
    for (const prefix of [[], [started], [started, exited(1)], [{ type: 'start_failed', why: 'x' } as const]] as CoreLifecycleEvent[][]) {
      const ts = run(...prefix, { type: 'dispose' });
      const s = last(ts).state;
      assert.equal(s.phase, 'disposed', JSON.stringify(prefix));
      assert.equal(routeOf(s, -1), 'disposed');
      assert.equal(transition(s, exited(9)).action, 'do_not_restart');
      assert.equal(transition(s, started).state.phase, 'disposed');
    }
  });
});
