/**
 * The engine's data: state, events in, commands and facts out. `step(state, event) → {state, commands,
 * facts}` (step.ts) is pure; the extension host (or the replay driver, or a test) executes the commands and
 * reports back with events; the facts are what happened, for the log and whoever shows it. Everything here is plain JSON so it can be logged, replayed and sent over JSON-RPC.
 */
import type { ForecastState } from '../arbiter/forecast';
import type { Prompts } from '../prompts/promptSet';
import type { Settings, Tier } from '../settings/schema';
import type { PlanState, PlanStep } from '../signals/plan';
import type { BoundarySignal, BoundarySource, DetectedBoundary } from '../signals/types';

export type EvaluationPoint = 'turn_complete' | 'tool_loop';

/**
 * Who writes the continuation packet: the agent itself (its own words, the default), or the rawr watcher,
 * which assembles one from the session trail when the agent cannot (no room, no answer in time, too short).
 */
export type PacketAuthor = 'agent' | 'watcher';

export type DecisionAction = 'compact' | 'judge' | 'preflight' | 'suggest' | 'tag' | 'none';
export type DecisionCode =
  | 'compact'
  | 'emergency'
  /** The model rejected a request as too long: emergency compaction with the watcher packet, no LM call. */
  | 'overflow'
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
  | 'forecast_held'
  /** The person stayed away past rawr.idleCompactMinutes after a turn that ended at a boundary in a tier: compact before they return. */
  | 'idle';

// A type, not an interface: a decision is logged as it is, and the log's record type (logformat/records.ts
// DecisionRecord) keeps unknown fields, which an interface cannot be assigned to.
export type DecisionBoundary = {
  id: string;
  kind: BoundarySignal['kind'];
  strength: BoundarySignal['strength'];
  source: BoundarySource;
  detail: string;
};

