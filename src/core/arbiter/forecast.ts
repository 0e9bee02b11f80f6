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
 * At a phase close the arbiter compares the room left before the emergency line with the forecast plus
 * `forecast_margin_percent`: too little room, and the next phase would end in an emergency compaction
 * mid-phase, so rawr compacts at this boundary (even above the early threshold); enough room, and an
 * early/ready/asap compaction would be premature, so rawr waits for a later boundary. Emergency is never
 * affected. Pure and O(recent phases).
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
}

export function emptyForecast(): ForecastState {
  return { grown: 0, closeAt: 0, phases: [], prior: [] };
}

/** A new context size was reported: the change is growth (a drop too: estimates are noisy both ways). */
export function onTokens(f: ForecastState, prevUsed: number | null, used: number): ForecastState {
  if (prevUsed === null || used === prevUsed) return f;
  return { ...f, grown: Math.max(f.closeAt, f.grown + used - prevUsed) };
}

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
  };
}

/** What the forecast says at an evaluation point with strong boundaries (emergency is never asked). */
export type ForecastVerdict =
  /** The next phase does not fit before the emergency line: compact at this phase close. */
  | { kind: 'compact'; why: string }
  /** It fits: a tier compaction here would be premature. */
  | { kind: 'fits'; why: string }
  /** The plan is finished: the next phase starts with the next request; decide at the end of the turn. */
  | { kind: 'plan_done'; why: string }
  /** The forecast has nothing to add here: the tier rules decide. */
  | { kind: 'defer' };

export const kTok = (n: number) => (Math.abs(n) >= 1000 ? `${Math.round(n / 1000)}k` : String(Math.round(n)));

/** The room before the emergency line, in tokens. */
export const roomBeforeEmergency = (used: number, window: number, s: Settings) => Math.round(window * (1 - s.emergency_percent_remaining_lt / 100) - used);

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
  const need = Math.round(ahead * (1 + s.forecast_margin_percent / 100));
  const where = boundaryWord(i.boundaries, close);
  if (f.planFinished && i.point === 'tool_loop' && close) {
    return {
      kind: 'plan_done',
      why: `the plan is finished: the next phase starts with the next request, so rawr decides at the end of the turn (next phase ≈ ${kTok(f.nextPhaseTokens)} tokens, ${kTok(room)} left before emergency)`,
    };
  }
  if (room < need) {
    // Only a phase close (or the end of the turn that finished the plan) is worth compacting at early.
    if (!close && !(f.planFinished && i.point === 'turn_complete')) return { kind: 'defer' };
    const at = close ? `at this ${where}` : 'before the next request (the plan is finished)';
    return { kind: 'compact', why: `${what} ≈ ${kTok(f.nextPhaseTokens)} tokens, ${kTok(room)} left before emergency: compacting ${at}` };
  }
  // "It fits" needs this thread's own phases: a prior alone never holds back a tier compaction.
  if (f.basis !== 'thread') return { kind: 'defer' };
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
