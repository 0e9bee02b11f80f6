/**
 * Observations: the events that report what the agent did or how full the thread is, and whose step only
 * notes it — facts, and at most an `annotate` or a `cancel_timer` (idle disarm), never a request nor a
 * change to the thread. The host sends them with the next event that can decide something (an evaluation
 * point, a user message, an answer), in one round trip to the core: the engine sees the same events in
 * the same order, a little later (test/property/engine.property.test.ts, invariant 8, holds every step to this).
 */
import type { EngineEvent } from './types';

export type Observation = Extract<EngineEvent, { type: 'assistant_message' | 'tool_call' | 'tool_result' | 'plan' | 'boundary' | 'tokens' }>;

/** Per event type, whether it is an observation (a Record: a new event type must be placed here). */
const OBSERVATION: Record<EngineEvent['type'], boolean> = {
  assistant_message: true,
  tool_call: true,
  tool_result: true,
  plan: true,
  boundary: true,
  tokens: true,
  user_message: false,
  evaluate: false,
  judgment_result: false,
  judgment_unavailable: false,
  scratch_written: false,
  packet: false,
  compaction_done: false,
  compaction_failed: false,
  timeout: false,
  cancel: false,
  compact_now: false,
  overflow: false,
  settings: false,
  phase_prior: false,
};

export function isObservation(ev: EngineEvent): ev is Observation {
  return OBSERVATION[ev.type];
}