export interface Decision {
  id: string;
  at: number;
  point: EvaluationPoint | 'manual' | 'preflight' | 'overflow' | 'idle';
  action: DecisionAction;
  code: DecisionCode;
  tier: Tier | null;
  percentRemaining: number | null;
  /** Boundaries considered (non-synthetic, pending at this point). */
  boundaries: DecisionBoundary[];
  /** The boundaries that satisfied the tier's requirement. */
  matched: string[];
  reason: string;
  /** The phase forecast at this point, when it was computed (docs/benchmarks.md, "Forecasting the next phase"). */
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
  /** With verdict compact: what compacting now avoids ("avoids an emergency in the next phase: forecast 96k, room 61k before emergency"). */
  avoids?: string;
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

/** The trail the watcher-authored packet and judgment are built from (docs/ARCHITECTURE.md#the-trail). Bounded so steps stay cheap. */
export interface Trail {
  /** `text` is clipped; `chars` is the request's real length when it was longer (what a packet says was cut). */
  userRequests: Array<{ turn: number; at: number; text: string; chars?: number }>;
  actions: Array<{ turn: number; text: string }>;
  toolTail: TrailToolCall[];
  files: string[];
  lastAgentMessage: string;
  excerpt: Array<{ role: 'user' | 'assistant' | 'tool'; text: string }>;
  commits: string[];
  /** Files the agent changed (edit/write/patch tools), oldest first, bounded (see sequence/trailFacts.ts). */
  edited?: string[];
  /** The latest failed tool calls, newest last, bounded: they outlive toolTail. */
  errors?: TrailToolCall[];
  /** The latest shell command and its outcome. */
  lastCommand?: TrailToolCall & { exitCode?: number };
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
  | (SeqBase & { phase: 'awaiting_scratch'; scratchPath: string; packetAuthor: PacketAuthor })
  | (SeqBase & { phase: 'awaiting_packet'; scratchPath?: string })
  | (SeqBase & {
      phase: 'compacting';
      packet: string;
      /** The agent's packet as it wrote it, before rawr appended its recorded facts (the receipt's "kept"). */
      authored?: string;
      packetAuthor: PacketAuthor;
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
  lastCompaction: {
    at: number;
    turn: number;
    percentBefore: number | null;
    percentAfter: number | null;
    /** Set when the attempt did not compact (it still starts the cooldown): reasons must not claim a compaction. */
    outcome?: 'failed' | 'cancelled';
  } | null;
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
  /** A background summary was asked for since the last compaction (prepare_summary: once per cycle). */
  summaryPrepared?: boolean;
  /**
   * Armed at a turn end where rawr waited in a tier (arm_idle): if nothing happens in the thread before
   * the timer ends, the golden path runs while the person is away. Any activity disarms it.
   */
  idle?: IdleWatch | null;
  /** The boundaries evaluated since this turn began, newest last, bounded: what an idle compaction is at. */
  turnCloses?: DecisionBoundary[];
}

/** Per fact class: facts in rawr's trail, kept by the agent's summary or packet, added by rawr. */
export type Receipt = Record<string, { facts: number; kept: number; added: number }>;

export interface IdleWatch {
  timerId: string;
  /** The boundaries of the turn that ended (its commits and plan steps, the turn end). */
  boundaries: DecisionBoundary[];
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
  /** No judge can answer (none configured, or the call failed): the deterministic rule decides, saying why. */
  | { type: 'judgment_unavailable'; at: number; corrId: string; why: string }
  | { type: 'scratch_written'; at: number; seqId: string; path: string }
  /** The agent's packet; `scratchWritten` false when it was asked for scratch notes in the same turn and wrote none. */
  | { type: 'packet'; at: number; seqId: string; text: string; scratchWritten?: boolean }
  | { type: 'compaction_done'; at: number; seqId: string; tokensBefore: number; tokensAfter: number }
  | { type: 'compaction_failed'; at: number; seqId: string; error: string }
  | { type: 'timeout'; at: number; timerId: string }
  | { type: 'cancel'; at: number }
  | { type: 'compact_now'; at: number; instructions?: string }
  /** The model rejected the agent's request as too long for its context (overflow recovery, host/participant/overflow.ts). */
  | { type: 'overflow'; at: number; error: string }
  | { type: 'settings'; at: number; settings: Settings; prompts?: Prompts }
  /** Phase sizes of earlier threads in the workspace: the forecast's prior before this thread completes a phase. */
  | { type: 'phase_prior'; at: number; phases: number[] };

/**
 * What the host must do after a step: commands, executed in one place, the host's effect executor
 * (src/host/participant/effectExecutor.ts), each kind by exactly one case. Two sorts (the replay answers
 * only the first): a `Request` is answered by an event the engine waits for; a `Directive` is carried out
 * and nothing comes back.
 */
export type Command = Request | Directive;

/** Commands the engine waits on: each is answered by an event (a timer by its `timeout`). */
export type Request =
  | { type: 'request_judgment'; corrId: string; system: string; user: string; timeoutMs: number }
  | { type: 'start_timer'; timerId: string; ms: number }
  /**
   * Unlike start_timer (a deadline for a call the host is making), nobody is waiting on this one: the host
   * reports `timeout` itself when it ends with nothing having happened in the thread (idle compaction);
   * any activity first cancels it (cancel_timer).
   */
  | { type: 'arm_idle'; timerId: string; ms: number }
  | { type: 'request_scratch_write'; seqId: string; text: string; path: string }
  /**
   * The packet turn. With `scratchPath` the same turn also asks for the scratch notes (the agent calls
   * rawr_write_scratch and writes its packet in one reply): one model call instead of two.
   */
  | { type: 'request_packet'; seqId: string; text: string; scratchPath?: string }
  /** summarise false: no summary LM call (overflow recovery): the replacement is the recent turns, the handoff carries the packet. */
  | { type: 'compact'; seqId: string; packet: string; summaryPrompt: string; summarise?: false }
  /** Answered by compaction_failed (from the running compaction call, or at once when none runs). */
  | { type: 'abort_compaction'; seqId: string };

/** Commands carried out with nothing reported back: the thread, the chat, timers, background work. */
export type Directive =
  /** The person's message goes into the thread now. */
  | { type: 'append_user_message'; text: string }
  /** The person's message is held, and delivered unchanged (deliver_queued_input) when the sequence ends. */
  | { type: 'hold_user_message'; text: string; reason: 'sequence_running' | 'preflight' }
  | { type: 'annotate'; level: 'info' | 'warning'; text: string }
  | { type: 'suggest'; decision: Decision }
  /**
   * A compaction that will need a summary call is likely soon: summarise the thread as it stands now, in
   * the background, so that at the boundary only the part after it is left (sequence/preparedSummary.ts).
   */
  | { type: 'prepare_summary'; summaryPrompt: string; reason: string }
  | { type: 'cancel_timer'; timerId: string }
  | { type: 'progress'; text: string }
  | { type: 'inject_heads_up'; seqId: string; text: string }
  | { type: 'show_packet'; seqId: string; packet: string; author: PacketAuthor }
  /** The "Context compacted — …" line in the chat (the `compacted` fact says the same for the log). */
  | { type: 'show_compacted'; seqId: string; text: string }
  | { type: 'inject_handoff'; seqId: string; text: string }
  | { type: 'deliver_queued_input'; text: string };

/**
 * What happened, for the event log (src/core/log/loggedEffect.ts), the compaction panel and the status
 * bar: the engine's own account, so nobody re-derives it. Facts the host or the panel would otherwise
 * have to guess are said here: what became of every boundary report, when a sequence starts (with which
 * decision) and how it ends, how a judgment ended. Nothing is executed for a fact.
 */
export type Fact =
  | { type: 'decision'; decision: Decision }
  /** A boundary report: pending until the next evaluation point, or ignored (and why). */
  | { type: 'boundary_noted'; boundary: BoundarySignal; status: 'pending' | 'ignored'; why: 'new' | 'duplicate' | 'during_sequence' }
  /** Pending boundaries taken off the list: looked at by a decision (`by` its id), or moot after a compaction (`by` its seqId). */
  | { type: 'boundaries_consumed'; ids: string[]; by: string; why: 'decision' | 'compaction' }
  /** A golden-path sequence begins (the heads-up follows), with the decision that started it. */
  | { type: 'sequence_started'; seqId: string; decisionId: string; reason: string; packetAuthor: PacketAuthor }
  /** How a judgment request ended: answered (valid or not), timed out, or cancelled. */
  | { type: 'judgment_ended'; corrId: string; outcome: 'answered' | 'invalid' | 'timed_out' | 'cancelled' }
  /**
   * `receipt`: per fact class of rawr's trail (files edited, commits, open plan items, the current ask,
   * recent errors…), how many facts there were, how many the agent's own packet kept, and how many more
   * rawr's recorded facts and handoff carried (the same classes as the repair of a tool's summary).
   */
  | { type: 'compacted'; seqId: string; tokensBefore: number; tokensAfter: number; text: string; receipt?: Receipt }
  | { type: 'sequence_ended'; seqId: string; outcome: 'compacted' | 'failed' | 'cancelled' | 'vetoed' };

/** Everything a step says, in the order it said it (step.ts builds one list, then partitions it). */
export type Effect = Command | Fact;

/**
 * A step's output apart from the state: what to execute and what happened. Within a step, facts come
 * first in the log (see CoreService.step): a fact is what the event did, a command what it asks for next,
 * and every record of a step has the event's time, so no reader needs the interleaving.
 */
export interface StepOutput {
  commands: Command[];
  facts: Fact[];
}

export interface StepResult extends StepOutput {
  state: EngineState;
}
