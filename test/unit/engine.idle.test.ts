/**
 * Idle compaction in the engine (issue 21): a turn that ends at a boundary in a tier where rawr waited arms
 * a watch; anything that happens in the thread disarms it; when its timer ends first, the golden path runs
 * with a decision that says what compacting now avoids.
 */
import * as assert from 'node:assert/strict';
import type { Effect, EngineEvent, EngineState } from '../../src/core/engine/types';
import type { Settings } from '../../src/core/settings/schema';
import { commitTurn, find, GOOD_PACKET, mkState, run, types, usedFor, WINDOW } from '../support/engine';

const T0 = 1_700_000_000_000;
let clock = T0;
const at = () => (clock += 1000);

/** A turn that commits and ends with `pct` of the context left. */
const turn = (pct: number, sha?: string): EngineEvent[] => [...commitTurn(at, pct, sha), { type: 'evaluate', at: at(), point: 'turn_complete' }];

/**
 * Settings where rawr waits at a commit in the early tier: the tier asks for a plan step (not a commit),
 * no judgment (so the sequence's calls are the packet turn only), the forecast off (its own rule is not
 * what these tests are about).
 */
const WAITS: Partial<Settings> = {
  judgment_enabled: false,
  forecast_enabled: false,
  auto_requires_any_boundary: { early: ['plan_checkpoint'], ready: ['plan_checkpoint'], asap: ['commit', 'turn_complete'] },
};

function armed(settings: Partial<Settings> = {}, pct = 40): { state: EngineState; effects: Effect[] } {
  return run(mkState({ ...WAITS, ...settings }), turn(pct));
}

