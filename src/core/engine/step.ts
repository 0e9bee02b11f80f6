/**
 * The arbiter and the golden-path sequence as one pure function: `step(state, event) → {state, commands, facts}`.
 *
 *   idle ──evaluate──▶ (decide) ──judge──▶ assessing ──approve──┐
 *     ▲                    └──compact──────────────────────────┤ inject heads-up
 *     │                                                        ▼
 *     │             awaiting_scratch ──scratch_written──▶ awaiting_packet ──packet/timeout──┐
 *     │                                                              (agent or watcher packet) ▼
 *     └──── inject handoff, deliver queued input ◀──compaction_done── compacting ◀────────┘
 *
 * Any failure, veto or cancel returns to idle with queued input delivered; the thread is only ever
 * swapped by the executor when it reports compaction_done, so it is untouched or fully swapped.
 * Events that do not belong to the current phase or sequence are stale and ignored.
 *
 * What the host would otherwise have to guess is said outright: where a person's message went (the
 * commands append_user_message / hold_user_message), what became of each boundary report (the facts
 * boundary_noted, boundaries_consumed), when a sequence starts and with which decision, how a judgment
 * ended. The reducer pushes commands and facts to one list as it goes; partition.ts splits it.
 */
import { coolingDown, decide, decideHeld, decisionFor, readsForecast } from '../arbiter/decide';
import { describeGain, forecastNext, isPhaseClose, onCompacted, onPhaseClose, onTokens, withPrior } from '../arbiter/forecast';
import { buildJudgmentPrompt, fallbackJudgment, parseJudgment, type Judgment } from '../arbiter/judgment';
import { percentRemaining, tierOf } from '../arbiter/tiers';
import { fillTemplate } from '../prompts/promptSet';
import { assembleWatcherPacket, validateAgentPacket, withTrailFacts } from '../sequence/packet';
import { handoffText, headsUpText, scratchPathFor } from '../sequence/texts';
import { noteToolCall, noteToolResult } from '../sequence/trailFacts';
import { detectMarkers } from '../signals/markers';
import { handOnMemberSet, memberSet } from '../text/memberSet';
import { kTokens } from '../text/units';
import { repairFor, trailFacts } from '../sequence/repair';
import { applyPlan } from '../signals/plan';
import { strengthOf, type BoundarySignal, type BoundarySource, type DetectedBoundary } from '../signals/types';
import { partition } from './partition';
import { clip, pushCapped, withState, withTrail } from './state';
import type { DecisionInput } from '../arbiter/decide';
import type {
  Decision,
  DecisionBoundary,
  Effect,
  EngineEvent,
  EngineState,
  EvaluationPoint,
  PacketAuthor,
  Receipt,
  SequenceState,
  StepResult,
  TrailToolCall,
} from './types';

/**
 * Below this many free tokens even a packet turn may not fit: rawr writes the packet (docs/ARCHITECTURE.md#packets).
 * 8k covers a packet request plus a long packet; small windows scale it down to 15% of the window.
 */
const minTokensForAgentPacket = (window: number) => Math.min(8_000, window * 0.15);

/**
 * Calls waiting for their result. A recording may hold calls that never got one (an interrupted turn):
 * the oldest are forgotten past this many, so a hostile file cannot grow the state without bound.
 */
const MAX_OPEN_TOOL_CALLS = 1_000;

export function step(state: EngineState, ev: EngineEvent): StepResult {
  const fx: Effect[] = [];
  const next = reduce(disarmIdle(state, ev, fx), ev, fx);
  // Named, not spread: an object spread costs more than the rest of a typical step's bookkeeping.
  const { commands, facts } = partition(fx);
  return { state: next, commands, facts };
}

/**
 * Idle compaction is for a thread nobody is using: anything the agent or the person does, or a settings
 * change that turns it off, disarms the watch before the event is handled (its timer is cancelled).
 * Token counts, boundaries seen elsewhere in the workspace and the sequence's own reports do not.
 */
function disarmIdle(s: EngineState, ev: EngineEvent, fx: Effect[]): EngineState {
  if (!s.idle) return s;
  switch (ev.type) {
    case 'user_message':
    case 'assistant_message':
    case 'tool_call':
    case 'tool_result':
    case 'plan':
    case 'evaluate':
    case 'compact_now':
    case 'overflow':
    case 'cancel':
      break;
    case 'settings':
      if (ev.settings.mode === 'auto' && ev.settings.idle_compact_minutes > 0) return s;
      break;
    case 'timeout':
      return s; // the idle timer's own end is handled by onTimeout
    case 'tokens':
    case 'boundary':
    case 'phase_prior':
    case 'judgment_result':
    case 'judgment_unavailable':
    case 'scratch_written':
    case 'packet':
    case 'compaction_done':
    case 'compaction_failed':
      return s;
    default: {
      const unknown: never = ev;
      throw new Error(`unknown event ${JSON.stringify(unknown)}`);
    }
  }
  fx.push({ type: 'cancel_timer', timerId: s.idle.timerId });
  return withState(s, { idle: null });
}

