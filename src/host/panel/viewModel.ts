/**
 * The compaction panel's model layer (vscode-free, unit-tested): from what the core knows about a thread,
 * build the plain JSON view model the webview renders.
 *
 * Two sources, each for what it is authoritative on:
 * - the core's snapshot (`CoreApi.snapshot`): the current token count, settings (mode, thresholds),
 *   pending boundaries and sequence phase, and which compaction can still be undone;
 * - the thread's append-only event log, read incrementally by a `ThreadJournal`: the history — every
 *   decision with its reason, judgment requests/results (latency, correlation id), packets, compactions,
 *   undos — and, from the facts the engine logged (core/log/loggedEffect.ts), which turn each boundary
 *   belongs to and whether it was consumed or ignored (and why), and how far each sequence got (heads-up
 *   → packet → compact → handoff). The journal reads what the engine said; it never re-derives it. The
 *   log is what a window reload rebuilds from, so the panel shows the same history after a reload.
 * Plus the boundary bus's recent reports (workspace-wide), for reports this thread's arbiter never got.
 */
import * as z from 'zod';
import { forecastNext, type PhaseForecast } from '../../core/arbiter/forecast';
import { percentRemaining, tierOf } from '../../core/arbiter/tiers';
import { boundaryId } from '../../core/engine/step';
import type { Decision } from '../../core/engine/types';
import { isLoggedFact, LoggedEffectSchema, type LoggedCommand, type LoggedFact } from '../../core/log/loggedEffect';
import { LogRecordSchema, type DecisionRecord, type LogRecord } from '../../core/logformat/records';
import type { ThreadSnapshot } from '../../core/protocol/coreProtocol';
import { TIERS, type Settings } from '../../core/settings/schema';
import { BOUNDARY_KINDS, strengthOf, type BoundaryKind, type DetectedBoundary } from '../../core/signals/types';
import { percentLabel, statusText } from '../ui/statusText';
import { parseMarkdown } from './markdown';
import {
  SEQUENCE_STEPS,
  type BoundaryVM,
  type CompactionVM,
  type GaugeVM,
  type JudgmentVM,
  type SequenceVM,
  type TimelineDecisionVM,
  type TimelineItemVM,
  type ViewModel,
} from './messages';
import { clip as clipText } from '../../core/text/clip';

type Step = (typeof SEQUENCE_STEPS)[number];

export interface JournalBoundary {
  id: string;
  kind: BoundaryKind;
  strength: 'strong' | 'weak';
  sources: string[];
  detail: string;
  key: string | null;
  at: number;
  turn: number | null;
  status: 'pending' | 'consumed' | 'ignored';
  consumedBy: string | null;
  note: string | null;
}

export interface JournalJudgment {
  corrId: string;
  decisionId: string | null;
  requestedAt: number;
  answeredAt: number | null;
  timedOut: boolean;
  cancelled: boolean;
}

export interface JournalSequence {
  seqId: string;
  decisionId: string | null;
  reason: string | null;
  startedAt: number;
  reached: Step[];
  active: Step | null;
  scratchPath: string | null;
  outcome: 'compacted' | 'failed' | 'cancelled' | null;
  endedAt: number | null;
  compactedText: string | null;
  /** Per fact class: facts in rawr's trail, kept by the agent's packet, added by rawr (the compacted fact's receipt). */
  receipt: Record<string, { facts: number; kept: number; added: number }> | null;
}

export interface JournalCompaction {
  seqId: string;
  at: number;
  tokensBefore: number;
  tokensAfter: number;
  undone: boolean;
}

const MAX_BOUNDARIES = 300;
const MAX_DECISIONS = 1_000;
const MAX_PACKETS = 50;
const MAX_JUDGMENTS = 1_000;
const MAX_COMPACTIONS = 500;
/** The start of an event, message or checkpoint record as EventLog writes it (a thread id has no quote or backslash). */
const PASSED_OVER = /^\{"rawr":1,"thread":"[^"\\]*","kind":"(?:event|message|checkpoint)"/;

