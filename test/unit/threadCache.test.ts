/**
 * Memory bounded by the threads in use (issue 22, defect 13): the core's CoreService and the window's
 * Participant let idle threads go (threadCache.ts, sessionCache.ts) and bring them back from the event
 * log on first use; a thread in the middle of a turn or a compaction sequence stays. Through the real
 * participant over a real in-process core (participantHarness), the scripted multi-phase model.
 */
import * as assert from 'node:assert/strict';
import { ThreadCache } from '../../src/core/service/threadCache';
import { QUIET_MS } from '../../src/host/participant/sessionCache';
import { heldAt, participantHarness, type Harness } from '../support/participantHarness';
import { multiPhaseScript } from '../support/scriptedModel';

const STEPS = ['Research the API', 'Draft the limiter', 'Implement the middleware', 'Harden: edge cases', 'Write the tests', 'Ship: docs and changelog'];
const PROMPT = 'Build a token-bucket rate limiter for our HTTP server, phase by phase.';
const session6 = () => multiPhaseScript({ steps: STEPS, fillerChars: 9000 });

describe('ThreadCache', () => {
  const make = (busy: Set<string>, evicted: string[], now: () => number) =>
    new ThreadCache<string>({ max: 2, idleMs: 1000, now, evictable: (id) => !busy.has(id), evict: (id) => evicted.push(id) });

  it('over the bound, the least recently used idle thread leaves; a use moves a thread to the end', () => {
    const evicted: string[] = [];
    const c = make(new Set(), evicted, () => 0);
    c.set('a', 'A');
    c.set('b', 'B');
    assert.equal(c.get('a'), 'A'); // b is now the least recently used
    c.set('c', 'C');
    assert.deepEqual(evicted, ['b']);
    assert.deepEqual([c.has('a'), c.has('b'), c.has('c'), c.size], [true, false, true, 2]);
  });

  it('a busy thread never leaves, whatever the bound; it leaves once idle', () => {
    const evicted: string[] = [];
    const busy = new Set(['a', 'b']);
    let now = 0;
    const c = make(busy, evicted, () => now);
    for (const id of ['a', 'b', 'c', 'd']) c.set(id, id);
    assert.deepEqual(evicted, ['c'], 'only the idle surplus thread leaves');
    assert.equal(c.size, 3);
    busy.clear();
    now = 1000; // every thread idle for idleMs
    assert.deepEqual(c.sweep(), ['a', 'b', 'd']);
    assert.equal(c.size, 0);
  });

  it('clear releases every thread', () => {
    const evicted: string[] = [];
    const c = make(new Set(['a']), evicted, () => 0);
    c.set('a', 'A');
    c.clear();
    assert.deepEqual([evicted, c.size], [['a'], 0]);
  });
});

describe('threads leave memory in both processes and come back from their log (participant + in-process core)', function () {
  this.timeout(60_000);
  let h: Harness;
  afterEach(() => h?.dispose());

  it('an evicted thread comes back identical: thread contents, decisions, compactions, tier', async () => {
    let now = 1_000_000;
    h = participantHarness({
      script: session6(),
      window: 20_000,
      settings: { forecast_enabled: false },
      cache: { core: { max: 1 }, host: { max: 1, now: () => now } },
    });
    const a = await h.ask(PROMPT);
    assert.ok(!a.result.errorDetails, a.result.errorDetails?.message);
    const before = await h.core.snapshot(a.threadId);
    assert.ok(before.compactions.length >= 1 && before.decisions.length > 0, 'a long thread: compacted, with decisions');
    const sessionA = await h.participant.session(a.threadId);
    const lastStatusA = h.statuses.filter((s) => s.threadId === a.threadId).at(-1)!;
    assert.ok(lastStatusA.percentRemaining !== null, 'counted in this window');

    // Another chat, later: thread A is idle in both processes and leaves memory.
    now += QUIET_MS + 1;
    const b = await h.ask('Now a separate task: document the limiter.');
    assert.ok(!b.result.errorDetails, b.result.errorDetails?.message);
    assert.notEqual(b.threadId, a.threadId);
    assert.equal(h.core.service.inMemory(a.threadId), false, 'the core let thread A go');
    assert.equal(h.participant.isOpen(a.threadId), false, 'the window let thread A go');
    assert.equal(h.core.service.threadsInMemory(), 1);
    assert.equal(h.participant.sessionsInMemory(), 1);

    // Back on first use, rebuilt from its log: the same as before it left.
    const after = await h.core.snapshot(a.threadId);
    assert.deepEqual(after, before);
    const reopened = await h.participant.session(a.threadId);
    assert.notEqual(reopened, sessionA, 'a new session, opened from the core');
    assert.deepEqual(reopened.messages, sessionA.messages);
    assert.deepEqual(reopened.lastDecision, sessionA.lastDecision);
    assert.equal(reopened.agentName, sessionA.agentName);
    const view = reopened.loggedStatus()!;
    assert.deepEqual(
      [view.tier, view.percentRemaining, view.usedTokens, view.window],
      [lastStatusA.tier, lastStatusA.percentRemaining, lastStatusA.usedTokens, lastStatusA.window],
    );
    // And it goes on: /status on thread A answers from the reloaded thread.
    const st = await h.ask('', { command: 'status', threadId: a.threadId });
    assert.ok(st.text.includes(`Compactions: ${before.compactions.length} (`), st.text);
    assert.ok(st.text.includes(`Last decision: ${sessionA.lastDecision!.action} — ${sessionA.lastDecision!.reason}`), st.text);
  });

  it('a thread in the middle of a compaction sequence (and of its chat request) is never evicted; it leaves once done', async () => {
    let now = 1_000_000;
    // The packet turn (which also asks for the scratch notes) is answered by rule "scratch": held there.
    const { script, reached, release } = heldAt(session6(), 'scratch');
    h = participantHarness({
      window: 20_000,
      settings: { forecast_enabled: false },
      cache: { core: { max: 1, idleMs: 60_000, now: () => now }, host: { max: 1, idleMs: 60_000, now: () => now } },
      script,
    });
    const asked = h.ask(PROMPT);
    await reached.p; // the agent is writing its packet: mid-sequence, mid-request
    const a = h.participant.activeThreadId!;
    const session = await h.participant.session(a);
    assert.equal(session.sequenceRunning, true);
    // Long idle by the clocks, not the window's active thread, and other threads opened in both processes.
    now += 10 * 60_000;
    h.participant.activeThreadId = 'tsomeotherchat';
    for (const other of ['tother1', 'tother2']) await h.participant.session(other);
    assert.equal(h.core.service.inMemory(a), true, 'the core keeps the thread mid-sequence');
    assert.equal(h.participant.isOpen(a), true, 'the window keeps the session mid-request');
    assert.equal(await h.participant.session(a), session, 'the same session, not a second one');

    release.open();
    const done = await asked;
    assert.ok(!done.result.errorDetails, done.result.errorDetails?.message);
    const finished = await h.core.snapshot(a);
    assert.ok(finished.compactions.length >= 1 && finished.state.seq.phase === 'idle');
    // Done and quiet: another thread's use lets it go, and nothing it did is lost.
    now += QUIET_MS + 1;
    h.participant.activeThreadId = 'tsomeotherchat';
    await h.participant.session('tother3');
    assert.equal(h.participant.isOpen(a), false);
    assert.equal(h.core.service.inMemory(a), false);
    assert.deepEqual(await h.core.snapshot(a), finished);
  });
});