function reduce(s: EngineState, ev: EngineEvent, fx: Effect[]): EngineState {
  const active = s.seq.phase !== 'idle';
  switch (ev.type) {
    case 'settings':
      return { ...s, settings: ev.settings, prompts: ev.prompts ?? s.prompts };
    case 'tokens': {
      // Growth for the phase forecast; the sequence's own turns are compacted away and do not count.
      const forecast = !active && s.tokens && s.tokens.window === ev.window ? onTokens(s.forecast, s.tokens.used, ev.used) : s.forecast;
      return withState(s, { tokens: { used: ev.used, window: ev.window }, forecast });
    }
    case 'phase_prior':
      return { ...s, forecast: withPrior(s.forecast, ev.phases) };
    case 'user_message': {
      if (active) {
        fx.push({ type: 'hold_user_message', text: ev.text, reason: 'sequence_running' });
        return { ...s, queuedInput: [...s.queuedInput, ev.text] };
      }
      // A preflight never starts over an unanswered tool call (the arbiter's rule 3 holds here too).
      if (s.preflight && s.settings.mode === 'auto' && s.openToolCalls.length === 0) {
        const d: Decision = { ...s.preflight, id: `d${s.counter + 1}`, at: ev.at, point: 'preflight', action: 'compact' };
        const held = { ...s, counter: s.counter + 1, preflight: null, queuedInput: [...s.queuedInput, ev.text] };
        fx.push({ type: 'hold_user_message', text: ev.text, reason: 'preflight' });
        fx.push({ type: 'decision', decision: d });
        return startSequence({ ...held, lastDecision: d }, d, fx);
      }
      fx.push({ type: 'append_user_message', text: ev.text });
      return beginTurn(withState(s, { preflight: null }), [ev.text], ev.at);
    }
    case 'assistant_message': {
      if (active) return s; // the sequence's own turns (packet, scratch confirmation) are synthetic
      const trail = withTrail(s.trail, {
        lastAgentMessage: ev.text,
        excerpt: pushCapped(s.trail.excerpt, { role: 'assistant' as const, text: clip(ev.text, 600) }, 12),
      });
      let next: EngineState = withState(s, { trail });
      for (const b of detectMarkers(ev.text, s.settings, s.workActivityThisTurn)) next = addBoundary(next, b, 'agent_message', ev.at, fx);
      return next;
    }
    case 'tool_call': {
      if (active) return withState(s, { openToolCalls: pushCapped(s.openToolCalls, ev.id, MAX_OPEN_TOOL_CALLS) });
      if (s.preflight) {
        // The turn the preflight was decided at did not end after all: work went on. The decision is
        // stale; the next evaluation point decides again with what is true then.
        fx.push({ type: 'annotate', level: 'info', text: 'Preflight compaction dropped: work resumed (a tool call) after the turn it was decided at.' });
      }
      const input = describeInput(ev.input);
      const file = fileOf(ev.input);
      return withState(s, {
        openToolCalls: pushCapped(s.openToolCalls, ev.id, MAX_OPEN_TOOL_CALLS),
        preflight: null,
        workActivityThisTurn: true,
        trail: noteToolCall(
          withTrail(s.trail, {
            actions: pushCapped(s.trail.actions, { turn: s.turn, text: `${ev.name}: ${clip(input.replace(/\s+/g, ' '), 140)}` }, 60),
            toolTail: pushCapped(s.trail.toolTail, { id: ev.id, name: ev.name, input: clip(input, 4000) }, 20),
            files: file && !s.trail.files.includes(file) ? pushCapped(s.trail.files, file, 30) : s.trail.files,
            excerpt: pushCapped(s.trail.excerpt, { role: 'tool' as const, text: `${ev.name} ${clip(input, 200)}` }, 12),
          }),
          ev,
          input,
        ),
      });
    }
    case 'tool_result': {
      const open = s.openToolCalls.filter((id) => id !== ev.id);
      if (open.length === s.openToolCalls.length && active) return s;
      const tail = s.trail.toolTail;
      const k = tail.findIndex((t) => t.id === ev.id);
      if (k < 0) return withState(s, { openToolCalls: open });
      const toolTail = tail.slice();
      const call = tail[k]!;
      toolTail[k] = { id: call.id, name: call.name, input: call.input, output: clip(ev.output, 4000), isError: ev.isError } satisfies Required<TrailToolCall>;
      return withState(s, { openToolCalls: open, trail: noteToolResult(withTrail(s.trail, { toolTail }), ev, tail[k]) });
    }
    case 'boundary':
      if (active) {
        // Signals produced by rawr's own synthetic turns never count.
        fx.push({ type: 'boundary_noted', boundary: signalOf(s, ev.boundary, ev.source, ev.at), status: 'ignored', why: 'during_sequence' });
        return s;
      }
      return addBoundary(s, ev.boundary, ev.source, ev.at, fx);
    case 'plan': {
      const r = applyPlan(s.plan, ev.steps);
      const next = withState(s, { plan: r.plan });
      if (!r.boundary) return next;
      if (active) {
        fx.push({ type: 'boundary_noted', boundary: signalOf(s, r.boundary, 'plan_tool', ev.at), status: 'ignored', why: 'during_sequence' });
        return next;
      }
      return addBoundary(next, r.boundary, 'plan_tool', ev.at, fx);
    }
    case 'evaluate':
      return evaluate(s, ev.at, ev.point, fx);
    case 'compact_now': {
      if (active) {
        fx.push({ type: 'annotate', level: 'info', text: 'A compaction is already running.' });
        return s;
      }
      if (s.openToolCalls.length > 0) {
        fx.push({ type: 'annotate', level: 'info', text: 'Compaction requested: it runs at the next safe point (after the running tool call).' });
        return { ...s, manualPending: { instructions: ev.instructions ?? '' } };
      }
      return startManual(s, ev.at, ev.instructions ?? '', fx);
    }
    case 'overflow':
      return overflowCompaction(s, ev.at, ev.error, fx);
    case 'judgment_result': {
      if (s.seq.phase !== 'assessing' || s.seq.corrId !== ev.corrId) return s; // stale or unknown: ignored
      fx.push({ type: 'cancel_timer', timerId: `judgment:${ev.corrId}` });
      const parsed = parseJudgment(ev.text);
      fx.push({ type: 'judgment_ended', corrId: ev.corrId, outcome: parsed.ok ? 'answered' : 'invalid' });
      const verdict = parsed.ok ? parsed.value : fallbackJudgment(s.seq.decision, `invalid judgment output, ${parsed.error}`);
      return applyJudgment(s, s.seq.decision, verdict, parsed.ok ? 'judgment_approved' : 'judgment_fallback', ev.at, fx);
    }
    case 'judgment_unavailable':
      if (s.seq.phase !== 'assessing' || s.seq.corrId !== ev.corrId) return s; // stale or unknown: ignored
      fx.push({ type: 'cancel_timer', timerId: `judgment:${ev.corrId}` });
      return applyJudgment(s, s.seq.decision, fallbackJudgment(s.seq.decision, ev.why), 'judgment_fallback', ev.at, fx);
    case 'timeout':
      return onTimeout(s, ev.timerId, ev.at, fx);
    case 'scratch_written': {
      if (s.seq.phase !== 'awaiting_scratch' || s.seq.seqId !== ev.seqId) return s;
      const seq = s.seq;
      if (seq.packetAuthor === 'watcher')
        return toCompacting(s, seq, assembleWatcherPacket(s.trail, s.plan, s.settings.activity_tail_tool_calls), 'watcher', seq.scratchPath, fx);
      fx.push({ type: 'request_packet', seqId: seq.seqId, text: s.prompts.packetRequest });
      return { ...s, seq: { phase: 'awaiting_packet', seqId: seq.seqId, decision: seq.decision, judgment: seq.judgment, scratchPath: seq.scratchPath } };
    }
    case 'packet': {
      if (s.seq.phase !== 'awaiting_packet' || s.seq.seqId !== ev.seqId) return s;
      const ok = validateAgentPacket(ev.text, s.settings.packet_min_chars);
      // The handoff names the scratch file only when there is one to read.
      const scratchPath = ev.scratchWritten === false ? undefined : s.seq.scratchPath;
      if (ok.ok)
        return toCompacting(
          s,
          s.seq,
          s.settings.agent_packet_replaces_summary ? withTrailFacts(ev.text, s.trail, s.plan) : ev.text,
          'agent',
          scratchPath,
          fx,
          true,
          ev.text,
        );
      fx.push({
        type: 'annotate',
        level: 'warning',
        text: `The agent's packet was not usable (${ok.why}); rawr assembled one from the session trail instead.`,
      });
      return toCompacting(s, s.seq, assembleWatcherPacket(s.trail, s.plan, s.settings.activity_tail_tool_calls), 'watcher', scratchPath, fx);
    }
    case 'compaction_done':
      if (s.seq.phase !== 'compacting' || s.seq.seqId !== ev.seqId) return s;
      return finishCompaction(s, s.seq, ev.tokensBefore, ev.tokensAfter, ev.at, fx);
    case 'compaction_failed': {
      if (s.seq.phase !== 'compacting' || s.seq.seqId !== ev.seqId) return s;
      const cancelled = s.seq.cancelRequested;
      fx.push({
        type: 'annotate',
        level: cancelled ? 'info' : 'warning',
        text: cancelled ? 'Compaction cancelled; the thread is unchanged.' : `Compaction failed (${ev.error}); the thread is unchanged.`,
      });
      // A failed attempt starts the cooldown too, so a persistent failure cannot loop.
      const next = {
        ...s,
        lastCompaction: { at: ev.at, turn: s.turn, percentBefore: null, percentAfter: null, outcome: cancelled ? ('cancelled' as const) : ('failed' as const) },
      };
      return endSequence(next, s.seq.seqId, cancelled ? 'cancelled' : 'failed', ev.at, fx);
    }
    case 'cancel': {
      const seq = s.seq;
      if (seq.phase === 'idle') return s.preflight ? { ...s, preflight: null } : s;
      if (seq.phase === 'compacting') {
        // The LM call may already have finished: wait for its report so the thread is never half-swapped.
        fx.push({ type: 'abort_compaction', seqId: seq.seqId });
        return { ...s, seq: { ...seq, cancelRequested: true } };
      }
      if (seq.phase === 'assessing') {
        // Nothing was injected yet: the sequence never started, so there is nothing to end.
        fx.push({ type: 'cancel_timer', timerId: `judgment:${seq.corrId}` });
        fx.push({ type: 'judgment_ended', corrId: seq.corrId, outcome: 'cancelled' });
        fx.push({ type: 'annotate', level: 'info', text: 'Compaction judgment cancelled; nothing changed.' });
        return flushQueued({ ...s, seq: { phase: 'idle' } }, ev.at, fx);
      }
      fx.push({ type: 'cancel_timer', timerId: `packet:${seq.seqId}` });
      fx.push({ type: 'annotate', level: 'info', text: 'Compaction sequence cancelled; the thread is unchanged.' });
      // Like a failure, a cancelled attempt starts the cooldown: the next evaluation point must not
      // inject the heads-up the user just cancelled all over again.
      const cooled = { ...s, lastCompaction: { at: ev.at, turn: s.turn, percentBefore: null, percentAfter: null, outcome: 'cancelled' as const } };
      return endSequence(cooled, seq.seqId, 'cancelled', ev.at, fx);
    }
  }
}