describe('step: idle compaction', () => {
  it('a turn that ends at a commit in a tier where rawr waited arms the watch for rawr.idleCompactMinutes', () => {
    const { state, effects } = armed({ idle_compact_minutes: 5 });
    const d = find(effects, 'decision').at(-1)!.decision;
    assert.equal(d.action, 'none');
    assert.equal(d.tier, 'early');
    const arm = find(effects, 'arm_idle');
    assert.deepEqual(arm, [{ type: 'arm_idle', timerId: `idle:${d.id}`, ms: 5 * 60_000 }]);
    assert.equal(state.idle?.timerId, `idle:${d.id}`);
    assert.deepEqual(
      state.idle?.boundaries.map((b) => b.kind),
      ['commit', 'turn_complete'],
    );
  });

  it('the timer ending first runs the golden path: a decision that names the commit and what it avoids, heads-up, packet turn', () => {
    const { state, effects } = armed({ idle_compact_minutes: 5 });
    const timerId = find(effects, 'arm_idle')[0]!.timerId;
    const r = run(state, [{ type: 'timeout', at: at(), timerId }]);
    const d = find(r.effects, 'decision')[0]!.decision;
    assert.equal(d.code, 'idle');
    assert.equal(d.point, 'idle');
    assert.equal(d.action, 'compact');
    assert.equal(d.tier, 'early');
    assert.deepEqual(d.matched, ['commit:a1b2c3d']);
    assert.match(d.reason, /nobody wrote for 5 min since the turn ended at commit a1b2c3d importer \(40\.0% left, tier early\)/);
    assert.match(d.reason, /avoids sending all 120k tokens again on the next request/);
    assert.deepEqual(types(r.effects).slice(1), ['sequence_started', 'inject_heads_up', 'request_packet', 'start_timer']);
    assert.equal(r.state.idle, null);
    // The packet, the swap: the compacted line says it happened while the person was away, at the commit.
    const seqId = find(r.effects, 'sequence_started')[0]!.seqId;
    const done = run(r.state, [
      { type: 'packet', at: at(), seqId, text: GOOD_PACKET, scratchWritten: true },
      { type: 'compaction_done', at: at(), seqId, tokensBefore: usedFor(40), tokensAfter: 9_000 },
    ]);
    const compacted = find(done.effects, 'compacted')[0]!;
    assert.match(compacted.text, /Context compacted — 120k → 9k tokens \(while you were away, tier early, boundary commit a1b2c3d importer\)/);
    assert.equal(find(done.effects, 'inject_handoff').length, 1);
    assert.deepEqual(find(done.effects, 'sequence_ended'), [{ type: 'sequence_ended', seqId, outcome: 'compacted' }]);
  });

  it('anything that happens in the thread disarms it (its timer is cancelled); the stale timeout then does nothing', () => {
    const events: EngineEvent[][] = [
      [{ type: 'user_message', at: at(), text: 'one more thing' }],
      [{ type: 'tool_call', at: at(), id: 'x', name: 'read_file', input: { path: 'a.ts' } }],
      [{ type: 'compact_now', at: at() }],
      [{ type: 'evaluate', at: at(), point: 'tool_loop' }],
      [{ type: 'settings', at: at(), settings: { ...mkState(WAITS).settings, idle_compact_minutes: 0 } }],
    ];
    for (const evs of events) {
      const { state, effects } = armed({ idle_compact_minutes: 5 });
      const timerId = find(effects, 'arm_idle')[0]!.timerId;
      const r = run(state, evs);
      assert.deepEqual(find(r.effects, 'cancel_timer')[0], { type: 'cancel_timer', timerId }, evs[0]!.type);
      assert.equal(r.state.idle, null);
      const late = run(r.state, [{ type: 'timeout', at: at(), timerId }]);
      assert.equal(find(late.effects, 'decision').filter((x) => x.decision.code === 'idle').length, 0, `no idle compaction after ${evs[0]!.type}`);
    }
  });

  it('token counts and boundaries seen elsewhere do not disarm it (nobody used the thread)', () => {
    const { state, effects } = armed({ idle_compact_minutes: 5 });
    const timerId = find(effects, 'arm_idle')[0]!.timerId;
    const r = run(state, [
      { type: 'tokens', at: at(), used: usedFor(39), window: WINDOW },
      { type: 'boundary', at: at(), source: 'git', boundary: { kind: 'commit', key: 'b2c3d4e5', detail: 'b2c3d4e wip' } },
      { type: 'timeout', at: at(), timerId },
    ]);
    const d = find(r.effects, 'decision')[0]!.decision;
    assert.equal(d.code, 'idle');
    // The commit seen meanwhile is looked at (and consumed) by the idle decision.
    assert.ok(d.boundaries.some((b) => b.id === 'commit:b2c3d4e'));
    assert.deepEqual(find(r.effects, 'boundaries_consumed')[0]?.ids, ['commit:b2c3d4e']);
  });

  it('the context shrank above every threshold while the person was away (an undo): the timer ending compacts nothing', () => {
    const { state, effects } = armed({ idle_compact_minutes: 5 });
    const timerId = find(effects, 'arm_idle')[0]!.timerId;
    const r = run(state, [
      { type: 'tokens', at: at(), used: usedFor(60), window: WINDOW },
      { type: 'timeout', at: at(), timerId },
    ]);
    assert.equal(find(r.effects, 'decision').length, 0, 'mutation-tested: the tier check at the timer was never exercised');
    assert.equal(r.state.seq.phase, 'idle');
    assert.equal(r.state.idle, null);
  });

  it('is not armed: setting 0, outside the tiers, mode suggest, in the emergency tier, mid-turn, during the cooldown', () => {
    assert.equal(find(armed({ idle_compact_minutes: 0 }).effects, 'arm_idle').length, 0, 'setting 0');
    assert.equal(find(armed({ idle_compact_minutes: 5 }, 70).effects, 'arm_idle').length, 0, 'no tier: nothing to gain');
    assert.equal(find(armed({ idle_compact_minutes: 5, mode: 'suggest' }).effects, 'arm_idle').length, 0, 'suggest');
    assert.equal(find(armed({ idle_compact_minutes: 5 }, 8).effects, 'arm_idle').length, 0, 'emergency compacts anyway');
    const midTurn = run(mkState({ ...WAITS, idle_compact_minutes: 5 }), [...turn(40).slice(0, -1), { type: 'evaluate', at: at(), point: 'tool_loop' }]);
    assert.equal(find(midTurn.effects, 'arm_idle').length, 0, 'a tool-loop point is not the end of a turn');
    // Right after a compaction (cooldown), the person's absence changes nothing.
    const { state, effects } = armed({ idle_compact_minutes: 5 });
    const timerId = find(effects, 'arm_idle')[0]!.timerId;
    let r = run(state, [{ type: 'timeout', at: at(), timerId }]);
    const seqId = find(r.effects, 'sequence_started')[0]!.seqId;
    r = run(r.state, [
      { type: 'packet', at: at(), seqId, text: GOOD_PACKET, scratchWritten: true },
      { type: 'compaction_done', at: at(), seqId, tokensBefore: usedFor(40), tokensAfter: usedFor(60) },
      ...turn(40, 'c3d4e5f'),
    ]);
    assert.equal(find(r.effects, 'decision').at(-1)!.decision.code, 'cooldown');
    assert.equal(find(r.effects, 'arm_idle').length, 0, 'cooldown');
  });

  it('a preflight (asap, only the turn end) is armed too: the compaction runs while the person is away instead of before their message', () => {
    const { state, effects } = run(
      mkState({ ...WAITS, idle_compact_minutes: 5, auto_requires_any_boundary: { early: [], ready: [], asap: ['turn_complete'] } }),
      [
        { type: 'user_message', at: at(), text: 'Explain the importer.' },
        { type: 'assistant_message', at: at(), text: 'The importer reads both formats and normalises the records.' },
        { type: 'tokens', at: at(), used: usedFor(20), window: WINDOW },
        { type: 'evaluate', at: at(), point: 'turn_complete' },
      ],
    );
    assert.equal(find(effects, 'decision').at(-1)!.decision.action, 'preflight');
    const timerId = find(effects, 'arm_idle')[0]!.timerId;
    const r = run(state, [{ type: 'timeout', at: at(), timerId }]);
    assert.equal(find(r.effects, 'decision')[0]!.decision.code, 'idle');
    assert.equal(r.state.preflight, null, 'the preflight is done by the idle compaction');
    // The person's message, when it comes, is held until the handoff (as with any running sequence).
    const back = run(r.state, [{ type: 'user_message', at: at(), text: 'continue' }]);
    assert.deepEqual(find(back.effects, 'hold_user_message'), [{ type: 'hold_user_message', text: 'continue', reason: 'sequence_running' }]);
  });
});
