import * as assert from 'node:assert/strict';
import { decide, type DecisionInput } from '../../src/core/arbiter/decide';
import { strengthOf, type BoundaryKind, type BoundarySignal } from '../../src/core/signals/types';
import { shipped } from '../support/engine';

const b = (kind: BoundaryKind, detail = ''): BoundarySignal => ({
  id: `${kind}:x`,
  kind,
  strength: strengthOf(kind),
  source: 'terminal',
  at: 0,
  turn: 1,
  synthetic: false,
  detail,
});

function input(over: Partial<DecisionInput>): DecisionInput {
  return {
    id: 'd1',
    at: 1_000_000,
    point: 'turn_complete',
    settings: { ...shipped.settings, judgment_enabled: false },
    percentRemaining: 30,
    boundaries: [b('commit', 'a1b2c3d feat')],
    cooldown: null,
    openToolCalls: 0,
    queuedInput: 0,
    packetWorthy: true,
    stall: 'none',
    sequenceActive: false,
    ...over,
  };
}

describe('decide: the decision rule (threshold AND boundary, neither sufficient)', () => {
  const cases: Array<[string, Partial<DecisionInput>, string, string]> = [
    ['above every threshold, boundary present → none', { percentRemaining: 60 }, 'none', 'above_threshold'],
    ['ready tier, commit → compact', { percentRemaining: 30 }, 'compact', 'compact'],
    ['ready tier, no boundary → none', { boundaries: [] }, 'none', 'no_boundary'],
    ['early tier, agent_done not enough (early needs commit/plan/pr)', { percentRemaining: 40, boundaries: [b('agent_done')] }, 'none', 'no_boundary'],
    ['early tier, plan_checkpoint → compact', { percentRemaining: 40, boundaries: [b('plan_checkpoint')] }, 'compact', 'compact'],
    ['ready tier, plan_update only → weak_only', { boundaries: [b('plan_update')] }, 'none', 'weak_only'],
    [
      'ready tier, plan_update listed as required still weak',
      {
        boundaries: [b('plan_update')],
        settings: {
          ...shipped.settings,
          judgment_enabled: false,
          auto_requires_any_boundary: { early: ['plan_update'], ready: ['plan_update'], asap: ['plan_update'] },
        },
      },
      'none',
      'weak_only',
    ],
    ['ready tier, turn_complete alone not in ready list', { boundaries: [b('turn_complete')] }, 'none', 'no_boundary'],
    ['asap tier, turn_complete alone at turn completion → preflight', { percentRemaining: 20, boundaries: [b('turn_complete')] }, 'preflight', 'preflight'],
    ['asap tier, turn_complete + commit → compact now', { percentRemaining: 20, boundaries: [b('turn_complete'), b('commit')] }, 'compact', 'compact'],
    ['emergency without boundary → compact', { percentRemaining: 5, boundaries: [] }, 'compact', 'emergency'],
    ['emergency ignores cooldown', { percentRemaining: 5, cooldown: { turnsSince: 0, secondsSince: 1 } }, 'compact', 'emergency'],
    ['emergency never with an unanswered tool call', { percentRemaining: 5, openToolCalls: 1 }, 'none', 'active_work'],
    ['cooldown blocks non-emergency', { cooldown: { turnsSince: 1, secondsSince: 10 } }, 'none', 'cooldown'],
    ['cooldown over by turns', { cooldown: { turnsSince: 2, secondsSince: 10 } }, 'compact', 'compact'],
    ['cooldown over by seconds', { cooldown: { turnsSince: 0, secondsSince: 301 } }, 'compact', 'compact'],
    ['queued input defers', { queuedInput: 1 }, 'none', 'active_work'],
    ['not packet-worthy', { packetWorthy: false }, 'none', 'not_packet_worthy'],
    ['sequence active', { sequenceActive: true }, 'none', 'sequence_active'],
    ['no tokens', { percentRemaining: null }, 'none', 'no_tokens'],
    ['stalled blocks non-emergency', { stall: 'stalled' }, 'none', 'stalled'],
    ['stalled allows emergency', { stall: 'stalled', percentRemaining: 3 }, 'compact', 'emergency'],
    ['suspended blocks even emergency', { stall: 'suspended', percentRemaining: 3 }, 'none', 'suspended'],
    ['mode off', { settings: { ...shipped.settings, mode: 'off' } }, 'none', 'mode_off'],
    ['mode tag annotates', { settings: { ...shipped.settings, mode: 'tag' } }, 'tag', 'compact'],
    ['mode suggest suggests', { settings: { ...shipped.settings, mode: 'suggest' } }, 'suggest', 'compact'],
    ['judgment enabled → judge', { settings: { ...shipped.settings, judgment_enabled: true } }, 'judge', 'judgment_pending'],
    ['emergency skips judgment', { percentRemaining: 4, settings: { ...shipped.settings, judgment_enabled: true } }, 'compact', 'emergency'],
    ['mid-turn off', { point: 'tool_loop', settings: { ...shipped.settings, judgment_enabled: false, mid_turn_policy: 'off' } }, 'none', 'mid_turn_policy'],
    [
      'mid-turn emergency_only, ready tier',
      { point: 'tool_loop', settings: { ...shipped.settings, judgment_enabled: false, mid_turn_policy: 'emergency_only' } },
      'none',
      'mid_turn_policy',
    ],
    [
      'mid-turn emergency_only, emergency tier',
      { point: 'tool_loop', percentRemaining: 2, settings: { ...shipped.settings, judgment_enabled: false, mid_turn_policy: 'emergency_only' } },
      'compact',
      'emergency',
    ],
    ['mid-turn golden path, commit → compact (no preflight mid-turn)', { point: 'tool_loop' }, 'compact', 'compact'],
  ];
  for (const [name, over, action, code] of cases) {
    it(name, () => {
      const d = decide(input(over));
      assert.equal(d.action, action, d.reason);
      assert.equal(d.code, code, d.reason);
    });
  }

  it('every reason names the tier, the percent and the boundaries', () => {
    const d = decide(input({ percentRemaining: 31.26 }));
    assert.match(d.reason, /tier ready/);
    assert.match(d.reason, /31\.3% remaining/);
    assert.match(d.reason, /commit a1b2c3d feat/);
    assert.deepEqual(d.matched, ['commit:x']);
    assert.equal(d.percentRemaining, 31.3);
  });
});