function beginTurn(s: EngineState, texts: string[], at: number): EngineState {
  const text = texts.join('\n\n');
  const turn = s.turn + 1;
  return withState(s, {
    turn,
    workActivityThisTurn: false,
    turnCloses: [],
    trail: withTrail(s.trail, {
      userRequests: pushCapped(s.trail.userRequests, { turn, at, text: clip(text, 4000), ...(text.length > 4000 ? { chars: text.length } : {}) }, 100),
      excerpt: pushCapped(s.trail.excerpt, { role: 'user' as const, text: clip(text, 600) }, 12),
    }),
  });
}

/** The id of a reported boundary: one commit reported by git (full sha) and by the terminal (short sha) is one boundary. */
export function boundaryId(b: Pick<DetectedBoundary, 'kind' | 'key'>): string {
  const key = b.kind === 'commit' && /^[0-9a-f]{7,40}$/i.test(b.key) ? b.key.slice(0, 7).toLowerCase() : b.key;
  return `${b.kind}:${key}`;
}

function signalOf(s: EngineState, b: DetectedBoundary, source: BoundarySource, at: number): BoundarySignal {
  return { id: boundaryId(b), kind: b.kind, strength: strengthOf(b.kind), source, at, turn: s.turn, synthetic: false, detail: b.detail };
}