export { boundaryId };

const IGNORED_NOTE: Record<'duplicate' | 'during_sequence', string> = {
  duplicate: 'already seen by this thread',
  during_sequence: "arrived during rawr's own compaction sequence (synthetic turns never count)",
};

/** What a boundary names: a commit's sha, a plan step, a turn. */
export function boundaryRef(kind: string, key: string | null, detail: string): string | null {
  if (kind === 'commit') {
    const sha = (key && /^[0-9a-f]{7,40}$/i.test(key) ? key : /\b([0-9a-f]{7,40})\b/i.exec(detail)?.[1]) ?? null;
    return sha ? sha.slice(0, 7).toLowerCase() : null;
  }
  if (kind === 'plan_checkpoint') return /"([^"]+)"/.exec(detail)?.[1] ?? detail;
  if (kind === 'turn_complete') return detail;
  return null;
}

/**
 * One thread's history, fed line by line from its event log (JSON Lines, validated with the log's zod
 * schema: a bad line is counted as a problem and skipped). Cheap to feed incrementally.
 */
export class ThreadJournal {
  boundaries = new Map<string, JournalBoundary>();
  decisions: DecisionRecord[] = [];
  judgments = new Map<string, JournalJudgment>();
  packets = new Map<string, { author: 'agent' | 'watcher'; text: string }>();
  sequences = new Map<string, JournalSequence>();
  compactions: JournalCompaction[] = [];
  problems: string[] = [];
  lines = 0;
  private lastJudgeDecision: string | null = null;

  constructor(readonly threadId: string) {}

  ingestText(text: string): void {
    for (const line of text.split('\n')) this.ingestLine(line);
  }

