/**
 * The phase forecast (README, "Forecasting the next phase"): how many tokens will the next phase add?
 *
 * A phase is the work between two phase closes — evaluation points that see a commit, a completed plan
 * step or a PR step. Its size is the growth of the context between the two closes, counted across rawr's
 * own compactions (the growth, not the context size). The forecast of the next phase is a robust upper
 * estimate of the recent phases of this thread: the largest of the last `forecast_recent_phases`, so one
 * long phase is remembered for a while but an old one is not. Before this thread completed a phase, a
 * prior stands in: the phases of earlier threads in the workspace, else `forecast_first_phase_percent` of
 * the window.
 *
 * At a phase close the arbiter compares two schedules over the next phase: compact now, or wait
 * (`compactionBuys`). The forecast is uncertain, so each recent phase (plus `forecast_margin_percent`) is a
 * scenario of what the next one adds; in each, it counts the emergency compactions the phase would need
 * from the context now and from a fresh one (the size the thread had right after its last compaction).
 * Compacting now buys something only when, in some scenario, it avoids an emergency: a next phase that fits
 * anyway needs no compaction now (a later boundary is as good and knows more), and a phase larger than even
 * a fresh context can hold ends in its emergency whether rawr compacts now or not (a phase that itself
 * exceeded the room, kept as one sample, must not make rawr compact where it cannot help). So rawr compacts
 * at this boundary (even above the early threshold) when it avoids an emergency, and otherwise an
 * early/ready/asap compaction is premature and waits for a later boundary. Emergency is never affected.
 * Pure and O(recent phases).
 */
import type { Settings } from '../settings/schema';
import type { PlanState } from '../signals/plan';
import type { BoundaryKind, BoundarySignal } from '../signals/types';

/** The boundary kinds that close a phase (the early tier's kinds by default: real units of work). */
export const PHASE_CLOSE_KINDS: readonly BoundaryKind[] = ['commit', 'plan_checkpoint', 'pr_checkpoint'];

/**
 * Two closes less than this share of the window apart are one close (a plan step completed, then its
 * commit two tool calls later): recording both would add a tiny "phase" that drags the forecast down.
 */
const SAME_CLOSE_FRACTION = 0.03;

const MAX_PHASES = 20;

export interface ForecastState {
  /** Tokens added to this thread so far: every change of the context except rawr's own compactions. */
  grown: number;
  /** `grown` at the last phase close (0: the thread start). */
  closeAt: number;
  /** Sizes of the completed phases of this thread, oldest first (bounded). */
  phases: number[];
  /** Phase sizes of earlier threads in this workspace, oldest first (bounded); empty: none known. */
  prior: number[];
  /**
   * What a compaction leaves: the context right after this thread's last compaction; before one, the
   * thread's first count (a fresh context holds at least that). null: no count yet.
   */
  fresh: number | null;
}

export function emptyForecast(): ForecastState {
  return { grown: 0, closeAt: 0, phases: [], prior: [], fresh: null };
}

/** A new context size was reported: the change is growth (a drop too: estimates are noisy both ways). */
export function onTokens(f: ForecastState, prevUsed: number | null, used: number): ForecastState {
  if (prevUsed === null) return f.fresh === null ? { ...f, fresh: used } : f;
  if (used === prevUsed) return f;
  return { ...f, grown: Math.max(f.closeAt, f.grown + used - prevUsed) };
}

/** A compaction of this thread finished: what it left is what the next one will leave. */
export const onCompacted = (f: ForecastState, after: number): ForecastState => (after >= 0 ? { ...f, fresh: after } : f);

export const isPhaseClose = (bs: readonly BoundarySignal[]) => bs.some((b) => b.strength === 'strong' && PHASE_CLOSE_KINDS.includes(b.kind));

/** At an evaluation point that sees a phase close: the phase since the previous close is complete. */
export function onPhaseClose(f: ForecastState, window: number): ForecastState {
  const size = f.grown - f.closeAt;
  if (size < SAME_CLOSE_FRACTION * window) return f;
  const phases = f.phases.length >= MAX_PHASES ? f.phases.slice(1) : f.phases.slice();
  phases.push(size);
  return { ...f, closeAt: f.grown, phases };
}

export function withPrior(f: ForecastState, prior: readonly number[]): ForecastState {
  return { ...f, prior: prior.filter((x) => Number.isFinite(x) && x > 0).slice(-MAX_PHASES) };
}

