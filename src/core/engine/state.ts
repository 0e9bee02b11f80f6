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

/**
 * `{ ...s, ...patch }` for the engine state. Object spread copies property by property on Node 20, about
 * 25 times slower than a literal naming the keys, and step() copies the state a few times per event:
 * the hot paths use this (the cold replay rate of `npm run bench`). The mapped type makes tsc reject
 * the literal when EngineState gains a key it does not name (an optional one goes in OptionalStateKey
 * and is copied below); the order is initialState's.
 */
export function withState(s: EngineState, patch: Partial<EngineState>): EngineState {
  const next: { [K in Exclude<keyof EngineState, OptionalStateKey>]-?: EngineState[K] } & Partial<Pick<EngineState, OptionalStateKey>> = {
    threadId: s.threadId,
    agentName: s.agentName,
    settings: s.settings,
    prompts: s.prompts,
    turn: s.turn,
    tokens: s.tokens,
    pending: s.pending,
    seenIds: s.seenIds,
    openToolCalls: s.openToolCalls,
    queuedInput: s.queuedInput,
    workActivityThisTurn: s.workActivityThisTurn,
    plan: s.plan,
    lastCompaction: s.lastCompaction,
    stall: s.stall,
    preflight: s.preflight,
    manualPending: s.manualPending,
    instructions: s.instructions,
    trail: s.trail,
    seq: s.seq,
    counter: s.counter,
    lastDecision: s.lastDecision,
    forecast: s.forecast,
    forecastHold: s.forecastHold,
  };
  // An optional key is copied when set, so that a state without it stays without it (as a spread keeps it).
  if (s.summaryPrepared !== undefined) next.summaryPrepared = s.summaryPrepared;
  if (s.idle !== undefined) next.idle = s.idle;
  if (s.turnCloses !== undefined) next.turnCloses = s.turnCloses;
  return Object.assign(next, patch);
}
/** The optional keys of EngineState, which withState copies only when set. */
type OptionalStateKey = 'summaryPrepared' | 'idle' | 'turnCloses';

/** `{ ...t, ...patch }` for the trail, for the same reason as withState (an optional key is copied when set). */
export function withTrail(t: Trail, patch: Partial<Trail>): Trail {
  const next: Trail = {
    userRequests: t.userRequests,
    actions: t.actions,
    toolTail: t.toolTail,
    files: t.files,
    lastAgentMessage: t.lastAgentMessage,
    excerpt: t.excerpt,
    commits: t.commits,
  };
  if (t.edited !== undefined) next.edited = t.edited;
  if (t.errors !== undefined) next.errors = t.errors;
  if (t.lastCommand !== undefined) next.lastCommand = t.lastCommand;
  return Object.assign(next, patch);
}
/** tsc fails here when Trail gains a key withTrail does not copy. */
type TrailKeysCopied = 'userRequests' | 'actions' | 'toolTail' | 'files' | 'lastAgentMessage' | 'excerpt' | 'commits' | 'edited' | 'errors' | 'lastCommand';
const trailKeysCovered: Exclude<keyof Trail, TrailKeysCopied> extends never ? true : never = true;
void trailKeysCovered;

/** Appends and keeps only the last `max` items (bounded state keeps every step cheap). */
export function pushCapped<T>(arr: readonly T[], item: T, max: number): T[] {
  const out = arr.length >= max ? arr.slice(arr.length - max + 1) : arr.slice();
  out.push(item);
  return out;
}

export { clip } from '../text/clip';