  ingestLine(line: string): void {
    if (!line.trim()) return;
    this.lines++;
    // Most of a log is engine events and thread messages (and the core's checkpoints, a copy of its state),
    // which the panel does not read (below): passed over by their first bytes as EventLog writes them, not
    // parsed and validated for nothing. A line that only looks like one is passed over too, which is all a
    // real one would be.
    if (PASSED_OVER.test(line)) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return this.problem(`log line ${this.lines}: not valid JSON — skipped`);
    }
    const r = LogRecordSchema.safeParse(json);
    if (!r.success) return this.problem(`log line ${this.lines}: not a rawr log record — skipped`);
    this.ingestRecord(r.data);
  }

  /** Bytes of the log before the first line read that the panel did not read (LogTail's cap): 0 when it read all. */
  skippedBytes = 0;
  /** The time of the first record read after a skip: where the history shown starts. */
  shownFrom: number | null = null;

  /** What the panel reads of the log at most at a time (LogTail's cap), when it had to skip. */
  readLimit = 0;

  /**
   * Skips after the history shown had started (the log grew by more than LogTail's cap between two
   * looks): what the panel shows from `shownFrom` on has that many holes, of `gapBytes` in all.
   */
  gaps = 0;
  gapBytes = 0;

  /** `skipped` bytes of the log were passed over before the lines that follow (`limit`: LogTail's cap). */
  skip(skipped: number, limit: number): void {
    if (skipped <= 0) return;
    this.skippedBytes += skipped;
    this.readLimit = limit;
    // Entries read before this skip stay shown, so the history shown still starts where it started.
    if (this.shownFrom !== null) {
      this.gaps++;
      this.gapBytes += skipped;
    }
  }

  private problem(p: string): void {
    if (this.problems.length < 20) this.problems.push(p);
  }

  ingestRecord(rec: LogRecord): void {
    if (this.skippedBytes > 0 && this.shownFrom === null) this.shownFrom = rec.at;
    switch (rec.kind) {
      case 'decision':
        this.onDecision(rec.decision);
        break;
      case 'judgment': {
        if (rec.phase === 'request') {
          this.judgments.set(rec.corrId, {
            corrId: rec.corrId,
            decisionId: this.lastJudgeDecision,
            requestedAt: rec.at,
            answeredAt: null,
            timedOut: false,
            cancelled: false,
          });
          if (this.judgments.size > MAX_JUDGMENTS) this.judgments.delete(this.judgments.keys().next().value!);
        } else {
          const j = this.judgments.get(rec.corrId);
          if (j && j.answeredAt === null) j.answeredAt = rec.at;
        }
        break;
      }
      case 'packet': {
        this.packets.set(rec.seqId, { author: rec.author, text: rec.text });
        if (this.packets.size > MAX_PACKETS) this.packets.delete(this.packets.keys().next().value!);
        const seq = this.sequences.get(rec.seqId);
        if (seq) reach(seq, 'packet', 'compact');
        break;
      }
      case 'compaction':
        // The archived thread stays in the log (for undo); the panel needs only the numbers.
        this.compactions.push({ seqId: rec.seqId, at: rec.at, tokensBefore: rec.tokensBefore, tokensAfter: rec.tokensAfter, undone: false });
        if (this.compactions.length > 2 * MAX_COMPACTIONS) this.compactions = this.compactions.slice(-MAX_COMPACTIONS); // the panel lists 200
        break;
      case 'undo': {
        // The core restores that compaction's archive: it and every later one are gone (rebuild.ts).
        const k = this.compactions.findIndex((c) => c.seqId === rec.seqId && !c.undone);
        if (k >= 0) for (let i = k; i < this.compactions.length; i++) this.compactions[i]!.undone = true;
        break;
      }
      case 'effect': {
        const fx = LoggedEffectSchema.safeParse(rec.effect);
        // An effect kind of a newer rawr, or a damaged one: skipped (the rest of the history stands).
        if (fx.success) {
          if (isLoggedFact(fx.data)) this.onFact(fx.data, rec.at);
          else this.onCommand(fx.data);
        } else this.problem(`log line ${this.lines}: an effect record this rawr cannot read (${String(rec.effect.type).slice(0, 40)}) — skipped`);
        break;
      }
      case 'event':
      case 'message':
      case 'checkpoint':
        break; // what happened is in the decision and effect records (a checkpoint repeats state)
      default: {
        const unknown: never = rec;
        this.problem(`log line ${this.lines}: unknown record ${JSON.stringify(unknown).slice(0, 80)} — skipped`);
      }
    }
  }

  private onDecision(d: DecisionRecord): void {
    if (typeof d.id !== 'string') return;
    this.decisions.push(d);
    if (this.decisions.length > MAX_DECISIONS) this.decisions.shift();
    if (d.action === 'judge') this.lastJudgeDecision = d.id;
  }

  private addBoundary(b: JournalBoundary): void {
    this.boundaries.set(b.id, b);
    if (this.boundaries.size > MAX_BOUNDARIES) this.boundaries.delete(this.boundaries.keys().next().value!);
  }

  private endJudgment(corrId: string, at: number, how: 'timedOut' | 'cancelled' | null): void {
    const j = this.judgments.get(corrId);
    if (!j || j.answeredAt !== null) return;
    j.answeredAt = at;
    if (how) j[how] = true;
  }

  /** One logged fact: the engine's own account of what happened. */
  private onFact(fx: LoggedFact, at: number): void {
    const seq = 'seqId' in fx ? this.sequences.get(fx.seqId) : undefined;
    switch (fx.type) {
      case 'boundary_noted': {
        const b = fx.boundary;
        const known = this.boundaries.get(b.id);
        // A boundary first seen here, pending or ignored (the engine says which, and why).
        const add = (status: 'pending' | 'ignored', note: string | null) =>
          this.addBoundary({
            id: b.id,
            kind: b.kind,
            strength: b.strength,
            sources: [b.source],
            detail: b.detail,
            key: b.id.split(':').slice(1).join(':') || null,
            at: b.at,
            turn: b.turn,
            status,
            consumedBy: null,
            note,
          });
        if (fx.status === 'pending') {
          if (known) known.status = 'pending';
          else add('pending', null);
        } else if (known) {
          // A second report of a boundary this thread has: one more source for it.
          if (!known.sources.includes(b.source)) known.sources.push(b.source);
        } else {
          add('ignored', IGNORED_NOTE[fx.why === 'new' ? 'duplicate' : fx.why]);
        }
        break;
      }
      case 'boundaries_consumed':
        for (const id of fx.ids) {
          const b = this.boundaries.get(id);
          if (b && b.status === 'pending') {
            b.status = 'consumed';
            b.consumedBy = fx.why === 'compaction' ? 'compaction' : fx.by;
          }
        }
        break;
      case 'judgment_ended':
        this.endJudgment(fx.corrId, at, fx.outcome === 'timed_out' ? 'timedOut' : fx.outcome === 'cancelled' ? 'cancelled' : null);
        break;
      case 'sequence_started':
        this.sequences.set(fx.seqId, {
          seqId: fx.seqId,
          decisionId: fx.decisionId,
          reason: fx.reason,
          startedAt: at,
          reached: ['heads_up'],
          active: 'packet',
          scratchPath: null,
          outcome: null,
          endedAt: null,
          compactedText: null,
          receipt: null,
        });
        if (this.sequences.size > MAX_PACKETS) this.sequences.delete(this.sequences.keys().next().value!);
        break;
      case 'compacted':
        if (seq) {
          reach(seq, 'compact', 'handoff');
          seq.compactedText = fx.text;
          seq.receipt = fx.receipt ?? null;
        }
        break;
      case 'sequence_ended':
        if (seq) {
          seq.outcome = fx.outcome === 'vetoed' ? 'cancelled' : fx.outcome;
          seq.endedAt = at;
          seq.active = null;
        }
        break;
      default: {
        const unknown: never = fx;
        this.problem(`unknown effect ${JSON.stringify(unknown).slice(0, 80)}`);
      }
    }
  }

  /**
   * One logged command, read for the two things no fact says: where the agent was asked to put its
   * scratch notes, and that the handoff went in. The rest (chat lines, thread messages, the compaction
   * call) are in the export, not in the panel's model.
   */
  private onCommand(c: LoggedCommand): void {
    const seq = 'seqId' in c ? this.sequences.get(c.seqId) : undefined;
    if (!seq) return;
    if (c.type === 'request_scratch_write') seq.scratchPath = c.path;
    else if (c.type === 'request_packet' && c.scratchPath) seq.scratchPath = c.scratchPath;
    else if (c.type === 'inject_handoff') reach(seq, 'handoff', null);
  }
}