function addBoundary(s: EngineState, b: DetectedBoundary, source: BoundarySource, at: number, fx: Effect[]): EngineState {
  const signal = signalOf(s, b, source, at);
  const id = signal.id;
  if (memberSet(s.seenIds).has(id)) {
    fx.push({ type: 'boundary_noted', boundary: signal, status: 'ignored', why: 'duplicate' });
    return s;
  }
  fx.push({ type: 'boundary_noted', boundary: signal, status: 'pending', why: 'new' });
  const commits = b.kind === 'commit' ? pushCapped(s.trail.commits, clip(b.detail, 120), 20) : s.trail.commits;
  const seenIds = pushCapped(s.seenIds, id, 200);
  handOnMemberSet(s.seenIds, seenIds, [id]);
  return withState(s, {
    pending: [...s.pending, signal],
    seenIds,
    trail: commits === s.trail.commits ? s.trail : withTrail(s.trail, { commits }),
  });
}

function evaluate(s: EngineState, at: number, point: 'turn_complete' | 'tool_loop', fx: Effect[]): EngineState {
  if (s.seq.phase !== 'idle') return s;
  let st = s;
  if (point === 'turn_complete') st = addBoundary(st, { kind: 'turn_complete', key: String(st.turn), detail: `turn ${st.turn}` }, 'turn', at, fx);
  if (st.manualPending && st.openToolCalls.length === 0) {
    const instructions = st.manualPending.instructions;
    consume(st, `d${st.counter + 1}`, 'decision', fx);
    return startManual({ ...st, manualPending: null, pending: [] }, at, instructions, fx);
  }
  const pct = st.tokens ? percentRemaining(st.tokens.used, st.tokens.window) : null;
  // A phase close completes the phase since the previous one, before the forecast of the next is made.
  const close = isPhaseClose(st.pending);
  if (st.tokens && close) st = withState(st, { forecast: onPhaseClose(st.forecast, st.tokens.window) });
  // A close that arrives while an earlier close's compaction is held continues that close: the held
  // signals (e.g. the commit the hold was made at) stay named in the decision that finally compacts.
  const boundaries = st.forecastHold && st.settings.forecast_enabled && close ? [...st.forecastHold.signals, ...st.pending] : st.pending;
  const input: DecisionInput = {
    id: `d${st.counter + 1}`,
    at,
    point,
    settings: st.settings,
    percentRemaining: pct,
    boundaries,
    cooldown: sinceCompaction(st, at),
    openToolCalls: st.openToolCalls.length,
    queuedInput: st.queuedInput.length,
    packetWorthy: st.trail.userRequests.length > 0 || st.trail.lastAgentMessage.trim().length >= 40,
    stall: st.stall,
    sequenceActive: false,
    tokens: st.tokens,
    // Made only where the decision reads it (most evaluation points have no strong boundary, and making
    // it was a sixth of their cost); forecastNext is pure, so skipping it elsewhere changes nothing.
    forecast: st.tokens && st.settings.forecast_enabled && readsForecast(boundaries) ? forecastNext(st.forecast, st.settings, st.tokens.window, st.plan) : null,
  };
  const held = st.forecastHold && st.settings.forecast_enabled && !close ? st.forecastHold : null;
  let d = held ? decideHeld(input, held) : decide(input);
  // A forecast compaction at a close signal mid-turn waits for the close to end (decideHeld): the next
  // signals of the same close (its commit, the turn end) come within a tool call or two.
  let hold: EngineState['forecastHold'] = null;
  // Only on this thread's own phases: a prior is not evidence enough to move a tier compaction.
  if (
    close &&
    point === 'tool_loop' &&
    d.forecast?.verdict === 'compact' &&
    d.forecast.basis === 'thread' &&
    d.code !== 'emergency' &&
    (d.action === 'compact' || d.action === 'judge')
  ) {
    hold = { signals: input.boundaries.filter((b) => d.matched.includes(b.id)), matched: d.matched, forecast: d.forecast };
    d = {
      ...decisionFor(input, 'none', 'forecast_held', `compacting when this phase close ends ${describeGain(d.forecast)}`, d.matched),
      forecast: { ...d.forecast, drove: true },
    };
  }
  // Edge-triggered: every boundary is looked at by exactly one evaluation point, then it is consumed.
  consume(st, d.id, 'decision', fx);
  const turnCloses = st.pending.length ? [...(st.turnCloses ?? []), ...st.pending.map(decisionBoundary)].slice(-MAX_TURN_CLOSES) : st.turnCloses;
  st = withState(st, { counter: st.counter + 1, pending: [], lastDecision: d, preflight: null, forecastHold: hold, ...(turnCloses ? { turnCloses } : {}) });
  fx.push({ type: 'decision', decision: d });
  st = maybePrepareSummary(st, d, fx);
  st = maybeArmIdle(st, d, point, fx);
  switch (d.action) {
    case 'compact':
      return startSequence(st, d, fx);
    case 'judge': {
      const corrId = `j${st.counter}`;
      const prompt = buildJudgmentPrompt(st.prompts, d, { threadId: st.threadId, turn: st.turn, tokens: st.tokens, trail: st.trail, plan: st.plan });
      const timeoutMs = st.settings.judgment_timeout_seconds * 1000;
      fx.push({ type: 'request_judgment', corrId, system: prompt.system, user: prompt.user, timeoutMs });
      fx.push({ type: 'start_timer', timerId: `judgment:${corrId}`, ms: timeoutMs });
      return { ...st, seq: { phase: 'assessing', seqId: `s${st.counter}`, corrId, decision: d } };
    }
    case 'preflight':
      fx.push({ type: 'annotate', level: 'info', text: `[rawr] ${d.reason}` });
      return { ...st, preflight: d };
    case 'suggest':
      fx.push({ type: 'suggest', decision: d });
      return st;
    case 'tag':
      fx.push({ type: 'annotate', level: 'info', text: `[rawr] would compact now — ${d.reason}` });
      return st;
    case 'none':
      return st;
    default: {
      const unknown: never = d.action;
      throw new Error(`unknown decision action ${String(unknown)}`);
    }
  }
}

