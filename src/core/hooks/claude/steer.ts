/**
 * rawr steers Claude Code's compaction (docs/ARCHITECTURE.md#claude-code-and-codex-hooks): Claude Code
 * asks its PreCompact hook before every model request once the context is past the threshold rawr set
 * (steerConfig.ts), and the hook answers with the arbiter's decision at that point of the transcript —
 * the same live follower (src/core/follow/sessionFollower.ts) and the same engine as the panel's live
 * follow and `rawr replay`: refuse (`{"decision":"block","reason":…}`) until a boundary the tier
 * accepts, allow at it. Whatever the arbiter says, the hook allows:
 *   - a manual `/compact` (the person asked; Claude Code would show a refusal);
 *   - a reactive compaction, one that follows a request the API refused as too long: no model response
 *     since the previous PreCompact, or a context below the threshold Claude Code asks from (it asked
 *     only because a request failed). Refusing it would end the person's turn ("Prompt is too long");
 *   - at rawr's emergency line, and before Claude Code's own blocking level (~98% of the real window,
 *     measured), so a refusal can never end a turn;
 *   - when rawr does not steer this project (no steer.json, `--no-steer`) or its mode is not `auto`.
 * Measured facts behind each rule: ../shared/claude-code-e2e/steer/README.md. The verdict is pure;
 * `steerPreCompact` does the reading and writing.
 */
import * as path from 'node:path';
import * as z from 'zod';
import { jsonLinesTail } from '../shared/readFrom';
import type { SessionFollower } from '../../follow/sessionFollower';
import { compactInstructions, shortBoundary } from '../../follow/sessionFollower';
import type { ReplayDecision } from '../../replay/driver';
import type { Prompts } from '../../prompts/promptSet';
import type { Settings } from '../../settings/schema';
import type { BoundaryKind } from '../../signals/types';
import { detectShellBoundaries } from '../../signals/shell';
import { askPercentOf, claudeAsksFrom, type SteerConfig } from './steerConfig';
import { loadSession, readMore, saveSession, type PreviousPreCompact, type ReadBound, type SteerSession } from './steerState';
import { MAX_WAIT_MS, pollUntil, waitForToolCall, waitForTranscript } from './transcriptCaughtUp';
import { TAIL_USAGE_BYTES, tailUsage, type TailUsage } from './tailUsage';
import { chooseWindow } from '../../replay/windows';
import { clearGolden, ensureScratch, headsUpFor, packetPathFor, PACKET_DEADLINE_REQUESTS, readGolden, readPacket, writeGolden, type Golden } from './golden';
import { appendSessionLog } from '../shared/sessionLog';

/** Claude Code ends a turn instead of sending a request from about 98% of the real window: rawr allows well before. */
export const BLOCKING_GUARD = 0.95;
/** A context this far below the threshold Claude Code asks from was not a threshold compaction. */
const REACTIVE_BELOW = 0.95;

export type SteerWhy =
  | 'not_steering'
  | 'mode'
  | 'manual'
  | 'reactive'
  | 'emergency'
  | 'blocking'
  | 'boundary'
  | 'deferred'
  /** Refused at the boundary: the heads-up asks the model for its continuation packet first (golden.ts). */
  | 'heads_up'
  /** Refused: the heads-up was given, the packet is not written yet and the deadline has not passed. */
  | 'packet'
  /** Refused: the follower is still reading a long session's history (steerState.ts READ_BOUND); the tail's context is below the emergency line. */
  | 'catching_up'
  /** Refused: the resident hook engine took the call and never answered; the tail's context is below the emergency line (lostAnswerVerdict). */
  | 'lost_answer';

export interface SteerVerdict {
  allow: boolean;
  why: SteerWhy;
  /** One line for the person and the log: "deferred to the next boundary (64% used; waiting for a commit or a completed task)". */
  text: string;
  /** For Claude Code's summary prompt ("Additional Instructions"), when allowed. */
  instructions?: string;
  usedTokens: number;
  window: number;
  decision?: Pick<ReplayDecision, 'line' | 'action' | 'code' | 'tier' | 'reason' | 'boundaries' | 'point'>;
  /** `heads_up`: the boundary to start the golden path at (steerPreCompact writes golden.json). */
  startGolden?: { boundary: string; tier: string | null; percentRemaining: number | null };
}

