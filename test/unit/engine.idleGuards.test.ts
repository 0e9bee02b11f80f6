/**
 * Idle compaction's edges (engine.idle.test.ts has the path itself): which settings change disarms the
 * watch, which timer ends it, which turn ends arm it, what the idle decision names, and the guards at the
 * timer for a state in which compacting is no longer allowed.
 */
import * as assert from 'node:assert/strict';
import { closeWords } from '../../src/core/engine/step';
import type { EngineEvent, EngineState } from '../../src/core/engine/types';
import type { Settings } from '../../src/core/settings/schema';
import { commitTurn, find, mkState, run, usedFor, WINDOW } from '../support/engine';

const T0 = 1_700_000_000_000;
let clock = T0;
const at = () => (clock += 1000);

/** Rawr waits at a commit in the early and ready tiers (they ask for a PR step); no judgment, no forecast. */
const WAITS: Partial<Settings> = {
  judgment_enabled: false,
  forecast_enabled: false,
  idle_compact_minutes: 5,
  auto_requires_any_boundary: { early: ['pr_checkpoint'], ready: ['pr_checkpoint'], asap: ['commit', 'turn_complete'] },
};
const turnEnd = (): EngineEvent => ({ type: 'evaluate', at: at(), point: 'turn_complete' });

function armed(pct = 40): { state: EngineState; timerId: string } {
  const { state, effects } = run(mkState(WAITS), [...commitTurn(at, pct), turnEnd()]);
  const arm = find(effects, 'arm_idle');
  assert.equal(arm.length, 1);
  return { state, timerId: arm[0]!.timerId };
}