/** The summary prompt of a compaction now, with the person's /compact instructions when there are any. */
function summaryPromptOf(s: EngineState): string {
  return fillTemplate(s.prompts.compactionSummary, {
    instructions: s.instructions ? `Additional instructions from the user: ${s.instructions}` : '',
  });
}

/**
 * Starts the summary early (once per compaction cycle) when a compaction is likely and it will need a
 * summary call: the watcher writes the packet (by setting, or because the room left is too small for a
 * packet turn), or the agent's packet does not stand in for the summary. The default path (the
 * agent's packet replaces the summary) needs none, so it spends nothing here.
 */
function maybePrepareSummary(s: EngineState, d: Decision, fx: Effect[]): EngineState {
  if (s.summaryPrepared || s.settings.mode !== 'auto' || !s.tokens) return s;
  const now = d.action === 'compact' || d.action === 'judge' || d.action === 'preflight';
  const likely = now || d.tier !== null || d.code === 'forecast_held' || d.forecast?.verdict === 'compact';
  if (!likely) return s;
  // Too little room for a packet turn means the watcher packet, hence a summary (known when the sequence
  // starts now; for a later boundary it is not guessed: a wasted call would cost more than it saves).
  const tight = now && s.tokens.window - s.tokens.used < minTokensForAgentPacket(s.tokens.window);
  const needsSummary = s.settings.packet_author === 'watcher' || !s.settings.agent_packet_replaces_summary || tight;
  if (!needsSummary) return s;
  const why = d.action !== 'none' ? `decision ${d.code}` : d.tier ? `tier ${d.tier} entered` : 'the forecast expects a compaction at the next close';
  fx.push({ type: 'prepare_summary', summaryPrompt: summaryPromptOf(s), reason: why });
  return { ...s, summaryPrepared: true };
}

/** Decisions that waited for a reason the person's absence does not change (nothing to gain, or not allowed now). */
const IDLE_NEVER: ReadonlySet<Decision['code']> = new Set(['cooldown', 'stalled', 'suspended', 'not_packet_worthy', 'mode_off', 'no_tokens']);

/**
 * A turn ended at a boundary in a tier where rawr waited (the next phase fits, the tier wants a stronger
 * boundary, or a preflight waits for the next message): if the person stays away past the provider's
 * prompt-cache lifetime, their next request pays for the whole context again anyway, so that is the
 * cheapest moment to compact. The watch is armed here and fires as a `timeout` (onTimeout).
 */
function maybeArmIdle(s: EngineState, d: Decision, point: EvaluationPoint, fx: Effect[]): EngineState {
  const minutes = s.settings.idle_compact_minutes;
  if (point !== 'turn_complete' || !(minutes > 0) || s.settings.mode !== 'auto' || s.stall !== 'none') return s;
  if (d.tier === null || d.tier === 'emergency' || IDLE_NEVER.has(d.code)) return s;
  if ((d.action !== 'none' && d.action !== 'preflight') || s.openToolCalls.length > 0 || s.queuedInput.length > 0) return s;
  const timerId = `idle:${d.id}`;
  fx.push({ type: 'arm_idle', timerId, ms: Math.round(minutes * 60_000) });
  return withState(s, { idle: { timerId, boundaries: s.turnCloses ?? d.boundaries } });
}

/** A turn's boundaries kept for an idle compaction to name: a turn has a handful; a hostile one is cut to the newest. */
const MAX_TURN_CLOSES = 20;

function decisionBoundary(b: BoundarySignal): DecisionBoundary {
  return { id: b.id, kind: b.kind, strength: b.strength, source: b.source, detail: b.detail };
}

/** How strongly a boundary closes a phase, to name the one an idle compaction happened at. */
const CLOSE_RANK: Record<DecisionBoundary['kind'], number> = {
  commit: 7,
  pr_checkpoint: 6,
  plan_checkpoint: 5,
  agent_done: 4,
  concluding: 3,
  topic_shift: 2,
  plan_update: 1,
  turn_complete: 0,
};

/** A boundary in the words of a decision's reason ("commit 3f2a1c9 add limiter", "a topic shift"). */
export function closeWords(b: Pick<DecisionBoundary, 'kind' | 'detail'>): string {
  switch (b.kind) {
    case 'commit':
      return `commit ${b.detail}`;
    case 'plan_checkpoint':
      return `a plan step: ${b.detail}`;
    case 'pr_checkpoint':
      return `a PR step: ${b.detail}`;
    case 'plan_update':
      return 'a plan change';
    case 'agent_done':
      return 'the agent saying it was done';
    case 'concluding':
      return 'a concluding message';
    case 'topic_shift':
      return 'a topic shift';
    case 'turn_complete':
      return 'the end of the turn';
    default: {
      const unknown: never = b.kind;
      throw new Error(`unknown boundary kind ${String(unknown)}`);
    }
  }
}