const BOUNDARY_WORDS: Record<BoundaryKind, string> = {
  commit: 'a commit',
  plan_checkpoint: 'a completed task',
  pr_checkpoint: 'a PR step',
  plan_update: 'a plan change',
  agent_done: 'the agent saying it is done',
  concluding: 'a concluding message',
  topic_shift: 'a topic shift',
  turn_complete: 'the end of the turn',
};

/** Why the arbiter said "not yet" at a boundary, in words, for the codes that happen there. */
const WHY_NOT: Partial<Record<string, string>> = {
  forecast_held: 'compacting once this phase close is over',
  forecast_fits: 'the next phase fits before the emergency line',
  forecast_plan_done: 'the plan is done: waiting for the end of the turn',
  cooldown: 'cooldown after the last compaction',
  weak_only: 'only a plan change',
  not_packet_worthy: 'nothing worth a continuation packet yet',
};

const words = (xs: string[]) => (xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} or ${xs.at(-1)}`);

export interface VerdictInput {
  trigger: string | null | undefined;
  follower: SessionFollower;
  previous: PreviousPreCompact | null;
  config: SteerConfig | null;
  settings: Settings;
  /** The hook's environment: `CLAUDE_CODE_AUTO_COMPACT_WINDOW` (Claude Code passes its own) wins over the setting. */
  env: Record<string, string | undefined>;
  /** The `autoCompactWindow` the person or the team set in Claude Code's settings (steerConfig.ts settingsWindow), if any. */
  settingsWindow?: number | null;
  /**
   * The golden path (golden.ts): `enabled` when rawr may ask for a packet (scratch writes on, `.scratch/`
   * usable); `pending` the heads-up given at a boundary; `packet` the packet written since, if any.
   */
  golden?: { enabled: boolean; pending: Golden | null; packet: { file: string; text: string } | null };
}

/** The compaction window the person set for Claude Code in its environment (`CLAUDE_CODE_AUTO_COMPACT_WINDOW`); rawr never sets it. */
export function userWindow(env: Record<string, string | undefined>): number | null {
  const n = Number(env.CLAUDE_CODE_AUTO_COMPACT_WINDOW);
  return Number.isFinite(n) && n > 0 ? Math.round(n) : null;
}

/** The window the person chose for the session: `CLAUDE_CODE_AUTO_COMPACT_WINDOW`, else their settings' `autoCompactWindow`. */
const sessionWindowCap = (o: { env: Record<string, string | undefined>; settingsWindow?: number | null }) => userWindow(o.env) ?? o.settingsWindow ?? null;

export function steerVerdict(i: VerdictInput): SteerVerdict {
  const st = i.follower.state();
  const window = st.window.window;
  const used = st.contextTokens;
  const pct = window > 0 ? Math.round((used / window) * 100) : 0;
  const base = { usedTokens: used, window };
  // A compaction the replay decided at a point read only now (Claude Code asked before it had written
  // that point's records, or did not ask there) is still the decision: a hook that answers quickly must
  // not let the boundary pass (the later points are not evaluated yet: the next call has no result).
  const now = i.follower.decisionNow() ?? i.follower.unactedCompaction(i.previous?.line ?? 0);
  const decision = now
    ? { line: now.line, action: now.action, code: now.code, tier: now.tier, reason: now.reason, boundaries: now.boundaries, point: now.point }
    : undefined;
  const instructions = compactInstructions(st.plan, {
    line: now?.line ?? st.lines,
    point: now?.point ?? 'tool_loop',
    action: 'compact',
    tier: now?.tier ?? null,
    percentRemaining: now?.percentRemaining ?? null,
    boundaries: now?.action === 'compact' ? now.boundaries : [],
    reason: '',
    contextTokens: used,
  });
  const allow = (why: SteerWhy, text: string): SteerVerdict => ({ allow: true, why, text, instructions, ...base, ...(decision ? { decision } : {}) });

  const off = notSteered(i);
  if (off) return allow(off.why, off.text);
  const { modelCalls } = i.follower.calls;
  const safe = safeToAllow(i, used, window, i.previous !== null && i.previous.modelCalls === modelCalls);
  if (safe) return allow(safe.why, safe.text);
  const g = i.golden?.pending;
  if (g) {
    // The boundary rawr decided at is behind us now: the instructions name it, not the current point.
    const atBoundary = compactInstructions(st.plan, {
      line: now?.line ?? st.lines,
      point: 'tool_loop',
      action: 'compact',
      tier: now?.tier ?? null,
      percentRemaining: now?.percentRemaining ?? null,
      boundaries: [g.boundary],
      reason: '',
      contextTokens: used,
    });
    const waited = modelCalls - g.askedAtCalls;
    if (i.golden?.packet)
      return {
        ...allow('boundary', `compacting at ${g.boundary} (${pct}% used; continuation packet in ${g.packet})`),
        instructions: `${atBoundary} The continuation packet the agent wrote is in ${g.packet}: the summary must name that file and keep its "What's next".`,
      };
    if (waited >= PACKET_DEADLINE_REQUESTS)
      return {
        ...allow('boundary', `compacting at ${g.boundary} (${pct}% used; no continuation packet after ${waited} model requests)`),
        instructions: atBoundary,
      };
    return {
      allow: false,
      why: 'packet',
      text: `compacting at ${g.boundary} once the continuation packet is in ${g.packet} (${pct}% used; ${waited} of ${PACKET_DEADLINE_REQUESTS} model requests waited)`,
      ...base,
      ...(decision ? { decision } : {}),
    };
  }
  if (now && now.action === 'compact') {
    const at = shortBoundary(now.boundaries[0] ?? now.point.replace('_', ' '));
    if (i.golden?.enabled)
      return {
        allow: false,
        why: 'heads_up',
        text: `compacting at ${at} after the continuation packet (${pct}% used; heads-up to the model)`,
        ...base,
        ...(decision ? { decision } : {}),
        startGolden: { boundary: at, tier: now.tier ?? null, percentRemaining: now.percentRemaining ?? null },
      };
    return { ...allow('boundary', `compacting at ${at} (${pct}% used)`) };
  }
  const tier = st.tier;
  const waiting =
    tier && tier !== 'emergency'
      ? `waiting for ${words(i.settings.auto_requires_any_boundary[tier].filter((k) => k !== 'plan_update').map((k) => BOUNDARY_WORDS[k]))}`
      : `rawr's early line is ${100 - i.settings.early_percent_remaining_lt}%`;
  const why =
    now && now.action !== 'compact' && now.code !== 'no_boundary' && now.code !== 'above_threshold'
      ? `; ${WHY_NOT[now.code] ?? now.code.replace(/_/g, ' ')}`
      : '';
  return { allow: false, why: 'deferred', text: `deferred to the next boundary (${pct}% used; ${waiting}${why})`, ...base, ...(decision ? { decision } : {}) };
}

