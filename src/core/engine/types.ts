/**
 * The engine's data: state, events in, effects out. `step(state, event) → {state, effects}` (step.ts) is
 * pure; the extension host (or the replay driver, or a test) executes the effects and reports back with
 * events. Everything here is plain JSON so it can be logged, replayed and sent over JSON-RPC.
 */
import type { ForecastState } from '../arbiter/forecast';
import type { Prompts } from '../prompts/promptSet';
import type { Settings, Tier } from '../settings/schema';
import type { PlanState, PlanStep } from '../signals/plan';
import type { BoundarySignal, BoundarySource, DetectedBoundary } from '../signals/types';

export type EvaluationPoint = 'turn_complete' | 'tool_loop';

export type DecisionAction = 'compact' | 'judge' | 'preflight' | 'suggest' | 'tag' | 'none';
export type DecisionCode =
  | 'compact'
  | 'emergency'
  | 'manual'
  | 'preflight'
  | 'judgment_approved'
  | 'judgment_vetoed'
  | 'judgment_fallback'
  | 'judgment_pending'
  | 'mode_off'
  | 'sequence_active'
  | 'no_tokens'
  | 'above_threshold'
  | 'active_work'
  | 'mid_turn_policy'
  | 'stalled'
  | 'suspended'
  | 'cooldown'
  | 'no_boundary'
  | 'weak_only'
  | 'not_packet_worthy'
  /** The phase forecast: the next phase will not fit before the emergency line, compact at this close. */
  | 'forecast'
  /** The phase forecast: the next phase fits, a tier compaction here would be premature. */
  | 'forecast_fits'
  /** The plan is finished: the forecast waits for the end of the turn (the next request is the next phase). */
  | 'forecast_plan_done'
  /** The phase forecast: compact, but at the end of this phase close (its commit, message, turn end). */
  | 'forecast_held';

export interface DecisionBoundary {
  id: string;
  kind: BoundarySignal['kind'];
  strength: BoundarySignal['strength'];
  source: BoundarySource;
  detail: string;
}

export interface Decision {
  id: string;
  at: number;
  point: EvaluationPoint | 'manual' | 'preflight';
  action: DecisionAction;
  code: DecisionCode;
  tier: Tier | null;
  percentRemaining: number | null;
  /** Boundaries considered (non-synthetic, pending at this point). */
  boundaries: DecisionBoundary[];
  /** The boundaries that satisfied the tier's requirement. */
  matched: string[];
  reason: string;
  /** The phase forecast at this point, when it was computed (README, "Forecasting the next phase"). */
  forecast?: DecisionForecast;
}

export interface DecisionForecast {
  /** Tokens the next phase is expected to add. */
  nextPhaseTokens: number;
  /** Tokens left before the emergency line. */
  roomTokens: number;
  basis: 'thread' | 'workspace' | 'settings';
  /** Completed phases of this thread. */
  phases: number;
  /** The phase sizes the estimate was taken from (also the prior of later threads in the workspace). */
  samples?: number[];
  planFinished: boolean;
  verdict: 'compact' | 'fits' | 'plan_done' | 'defer';
  /** The forecast, not the tier rule, made this decision (it compacted or held back a compaction). */
  drove: boolean;
}

export interface TrailToolCall {
  id: string;
  name: string;
  input: string;
  output?: string;
  isError?: boolean;
}

/** Seed 000 Variant B's structured trail + what judgment needs (seed 003). Bounded so steps stay cheap. */
export interface Trail {
  userRequests: Array<{ turn: number; at: number; text: string }>;
  actions: Array<{ turn: number; text: string }>;
  toolTail: TrailToolCall[];
  files: string[];
  lastAgentMessage: string;
  excerpt: Array<{ role: 'user' | 'assistant' | 'tool'; text: string }>;
  commits: string[];
}

export type SequencePhase = SequenceState['phase'];
interface SeqBase {
  seqId: string;
  decision: Decision;
  /** Judgment verdict that approved this sequence, if any (shown in the "Context compacted" line). */
  judgment?: string;
}
export type SequenceState =
  | { phase: 'idle' }
  | { phase: 'assessing'; seqId: string; corrId: string; decision: Decision }
  | (SeqBase & { phase: 'awaiting_scratch'; scratchPath: string; variant: 'A' | 'B' })
  | (SeqBase & { phase: 'awaiting_packet'; scratchPath?: string })
  | (SeqBase & {
      phase: 'compacting';
      packet: string;
      packetAuthor: 'agent' | 'watcher';
      scratchPath?: string;
      tokensBefore: number | null;
      cancelRequested: boolean;
    });