/**
 * The idle watch ended with nothing having happened: the golden path runs now, in the background (the
 * host has no chat to show it in; it tells the person when they return). The decision says what it avoids.
 */
function idleCompaction(s: EngineState, at: number, fx: Effect[]): EngineState {
  const watch = s.idle!;
  const st = withState(s, { idle: null });
  if (st.seq.phase !== 'idle' || st.settings.mode !== 'auto' || !st.tokens || st.openToolCalls.length > 0 || st.queuedInput.length > 0) return st;
  // The cooldown holds here too (the person's absence is no reason to compact again so soon).
  const since = sinceCompaction(st, at);
  if (since && coolingDown(st.settings, since)) return st;
  const pct = percentRemaining(st.tokens.used, st.tokens.window);
  const tier = tierOf(pct, st.settings);
  if (tier === null) return st; // the thread shrank meanwhile (an undo, a compaction): nothing to gain
  const boundaries = [...watch.boundaries, ...st.pending.map(decisionBoundary)];
  const at_ = boundaries.reduce<DecisionBoundary | undefined>((best, b) => (!best || CLOSE_RANK[b.kind] > CLOSE_RANK[best.kind] ? b : best), undefined);
  const minutes = st.settings.idle_compact_minutes;
  const where = at_ ? closeWords(at_) : 'the end of the turn';
  const d: Decision = {
    id: `d${st.counter + 1}`,
    at,
    point: 'idle',
    action: 'compact',
    code: 'idle',
    tier,
    percentRemaining: Math.round(pct * 10) / 10,
    boundaries,
    matched: at_ ? [at_.id] : [],
    reason:
      `nobody wrote for ${minutes} min since the turn ended at ${where} (${pct.toFixed(1)}% left, tier ${tier}): ` +
      `avoids sending all ${kTokens(st.tokens.used)} tokens again on the next request, whose prompt cache has lapsed — it starts on a small context instead`,
  };
  consume(st, d.id, 'decision', fx);
  fx.push({ type: 'decision', decision: d });
  return startSequence(withState(st, { counter: st.counter + 1, pending: [], lastDecision: d, preflight: null }), d, fx);
}

/** Turns and seconds since the last compaction (or failed attempt), for the cooldown; null before the first. */
function sinceCompaction(s: EngineState, at: number): DecisionInput['cooldown'] {
  const last = s.lastCompaction;
  return last ? { turnsSince: s.turn - last.turn, secondsSince: (at - last.at) / 1000, ...(last.outcome ? { outcome: last.outcome } : {}) } : null;
}

/** Says which pending boundaries an evaluation or a compaction takes off the list. */
function consume(s: EngineState, by: string, why: 'decision' | 'compaction', fx: Effect[]): void {
  if (s.pending.length) fx.push({ type: 'boundaries_consumed', ids: s.pending.map((b) => b.id), by, why });
}

/**
 * Overflow recovery: the model rejected the agent's request as too long. Compact at once with the watcher
 * packet and no summary call (any model call could be rejected again); the host retries its request once.
 */
function overflowCompaction(s: EngineState, at: number, error: string, fx: Effect[]): EngineState {
  if (s.seq.phase !== 'idle') {
    fx.push({
      type: 'annotate',
      level: 'warning',
      text: 'The model rejected a request as too long while a compaction was running; that compaction continues.',
    });
    return s;
  }
  const d = compactNowDecision(
    s,
    at,
    'overflow',
    `the model rejected the request as too long (${clip(error.replace(/\s+/g, ' '), 300)}): emergency compaction with rawr's own packet, no model call; avoids a thread stuck on a request the model rejects`,
  );
  fx.push({ type: 'decision', decision: d });
  return startSequence({ ...s, counter: s.counter + 1, lastDecision: d, preflight: null, manualPending: null }, d, fx);
}

/** A decision to compact at once that no tier or boundary made: the person asked, or the model overflowed. */
function compactNowDecision(s: EngineState, at: number, code: 'manual' | 'overflow', reason: string): Decision {
  const pct = s.tokens ? Math.round(percentRemaining(s.tokens.used, s.tokens.window) * 10) / 10 : null;
  return { id: `d${s.counter + 1}`, at, point: code, action: 'compact', code, tier: null, percentRemaining: pct, boundaries: [], matched: [], reason };
}

function startManual(s: EngineState, at: number, instructions: string, fx: Effect[]): EngineState {
  const d = compactNowDecision(s, at, 'manual', `compaction requested by the user${instructions ? ` (instructions: ${clip(instructions, 200)})` : ''}`);
  fx.push({ type: 'decision', decision: d });
  return startSequence({ ...s, counter: s.counter + 1, lastDecision: d, instructions, preflight: null }, d, fx);
}

function applyJudgment(s: EngineState, d: Decision, verdict: Judgment, code: 'judgment_approved' | 'judgment_fallback', at: number, fx: Effect[]): EngineState {
  // Emergency is never vetoed (it never reaches judgment, but a stale config could route it here).
  const approve = verdict.should_compact || d.tier === 'emergency';
  const judged: Decision = {
    ...d,
    id: `${d.id}j`,
    at,
    action: approve ? 'compact' : 'none',
    code: approve ? code : 'judgment_vetoed',
    reason: `${d.reason} — judgment: ${verdict.reason}`,
  };
  fx.push({ type: 'decision', decision: judged });
  const idle: EngineState = { ...s, seq: { phase: 'idle' }, lastDecision: judged };
  if (!approve) {
    fx.push({ type: 'annotate', level: 'info', text: `[rawr] not compacting: judgment said ${verdict.reason}` });
    return flushQueued(idle, at, fx);
  }
  return startSequence(idle, judged, fx, verdict.reason);
}