/** The allows before any steering: a manual /compact, a project rawr does not steer, a mode other than auto. */
function notSteered(i: Pick<VerdictInput, 'trigger' | 'config' | 'settings'>): { why: SteerWhy; text: string } | null {
  if (i.trigger === 'manual') return { why: 'manual', text: 'allowed: manual /compact' };
  if (!i.config?.steer) return { why: 'not_steering', text: 'allowed: rawr does not steer this project (hooks claude install --no-steer)' };
  if (i.settings.mode !== 'auto') return { why: 'mode', text: `allowed: rawr's mode is ${i.settings.mode}, not auto` };
  return null;
}

/**
 * The allows that keep a refusal from ever ending a turn (the module comment): a reactive compaction (no
 * model response since the previous call, `sameResponse`, or a context below where Claude Code asks
 * from), rawr's emergency line, Claude Code's blocking level. Null: refusing is safe.
 */
function safeToAllow(
  i: Pick<VerdictInput, 'previous' | 'config' | 'settings' | 'env' | 'settingsWindow'>,
  used: number,
  window: number,
  sameResponse: boolean,
): { why: SteerWhy; text: string } | null {
  const pct = window > 0 ? Math.round((used / window) * 100) : 0;
  if (sameResponse)
    return i.previous?.allowed
      ? { why: 'reactive', text: 'allowed: asked again before any model response since the compaction rawr allowed' }
      : { why: 'reactive', text: 'allowed: reactive (no model response since the refusal: the request failed)' };
  // Claude Code asks from its threshold in the window it clamps to the model's, lowered by the percentage
  // override (measured, steerConfig.ts): a call well below that follows a request the API refused.
  const configured = sessionWindowCap(i) ?? i.config?.autoCompactWindow ?? null;
  const percent = askPercentOf(i.env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE) ?? askPercentOf(i.config?.askPercent);
  const asksFrom = configured !== null ? claudeAsksFrom(Math.min(window, configured), percent) : null;
  if (asksFrom !== null && used < asksFrom * REACTIVE_BELOW)
    return {
      why: 'reactive',
      text: `allowed: reactive (${pct}% used, below where Claude Code asks from, ${asksFrom.toLocaleString('en-US')} tokens: only a request the API refused brings it here)`,
    };
  const remaining = window > 0 ? (1 - used / window) * 100 : 0;
  if (remaining < i.settings.emergency_percent_remaining_lt) return { why: 'emergency', text: `allowed: emergency (${pct}% used)` };
  if (used >= window * BLOCKING_GUARD) return { why: 'blocking', text: `allowed: ${pct}% used, close to Claude Code's blocking level` };
  return null;
}