function reach(seq: JournalSequence, step: Step, next: Step | null): void {
  if (!seq.reached.includes(step)) seq.reached.push(step);
  seq.active = next;
}

// ---- the view model ------------------------------------------------------------------------------------

/** A report of the boundary bus (BoundaryReport, structurally). */
export interface BusReport {
  source: string;
  boundary: DetectedBoundary;
  at: number;
}

export interface ViewInput {
  threadId: string | null;
  threads: readonly string[];
  activeThreadId: string | undefined;
  followActive: boolean;
  snapshot: ThreadSnapshot | null;
  journal: ThreadJournal | null;
  busRecent: readonly BusReport[];
  /** Whether a live session of this window runs the thread (its arbiter hears the bus). */
  live: boolean;
  now: number;
}

const JUDGMENT_SPLIT = ' — judgment: ';
/** A logged decision's tier, if it is one (a record from an older or foreign log may say anything). */
const TierOrNull = z.enum(TIERS).nullable().catch(null);

/** A decision's forecast, validated field by field (decisions come back from the log: untrusted). */
function forecastOf(d: DecisionRecord): TimelineDecisionVM['forecast'] {
  const f = d.forecast as Decision['forecast'] | undefined;
  if (!f || typeof f !== 'object' || !['compact', 'fits', 'plan_done', 'defer'].includes(f.verdict)) return null;
  if (!(Number.isFinite(f.nextPhaseTokens) && f.nextPhaseTokens >= 0 && Number.isFinite(f.roomTokens))) return null;
  return { verdict: f.verdict, drove: f.drove === true, nextPhaseTokens: Math.round(f.nextPhaseTokens), roomTokens: Math.round(f.roomTokens) };
}