function onTimeout(s: EngineState, timerId: string, at: number, fx: Effect[]): EngineState {
  if (s.idle && timerId === s.idle.timerId) return idleCompaction(s, at, fx);
  const seq = s.seq;
  if (seq.phase === 'assessing' && timerId === `judgment:${seq.corrId}`) {
    fx.push({ type: 'judgment_ended', corrId: seq.corrId, outcome: 'timed_out' });
    return applyJudgment(s, seq.decision, fallbackJudgment(seq.decision, 'judgment timed out'), 'judgment_fallback', at, fx);
  }
  if ((seq.phase === 'awaiting_packet' || seq.phase === 'awaiting_scratch') && timerId === `packet:${seq.seqId}`) {
    fx.push({ type: 'annotate', level: 'warning', text: 'The agent did not produce its packet in time; rawr assembled one from the session trail.' });
    return toCompacting(s, seq, assembleWatcherPacket(s.trail, s.plan, s.settings.activity_tail_tool_calls), 'watcher', seq.scratchPath, fx);
  }
  return s;
}

function startSequence(s: EngineState, d: Decision, fx: Effect[], judgment?: string): EngineState {
  const seqId = `s${s.counter + 1}`;
  const st = { ...s, counter: s.counter + 1, preflight: null, forecastHold: null };
  const free = st.tokens ? st.tokens.window - st.tokens.used : Infinity;
  // After an overflow no model call may run before the swap: the watcher writes the packet, no scratch turn.
  const overflow = d.code === 'overflow';
  const tight = overflow || (st.tokens ? free < minTokensForAgentPacket(st.tokens.window) : false);
  const packetAuthor: PacketAuthor = st.settings.packet_author === 'agent' && !tight ? 'agent' : 'watcher';
  fx.push({ type: 'sequence_started', seqId, decisionId: d.id, reason: d.reason, packetAuthor });
  fx.push({ type: 'inject_heads_up', seqId, text: headsUpText(st.prompts, d) });
  if (tight && !overflow)
    fx.push({ type: 'annotate', level: 'warning', text: `Only ${free} tokens left: no room for a packet turn, rawr writes the packet itself.` });
  const base = { seqId, decision: d, judgment };
  const scratch = st.settings.scratch_write_enabled && !tight;
  if (packetAuthor === 'agent') {
    // One model call for both: the scratch notes (a rawr_write_scratch call) and the packet (the reply's
    // text) come in the same turn, so the golden path costs about what one summary call costs.
    const path = scratch ? scratchPathFor(st.agentName) : undefined;
    const request = path ? `${fillTemplate(st.prompts.scratchWrite, { scratchPath: path })}\n\n${st.prompts.packetRequest}` : st.prompts.packetRequest;
    // The packet may stand in for the summary: what the person asked the compaction to keep goes to its author.
    const text = st.instructions ? `${request}\n\nAdditional instructions from the user for this compaction: ${st.instructions}` : request;
    fx.push({ type: 'request_packet', seqId, text, ...(path ? { scratchPath: path } : {}) });
    fx.push({ type: 'start_timer', timerId: `packet:${seqId}`, ms: st.settings.packet_deadline_seconds * 1000 });
    return { ...st, seq: { ...base, phase: 'awaiting_packet', ...(path ? { scratchPath: path } : {}) } };
  }
  if (scratch) {
    // The watcher writes the packet, but the agent still saves its working notes first (its own turn).
    const path = scratchPathFor(st.agentName);
    fx.push({ type: 'request_scratch_write', seqId, path, text: fillTemplate(st.prompts.scratchWrite, { scratchPath: path }) });
    fx.push({ type: 'start_timer', timerId: `packet:${seqId}`, ms: st.settings.packet_deadline_seconds * 1000 });
    return { ...st, seq: { ...base, phase: 'awaiting_scratch', scratchPath: path, packetAuthor } };
  }
  return toCompacting(st, base, assembleWatcherPacket(st.trail, st.plan, st.settings.activity_tail_tool_calls), 'watcher', undefined, fx, false);
}

function toCompacting(
  s: EngineState,
  seq: { seqId: string; decision: Decision; judgment?: string | undefined },
  packet: string,
  author: PacketAuthor,
  scratchPath: string | undefined,
  fx: Effect[],
  timerRunning = true,
  authored?: string,
): EngineState {
  if (timerRunning) fx.push({ type: 'cancel_timer', timerId: `packet:${seq.seqId}` });
  fx.push({ type: 'show_packet', seqId: seq.seqId, packet, author });
  fx.push({ type: 'progress', text: 'Compacting thread context…' });
  const summaryPrompt = summaryPromptOf(s);
  // No summary call after an overflow (it could overflow too), nor when the agent's packet stands in for it.
  const noSummary = seq.decision.code === 'overflow' || (author === 'agent' && s.settings.agent_packet_replaces_summary);
  fx.push({ type: 'compact', seqId: seq.seqId, packet, summaryPrompt, ...(noSummary ? { summarise: false as const } : {}) });
  const next: SequenceState = {
    phase: 'compacting',
    seqId: seq.seqId,
    decision: seq.decision,
    judgment: seq.judgment,
    packet,
    ...(authored !== undefined ? { authored: clip(authored, MAX_AUTHORED_CHARS) } : {}),
    packetAuthor: author,
    scratchPath,
    tokensBefore: s.tokens?.used ?? null,
    cancelRequested: false,
  };
  return { ...s, seq: next };
}

/** The agent's own packet kept for the receipt: packets are a few thousand characters; a runaway one is cut. */
const MAX_AUTHORED_CHARS = 40_000;