const mb = (bytes: number) => (bytes / (1024 * 1024)).toFixed(0);

/** What a verdict from the transcript's tail alone is given (catchingUpVerdict, lostAnswerVerdict). */
type TailVerdictInput = Pick<VerdictInput, 'trigger' | 'previous' | 'config' | 'settings' | 'env' | 'settingsWindow'> & { tail: TailUsage | null };

/**
 * A verdict from the context Claude Code reported last (the transcript's tail, tailUsage.ts), cheap and
 * certain: the allows before any steering, then the ones that keep a refusal from ending a turn
 * (safeToAllow: a reactive compaction, rawr's emergency line, Claude Code's blocking level); otherwise
 * `refused`. `known`: the follower's window, when it knows one better than the tail's model; `why` and
 * `note` say on whose behalf (the note appended to an allow's text, when there is one).
 */
function tailVerdict(
  i: TailVerdictInput,
  known: { source: string; window: number } | null,
  sameResponse: boolean,
  why: SteerWhy,
  note: string,
  refused: (pct: number) => string,
): SteerVerdict {
  const cap = sessionWindowCap(i);
  const window =
    known && (known.source !== 'default' || !i.tail?.model)
      ? known.window
      : chooseWindow({ format: 'claude', models: i.tail?.model ? [{ name: i.tail.model, calls: 1 }] : [] }, undefined, cap ?? undefined).window;
  const used = i.tail?.contextTokens ?? 0;
  const base = { usedTokens: used, window };
  const allow = (w: SteerWhy, text: string): SteerVerdict => ({ allow: true, why: w, text: note ? `${text}; ${note}` : text, ...base });
  const off = notSteered(i);
  if (off) return allow(off.why, off.text);
  // No context in the tail (a response after megabytes of tool output): rawr cannot tell how full it is.
  if (!i.tail) return allow(why, `allowed: no context reported in the transcript's last ${mb(TAIL_USAGE_BYTES)} MB`);
  const safe = safeToAllow(i, used, window, sameResponse);
  if (safe) return allow(safe.why, safe.text);
  const pct = window > 0 ? Math.round((used / window) * 100) : 0;
  return { allow: false, why, text: refused(pct), ...base };
}

/**
 * The verdict while the follower is still reading a long session's history (steerState.ts READ_BOUND:
 * one call reads a bounded part of it): the follower's state is of a point long past (its context, its
 * boundaries), so it decides nothing. What is cheap and certain decides instead (tailVerdict). Below
 * rawr's emergency line rawr refuses and says why ("still reading"); a reactive compaction, the
 * emergency line and Claude Code's blocking level allow as always, so a refusal never ends a turn. No
 * boundary is decided here: the first call that has read the whole history decides as usual.
 */
