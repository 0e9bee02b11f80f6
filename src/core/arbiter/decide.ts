/**
 * The decision rule (docs/ARCHITECTURE.md#the-decision-rule): below a threshold AND a tier-appropriate boundary are both required,
 * neither is sufficient; a contextual assessment (cooldown, weak-only boundaries, active work,
 * packet-worthiness, mid-turn policy, stall) can still say "not yet"; emergency is the escape hatch.
 * Then the phase forecast (forecast.ts) where it has something to say. Pure and allocation-light: it runs
 * at every evaluation point.
 */
import type { Settings, Tier } from '../settings/schema';
import type { BoundarySignal } from '../signals/types';
import type { Decision, DecisionAction, DecisionCode, DecisionForecast, EvaluationPoint, ForecastHold } from '../engine/types';
import {
  PHASE_CLOSE_KINDS,
  describeGain,
  forecastVerdict,
  isPhaseClose,
  kTok,
  roomBeforeEmergency,
  type ForecastVerdict,
  type PhaseForecast,
} from './forecast';
import { fmtPercent, thresholdOf, tierOf } from './tiers';

export interface DecisionInput {
  id: string;
  at: number;
  point: EvaluationPoint;
  settings: Settings;
  percentRemaining: number | null;
  boundaries: BoundarySignal[];
  /** null when this thread never compacted. */
  /** Since the last compaction, or the last attempt that failed or was cancelled (`outcome`). */
  cooldown: { turnsSince: number; secondsSince: number; outcome?: 'failed' | 'cancelled' } | null;
  openToolCalls: number;
  queuedInput: number;
  packetWorthy: boolean;
  stall: 'none' | 'stalled' | 'suspended';
  sequenceActive: boolean;
  /** The context size behind percentRemaining (the forecast works in tokens). */
  tokens?: { used: number; window: number } | null;
  /** The phase forecast (null: disabled or no token count yet). */
  forecast?: PhaseForecast | null;
}

function describeBoundaries(bs: BoundarySignal[]): string {
  if (bs.length === 0) return 'no boundary';
  return bs.map((b) => `${b.kind}${b.strength === 'weak' ? ' (weak)' : ''} ${b.detail}`.trim()).join('; ');
}

type Maker = (action: DecisionAction, code: DecisionCode, why: string, matched?: string[]) => Decision;