export interface PhaseForecast {
  /** Tokens the next phase is expected to add (a robust upper estimate). */
  nextPhaseTokens: number;
  /** What the estimate rests on. */
  basis: 'thread' | 'workspace' | 'settings';
  /** The phase sizes the estimate was taken from (most recent last). */
  samples: number[];
  /** Completed phases of this thread. */
  phases: number;
  /** Growth since the last phase close. */
  sinceClose: number;
  /** The plan is known and every step of it is completed: no next phase is planned. */
  planFinished: boolean;
  /** The context a compaction now would leave (ForecastState.fresh; 0 when unknown). */
  freshTokens: number;
}

export function forecastNext(f: ForecastState, s: Settings, window: number, plan: PlanState | null): PhaseForecast {
  const k = s.forecast_recent_phases;
  let samples: number[];
  let basis: PhaseForecast['basis'];
  if (f.phases.length > 0) {
    samples = f.phases.slice(-k);
    basis = 'thread';
  } else if (f.prior.length > 0) {
    samples = f.prior.slice(-k);
    basis = 'workspace';
  } else {
    samples = [Math.round((s.forecast_first_phase_percent / 100) * window)];
    basis = 'settings';
  }
  const planFinished = plan !== null && plan.steps.length > 0 && plan.steps.every((st) => st.status === 'completed');
  return {
    nextPhaseTokens: Math.max(...samples),
    basis,
    samples,
    phases: f.phases.length,
    sinceClose: Math.max(0, f.grown - f.closeAt),
    planFinished,
    freshTokens: f.fresh ?? 0,
  };
}

/** What the forecast says at an evaluation point with strong boundaries (emergency is never asked). */
export type ForecastVerdict =
  /**
   * Compacting at this phase close avoids an emergency in the next phase (`tokens`: the scenario that says
   * so; `avoids`: "avoids an emergency in the next phase: forecast 96k, room 61k before emergency").
   */
  | { kind: 'compact'; why: string; tokens: number; avoids: string }
  /** Compacting now avoids nothing: a tier compaction here would be premature. */
  | { kind: 'fits'; why: string }
  /** The plan is finished: the next phase starts with the next request; decide at the end of the turn. */
  | { kind: 'plan_done'; why: string }
  /** The forecast has nothing to add here: the tier rules decide. */
  | { kind: 'defer' };

export const kTok = (n: number) => (Math.abs(n) >= 1000 ? `${Math.round(n / 1000)}k` : String(Math.round(n)));

/** The emergency line in tokens. */
const emergencyLine = (window: number, s: Settings) => window * (1 - s.emergency_percent_remaining_lt / 100);

/** The room before the emergency line, in tokens. */
export const roomBeforeEmergency = (used: number, window: number, s: Settings) => Math.round(emergencyLine(window, s) - used);

/**
 * Emergency compactions a phase adding `grow` tokens needs from a context of `from`: one when it reaches
 * the line, then one each time the context left by a compaction (`fresh`) grows to the line again.
 */
export function emergenciesIn(from: number, grow: number, line: number, fresh: number): number {
  if (from + grow < line) return 0;
  const lap = line - fresh;
  if (lap <= 0) return Number.POSITIVE_INFINITY; // a compaction cannot get under the line: every point is one
  return 1 + Math.floor((from + grow - line) / lap);
}

/** What compacting now buys over waiting, in the scenario where the next phase adds `grow` tokens. */
export function compactionBuys(i: { used: number; grow: number; fresh: number; window: number; settings: Settings }): number {
  const line = emergencyLine(i.window, i.settings);
  const wait = emergenciesIn(i.used, i.grow, line, i.fresh);
  const now = emergenciesIn(Math.min(i.fresh, i.used), i.grow, line, i.fresh);
  return wait === now ? 0 : wait - now;
}

/**
 * What the next phase may add: each recent phase, and — when the phases have been growing — the trend
 * carried one phase further (the last phase plus its growth over the one before): phases that grow make
 * every recent size an underestimate.
 */
export function phaseScenarios(samples: readonly number[]): number[] {
  const n = samples.length;
  // Growing: each of the last three larger than the one before (two in a row can be noise).
  if (n >= 3 && samples[n - 1]! > samples[n - 2]! && samples[n - 2]! > samples[n - 3]!) return [...samples, 2 * samples[n - 1]! - samples[n - 2]!];
  return [...samples];
}