export function catchingUpVerdict(i: TailVerdictInput & Pick<VerdictInput, 'follower'> & { behind: { offset: number; size: number } }): SteerVerdict {
  const reading = `rawr is still reading this session's history, ${mb(i.behind.offset)} of ${mb(i.behind.size)} MB`;
  return tailVerdict(
    i,
    i.follower.state().window,
    i.tail !== null && i.previous?.tail === i.tail.id,
    'catching_up',
    reading,
    (pct) =>
      `${reading} (${pct}% used; it decides at a boundary once it has read it all, and allows from its emergency line, ${100 - i.settings.emergency_percent_remaining_lt}%)`,
  );
}

/**
 * The verdict for an automatic PreCompact whose answer the resident engine took and never gave (it
 * stalled: src/cli/hooks/main.ts, hook.sh). Printing nothing would allow the compaction at rawr's early
 * ask line without rawr's decision; refusing blindly could end the turn. So it decides as the catching-up
 * verdict does, from the tail alone (no follower): it refuses only where rawr's own steering may, and
 * allows a reactive compaction, the emergency line and Claude Code's blocking level. A reactive one is
 * seen without the follower's count of model calls: the tail's newest response is the one the previous
 * call saw (its id) or older than that call (its time: a response after a PreCompact answer follows the
 * request that answer let through), or the context is below where Claude Code asks from.
 */
export function lostAnswerVerdict(i: TailVerdictInput): SteerVerdict {
  const p = i.previous;
  const t = i.tail;
  const same = t !== null && p !== null && (p.tail === t.id || (t.at !== undefined && Date.parse(t.at) <= Date.parse(p.at)));
  return tailVerdict(
    i,
    null,
    same,
    'lost_answer',
    '',
    (pct) => `the resident hook engine did not answer; compaction deferred to the next request (${pct}% used)`,
  );
}

const LOG = 'steer-log.jsonl';
/** The newest answers are at the end of the log: this much of its tail holds the last one. */
const LAST_VERDICT_BYTES = 16 * 1024;

/**
 * The newest allowing answer in the session's log (`compacting at commit 3f2a1c9 (66% used; …)`), for
 * the message Claude Code shows after its compaction; undefined when there is none (not steering, a
 * manual compaction, no log). Reads only the log's tail, a bounded read of a regular file.
 */
export async function lastAllowed(dir: string): Promise<{ why: string; text: string } | undefined> {
  const newest = (await jsonLinesTail(path.join(dir, LOG), LoggedAnswer, LAST_VERDICT_BYTES, 1))[0];
  return newest?.allow ? { why: newest.why, text: newest.text } : undefined;
}

const LoggedAnswer = z.object({ allow: z.boolean(), why: z.string().max(40), text: z.string().max(1_000) });
/** One line per PreCompact answer in `<session>/steer-log.jsonl` (sessionLog.ts: rotated once past 1 MiB). */
function logVerdict(dir: string, entry: Record<string, unknown>): void {
  appendSessionLog(path.join(dir, LOG), entry);
}

export interface SteerRun {
  verdict: SteerVerdict;
  readBytes: number;
  restarted?: string;
  /** The continuation packet the model wrote after the heads-up, when the compaction is allowed with it. */
  packet?: { file: string; text: string };
}

/** What both steering hooks (PreCompact, PostToolUse) are given about the session they steer. */
export interface SteeredSession {
  /** The session's state folder (`.rawr/claude/<session>`). */
  dir: string;
  /** The project folder (for `.scratch/`). */
  root: string;
  sessionId: string;
  /** Absolute path of Claude Code's transcript. */
  transcript: string;
  config: SteerConfig | null;
  settings: Settings;
  prompts: Prompts;
  env: Record<string, string | undefined>;
  /** An `autoCompactWindow` set in Claude Code's settings layers (steerConfig.ts settingsWindow). */
  settingsWindow?: number | null;
  now: Date;
}

