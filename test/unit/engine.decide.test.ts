import * as assert from 'node:assert/strict';
import { decide, decideHeld, type DecisionInput } from '../../src/core/arbiter/decide';
import type { PhaseForecast } from '../../src/core/arbiter/forecast';
import type { Decision, ForecastHold } from '../../src/core/engine/types';
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

/** One test per row: the input's changes from the default, the action and the code decide() must give. */
function decides(cases: Array<[string, Partial<DecisionInput>, string, string]>): void {
  for (const [name, over, action, code] of cases) {
    it(name, () => {
      const d = decide(input(over));
      assert.equal(d.action, action, d.reason);
      assert.equal(d.code, code, d.reason);
    });
  }
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
    [
      'early tier, a plan_update beside a strong boundary the tier does not list: no boundary (not "only weak boundaries")',
      { percentRemaining: 40, boundaries: [b('plan_update'), b('agent_done')] },
      'none',
      'no_boundary',
    ],
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
  decides(cases);

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

// The cases below were missing: mutation testing (CONTRIBUTING.md "Mutation testing") changed each rule
// they pin and the whole unit tier still passed.
describe("decide: every reason names its own tier's threshold", () => {
  // The reason's head is what the panel and the chat show first: a tier beside another tier's threshold misleads.
  const heads: Array<[number, string]> = [
    [5, 'tier emergency, 5.0% remaining (< 12%)'],
    [20, 'tier asap, 20.0% remaining (< 25%)'],
    [30, 'tier ready, 30.0% remaining (< 35%)'],
    [40, 'tier early, 40.0% remaining (< 45%)'],
    [60, '60.0% remaining'],
  ];
  for (const [percentRemaining, head] of heads)
    it(`${percentRemaining}% left: "${head}"`, () => {
      const d = decide(input({ percentRemaining }));
      assert.ok(d.reason.startsWith(`${head}; `), d.reason);
    });
});

describe('decide: each threshold is strict, each guard is where it applies (mutation-tested)', () => {
  const cases: Array<[string, Partial<DecisionInput>, string, string]> = [
    ['exactly at the early threshold (45%) is above it', { percentRemaining: 45 }, 'none', 'above_threshold'],
    [
      'exactly at the ready threshold (35%) is still early: agent_done is not an early boundary',
      { percentRemaining: 35, boundaries: [b('agent_done')] },
      'none',
      'no_boundary',
    ],
    [
      'exactly at the asap threshold (25%) is still ready: turn_complete alone is not a ready boundary',
      { percentRemaining: 25, boundaries: [b('turn_complete')] },
      'none',
      'no_boundary',
    ],
    ['exactly at the emergency line (12%) is still asap: no boundary, no compaction', { percentRemaining: 12, boundaries: [] }, 'none', 'no_boundary'],
    ['cooldown over at exactly cooldown_seconds', { cooldown: { turnsSince: 0, secondsSince: 300 } }, 'compact', 'compact'],
    [
      'mid-turn policy off does not stop a compaction at the end of a turn',
      { settings: { ...shipped.settings, judgment_enabled: false, mid_turn_policy: 'off' } },
      'compact',
      'compact',
    ],
    [
      'mid-turn policy emergency_only does not stop a compaction at the end of a turn',
      { settings: { ...shipped.settings, judgment_enabled: false, mid_turn_policy: 'emergency_only' } },
      'compact',
      'compact',
    ],
    [
      'suggest mode at turn_complete alone suggests (the preflight compacts, so it is auto mode only)',
      { percentRemaining: 20, boundaries: [b('turn_complete')], settings: { ...shipped.settings, judgment_enabled: false, mode: 'suggest' } },
      'suggest',
      'compact',
    ],
    [
      'a required weak boundary beside a strong one the tier does not list: weak_only',
      {
        boundaries: [b('plan_update'), b('turn_complete')],
        settings: {
          ...shipped.settings,
          judgment_enabled: false,
          auto_requires_any_boundary: { ...shipped.settings.auto_requires_any_boundary, ready: ['plan_update'] },
        },
      },
      'none',
      'weak_only',
    ],
  ];
  decides(cases);

  it("the reason names the tier's threshold", () => {
    assert.match(decide(input({ percentRemaining: 30 })).reason, /^tier ready, 30\.0% remaining \(< 35%\); commit a1b2c3d feat: rule passed/);
    assert.match(
      decide(input({ percentRemaining: 40, boundaries: [] })).reason,
      /^tier early, 40\.0% remaining \(< 45%\); no boundary: no early-tier boundary/,
    );
  });
});

/** A compaction the forecast drove, at the commit of input()'s default boundaries. */
function compactsAtTheCommit(d: Decision): void {
  assert.equal(d.action, 'compact', d.reason);
  assert.equal(d.code, 'forecast');
  assert.deepEqual(d.matched, ['commit:x']);
  assert.equal(d.forecast?.drove, true);
}

describe('decide: a forecast compaction passes every guard of the tier rule (mutation-tested)', () => {
  // 50% left (100k of 200k): above the early threshold, so only the forecast can compact. One 90k phase
  // seen does not fit the 76k before the emergency line, and fits a fresh context: compacting avoids an emergency.
  const forecast = (over: Partial<PhaseForecast> = {}): PhaseForecast => ({
    nextPhaseTokens: 90_000,
    basis: 'thread',
    samples: [90_000],
    phases: 1,
    sinceClose: 0,
    planFinished: false,
    freshTokens: 30_000,
    ...over,
  });
  const at = (over: Partial<DecisionInput>): Decision =>
    decide(input({ point: 'tool_loop', percentRemaining: 50, tokens: { used: 100_000, window: 200_000 }, forecast: forecast(), ...over }));
  const judged = { ...shipped.settings, judgment_enabled: true };

  it('compacts at a phase close above every threshold, naming the close', () => {
    const d = at({});
    compactsAtTheCommit(d);
    assert.equal(d.forecast?.verdict, 'compact');
    // Judgment on: the judge is asked; suggest mode: offered only.
    assert.equal(at({ settings: judged }).action, 'judge');
    assert.equal(at({ settings: { ...shipped.settings, mode: 'suggest' } }).action, 'suggest');
  });

  const refusals: Array<[string, Partial<DecisionInput>, string]> = [
    ['mode off', { settings: { ...shipped.settings, mode: 'off' } }, 'mode_off'],
    ['a compaction sequence running', { sequenceActive: true }, 'sequence_active'],
    ['an unanswered tool call', { openToolCalls: 1 }, 'active_work'],
    ['mid-turn policy off', { settings: { ...shipped.settings, mid_turn_policy: 'off' } }, 'mid_turn_policy'],
    ['mid-turn policy emergency_only', { settings: { ...shipped.settings, mid_turn_policy: 'emergency_only' } }, 'mid_turn_policy'],
    ['stalled', { stall: 'stalled' }, 'stalled'],
    ['cooling down', { cooldown: { turnsSince: 0, secondsSince: 1 } }, 'cooldown'],
    ['queued user input', { queuedInput: 1 }, 'active_work'],
    ['nothing worth a packet', { packetWorthy: false }, 'not_packet_worthy'],
  ];
  for (const [name, over, code] of refusals) {
    it(`never compacts with ${name}`, () => {
      const d = at(over);
      assert.equal(d.action, 'none', d.reason);
      assert.equal(d.code, code, d.reason);
      assert.notEqual(d.forecast?.drove, true);
      // What the forecast said is still on the decision (the panel shows why it did not compact).
      assert.equal(d.forecast?.verdict, 'compact', d.reason);
    });
  }

  it('at a close beside other strong boundaries, names only the close (the heads-up says "at this commit")', () => {
    const d = at({ boundaries: [b('commit', 'a1b2c3d feat'), b('agent_done'), b('concluding')] });
    compactsAtTheCommit(d);
  });

  it('a tier compaction at a close where the forecast also compacts: the tier drove it, and it says what the forecast says it avoids', () => {
    // 30% left (ready tier) at a commit: the tier rule compacts; the next phase does not fit the 36k before the line.
    // Phases that rose three times: the trend carried one phase further (100k) is the scenario it rests on.
    const rising = forecast({ nextPhaseTokens: 80_000, samples: [40_000, 60_000, 80_000], history: [40_000, 60_000, 80_000], phases: 3 });
    const d = at({ percentRemaining: 30, tokens: { used: 140_000, window: 200_000 }, forecast: rising });
    assert.equal(d.action, 'compact', d.reason);
    assert.notEqual(d.code, 'forecast', d.reason);
    assert.equal(d.forecast?.verdict, 'compact');
    assert.equal(d.forecast?.drove, false);
    assert.match(d.reason, /; avoids an emergency in the next phase: forecast \d+k, room 36k before emergency$/);
    // The scenario the verdict rests on (the trend's 100k), not the largest phase seen (80k).
    assert.equal(d.forecast?.nextPhaseTokens, 100_000);
    assert.equal(d.forecast?.avoids, d.reason.slice(d.reason.lastIndexOf('; ') + 2));
  });

  it('a tier compaction the forecast does not object to (it defers): the tier drove it, and it says what waiting leads to', () => {
    // The phase already ran past the forecast: the forecast has nothing to add (defer).
    const d = at({
      percentRemaining: 30,
      tokens: { used: 140_000, window: 200_000 },
      forecast: forecast({ nextPhaseTokens: 20_000, samples: [20_000], sinceClose: 30_000 }),
      point: 'tool_loop',
      boundaries: [b('agent_done')],
    });
    assert.equal(d.action, 'compact', d.reason);
    assert.equal(d.forecast?.drove, false);
    assert.equal(d.forecast?.verdict, 'defer');
    assert.equal(d.forecast?.nextPhaseTokens, 20_000);
    assert.equal('avoids' in (d.forecast ?? {}), false);
    assert.match(d.reason, /; avoids an emergency compaction outside a boundary later: 36k left before emergency$/);
  });

  it('is read only at a strong boundary: a plan_update alone leaves the tier rule alone', () => {
    const weak = at({ boundaries: [b('plan_update')] });
    assert.equal(weak.action, 'none');
    assert.equal(weak.code, 'above_threshold');
    assert.equal(weak.forecast, undefined);
    // Beside a commit, the commit is the close it compacts at.
    const both = at({ boundaries: [b('plan_update'), b('commit')] });
    assert.equal(both.code, 'forecast');
    assert.deepEqual(both.matched, ['commit:x']);
  });

  it('at the end of the turn that finished the plan it compacts before the next request in auto mode, and only suggests in suggest mode', () => {
    const end = (settings: DecisionInput['settings']) =>
      at({ point: 'turn_complete', boundaries: [b('turn_complete')], forecast: forecast({ planFinished: true }), settings });
    assert.equal(end(shipped.settings).action, 'preflight');
    // A plan_update beside the turn's end is not what it compacts at (weak boundaries are never named).
    const withUpdate = at({ point: 'turn_complete', boundaries: [b('turn_complete'), b('plan_update')], forecast: forecast({ planFinished: true }) });
    assert.equal(withUpdate.action, 'preflight');
    assert.deepEqual(withUpdate.matched, ['turn_complete:x']);
    assert.equal(end({ ...shipped.settings, judgment_enabled: false, mode: 'suggest' }).action, 'suggest');
  });

  it('never touches an emergency: a finished plan (the forecast would wait for the turn end) still compacts now', () => {
    const d = at({ percentRemaining: 8, tokens: { used: 184_000, window: 200_000 }, forecast: forecast({ planFinished: true }) });
    assert.equal(d.action, 'compact', d.reason);
    assert.equal(d.code, 'emergency');
  });

  it('holds back a tier compaction where the next phase fits, and says the forecast drove that', () => {
    const d = at({ percentRemaining: 30, tokens: { used: 140_000, window: 200_000 }, forecast: forecast({ nextPhaseTokens: 10_000, samples: [10_000] }) });
    assert.equal(d.action, 'none', d.reason);
    assert.equal(d.code, 'forecast_fits');
    assert.equal(d.forecast?.drove, true);
  });
});

describe('decideHeld: a held forecast compaction fires after the close, through the same guards (mutation-tested)', () => {
  const held: ForecastHold = {
    signals: [b('commit', 'a1b2c3d feat')],
    matched: ['commit:x'],
    forecast: {
      nextPhaseTokens: 90_000,
      roomTokens: 76_000,
      basis: 'thread',
      phases: 1,
      samples: [90_000],
      planFinished: false,
      verdict: 'compact',
      drove: true,
    },
  };
  const next = (over: Partial<DecisionInput>): Decision =>
    decideHeld(input({ point: 'tool_loop', percentRemaining: 50, boundaries: [], tokens: { used: 100_000, window: 200_000 }, ...over }), held);

  it('compacts mid-turn naming the held close; before the next request at a turn end; asks the judge when judgment is on', () => {
    compactsAtTheCommit(next({}));
    assert.equal(next({ point: 'turn_complete' }).action, 'preflight');
    assert.equal(next({ settings: { ...shipped.settings, judgment_enabled: true } }).action, 'judge');
  });

  for (const [name, over, code] of [
    ['an unanswered tool call', { openToolCalls: 1 }, 'active_work'],
    ['cooling down', { cooldown: { turnsSince: 0, secondsSince: 1 } }, 'cooldown'],
    ['nothing worth a packet', { packetWorthy: false }, 'not_packet_worthy'],
  ] as Array<[string, Partial<DecisionInput>, string]>) {
    it(`holds off with ${name}`, () => {
      const d = next(over);
      assert.equal(d.action, 'none', d.reason);
      assert.equal(d.code, code);
      assert.equal(d.forecast?.drove, false);
    });
  }

  it('an emergency there is an emergency', () => {
    const d = next({ percentRemaining: 5 });
    assert.equal(d.action, 'compact', d.reason);
    assert.equal(d.code, 'emergency');
  });
});