/** The gauge's forecast mark: where the context would be after the next phase, against the emergency line. */
export function gaugeForecastOf(
  settings: Settings | null,
  tokens: { used: number; window: number } | null,
  forecast: PhaseForecast | null,
): GaugeVM['forecast'] {
  if (!settings || !forecast || !tokens || !(tokens.window > 0)) return null;
  const endPercentUsed = Math.min(1_000, ((tokens.used + forecast.nextPhaseTokens) / tokens.window) * 100);
  const emergencyPercentUsed = 100 - settings.emergency_percent_remaining_lt;
  return {
    nextPhaseTokens: forecast.nextPhaseTokens,
    endPercentUsed,
    emergencyPercentUsed,
    basis: forecast.basis,
    phases: forecast.phases,
    fits: endPercentUsed < emergencyPercentUsed,
  };
}

export function gaugeOf(settings: Settings | null, tokens: { used: number; window: number } | null, sequenceRunning: boolean): GaugeVM {
  const thresholds = TIERS.map((tier) => ({ tier, below: settings ? settings[`${tier}_percent_remaining_lt` as const] : 0 }));
  if (!tokens || !(tokens.window > 0)) {
    return {
      usedTokens: tokens?.used ?? null,
      window: tokens?.window ?? null,
      percentRemaining: null,
      percentLabel: null,
      tier: null,
      thresholds,
      statusText: statusText({ percentRemaining: null, tier: null, sequenceRunning }).replace(/^\$\([^)]*\)\s*/, ''),
    };
  }
  const pct = percentRemaining(tokens.used, tokens.window);
  const tier = settings ? tierOf(pct, settings) : null;
  return {
    usedTokens: tokens.used,
    window: tokens.window,
    percentRemaining: pct,
    percentLabel: percentLabel(pct),
    tier,
    thresholds,
    statusText: statusText({ percentRemaining: pct, tier, sequenceRunning }).replace(/^\$\([^)]*\)\s*/, ''),
  };
}