/**
 * The PreCompact answer for a session: its state (steerState.ts) advanced by the transcript's new
 * lines, the golden path's state (golden.ts), the verdict, the state and a log line written back.
 * `transcript` must be an absolute path.
 */
export async function steerPreCompact(
  o: SteeredSession & {
    trigger: string | null | undefined;
    /** Runs the state and log writes after the answer is out (HookRunOptions.later); without it, here. */
    later?: (work: () => void) => void;
    /** The most one call reads of the transcript (steerState.ts READ_BOUND; a test lowers it). */
    readBound?: ReadBound;
  },
): Promise<SteerRun> {
  // An automatic compaction is asked inside a tool loop: the transcript must hold the result it is behind on.
  let waitedMs = o.trigger === 'manual' ? 0 : await waitForTranscript(o.transcript);
  const followerOptions = followerOptionsOf(o);
  const s = await loadSession(o.dir, o.transcript, followerOptions, o.readBound);
  if (s.behind) return catchUp(o, s, s.behind, followerOptions, waitedMs);
  if (o.trigger !== 'manual' && s.previous && s.previous.modelCalls === s.follower.calls.modelCalls) waitedMs += await waitForResponse(s, o.readBound);
  const pending = await readGolden(o.dir);
  const packet = pending ? readPacket(o.root, pending) : null;
  const input: VerdictInput = {
    trigger: o.trigger,
    follower: s.follower,
    previous: s.previous,
    config: o.config,
    settings: o.settings,
    env: o.env,
    settingsWindow: o.settingsWindow ?? null,
  };
  let verdict = steerVerdict({ ...input, golden: { enabled: o.settings.packet_author === 'agent', pending, packet } });
  if (verdict.startGolden) {
    if (!startGolden(o, verdict.startGolden, s.follower.calls.modelCalls))
      verdict = steerVerdict({ ...input, golden: { enabled: false, pending: null, packet: null } }); // no usable .scratch/: allow now
  }
  if (verdict.allow) clearGolden(o.dir);
  record(o, s, followerOptions, verdict, {
    ...(verdict.decision ? { line: verdict.decision.line, code: verdict.decision.code, reason: verdict.decision.reason } : {}),
    ...(pending ? { packet: pending.packet, packetWritten: packet !== null } : {}),
    ...(waitedMs >= 20 ? { waitedMs } : {}),
  });
  return {
    verdict,
    readBytes: s.readBytes,
    ...(s.restarted !== undefined ? { restarted: s.restarted } : {}),
    ...(verdict.allow && packet ? { packet } : {}),
  };
}

/**
 * A call that left part of the history unread (steerState.ts READ_BOUND): the verdict from the tail
 * (catchingUpVerdict), the follower's progress saved so the next call reads on from there. A refusal
 * remembers the tail's newest response: asked again with none newer, the request failed (reactive) —
 * waited for a little first, as waitForResponse does, since Claude Code may not have written it yet.
 */
async function catchUp(
  o: Parameters<typeof steerPreCompact>[0],
  s: SteerSession,
  behind: { offset: number; size: number },
  followerOptions: ReturnType<typeof followerOptionsOf>,
  waitedMs: number,
): Promise<SteerRun> {
  let tail = null as TailUsage | null; // set by the poll below (a plain annotation would narrow it to null here)
  waitedMs += await pollUntil(async () => {
    tail = await tailUsage(o.transcript).catch(() => null);
    return o.trigger === 'manual' || !tail || s.previous?.tail !== tail.id || s.previous.allowed;
  });
  const verdict = catchingUpVerdict({ ...o, follower: s.follower, previous: s.previous, settingsWindow: o.settingsWindow ?? null, tail, behind });
  if (verdict.allow) clearGolden(o.dir);
  record(o, s, followerOptions, verdict, { readTo: behind.offset, size: behind.size, ...(waitedMs >= 20 ? { waitedMs } : {}) }, tail?.id);
  return { verdict, readBytes: s.readBytes, ...(s.restarted !== undefined ? { restarted: s.restarted } : {}) };
}