/**
 * The receipt of a compaction: per fact class of the trail, the facts, those the agent's own packet names
 * (none for a packet rawr wrote), and those only rawr's additions (its recorded facts, the handoff) carry.
 * The same fact check as the repair of a tool's summary (sequence/repair.ts).
 */
function receiptOf(s: EngineState, authored: string, carried: string): Receipt {
  const facts = trailFacts(s.trail, s.plan?.steps ?? null);
  const own = repairFor(authored, facts).classes;
  const all = repairFor(carried, facts).classes;
  const out: Receipt = {};
  for (const [cls, c] of Object.entries(all)) {
    const kept = own[cls as keyof typeof own]?.kept ?? 0;
    out[cls] = { facts: c.facts, kept, added: Math.max(0, c.kept - kept) };
  }
  return out;
}

function finishCompaction(
  s: EngineState,
  seq: Extract<SequenceState, { phase: 'compacting' }>,
  before: number,
  after: number,
  at: number,
  fx: Effect[],
): EngineState {
  const window = s.tokens?.window ?? 0;
  const pBefore = window ? percentRemaining(before, window) : null;
  const pAfter = window ? percentRemaining(after, window) : null;
  const d = seq.decision;
  const matched = d.boundaries.filter((b) => d.matched.includes(b.id)).map((b) => `${b.kind} ${b.detail}`.trim());
  const why = [
    d.code === 'idle' ? 'while you were away' : null,
    d.tier ? `tier ${d.tier}` : d.code === 'manual' ? 'manual' : null,
    matched.length
      ? `boundary ${matched.join(', ')}`
      : d.code === 'emergency'
        ? 'no boundary came before the emergency line' // "tier emergency, emergency" said nothing the tier had not
        : d.code === 'overflow'
          ? 'the model rejected the request as too long; no summary call'
          : null,
    seq.judgment ? `judgment: ${clip(seq.judgment, 120)}` : null,
  ].filter(Boolean);
  const compactedText = `Context compacted — ${kTokens(before)} → ${kTokens(after)} tokens (${why.join(', ')})`;
  const handoff = handoffText(s.prompts, seq.packet, seq.scratchPath, s.plan, s.trail, { origin: seq.packetAuthor });
  const receipt = receiptOf(s, seq.authored ?? '', `${seq.packet}\n${handoff}`);
  fx.push({ type: 'compacted', seqId: seq.seqId, tokensBefore: before, tokensAfter: after, text: compactedText, receipt });
  fx.push({ type: 'show_compacted', seqId: seq.seqId, text: compactedText });
  fx.push({ type: 'inject_handoff', seqId: seq.seqId, text: handoff });

  // Loop prevention: a compaction that frees too little must not re-fire at once — escalate, then stop.
  // Only where what it left is still under a tier's threshold: there the tier rules would fire again at
  // once. A compaction that leaves the context above every threshold (a forecast compaction decided early
  // at a phase close, from a context not much above what a compaction leaves) cannot loop, and stalling
  // on it would hold back every compaction but the emergency (issue 33).
  let stall: EngineState['stall'];
  if (pBefore !== null && pAfter !== null && pAfter - pBefore < s.settings.min_gain_percent && tierOf(pAfter, s.settings) !== null) {
    stall = s.stall === 'none' ? 'stalled' : 'suspended';
    fx.push({
      type: 'annotate',
      level: 'warning',
      text:
        stall === 'stalled'
          ? `Compaction only raised the remaining context from ${pBefore.toFixed(1)}% to ${pAfter.toFixed(1)}%; rawr will not compact again unless it reaches emergency.`
          : `Compaction again freed too little (${pBefore.toFixed(1)}% → ${pAfter.toFixed(1)}%); auto-compaction is suspended for this thread. Use Compact Now or start a new thread.`,
    });
  } else stall = 'none';
  consume(s, seq.seqId, 'compaction', fx);
  const next: EngineState = {
    ...s,
    tokens: window ? { used: after, window } : s.tokens,
    forecast: window ? onCompacted(s.forecast, after) : s.forecast,
    lastCompaction: { at, turn: s.turn, percentBefore: pBefore, percentAfter: pAfter },
    stall,
    instructions: '',
    pending: [],
    summaryPrepared: false,
  };
  return endSequence(next, seq.seqId, 'compacted', at, fx);
}

function endSequence(s: EngineState, seqId: string, outcome: 'compacted' | 'failed' | 'cancelled', at: number, fx: Effect[]): EngineState {
  fx.push({ type: 'sequence_ended', seqId, outcome });
  return flushQueued({ ...s, seq: { phase: 'idle' } }, at, fx);
}

/** Queued user input is delivered exactly once, after the handoff (or after the failure notice). */
function flushQueued(s: EngineState, at: number, fx: Effect[]): EngineState {
  if (s.queuedInput.length === 0) return s;
  for (const text of s.queuedInput) fx.push({ type: 'deliver_queued_input', text });
  return beginTurn({ ...s, queuedInput: [] }, s.queuedInput, at);
}

function describeInput(input: unknown): string {
  if (typeof input === 'string') return input;
  if (input && typeof input === 'object') {
    const o = input as Record<string, unknown>;
    if (typeof o.command === 'string') return o.command;
    if (Array.isArray(o.command)) return o.command.map(String).join(' ');
    if (typeof o.cmd === 'string') return o.cmd;
  }
  try {
    return JSON.stringify(input) ?? String(input);
  } catch {
    return String(input);
  }
}

function fileOf(input: unknown): string | undefined {
  if (!input || typeof input !== 'object') return undefined;
  const o = input as Record<string, unknown>;
  for (const k of ['file_path', 'filePath', 'path', 'notebook_path']) if (typeof o[k] === 'string' && o[k]) return o[k] as string;
  return undefined;
}
