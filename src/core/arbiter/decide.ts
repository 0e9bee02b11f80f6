/**
 * The decision rule (docs/ARCHITECTURE.md#the-decision-rule): below a threshold AND a tier-appropriate boundary are both required,
 * neither is sufficient; a contextual assessment (cooldown, weak-only boundaries, active work,
 * packet-worthiness, mid-turn policy, stall) can still say "not yet"; emergency is the escape hatch.
 * Pure and allocation-light: it runs at every evaluation point.
 */
import type { Settings, Tier } from '../settings/schema';
import type { BoundarySignal } from '../signals/types';
import type { Decision, DecisionAction, DecisionCode, EvaluationPoint } from '../engine/types';
import { fmtPercent, thresholdOf, tierOf } from './tiers';

export interface DecisionInput {
  id: string;
  at: number;
  point: EvaluationPoint;
  settings: Settings;
  percentRemaining: number | null;
  boundaries: BoundarySignal[];
  /** null when this thread never compacted. */
  cooldown: { turnsSince: number; secondsSince: number } | null;
  openToolCalls: number;
  queuedInput: number;
  packetWorthy: boolean;
  stall: 'none' | 'stalled' | 'suspended';
  sequenceActive: boolean;
}

function describeBoundaries(bs: BoundarySignal[]): string {
  if (bs.length === 0) return 'no boundary';
  return bs.map((b) => `${b.kind}${b.strength === 'weak' ? ' (weak)' : ''} ${b.detail}`.trim()).join('; ');
}

export function decide(i: DecisionInput): Decision {
  const s = i.settings;
  const p = i.percentRemaining;
  const tier: Tier | null = p === null ? null : tierOf(p, s);
  const boundaries = i.boundaries.map((b) => ({ id: b.id, kind: b.kind, strength: b.strength, source: b.source, detail: b.detail }));
  const head = p === null ? 'token count unknown' : tier ? `tier ${tier}, ${fmtPercent(p)} remaining (< ${thresholdOf(tier, s)}%)` : `${fmtPercent(p)} remaining`;
  const make = (action: DecisionAction, code: DecisionCode, why: string, matched: string[] = []): Decision => ({
    id: i.id,
    at: i.at,
    point: i.point,
    action,
    code,
    tier,
    percentRemaining: p === null ? null : Math.round(p * 10) / 10,
    boundaries,
    matched,
    reason: `${head}; ${describeBoundaries(i.boundaries)}: ${why}`,
  });

  if (s.mode === 'off') return make('none', 'mode_off', 'mode is off');
  if (i.sequenceActive) return make('none', 'sequence_active', 'a compaction sequence is already running');
  if (p === null) return make('none', 'no_tokens', 'percent remaining cannot be computed yet');
  if (tier === null) return make('none', 'above_threshold', `above the early threshold (${s.early_percent_remaining_lt}%)`);
  if (i.stall === 'suspended') return make('none', 'suspended', 'auto-compaction is suspended: the last compactions did not free enough context (use Compact Now)');
  // Never between a tool call and its result, not even in emergency: the thread would be malformed.
  if (i.openToolCalls > 0) return make('none', 'active_work', `${i.openToolCalls} tool call(s) still unanswered`);
  if (i.point === 'tool_loop' && s.mid_turn_policy === 'off') return make('none', 'mid_turn_policy', 'mid-turn policy is off');

  const finish = (code: DecisionCode, why: string, matched: string[]): Decision => {
    if (s.mode === 'tag') return make('tag', code, `${why} (tag mode: annotation only)`, matched);
    if (s.mode === 'suggest') return make('suggest', code, `${why} (suggest mode: offering Compact now)`, matched);
    return make('compact', code, why, matched);
  };

  if (tier === 'emergency') {
    return finish('emergency', `emergency: below ${s.emergency_percent_remaining_lt}%, compacting at this safe point without waiting for a boundary`, []);
  }
  if (i.point === 'tool_loop' && s.mid_turn_policy === 'emergency_only') return make('none', 'mid_turn_policy', 'mid-turn policy is emergency_only');
  if (i.stall === 'stalled') return make('none', 'stalled', 'the last compaction did not free enough context; waiting for emergency');
  if (i.cooldown) {
    const { turnsSince, secondsSince } = i.cooldown;
    if (turnsSince < s.cooldown_turns && secondsSince < s.cooldown_seconds) {
      return make('none', 'cooldown', `cooldown: ${turnsSince}/${s.cooldown_turns} turns and ${Math.floor(secondsSince)}/${s.cooldown_seconds}s since the last compaction`);
    }
  }
  if (i.queuedInput > 0) return make('none', 'active_work', 'the user has queued input');

  const required = s.auto_requires_any_boundary[tier];
  const matchedSignals = i.boundaries.filter((b) => required.includes(b.kind));
  // plan_update alone never suffices (docs/ARCHITECTURE.md#the-decision-rule), even if a user lists it as required.
  const strongMatched = matchedSignals.filter((b) => b.strength === 'strong');
  if (strongMatched.length === 0) {
    if (matchedSignals.length > 0 || (i.boundaries.length > 0 && i.boundaries.every((b) => b.strength === 'weak'))) {
      return make('none', 'weak_only', 'only weak boundaries (plan_update) — not a phase boundary');
    }
    return make('none', 'no_boundary', `no ${tier}-tier boundary (needs any of ${required.join(', ') || 'nothing configured'})`);
  }
  if (!i.packetWorthy) return make('none', 'not_packet_worthy', 'nothing worth a continuation packet yet');
  const matched = matchedSignals.map((b) => b.id);
  if (s.mode === 'auto' && i.point === 'turn_complete' && strongMatched.every((b) => b.kind === 'turn_complete')) {
    return make('preflight', 'preflight', 'only turn_complete: the golden path runs before the next message is sent', matched);
  }
  if (s.mode === 'auto' && s.judgment_enabled) return make('judge', 'judgment_pending', 'rule passed; asking judgment', matched);
  return finish('compact', 'rule passed', matched);
}
