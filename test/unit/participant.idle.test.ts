/**
 * Idle compaction in the host (issue 21): the real Participant, Session, Turn and executor over a real
 * in-process core, the scripted model double, and a fake clock — the person's absence is the clock moving.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { FakeClock } from '../support/fakeClock';
import { heldAt, participantHarness, type Harness } from '../support/participantHarness';
import { multiPhaseScript, type Script } from '../support/scriptedModel';
import type { Settings } from '../../src/core/settings/schema';
import type { Session } from '../../src/host/participant/session';

const PROMPT = 'Build the limiter in three phases.';
const MINUTES = 5;

/**
 * The turn ends after each completed phase ("Say continue"), in a tier where rawr waits: early and ready
 * accept no boundary, asap only the turn end (the preflight case of the real-VS-Code suite); no forecast,
 * so the tiers alone decide.
 */
const SETTINGS: Partial<Settings> = {
  early_percent_remaining_lt: 70,
  ready_percent_remaining_lt: 60,
  asap_percent_remaining_lt: 50,
  emergency_percent_remaining_lt: 5,
  auto_requires_any_boundary: { early: [], ready: [], asap: ['turn_complete'] },
  forecast_enabled: false,
  idle_compact_minutes: MINUTES,
};

const script = () => multiPhaseScript({ steps: ['Research', 'Draft', 'Ship'], fillerChars: 9000, stopAfterEachPhase: true });

/** Lets the background job (started by a timer) run until `cond` holds. */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (cond()) return;
    await new Promise((r) => setImmediate(r));
  }
  assert.fail(`never happened: ${what}`);
}

/**
 * Whether a background compaction started. The watch's timer starts it synchronously (IdleCompactor.fire),
 * so right after the fake clock moves this says whether the deadline passed in rawr's eyes — no waiting
 * that could hide an early or a late start.
 */
const backgroundRunning = (session: Session): boolean => session.idle?.running === true;