describe('step: idle compaction, its edges', () => {
  it('a settings change that keeps it on (auto, minutes > 0) keeps the watch; one to another mode disarms it', () => {
    const { state, timerId } = armed();
    const kept = run(state, [{ type: 'settings', at: at(), settings: { ...state.settings, idle_compact_minutes: 10 } }]);
    assert.deepEqual(find(kept.effects, 'cancel_timer'), []);
    assert.equal(kept.state.idle?.timerId, timerId);
    const other = run(state, [{ type: 'settings', at: at(), settings: { ...state.settings, mode: 'suggest' } }]);
    assert.deepEqual(find(other.effects, 'cancel_timer'), [{ type: 'cancel_timer', timerId }]);
    assert.equal(other.state.idle, null);
  });

  it('the agent talking, a tool result, a plan, an overflow or a cancel disarms it; a workspace prior or a stale report does not', () => {
    const disarming: EngineEvent[] = [
      { type: 'assistant_message', at: at(), text: 'One more thing.' },
      { type: 'tool_result', at: at(), id: 'late', output: 'done', isError: false },
      { type: 'plan', at: at(), steps: [{ text: 'next', status: 'pending' }] },
      { type: 'overflow', at: at(), error: 'too long' },
      { type: 'cancel', at: at() },
    ];
    for (const ev of disarming) {
      const { state, timerId } = armed();
      const r = run(state, [ev]);
      assert.deepEqual(find(r.effects, 'cancel_timer')[0], { type: 'cancel_timer', timerId }, ev.type);
      assert.equal(r.state.idle === null || r.state.idle === undefined, true, ev.type);
    }
    const keeping: EngineEvent[] = [
      { type: 'phase_prior', at: at(), phases: [30_000] },
      { type: 'judgment_result', at: at(), corrId: 'j0', text: '{}' },
      { type: 'judgment_unavailable', at: at(), corrId: 'j0', why: 'x' },
      { type: 'scratch_written', at: at(), seqId: 's0', path: '/tmp/x' },
      { type: 'packet', at: at(), seqId: 's0', text: 'x' },
      { type: 'compaction_done', at: at(), seqId: 's0', tokensBefore: 1, tokensAfter: 1 },
      { type: 'compaction_failed', at: at(), seqId: 's0', error: 'x' },
    ];
    for (const ev of keeping) {
      const { state, timerId } = armed();
      const r = run(state, [ev]);
      assert.deepEqual(find(r.effects, 'cancel_timer'), [], ev.type);
      assert.equal(r.state.idle?.timerId, timerId, ev.type);
    }
  });

  it('names each kind of close in words', () => {
    const words = (kind: Parameters<typeof closeWords>[0]['kind']) => closeWords({ kind, detail: 'D' });
    assert.deepEqual(
      (['commit', 'plan_checkpoint', 'pr_checkpoint', 'plan_update', 'agent_done', 'concluding', 'topic_shift', 'turn_complete'] as const).map(words),
      [
        'commit D',
        'a plan step: D',
        'a PR step: D',
        'a plan change',
        'the agent saying it was done',
        'a concluding message',
        'a topic shift',
        'the end of the turn',
      ],
    );
  });

  it("another timer (a stale packet deadline) neither fires nor disarms the watch; only the watch's own does", () => {
    const { state, timerId } = armed();
    const stale = run(state, [{ type: 'timeout', at: at(), timerId: 'packet:s1' }]);
    assert.deepEqual(stale.effects, []);
    assert.equal(stale.state.idle?.timerId, timerId);
    assert.equal(find(run(stale.state, [{ type: 'timeout', at: at(), timerId }]).effects, 'decision')[0]!.decision.code, 'idle');
  });

  it('is not armed at a turn end with a tool call still unanswered, nor at one that compacts anyway', () => {
    const open = run(mkState(WAITS), [...commitTurn(at, 40), { type: 'tool_call', at: at(), id: 'late', name: 'run', input: 'sleep 100' }, turnEnd()]);
    assert.equal(find(open.effects, 'decision').at(-1)!.decision.code, 'active_work');
    assert.deepEqual(find(open.effects, 'arm_idle'), []);
    const compacts = run(mkState(WAITS), [...commitTurn(at, 20), turnEnd()]);
    assert.equal(find(compacts.effects, 'decision').at(-1)!.decision.action, 'compact');
    assert.deepEqual(find(compacts.effects, 'arm_idle'), []);
    assert.equal(compacts.state.idle ?? null, null);
  });

  it("names the turn's strongest close, even when a mid-turn evaluation already consumed it", () => {
    const { state, effects } = run(mkState(WAITS), [
      { type: 'user_message', at: at(), text: 'Finish phase 2 and commit.' },
      { type: 'boundary', at: at(), source: 'agent_message', boundary: { kind: 'agent_done', key: 'done-1', detail: 'done' } },
      { type: 'boundary', at: at(), source: 'terminal', boundary: { kind: 'commit', key: 'a1b2c3d', detail: 'a1b2c3d importer' } },
      { type: 'tokens', at: at(), used: usedFor(40), window: WINDOW },
      { type: 'evaluate', at: at(), point: 'tool_loop' },
      { type: 'assistant_message', at: at(), text: 'Phase 2 is committed; the CLI is next.' },
      turnEnd(),
    ]);
    const timerId = find(effects, 'arm_idle')[0]!.timerId;
    assert.deepEqual(
      state.idle!.boundaries.map((b) => b.kind),
      ['agent_done', 'commit', 'turn_complete'],
    );
    const d = find(run(state, [{ type: 'timeout', at: at(), timerId }]).effects, 'decision')[0]!.decision;
    assert.deepEqual(d.matched, ['commit:a1b2c3d']);
    assert.match(d.reason, /since the turn ended at commit a1b2c3d importer/);
  });

  it('of two closes as strong, names the first', () => {
    const { state, effects } = run(mkState(WAITS), [
      ...commitTurn(at, 40, 'a1b2c3d'),
      { type: 'boundary', at: at(), source: 'terminal', boundary: { kind: 'commit', key: 'b2c3d4e', detail: 'b2c3d4e docs' } },
      turnEnd(),
    ]);
    const timerId = find(effects, 'arm_idle')[0]!.timerId;
    assert.deepEqual(find(run(state, [{ type: 'timeout', at: at(), timerId }]).effects, 'decision')[0]!.decision.matched, ['commit:a1b2c3d']);
  });

  it('its decision has an id of its own, then the sequence the next; the percent left is rounded to a tenth', () => {
    const { state, timerId } = armed();
    const r = run(state, [
      { type: 'tokens', at: at(), used: Math.round(WINDOW * (1 - 0.4037)), window: WINDOW },
      { type: 'timeout', at: at(), timerId },
    ]);
    const d = find(r.effects, 'decision')[0]!.decision;
    assert.equal(d.id, `d${state.counter + 1}`);
    assert.notEqual(d.id, state.lastDecision!.id);
    assert.equal(find(r.effects, 'sequence_started')[0]!.seqId, `s${state.counter + 2}`);
    assert.equal(r.state.counter, state.counter + 2);
    assert.equal(d.percentRemaining, 40.4);
    assert.match(d.reason, /\(40\.4% left, tier early\)/);
    // The turn's boundaries were consumed by the decision that armed the watch: none is pending now.
    assert.deepEqual(r.state.pending, []);
  });

  it('the timer ending in a state where compacting is no longer allowed compacts nothing and drops the watch', () => {
    const { state, timerId } = armed();
    const cases: Array<[string, EngineState]> = [
      ['a sequence running', { ...state, seq: { phase: 'assessing', seqId: 's99', corrId: 'j99', decision: state.lastDecision! } }],
      ['mode suggest', { ...state, settings: { ...state.settings, mode: 'suggest' } }],
      ['no token count', { ...state, tokens: null }],
      ['a tool call open', { ...state, openToolCalls: ['x'] }],
      ['input queued', { ...state, queuedInput: ['hello'] }],
    ];
    for (const [why, s] of cases) {
      const r = run(s, [{ type: 'timeout', at: at(), timerId }]);
      assert.deepEqual(r.effects, [], why);
      assert.equal(r.state.idle, null, why);
    }
  });
});