/** What the call decided, into the session (`previous`) and its log line; written after the answer when the caller can (`later`). */
function record(
  o: { dir: string; now: Date; trigger: string | null | undefined; later?: (work: () => void) => void },
  s: SteerSession,
  followerOptions: ReturnType<typeof followerOptionsOf>,
  verdict: SteerVerdict,
  more: Record<string, unknown>,
  tail?: string,
): void {
  s.previous = {
    modelCalls: s.follower.calls.modelCalls,
    allowed: verdict.allow,
    at: o.now.toISOString(),
    line: s.follower.state().lines,
    ...(tail !== undefined ? { tail } : {}),
  };
  const entry = {
    at: o.now.toISOString(),
    trigger: o.trigger ?? null,
    allow: verdict.allow,
    why: verdict.why,
    text: verdict.text,
    usedTokens: verdict.usedTokens,
    window: verdict.window,
    // Why this call read the transcript from its start (first call, a replaced transcript, a damaged state):
    // the log says what a slow answer cost.
    ...(s.restarted !== undefined ? { restarted: s.restarted, readBytes: s.readBytes } : {}),
    ...more,
  };
  const persist = () => {
    saveSession(o.dir, s, followerOptions);
    logVerdict(o.dir, entry);
  };
  // The answer does not depend on these writes; the next call (queued behind this one in the resident
  // engine) reads what they wrote.
  if (o.later) o.later(persist);
  else persist();
}

/** The session's follower options: the settings and prompts, and the window the person chose as its cap. */
function followerOptionsOf(o: { settings: Settings; prompts: Prompts; env: Record<string, string | undefined>; settingsWindow?: number | null }) {
  const cap = sessionWindowCap(o);
  return { settings: o.settings, prompts: o.prompts, ...(cap !== null ? { windowCap: cap } : {}) };
}

/** Writes golden.json (the heads-up pending for the next hook the model reads); false when `.scratch/` is not usable. */
function startGolden(
  o: { dir: string; root: string; sessionId: string; prompts: Prompts; now: Date },
  sg: NonNullable<SteerVerdict['startGolden']>,
  modelCalls: number,
): boolean {
  const file = packetPathFor(o.sessionId);
  if (!ensureScratch(o.root)) return false;
  writeGolden(o.dir, {
    version: 1,
    boundary: sg.boundary.slice(0, 500),
    askedAt: o.now.toISOString(),
    askedAtCalls: modelCalls,
    packet: file,
    headsUp: headsUpFor(o.prompts, { ...sg, packet: file }).slice(0, 16_000),
  });
  return true;
}

/** What a PostToolUse hook says about the tool call it follows (Claude Code's payload, checked here). */
const BashCall = z.object({ command: z.string().max(100_000) });
const BashResponse = z.looseObject({
  stdout: z.string().max(4_000_000).optional(),
  stderr: z.string().max(4_000_000).optional(),
  interrupted: z.boolean().optional(),
});

/**
 * The boundary in the tool's own result (issue 34): Claude Code runs PostToolUse before it writes the
 * tool's result into the transcript (measured, 2.1.332) and sends the hook's additionalContext with that
 * result in the very next request. So at a Bash call the steering session reads the transcript (once it
 * holds the response that made the call: waited for, as PreCompact waits for a late result), is given
 * the call's result as Claude Code will record it (in memory only: the saved state stays the
 * transcript's), and asks the arbiter what it decides right after it; a compaction there starts the
 * golden path now (golden.json: the caller's withModelNotes hands the heads-up out with this very
 * result), instead of at the next PreCompact — so the packet is written next and the compaction follows
 * it. Returns the boundary when it started the golden path.
 */