describe('decide: every decision that compacts says what it avoids (issue 21)', () => {
  it('an emergency: overflowing the window', () => {
    const d = decide(input({ percentRemaining: 8, boundaries: [], tokens: { used: 184_000, window: 200_000 } }));
    assert.equal(d.code, 'emergency');
    assert.match(d.reason, /avoids overflowing the context window: 16k of 200k left$/);
    // Without a token count (percent only) it still says so.
    assert.match(decide(input({ percentRemaining: 8, boundaries: [] })).reason, /avoids overflowing the context window: 8\.0% left$/);
  });

  it('a tier compaction without a forecast: the emergency compaction outside a boundary that waiting leads to', () => {
    const d = decide(input({ percentRemaining: 30, tokens: { used: 140_000, window: 200_000 } }));
    assert.equal(d.action, 'compact');
    assert.match(d.reason, /rule passed; avoids an emergency compaction outside a boundary later: 36k left before emergency$/);
    const j = decide(input({ percentRemaining: 30, settings: { ...shipped.settings, judgment_enabled: true } }));
    assert.equal(j.action, 'judge');
    assert.match(j.reason, /avoids an emergency compaction outside a boundary later: 30\.0% left, emergency below 12%$/);
  });

  it('a decision that does not compact is left as it was', () => {
    const d = decide(input({ percentRemaining: 60 }));
    assert.equal(d.action, 'none');
    assert.doesNotMatch(d.reason, /avoids/);
  });
});