function maker(i: DecisionInput): Maker {
  const s = i.settings;
  const p = i.percentRemaining;
  const tier: Tier | null = p === null ? null : tierOf(p, s);
  const boundaries = i.boundaries.map((b) => ({ id: b.id, kind: b.kind, strength: b.strength, source: b.source, detail: b.detail }));
  const head =
    p === null ? 'token count unknown' : tier ? `tier ${tier}, ${fmtPercent(p)} remaining (< ${thresholdOf(tier, s)}%)` : `${fmtPercent(p)} remaining`;
  return (action, code, why, matched = []) => ({
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
}

/** A decision for this input with its standard reason head (tier, percent, boundaries). */
export function decisionFor(i: DecisionInput, action: DecisionAction, code: DecisionCode, why: string, matched: string[] = []): Decision {
  return maker(i)(action, code, why, matched);
}

/** Guards that hold even in emergency: a compaction here would break the thread or the user's choice. */
function hardGuard(i: DecisionInput, make: Maker): Decision | null {
  const s = i.settings;
  if (i.stall === 'suspended')
    return make('none', 'suspended', 'auto-compaction is suspended: the last compactions did not free enough context (use Compact Now)');
  // Never between a tool call and its result, not even in emergency: the thread would be malformed.
  if (i.openToolCalls > 0) return make('none', 'active_work', `${i.openToolCalls} tool call(s) still unanswered`);
  if (i.point === 'tool_loop' && s.mid_turn_policy === 'off') return make('none', 'mid_turn_policy', 'mid-turn policy is off');
  return null;
}

/** The cooldown after a compaction: neither its turns nor its seconds have passed yet. */
export function coolingDown(s: Pick<Settings, 'cooldown_turns' | 'cooldown_seconds'>, c: { turnsSince: number; secondsSince: number }): boolean {
  return c.turnsSince < s.cooldown_turns && c.secondsSince < s.cooldown_seconds;
}

/** Guards below emergency: mid-turn policy, stall, cooldown, queued input. */
function softGuard(i: DecisionInput, make: Maker): Decision | null {
  const s = i.settings;
  if (i.point === 'tool_loop' && s.mid_turn_policy === 'emergency_only') return make('none', 'mid_turn_policy', 'mid-turn policy is emergency_only');
  if (i.stall === 'stalled') return make('none', 'stalled', 'the last compaction did not free enough context; waiting for emergency');
  if (i.cooldown && coolingDown(s, i.cooldown)) {
    const { turnsSince, secondsSince, outcome } = i.cooldown;
    // Only a compaction that happened is called one: a failed or cancelled attempt cools down too.
    const since = outcome === undefined ? 'the last compaction' : `the last compaction attempt (${outcome}; nothing was compacted)`;
    return make('none', 'cooldown', `cooldown: ${turnsSince}/${s.cooldown_turns} turns and ${Math.floor(secondsSince)}/${s.cooldown_seconds}s since ${since}`);
  }
  if (i.queuedInput > 0) return make('none', 'active_work', 'the user has queued input');
  return null;
}

/** What a passing rule does in each mode. */
function finish(i: DecisionInput, make: Maker, code: DecisionCode, why: string, matched: string[]): Decision {
  const s = i.settings;
  if (s.mode === 'tag') return make('tag', code, `${why} (tag mode: annotation only)`, matched);
  if (s.mode === 'suggest') return make('suggest', code, `${why} (suggest mode: offering Compact now)`, matched);
  return make('compact', code, why, matched);
}

/** Whether decide() reads the forecast for these boundaries: only at a strong one (the engine makes it only then). */
export function readsForecast(boundaries: readonly BoundarySignal[]): boolean {
  return boundaries.some((b) => b.strength === 'strong');
}

/**
 * The tier rule, then the phase forecast where it has something to say: at a phase close whose next
 * phase will not fit before the emergency line it compacts (above the early threshold too); where the
 * next phase fits it holds back an early/ready/asap compaction. Every guard of the tier rule applies to
 * the forecast as well, and emergency is never touched.
 */
export function decide(i: DecisionInput): Decision {
  const make = maker(i);
  const d = tierDecide(i, make);
  const f = i.forecast;
  const t = i.tokens;
  if (!f || !t || i.percentRemaining === null || d.code === 'emergency') return withAvoids(i, d, null);
  if (!readsForecast(i.boundaries)) return withAvoids(i, d, null);
  const strong = i.boundaries.filter((b) => b.strength === 'strong');
  const v = forecastVerdict({ forecast: f, settings: i.settings, used: t.used, window: t.window, point: i.point, boundaries: strong });
  const info = (drove: boolean): DecisionForecast => {
    const head = {
      // The scenario a compaction rests on when the forecast says compact (it may be below the largest).
      nextPhaseTokens: v.kind === 'compact' ? v.tokens : f.nextPhaseTokens,
      roomTokens: roomBeforeEmergency(t.used, t.window, i.settings),
      basis: f.basis,
      phases: f.phases,
      samples: f.samples,
      planFinished: f.planFinished,
      verdict: v.kind,
    };
    // Not a conditional spread (slow, see withDecision); `avoids` before `drove`, as decisions are logged.
    return v.kind === 'compact' ? Object.assign(head, { avoids: v.avoids, drove }) : Object.assign(head, { drove });
  };
  if (d.action !== 'none') {
    if (v.kind === 'fits' || v.kind === 'plan_done')
      return withDecision(make('none', v.kind === 'fits' ? 'forecast_fits' : 'forecast_plan_done', v.why), { forecast: info(true) });
    return withAvoids(i, withDecision(d, { forecast: info(false) }), v.kind === 'compact' ? v.avoids : null);
  }
  // The tier rule said no. Only the forecast's "compact" changes that, and only where the tier rule had
  // no objection but the threshold or the tier's boundary list.
  if (v.kind === 'compact' && (d.code === 'above_threshold' || d.code === 'no_boundary')) return forecastCompact(i, make, v, strong, info(true));
  return withDecision(d, { forecast: info(false) });
}

/**
 * `{ ...d, ...patch }` for a decision, made at every evaluation point: an object spread copies property
 * by property on Node 20, many times slower than a literal naming the keys (see withState). The keys in
 * maker's order, then the forecast: the same object, key for key, as the spread (decisions are logged).
 */
export function withDecision(d: Decision, patch: Partial<Decision>): Decision {
  const next: Decision = {
    id: d.id,
    at: d.at,
    point: d.point,
    action: d.action,
    code: d.code,
    tier: d.tier,
    percentRemaining: d.percentRemaining,
    boundaries: d.boundaries,
    matched: d.matched,
    reason: d.reason,
  };
  if ('forecast' in d) next.forecast = d.forecast;
  return Object.assign(next, patch);
}

/** Actions that compact (or would, in tag and suggest mode): their reason says what compacting avoids. */
const COMPACTING: ReadonlySet<DecisionAction> = new Set<DecisionAction>(['compact', 'judge', 'preflight', 'suggest', 'tag']);

/** The words every compacting decision's reason carries (the bench and the tests check for them). */
export const AVOIDS = 'avoids ';

/**
 * Every decision that compacts says what compacting avoids: the forecast's scenario where it has one;
 * an emergency, the overflow of the window; a tier compaction otherwise, the emergency compaction
 * (outside a boundary, mid-work) that waiting past the tier's threshold leads to.
 */
export function withAvoids(i: DecisionInput, d: Decision, forecastAvoids: string | null): Decision {
  if (!COMPACTING.has(d.action) || d.reason.includes(AVOIDS)) return d;
  const s = i.settings;
  const t = i.tokens;
  const left = t ? `${kTok(Math.max(0, t.window - t.used))} of ${kTok(t.window)} left` : `${fmtPercent(i.percentRemaining ?? 0)} left`;
  let avoids: string;
  if (d.code === 'emergency') avoids = `${AVOIDS}overflowing the context window: ${left}`;
  else if (forecastAvoids) avoids = forecastAvoids;
  else {
    const room = t
      ? `${kTok(roomBeforeEmergency(t.used, t.window, s))} left before emergency`
      : `${fmtPercent(i.percentRemaining ?? 0)} left, emergency below ${s.emergency_percent_remaining_lt}%`;
    avoids = `${AVOIDS}an emergency compaction outside a boundary later: ${room}`;
  }
  return withDecision(d, { reason: `${d.reason}; ${avoids}` });
}

function forecastCompact(
  i: DecisionInput,
  make: Maker,
  v: Extract<ForecastVerdict, { kind: 'compact' }>,
  strong: BoundarySignal[],
  info: DecisionForecast,
): Decision {
  const guarded =
    hardGuard(i, make) ?? softGuard(i, make) ?? (i.packetWorthy ? null : make('none', 'not_packet_worthy', 'nothing worth a continuation packet yet'));
  if (guarded) return { ...guarded, forecast: { ...info, drove: false } };
  const close = isPhaseClose(strong);
  const matched = (close ? strong.filter((b) => PHASE_CLOSE_KINDS.includes(b.kind)) : strong).map((b) => b.id);
  const s = i.settings;
  let d: Decision;
  // A turn end alone (the plan finished): compact before the next message, as the tier rule's preflight does.
  if (s.mode === 'auto' && i.point === 'turn_complete' && !close) d = make('preflight', 'forecast', v.why, matched);
  else if (s.mode === 'auto' && s.judgment_enabled) d = make('judge', 'forecast', v.why, matched);
  else d = finish(i, make, 'forecast', v.why, matched);
  return { ...d, forecast: info };
}

/**
 * A forecast compaction held at a phase close fires at the next evaluation point that brings no new
 * close signal: the close (plan step, commit, closing message, turn end) is over, and every token the
 * close itself used is behind the compaction instead of ahead of it. The same guards apply; an
 * emergency there is an emergency.
 */
export function decideHeld(i: DecisionInput, hold: ForecastHold): Decision {
  const withHeld = { ...i, boundaries: [...hold.signals, ...i.boundaries] };
  const make = maker(withHeld);
  const s = i.settings;
  if (i.percentRemaining !== null && tierOf(i.percentRemaining, s) === 'emergency') return decide(i);
  const guarded =
    hardGuard(i, make) ?? softGuard(i, make) ?? (i.packetWorthy ? null : make('none', 'not_packet_worthy', 'nothing worth a continuation packet yet'));
  if (guarded) return { ...guarded, forecast: { ...hold.forecast, drove: false } };
  const why = `compacting at the end of this phase close ${describeGain(hold.forecast)}`;
  let d: Decision;
  if (s.mode === 'auto' && i.point === 'turn_complete') d = make('preflight', 'forecast', why, hold.matched);
  else if (s.mode === 'auto' && s.judgment_enabled) d = make('judge', 'forecast', why, hold.matched);
  else d = finish(withHeld, make, 'forecast', why, hold.matched);
  return { ...d, forecast: { ...hold.forecast, verdict: 'compact', drove: true } };
}

function tierDecide(i: DecisionInput, make: Maker): Decision {
  const s = i.settings;
  const p = i.percentRemaining;
  const tier: Tier | null = p === null ? null : tierOf(p, s);

  if (s.mode === 'off') return make('none', 'mode_off', 'mode is off');
  if (i.sequenceActive) return make('none', 'sequence_active', 'a compaction sequence is already running');
  if (p === null) return make('none', 'no_tokens', 'percent remaining cannot be computed yet');
  if (tier === null) return make('none', 'above_threshold', `above the early threshold (${s.early_percent_remaining_lt}%)`);
  const hard = hardGuard(i, make);
  if (hard) return hard;

  if (tier === 'emergency') {
    return finish(
      i,
      make,
      'emergency',
      `emergency: below ${s.emergency_percent_remaining_lt}%, compacting at this safe point without waiting for a boundary`,
      [],
    );
  }
  const soft = softGuard(i, make);
  if (soft) return soft;

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
  return finish(i, make, 'compact', 'rule passed', matched);
}