export async function steerAtTool(
  o: SteeredSession & {
    toolName: string | null | undefined;
    toolUseId: string | null | undefined;
    toolInput: unknown;
    toolResponse: unknown;
  },
): Promise<{ boundary: string; percentUsed: number } | null> {
  if (!o.config?.steer || o.settings.mode !== 'auto' || o.settings.packet_author !== 'agent' || o.toolName !== 'Bash' || !o.toolUseId) return null;
  const call = BashCall.safeParse(o.toolInput);
  const response = BashResponse.safeParse(o.toolResponse);
  if (!call.success || !response.success || response.data.interrupted) return null;
  if (await readGolden(o.dir)) return null; // a heads-up is pending already
  // The call's own response must be in what the follower reads: without it the result appended below
  // belongs to no call, no commit is seen, and the heads-up would ride on the next tool's result instead
  // (CI, loaded: Claude Code had not written the commit's response when this hook read).
  const waitedMs = await waitForToolCall(o.transcript, o.toolUseId);
  const options = followerOptionsOf(o);
  const s = await loadSession(o.dir, o.transcript, options);
  // Still reading a long history: its state is of a point long past, no boundary is decided on it; the
  // progress is kept (the transcript's own lines only), so the next call reads on.
  if (s.behind) {
    saveSession(o.dir, s, options);
    return null;
  }
  const output = [response.data.stdout ?? '', response.data.stderr ?? ''].filter(Boolean).join('\n');
  // The record Claude Code writes for a Bash result (its importer reads the exit code 0 from toolUseResult).
  const record = {
    type: 'user',
    timestamp: o.now.toISOString(),
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: o.toolUseId, content: output, is_error: false }] },
    toolUseResult: { stdout: response.data.stdout ?? '', stderr: response.data.stderr ?? '', interrupted: false },
  };
  s.follower.append(`${JSON.stringify(record)}\n`);
  const st = s.follower.state();
  const d = s.follower.decisionNow();
  const window = st.window.window;
  // The arbiter compacts here, or holds its compaction to the end of this phase close (forecast_held:
  // the next step still belongs to the close). With the golden path the close's remaining work is the
  // packet: the heads-up starts it now, on the boundary's own result.
  if (!d || !(d.action === 'compact' || d.code === 'forecast_held') || window <= 0) return null;
  const remaining = (1 - st.contextTokens / window) * 100;
  // At the emergency line PreCompact allows at once: no packet is waited for there.
  if (remaining < o.settings.emergency_percent_remaining_lt) return null;
  const named = d.boundaries[0] ?? detectShellBoundaries({ command: call.data.command, exitCode: 0, output })[0]?.detail;
  if (named === undefined) return null;
  const boundary = shortBoundary(named.startsWith('commit ') || !/^[0-9a-f]{7,40} /.test(named) ? named : `commit ${named}`);
  if (!startGolden(o, { boundary, tier: d.tier ?? null, percentRemaining: d.percentRemaining ?? null }, s.follower.calls.modelCalls)) return null;
  const percentUsed = Math.round(100 - remaining);
  logVerdict(o.dir, {
    at: o.now.toISOString(),
    trigger: 'PostToolUse',
    allow: false,
    why: 'heads_up',
    text: `compacting at ${boundary} after the continuation packet (${percentUsed}% used; heads-up with the tool's result)`,
    usedTokens: st.contextTokens,
    window,
    line: d.line,
    code: d.code,
    reason: d.reason,
    ...(waitedMs >= 20 ? { waitedMs } : {}),
  });
  return { boundary, percentUsed };
}

/**
 * No model response since the previous PreCompact: a request that failed (a reactive compaction), or a
 * transcript Claude Code has not written the response to yet — measured with the real CLI: a hook that
 * answers in ~40 ms (the bash client) can read before it does, and would take a deferred call for a
 * failed request. So the response is waited for, as a late tool result is (bounded: a reactive
 * compaction, which never gets one, pays MAX_WAIT_MS once); what arrives is read into the session.
 */
async function waitForResponse(s: SteerSession, bound: ReadBound | undefined): Promise<number> {
  const start = Date.now();
  const calls = s.follower.calls.modelCalls;
  // Checked at once, though loadSession has just read to the end: reading nothing new costs one open,
  // and a response written since is taken without a poll's delay. A shrunk file (replaced) reads nothing.
  await pollUntil(async () => (await readMore(s, bound)) === 'shrank' || s.follower.calls.modelCalls !== calls);
  if (s.follower.calls.modelCalls !== calls) {
    // The response is in: its tool result may still be on its way (waitForTranscript's case).
    await waitForTranscript(s.transcript, Math.max(0, MAX_WAIT_MS - (Date.now() - start)));
    await readMore(s, bound);
  }
  return Date.now() - start;
}
