/** Initial engine state and the small pure helpers the step function shares. */
import { emptyForecast } from '../arbiter/forecast';
import type { Prompts } from '../prompts/promptSet';
import type { Settings } from '../settings/schema';
import type { EngineState, Trail } from './types';

export function emptyTrail(): Trail {
  return { userRequests: [], actions: [], toolTail: [], files: [], lastAgentMessage: '', excerpt: [], commits: [] };
}

export function initialState(opts: { threadId: string; agentName?: string; settings: Settings; prompts: Prompts }): EngineState {
  return {
    threadId: opts.threadId,
    agentName: opts.agentName ?? `rawr-${opts.threadId.slice(0, 8)}`,
    settings: opts.settings,
    prompts: opts.prompts,
    turn: 0,
    tokens: null,
    pending: [],
    seenIds: [],
    openToolCalls: [],
    queuedInput: [],
    workActivityThisTurn: false,
    plan: null,
    lastCompaction: null,
    stall: 'none',
    preflight: null,
    manualPending: null,
    instructions: '',
    trail: emptyTrail(),
    seq: { phase: 'idle' },
    counter: 0,
    lastDecision: null,
    forecast: emptyForecast(),
    forecastHold: null,
    summaryPrepared: false,
  };
}

/** Appends and keeps only the last `max` items (bounded state keeps every step cheap). */
export function pushCapped<T>(arr: readonly T[], item: T, max: number): T[] {
  const out = arr.length >= max ? arr.slice(arr.length - max + 1) : arr.slice();
  out.push(item);
  return out;
}

export { clip } from '../text/clip';
