/**
 * What a window shows of a thread's engine (the status bar, /status, whether a sequence runs): read off
 * the state by the core and returned with every answer, so the host keeps no copy of the engine's state.
 */
import type { Decision, EngineState, SequencePhase } from './types';

export interface ThreadStatus {
  agentName: string;
  lastDecision: Decision | null;
  /** The compaction sequence's phase ('idle' when none runs). */
  phase: SequencePhase;
  /** The last count the engine was told, if any. */
  tokens: { used: number; window: number } | null;
}

export function statusOf(s: EngineState): ThreadStatus {
  return { agentName: s.agentName, lastDecision: s.lastDecision, phase: s.seq.phase, tokens: s.tokens };
}