describe('participant: idle compaction (fake clock, scripted model double)', function () {
  this.timeout(30_000);
  let h: Harness;
  afterEach(() => h?.dispose());

  const start = (s: Script = script(), settings: Partial<Settings> = {}) => {
    const clock = new FakeClock();
    h = participantHarness({ script: s, window: 8_000, clock, settings: { ...SETTINGS, ...settings } });
    return clock;
  };
  const decisions = (threadId: string) =>
    h
      .logRecords(threadId)
      .filter((r) => r.kind === 'decision')
      .map((r) => r.decision);
  const ended = (threadId: string) =>
    h
      .logRecords(threadId)
      .filter((r) => r.kind === 'effect' && r.effect.type === 'sequence_ended')
      .map((r) => r.effect.outcome as string);

  it('away past the setting: the golden path runs in the background; the next message starts on the small context, with a receipt', async () => {
    const clock = start();
    const first = await h.ask(PROMPT);
    assert.ok(!first.result.errorDetails, first.result.errorDetails?.message);
    const { threadId } = first;
    const waited = decisions(threadId).at(-1)!;
    assert.equal(waited.action, 'none', `rawr waited at the turn end: ${waited.code}`);
    assert.ok(waited.tier, 'in a tier');
    const session = await h.participant.session(threadId);
    const before = session.messages.length;
    const calls = h.model.requests.length;

    // One millisecond before the setting has passed: the watch still waits, nothing runs.
    assert.equal(clock.pending, 1, 'one watch armed');
    clock.advance(MINUTES * 60_000 - 1);
    assert.equal(backgroundRunning(session), false, 'nothing starts before the setting has passed');
    assert.equal(clock.pending, 1, 'the watch still waits');
    assert.equal(h.model.requests.length, calls);
    clock.advance(1);
    assert.equal(backgroundRunning(session), true, 'the background compaction starts when the setting has passed');
    await until(() => ended(threadId).length > 0, 'the background compaction ended');
    assert.deepEqual(ended(threadId), ['compacted']);
    const idle = decisions(threadId).find((d) => d.code === 'idle');
    assert.ok(idle, 'an idle decision');
    assert.match(idle.reason, /nobody wrote for 5 min since the turn ended at/);
    assert.match(idle.reason, /avoids sending all [\d.k]+ tokens again on the next request/);
    // One model call while away: the agent's packet turn (with its scratch notes); no judgment, no summary.
    assert.deepEqual(
      h.model.requests.slice(calls).map((r) => r.rule),
      ['scratch'],
    );
    // The thread is swapped: shorter, and it ends with the handoff.
    assert.ok(session.messages.length < before, `${session.messages.length} < ${before}`);
    const last = session.messages.at(-1)!;
    assert.equal(last.role === 'user' ? last.kind : last.role, 'handoff');
    const swap = h.logRecords(threadId).find((r) => r.kind === 'effect' && r.effect.type === 'compacted')!.effect;

    // The person comes back: the receipt first, then their message works from the compacted thread.
    const back = await h.ask('continue', { threadId });
    assert.ok(!back.result.errorDetails, back.result.errorDetails?.message);
    assert.match(
      back.text,
      /^\s*\*\*Compacted while you were away at a plan step: completed "Research" \(1\/3 done\) — [\d.k]+ → [\d.k]+ tokens\.\*\* _nobody wrote for 5 min since the turn ended at a plan step/,
    );
    assert.match(back.text, /Finished step 2 of 3|Step 2 of 3 is complete/);
    const nextRequest = h.model.requests[calls + 1]!;
    assert.equal(nextRequest.rule === 'scratch', false);
    assert.ok(
      nextRequest.messages.some((m) => typeof m.content === 'string' && m.content.includes('[rawr handoff]')),
      'the next request carries the handoff',
    );
    assert.ok(swap.tokensAfter < swap.tokensBefore);
    // Shown once.
    const again = await h.ask('continue', { threadId });
    assert.doesNotMatch(again.text, /while you were away/);
  });

  it('any message before the setting has passed disarms it: no compaction at the first deadline, the new watch counts from the message', async () => {
    const clock = start();
    const { threadId } = await h.ask(PROMPT);
    clock.advance(60_000);
    await h.ask('continue', { threadId });
    const session = await h.participant.session(threadId);
    // The first watch was disarmed by the message (its timer gone); the second turn armed a new one, which
    // ends 5 min after the message.
    assert.equal(clock.pending, 1, 'only the new watch waits');
    const calls = h.model.requests.length;
    const idleBefore = decisions(threadId).filter((d) => d.code === 'idle').length;
    clock.advance(MINUTES * 60_000 - 60_000 + 1000); // a second past the first watch's deadline
    assert.equal(backgroundRunning(session), false, 'the first watch never fired');
    assert.equal(clock.pending, 1, 'the new watch still waits');
    assert.equal(decisions(threadId).filter((d) => d.code === 'idle').length, idleBefore);
    assert.equal(h.model.requests.length, calls);
    // The new watch ends 5 min after the message, and runs.
    clock.advance(60_000 - 1000 - 1);
    assert.equal(backgroundRunning(session), false, 'not before its own deadline');
    clock.advance(1);
    assert.equal(backgroundRunning(session), true, 'the new watch fires at its own deadline');
    await until(() => ended(threadId).length > 0, 'the background compaction ended');
    assert.deepEqual(ended(threadId), ['compacted']);
    assert.equal(decisions(threadId).filter((d) => d.code === 'idle').length, idleBefore + 1);
  });

  it('the window closes while a watch is armed: its timer goes with it, nothing runs later', async () => {
    const clock = start();
    await h.ask(PROMPT);
    assert.equal(clock.pending, 1, 'one watch armed');
    const calls = h.model.requests.length;
    h.reopen(); // the old window's participant is disposed, with its sessions
    assert.equal(clock.pending, 0, 'the watch was disarmed with its session');
    clock.advance(2 * MINUTES * 60_000);
    assert.equal(h.model.requests.length, calls, 'no model call after the window closed');
  });

  it('back while it runs: the message waits for the swap, then goes in after the handoff', async () => {
    const held = heldAt(script(), 'scratch');
    const clock = start(held.script);
    const { threadId } = await h.ask(PROMPT);
    clock.advance(MINUTES * 60_000);
    await held.reached.p; // the packet turn is running in the background
    const back = h.ask('continue', { threadId });
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    assert.deepEqual(ended(threadId), [], 'still running');
    held.release.open();
    const r = await back;
    assert.ok(!r.result.errorDetails, r.result.errorDetails?.message);
    assert.match(r.text, /<progress:rawr is compacting this thread while you were away; your message follows…>/);
    assert.match(r.text, /Compacted while you were away/);
    assert.deepEqual(ended(threadId), ['compacted']);
    // The person's message is in the thread after the handoff, once.
    const msgs = (await h.participant.session(threadId)).messages;
    const handoff = msgs.findIndex((m) => m.role === 'user' && m.kind === 'handoff');
    const mine = msgs.findIndex((m, i) => i > handoff && m.role === 'user' && m.text === 'continue');
    assert.ok(handoff >= 0 && mine > handoff, `handoff ${handoff}, message ${mine}`);
    assert.equal(msgs.filter((m) => m.role === 'user' && m.text === 'continue').length, 1);
  });

  it('back while it runs, then Stop: the job is cancelled cleanly, the thread is unchanged, the next message works', async () => {
    const held = heldAt(script(), 'scratch');
    const clock = start(held.script);
    const { threadId } = await h.ask(PROMPT);
    const session = await h.participant.session(threadId);
    clock.advance(MINUTES * 60_000);
    await held.reached.p;
    const stop = new vscode.CancellationTokenSource();
    const back = h.ask('continue', { threadId, token: stop.token });
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    stop.cancel();
    held.release.open();
    await back;
    await until(() => ended(threadId).length > 0, 'the sequence ended');
    assert.deepEqual(ended(threadId), ['cancelled']);
    assert.ok(!session.messages.some((m) => m.role === 'user' && m.kind === 'handoff'), 'never swapped');
    const next = await h.ask('continue', { threadId });
    assert.ok(!next.result.errorDetails, next.result.errorDetails?.message);
    assert.match(next.text, /Step 2 of 3 is complete|Finished step 2 of 3|heads-up|rawr watcher/);
  });

  it('rawr.idleCompactMinutes 0: no watch, no background call', async () => {
    const clock = start(script(), { idle_compact_minutes: 0 });
    const { threadId } = await h.ask(PROMPT);
    const session = await h.participant.session(threadId);
    const calls = h.model.requests.length;
    assert.equal(clock.pending, 0, 'no timer armed');
    clock.advance(60 * 60_000);
    assert.equal(backgroundRunning(session), false);
    assert.equal(h.model.requests.length, calls);
    assert.equal(decisions(threadId).filter((d) => d.code === 'idle').length, 0);
  });
});