export function forecastVerdict(i: {
  forecast: PhaseForecast;
  settings: Settings;
  used: number;
  window: number;
  point: 'turn_complete' | 'tool_loop';
  boundaries: readonly BoundarySignal[];
}): ForecastVerdict {
  const { forecast: f, settings: s } = i;
  const close = isPhaseClose(i.boundaries);
  const room = roomBeforeEmergency(i.used, i.window, s);
  // At a close the whole next phase is ahead (also at the end of the turn that finished the plan: the
  // next request is the next phase); elsewhere, only what the phase has not used yet.
  const whole = close || (i.point === 'turn_complete' && f.planFinished);
  const what = whole ? 'next phase' : 'rest of this phase';
  const ahead = whole ? f.nextPhaseTokens : f.nextPhaseTokens - f.sinceClose;
  // A phase already longer than the forecast: how much is left is unknown, the tier rules decide.
  if (ahead <= 0) return { kind: 'defer' };
  const where = boundaryWord(i.boundaries, close);
  if (f.planFinished && i.point === 'tool_loop' && close) {
    return {
      kind: 'plan_done',
      why: `the plan is finished: the next phase starts with the next request, so rawr decides at the end of the turn (next phase ≈ ${kTok(f.nextPhaseTokens)} tokens, ${kTok(room)} left before emergency)`,
    };
  }
  // Each recent phase (with the margin) is a scenario of what is ahead; compacting now is worth it when,
  // in one of them, it avoids an emergency. The largest such scenario is the one the reason names.
  const margin = 1 + s.forecast_margin_percent / 100;
  const scenarios = phaseScenarios(f.samples)
    .map((x) => (whole ? x : x - f.sinceClose))
    .filter((x) => x > 0);
  let best: { size: number; avoids: number } | null = null;
  for (const size of scenarios) {
    const grow = Math.round(size * margin);
    const avoids = compactionBuys({ used: i.used, grow, fresh: f.freshTokens, window: i.window, settings: s });
    if (avoids > 0 && (!best || size > best.size)) best = { size, avoids };
  }
  if (best) {
    // Only a phase close (or the end of the turn that finished the plan) is worth compacting at early.
    if (!close && !(f.planFinished && i.point === 'turn_complete')) return { kind: 'defer' };
    const at = close ? `at this ${where}` : 'before the next request (the plan is finished)';
    const avoids = `avoids ${best.avoids === 1 ? 'an emergency' : `${best.avoids} emergencies`} in the ${what}: forecast ${kTok(best.size)}, room ${kTok(room)} before emergency`;
    return { kind: 'compact', tokens: best.size, avoids, why: `compacting ${at} ${avoids}` };
  }
  // "It fits" needs this thread's own phases: a prior alone never holds back a tier compaction.
  if (f.basis !== 'thread') return { kind: 'defer' };
  const need = Math.round(ahead * margin);
  const fresh = roomBeforeEmergency(f.freshTokens, i.window, s);
  if (need > room && need >= fresh) {
    return {
      kind: 'fits',
      why: `${what} ≈ ${kTok(ahead)} tokens, more than even a fresh context's ${kTok(fresh)} before emergency: compacting now would not avoid its emergency, waiting for a later boundary`,
    };
  }
  return { kind: 'fits', why: `${what} ≈ ${kTok(ahead)} tokens, ${kTok(room)} left before emergency: it fits, waiting for a later boundary` };
}

function boundaryWord(bs: readonly BoundarySignal[], close: boolean): string {
  const kinds = new Set(bs.filter((b) => b.strength === 'strong').map((b) => b.kind));
  if (close) {
    if (kinds.has('commit')) return 'commit';
    if (kinds.has('plan_checkpoint')) return 'plan step';
    return 'PR step';
  }
  return 'boundary';
}

/** "next phase ≈ 48k tokens, 41k left before emergency". */
export const describeForecast = (f: { nextPhaseTokens: number; roomTokens: number }) =>
  `next phase ≈ ${kTok(f.nextPhaseTokens)} tokens, ${kTok(f.roomTokens)} left before emergency`;

/** What a forecast compaction avoids, else the plain forecast (a decision that compacts says what it buys). */
export const describeGain = (f: { nextPhaseTokens: number; roomTokens: number; avoids?: string }) => f.avoids ?? describeForecast(f);