export interface EngineState {
  threadId: string;
  agentName: string;
  settings: Settings;
  prompts: Prompts;
  /** User turns started in this thread. */
  turn: number;
  tokens: { used: number; window: number } | null;
  /** Unconsumed, non-synthetic boundaries awaiting the next evaluation point. */
  pending: BoundarySignal[];
  /** Recently seen boundary ids (git and terminal may both report one commit). Bounded. */
  seenIds: string[];
  openToolCalls: string[];
  queuedInput: string[];
  workActivityThisTurn: boolean;
  plan: PlanState | null;
  lastCompaction: { at: number; turn: number; percentBefore: number | null; percentAfter: number | null } | null;
  stall: 'none' | 'stalled' | 'suspended';
  preflight: Decision | null;
  manualPending: { instructions: string } | null;
  instructions: string;
  trail: Trail;
  seq: SequenceState;
  counter: number;
  lastDecision: Decision | null;
  /** Phase sizes and growth for the phase forecast. */
  forecast: ForecastState;
  /** A forecast compaction decided at a phase close, held until the close ends (the next evaluation point). */
  forecastHold: ForecastHold | null;
}

export interface ForecastHold {
  /** The close's boundaries (consumed when the hold was made; the hold fires once). */
  signals: BoundarySignal[];
  matched: string[];
  forecast: DecisionForecast;
}

export type EngineEvent =
  | { type: 'user_message'; at: number; text: string }
  | { type: 'assistant_message'; at: number; text: string }
  | { type: 'tool_call'; at: number; id: string; name: string; input: unknown }
  | { type: 'tool_result'; at: number; id: string; output: string; isError: boolean; exitCode?: number }
  | { type: 'tokens'; at: number; used: number; window: number }
  | { type: 'boundary'; at: number; source: BoundarySource; boundary: DetectedBoundary }
  | { type: 'plan'; at: number; steps: PlanStep[] }
  | { type: 'evaluate'; at: number; point: EvaluationPoint }
  | { type: 'judgment_result'; at: number; corrId: string; text: string }
  | { type: 'scratch_written'; at: number; seqId: string; path: string }
  | { type: 'packet'; at: number; seqId: string; text: string }
  | { type: 'compaction_done'; at: number; seqId: string; tokensBefore: number; tokensAfter: number }
  | { type: 'compaction_failed'; at: number; seqId: string; error: string }
  | { type: 'timeout'; at: number; timerId: string }
  | { type: 'cancel'; at: number }
  | { type: 'compact_now'; at: number; instructions?: string }
  | { type: 'settings'; at: number; settings: Settings; prompts?: Prompts }
  /** Phase sizes of earlier threads in the workspace: the forecast's prior before this thread completes a phase. */
  | { type: 'phase_prior'; at: number; phases: number[] };

export type Effect =
  | { type: 'decision'; decision: Decision }
  | { type: 'annotate'; level: 'info' | 'warning'; text: string }
  | { type: 'suggest'; decision: Decision }
  | { type: 'request_judgment'; corrId: string; system: string; user: string; timeoutMs: number }
  | { type: 'start_timer'; timerId: string; ms: number }
  | { type: 'cancel_timer'; timerId: string }
  | { type: 'progress'; text: string }
  | { type: 'inject_heads_up'; seqId: string; text: string }
  | { type: 'request_scratch_write'; seqId: string; text: string; path: string }
  | { type: 'request_packet'; seqId: string; text: string }
  | { type: 'show_packet'; seqId: string; packet: string; author: 'agent' | 'watcher' }
  | { type: 'compact'; seqId: string; packet: string; summaryPrompt: string }
  | { type: 'abort_compaction'; seqId: string }
  | { type: 'compacted'; seqId: string; tokensBefore: number; tokensAfter: number; text: string }
  | { type: 'inject_handoff'; seqId: string; text: string }
  | { type: 'deliver_queued_input'; text: string }
  | { type: 'sequence_ended'; seqId: string; outcome: 'compacted' | 'failed' | 'cancelled' | 'vetoed' };

export interface StepResult {
  state: EngineState;
  effects: Effect[];
}