function judgmentOf(j: JournalJudgment, judged: DecisionRecord | undefined): JudgmentVM {
  let verdict: JudgmentVM['verdict'] = 'pending';
  let reason: string | null = null;
  if (judged) {
    const k = judged.reason.lastIndexOf(JUDGMENT_SPLIT);
    reason = k >= 0 ? judged.reason.slice(k + JUDGMENT_SPLIT.length) : judged.reason;
    const fallback = judged.code === 'judgment_fallback' || /^fallback \(/.test(reason);
    const approved = judged.action === 'compact';
    verdict = approved ? (fallback ? 'fallback_approved' : 'approved') : fallback ? 'fallback_vetoed' : 'vetoed';
  } else if (j.cancelled) verdict = 'cancelled';
  return { corrId: j.corrId, verdict, reason, latencyMs: j.answeredAt !== null ? Math.max(0, j.answeredAt - j.requestedAt) : null, timedOut: j.timedOut };
}

export function timelineOf(journal: ThreadJournal): TimelineItemVM[] {
  const byId = new Map(journal.decisions.map((d) => [d.id, d]));
  const judgmentByDecision = new Map<string, JournalJudgment>();
  for (const j of journal.judgments.values()) if (j.decisionId) judgmentByDecision.set(j.decisionId, j);
  const items: TimelineItemVM[] = [];
  for (const d of journal.decisions) {
    const judgedFrom = /^(.+)j$/.exec(d.id)?.[1];
    const j = judgmentByDecision.get(d.id) ?? (judgedFrom ? judgmentByDecision.get(judgedFrom) : undefined);
    const item: TimelineDecisionVM = {
      kind: 'decision',
      id: d.id,
      at: d.at ?? 0,
      point: String(d.point),
      action: String(d.action),
      code: String(d.code),
      tier: TierOrNull.parse(d.tier ?? null),
      percentRemaining: typeof d.percentRemaining === 'number' ? d.percentRemaining : null,
      reason: clip(String(d.reason), 8_000),
      boundaries: (d.boundaries ?? []).slice(0, 50).map((b) => clip(`${b.kind}${b.strength === 'weak' ? ' (weak)' : ''} ${b.detail}`.trim(), 400)),
      matched: (d.matched ?? []).slice(0, 50).map((m) => clip(String(m), 300)),
      noise: d.code === 'above_threshold',
      judgment: j ? judgmentOf(j, judgedFrom ? d : byId.get(`${d.id}j`)) : null,
      forecast: forecastOf(d),
    };
    items.push(item);
  }
  for (const c of journal.compactions) {
    const seq = journal.sequences.get(c.seqId);
    items.push({
      kind: 'compaction',
      seqId: c.seqId,
      at: c.at,
      text: clip(seq?.compactedText ?? `Context compacted — ${c.tokensBefore} → ${c.tokensAfter} tokens`, 2_000),
      reason: seq?.reason ? clip(seq.reason, 8_000) : null,
      tokensBefore: c.tokensBefore,
      tokensAfter: c.tokensAfter,
      receipt: seq?.receipt
        ? Object.entries(seq.receipt)
            .slice(0, 20)
            .map(([cls, f]) => ({ cls: clip(cls, 40), ...f }))
        : null,
    });
  }
  for (const s of journal.sequences.values()) {
    if (s.outcome === 'failed' || s.outcome === 'cancelled')
      items.push({ kind: 'sequence_end', seqId: s.seqId, at: s.endedAt ?? s.startedAt, outcome: s.outcome, reason: s.reason ? clip(s.reason, 8_000) : null });
  }
  // Oldest first (the webview shows newest on top); the decision of a step precedes its compaction.
  items.sort((a, b) => a.at - b.at);
  // Bounded: every meaningful entry of the last 1,500, plus the last 300 plain "above threshold" ones.
  const noise = items.filter((x) => x.kind === 'decision' && x.noise);
  const keepNoise = new Set(noise.slice(-300));
  return items.filter((x) => !(x.kind === 'decision' && x.noise) || keepNoise.has(x)).slice(-1_500);
}

function sequenceOf(snapshot: ThreadSnapshot | null, journal: ThreadJournal | null): SequenceVM | null {
  const seq = snapshot?.state.seq;
  if (seq && seq.phase !== 'idle') {
    const j = journal?.sequences.get(seq.seqId);
    const st = (step: Step): SequenceVM['steps'][number]['state'] => {
      const order: Record<typeof seq.phase, number> = { assessing: -1, awaiting_scratch: 1, awaiting_packet: 1, compacting: 2 };
      const k = SEQUENCE_STEPS.indexOf(step);
      const at = order[seq.phase];
      return k < at ? 'done' : k === at ? 'active' : 'pending';
    };
    const detail =
      seq.phase === 'assessing'
        ? `asking the judgment model (correlation id ${seq.corrId}) before the heads-up`
        : seq.phase === 'awaiting_scratch'
          ? `the agent is writing its scratch notes to ${seq.scratchPath}`
          : seq.phase === 'awaiting_packet'
            ? 'the agent is writing its continuation packet'
            : `summarising the thread (packet by the ${seq.packetAuthor})`;
    return {
      seqId: seq.seqId,
      running: true,
      phase: seq.phase,
      steps: SEQUENCE_STEPS.map((step) => ({ step, state: st(step) })),
      detail,
      outcome: null,
      decisionId: seq.decision.id,
      reason: clip(j?.reason ?? seq.decision.reason, 8_000),
      startedAt: j?.startedAt ?? seq.decision.at,
      canCancel: seq.phase === 'compacting' ? !seq.cancelRequested : true,
    };
  }
  // Idle: the last sequence of the log, as it ended.
  const last = journal ? [...journal.sequences.values()].at(-1) : undefined;
  if (!last) return null;
  const steps = SEQUENCE_STEPS.map((step) => ({
    step,
    state: last.reached.includes(step) ? ('done' as const) : last.outcome ? ('skipped' as const) : ('pending' as const),
  }));
  return {
    seqId: last.seqId,
    running: false,
    phase: 'idle',
    steps,
    detail:
      last.outcome === 'compacted'
        ? 'the last sequence compacted the thread and handed off'
        : last.outcome
          ? `the last sequence ended: ${last.outcome}`
          : 'the last sequence did not finish (the window may have reloaded during it)',
    outcome: last.outcome,
    decisionId: last.decisionId,
    reason: last.reason ? clip(last.reason, 8_000) : null,
    startedAt: last.startedAt,
    canCancel: false,
  };
}

function compactionsOf(snapshot: ThreadSnapshot | null, journal: ThreadJournal | null, running: boolean): CompactionVM[] {
  const undoable = snapshot?.compactions.at(-1)?.seqId ?? null;
  const list = journal?.compactions ?? snapshot?.compactions.map((c) => ({ ...c, undone: false })) ?? [];
  return list.slice(-200).map((c) => {
    const seq = journal?.sequences.get(c.seqId);
    const packet = journal?.packets.get(c.seqId);
    return {
      seqId: c.seqId,
      at: c.at,
      tokensBefore: c.tokensBefore,
      tokensAfter: c.tokensAfter,
      text: seq?.compactedText ? clip(seq.compactedText, 2_000) : null,
      reason: seq?.reason ? clip(seq.reason, 8_000) : null,
      packetAuthor: packet?.author ?? null,
      packet: packet ? parseMarkdown(packet.text) : null,
      scratchPath: seq?.scratchPath && /^\.scratch\/[A-Za-z0-9._-]{1,120}$/.test(seq.scratchPath) ? seq.scratchPath : null,
      undone: c.undone,
      canUndo: !c.undone && c.seqId === undoable && !running,
    };
  });
}

function boundariesOf(snapshot: ThreadSnapshot | null, journal: ThreadJournal | null, bus: readonly BusReport[], live: boolean): BoundaryVM[] {
  const out = new Map<string, BoundaryVM>();
  for (const b of journal?.boundaries.values() ?? []) {
    out.set(b.id, {
      id: clip(b.id, 300),
      kind: b.kind,
      strength: b.strength,
      sources: b.sources.slice(0, 10).map((s) => clip(s, 40)),
      detail: clip(b.detail, 2_000),
      ref: clipN(boundaryRef(b.kind, b.key, b.detail), 400),
      turn: b.turn,
      at: b.at,
      status: b.status,
      consumedBy: b.consumedBy ? clip(b.consumedBy, 40) : null,
      note: b.note,
    });
  }
  // The core's pending list is the truth for "pending" (the log may be a moment behind).
  const pendingIds = new Set<string>();
  for (const sig of snapshot?.state.pending ?? []) {
    pendingIds.add(sig.id);
    const prev = out.get(sig.id);
    out.set(sig.id, {
      id: clip(sig.id, 300),
      kind: sig.kind,
      strength: sig.strength,
      sources: prev?.sources ?? [sig.source],
      detail: clip(sig.detail, 2_000),
      ref: clipN(boundaryRef(sig.kind, sig.id.split(':').slice(1).join(':'), sig.detail), 400),
      turn: sig.turn,
      at: sig.at,
      status: 'pending',
      consumedBy: null,
      note: null,
    });
  }
  // Reports of the workspace's sources that this thread's arbiter has not recorded.
  for (const r of bus) {
    if (!(BOUNDARY_KINDS as readonly string[]).includes(r.boundary.kind)) continue;
    const id = boundaryId(r.boundary);
    const prev = out.get(id);
    if (prev) {
      if (!prev.sources.includes(r.source) && prev.sources.length < 10) prev.sources.push(clip(r.source, 40));
      continue;
    }
    out.set(id, {
      id: clip(id, 300),
      kind: r.boundary.kind,
      strength: strengthOf(r.boundary.kind),
      sources: [clip(r.source, 40)],
      detail: clip(r.boundary.detail, 2_000),
      ref: clipN(boundaryRef(r.boundary.kind, r.boundary.key, r.boundary.detail), 400),
      turn: null,
      at: r.at,
      status: 'seen',
      consumedBy: null,
      note: live
        ? 'reported in the workspace; reaching this thread'
        : 'reported in the workspace; this thread has no live @rawr session in this window, so its arbiter did not get it',
    });
  }
  return [...out.values()].sort((a, b) => a.at - b.at).slice(-300);
}

export function buildViewModel(input: ViewInput): ViewModel {
  const { snapshot, journal } = input;
  const state = snapshot?.state ?? null;
  const running = !!state && state.seq.phase !== 'idle';
  const threads = [...new Set(input.threads)].sort().reverse().slice(0, 1_000);
  const problems = [...(journal ? notShown(journal) : []), ...(snapshot?.problems ?? []), ...(journal?.problems ?? [])].slice(0, 50).map((p) => clip(p, 1_000));
  return {
    threadId: input.threadId,
    threads: threads.map((id) => ({ id, active: id === input.activeThreadId })),
    followActive: input.followActive,
    mode: state?.settings.mode ?? null,
    turn: state?.turn ?? null,
    gauge: {
      ...gaugeOf(state?.settings ?? null, state?.tokens ?? null, running),
      forecast:
        state && state.forecast && state.tokens && state.settings.forecast_enabled
          ? gaugeForecastOf(state.settings, state.tokens, forecastNext(state.forecast, state.settings, state.tokens.window, state.plan))
          : null,
    },
    boundaries: boundariesOf(snapshot, journal, input.busRecent, input.live),
    timeline: journal ? timelineOf(journal) : [],
    sequence: sequenceOf(snapshot, journal),
    compactions: compactionsOf(snapshot, journal, running),
    problems,
    updatedAt: input.now,
  };
}

/** What the panel did not read of a long thread's log (LogTail's cap), said once above the problems. */
function notShown(journal: ThreadJournal): string[] {
  if (journal.skippedBytes <= 0) return [];
  const mb = (n: number) => `${(n / (1024 * 1024)).toFixed(n < 10 * 1024 * 1024 ? 1 : 0)} MB`;
  const from =
    journal.shownFrom !== null ? ` The history shown starts at ${new Date(journal.shownFrom).toISOString().replace('T', ' ').slice(0, 19)} UTC.` : '';
  const gaps =
    journal.gaps > 0
      ? ` It has ${journal.gaps === 1 ? 'a gap' : `${journal.gaps} gaps`} (${mb(journal.gapBytes)} in all), where the log grew by more than that between two looks.`
      : '';
  return [
    `This thread's log is long: the panel reads the newest ${mb(journal.readLimit)} of it at a time, and ${mb(journal.skippedBytes)} of its history are not shown here.${from}${gaps} Rawr: Export Decision Log writes all of it.`,
  ];
}

const clip = (s: string, n: number) => clipText(s, n, { total: true });
function clipN(s: string | null, n: number): string | null {
  return s === null ? null : clip(s, n);
}
