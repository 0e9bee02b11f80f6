/**
 * The compaction panel's wire format, as zod schemas (vscode-free, unit-tested). Both directions are
 * validated on the host: a message from the webview is parsed before anything acts on it (a bad one is
 * logged and ignored), and every view model is parsed before it is posted, so the webview only ever
 * receives the shapes below. The webview (media/panel.js) additionally renders every string with
 * textContent, so nothing in a model-produced text (packets, reasons, commit subjects) can execute.
 *
 * The view model is plain JSON built by viewModel.ts from the core snapshot, the thread's event log and
 * the boundary bus; packets travel as Markdown blocks (markdown.ts), never as HTML.
 */
import * as z from 'zod';
import { MODES, TIERS } from '../../core/settings/schema';
import { BOUNDARY_KINDS } from '../../core/signals/types';
import { ThreadIdSchema } from '../../core/protocol/threadId';
import { FollowActionSchema, FollowMessageSchema } from './followMessages';

/** A thread id as the core accepts it (core/protocol/threadId.ts). */
export { ThreadIdSchema };
const text = (max: number) => z.string().max(max);
const TierSchema = z.enum(TIERS);
const ModeSchema = z.enum(MODES);
const count = z.number().finite().nonnegative();
const time = z.number().finite();

// ---- Markdown as data (rendered inert by the webview) ------------------------------------------------

// A link keeps its target only when it is http(s) or mailto (markdown.ts); the webview opens nothing else.
export const InlineSchema = z
  .object({
    t: z.enum(['text', 'bold', 'italic', 'code', 'link']),
    v: text(200_000),
    href: z
      .string()
      .max(2_000)
      .regex(/^(https?:\/\/|mailto:)/i)
      .optional(),
  })
  .strict();
export type Inline = z.infer<typeof InlineSchema>;
const Inlines = z.array(InlineSchema).max(5_000);

export const BlockSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('heading'), level: z.number().int().min(1).max(6), inlines: Inlines }).strict(),
  z.object({ type: z.literal('paragraph'), inlines: Inlines }).strict(),
  z.object({ type: z.literal('quote'), inlines: Inlines }).strict(),
  z
    .object({
      type: z.literal('list'),
      ordered: z.boolean(),
      start: z.number().int().min(0),
      items: z.array(z.object({ level: z.number().int().min(0).max(8), inlines: Inlines }).strict()).max(5_000),
    })
    .strict(),
  z.object({ type: z.literal('code'), lang: text(40), text: text(200_000) }).strict(),
  z.object({ type: z.literal('rule') }).strict(),
  z
    .object({
      type: z.literal('table'),
      header: z.array(Inlines).max(100),
      align: z.array(z.enum(['left', 'center', 'right']).nullable()).max(100),
      rows: z.array(z.array(Inlines).max(100)).max(5_000),
    })
    .strict(),
]);
export type Block = z.infer<typeof BlockSchema>;

// ---- the view model ------------------------------------------------------------------------------------

export const GaugeSchema = z
  .object({
    usedTokens: count.nullable(),
    window: count.nullable(),
    /** Percent of the window remaining, unrounded (null: no token count yet). */
    percentRemaining: z.number().min(0).max(100).nullable(),
    /** As the status bar shows it (rounded down, e.g. "31%"). */
    percentLabel: text(8).nullable(),
    tier: TierSchema.nullable(),
    /** The four thresholds, "tier starts below N% remaining". */
    thresholds: z.array(z.object({ tier: TierSchema, below: z.number().min(0).max(100) }).strict()).length(4),
    /** The status bar's text without its icon (e.g. "31% · ready"). */
    statusText: text(80),
    /** The phase forecast: the next phase's size, drawn on the gauge from the current use onwards. */
    forecast: z
      .object({
        nextPhaseTokens: count,
        /** Percent of the window used once the next phase is added (may pass 100: it would not fit). */
        endPercentUsed: z.number().min(0).max(1_000),
        /** Percent of the window used at the emergency line. */
        emergencyPercentUsed: z.number().min(0).max(100),
        basis: z.enum(['thread', 'workspace', 'settings']),
        phases: count,
        fits: z.boolean(),
      })
      .strict()
      .nullable()
      .optional(),
  })
  .strict();
export type GaugeVM = z.infer<typeof GaugeSchema>;

export const BoundarySchema = z
  .object({
    id: text(300),
    kind: z.enum(BOUNDARY_KINDS),
    strength: z.enum(['strong', 'weak']),
    /** Every source that reported it (git and the terminal may both see one commit). */
    sources: z.array(text(40)).max(10),
    detail: text(2_000),
    /** The commit sha, plan step or turn it names, when there is one. */
    ref: text(400).nullable(),
    turn: z.number().int().nonnegative().nullable(),
    at: time,
    /**
     * pending: waiting for the next evaluation point; consumed: looked at by an evaluation (edge-triggered);
     * ignored: arrived during rawr's own sequence (synthetic turns never count); seen: reported in the
     * workspace but not (yet) delivered to this thread's arbiter.
     */
    status: z.enum(['pending', 'consumed', 'ignored', 'seen']),
    consumedBy: text(40).nullable(),
    note: text(300).nullable(),
  })
  .strict();
export type BoundaryVM = z.infer<typeof BoundarySchema>;

export const JudgmentSchema = z
  .object({
    corrId: text(40),
    verdict: z.enum(['pending', 'approved', 'vetoed', 'fallback_approved', 'fallback_vetoed', 'cancelled']),
    reason: text(4_000).nullable(),
    latencyMs: count.nullable(),
    timedOut: z.boolean(),
  })
  .strict();
export type JudgmentVM = z.infer<typeof JudgmentSchema>;

export const TimelineDecisionSchema = z
  .object({
    kind: z.literal('decision'),
    id: text(40),
    at: time,
    point: text(20),
    action: text(20),
    code: text(40),
    tier: TierSchema.nullable(),
    percentRemaining: z.number().nullable(),
    reason: text(8_000),
    boundaries: z.array(text(400)).max(50),
    matched: z.array(text(300)).max(50),
    /** Plain "above the early threshold": nothing could have happened (hidden unless asked for). */
    noise: z.boolean(),
    judgment: JudgmentSchema.nullable(),
    /** The phase forecast at this decision; `drove`: the forecast, not the tier rule, decided. */
    forecast: z
      .object({ verdict: z.enum(['compact', 'fits', 'plan_done', 'defer']), drove: z.boolean(), nextPhaseTokens: count, roomTokens: z.number() })
      .strict()
      .nullable()
      .optional(),
  })
  .strict();
export const TimelineCompactionSchema = z
  .object({
    kind: z.literal('compaction'),
    seqId: text(40),
    at: time,
    text: text(2_000),
    reason: text(8_000).nullable(),
    tokensBefore: count,
    tokensAfter: count,
    /** The receipt: per fact class of rawr's trail, how many facts, kept by the agent's packet, added by rawr. */
    receipt: z
      .array(z.object({ cls: text(40), facts: count, kept: count, added: count }).strict())
      .max(20)
      .nullable(),
  })
  .strict();
export const TimelineSequenceEndSchema = z
  .object({ kind: z.literal('sequence_end'), seqId: text(40), at: time, outcome: z.enum(['failed', 'cancelled']), reason: text(8_000).nullable() })
  .strict();
export const TimelineItemSchema = z.discriminatedUnion('kind', [TimelineDecisionSchema, TimelineCompactionSchema, TimelineSequenceEndSchema]);
export type TimelineItemVM = z.infer<typeof TimelineItemSchema>;
export type TimelineDecisionVM = z.infer<typeof TimelineDecisionSchema>;

export const SEQUENCE_STEPS = ['heads_up', 'packet', 'compact', 'handoff'] as const;
export const SequenceSchema = z
  .object({
    seqId: text(40),
    running: z.boolean(),
    /** The core's phase while running (idle once it ended). */
    phase: z.enum(['idle', 'assessing', 'awaiting_scratch', 'awaiting_packet', 'compacting']),
    steps: z.array(z.object({ step: z.enum(SEQUENCE_STEPS), state: z.enum(['done', 'active', 'pending', 'skipped']) }).strict()).length(4),
    detail: text(400),
    outcome: z.enum(['compacted', 'failed', 'cancelled', 'vetoed']).nullable(),
    decisionId: text(40).nullable(),
    reason: text(8_000).nullable(),
    startedAt: time.nullable(),
    canCancel: z.boolean(),
  })
  .strict();
export type SequenceVM = z.infer<typeof SequenceSchema>;

export const CompactionSchema = z
  .object({
    seqId: text(40),
    at: time,
    tokensBefore: count,
    tokensAfter: count,
    text: text(2_000).nullable(),
    reason: text(8_000).nullable(),
    packetAuthor: z.enum(['agent', 'watcher']).nullable(),
    packet: z.array(BlockSchema).max(10_000).nullable(),
    /** Workspace-relative scratch file written for this sequence, if any. */
    scratchPath: text(300).nullable(),
    undone: z.boolean(),
    canUndo: z.boolean(),
  })
  .strict();
export type CompactionVM = z.infer<typeof CompactionSchema>;

export const ViewModelSchema = z
  .object({
    threadId: ThreadIdSchema.nullable(),
    /** Threads of this workspace, newest first. */
    threads: z.array(z.object({ id: ThreadIdSchema, active: z.boolean() }).strict()).max(1_000),
    /** The panel follows the thread of the latest @rawr request (no explicit pick). */
    followActive: z.boolean(),
    mode: ModeSchema.nullable(),
    turn: z.number().int().nonnegative().nullable(),
    gauge: GaugeSchema,
    boundaries: z.array(BoundarySchema).max(500),
    timeline: z.array(TimelineItemSchema).max(2_000),
    sequence: SequenceSchema.nullable(),
    compactions: z.array(CompactionSchema).max(200),
    problems: z.array(text(1_000)).max(50),
    updatedAt: time,
  })
  .strict();
export type ViewModel = z.infer<typeof ViewModelSchema>;

// ---- messages ------------------------------------------------------------------------------------------

/** Host → webview. */
export const HostMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('state'), vm: ViewModelSchema }).strict(),
  z.object({ type: z.literal('notice'), level: z.enum(['info', 'error']), text: text(1_000) }).strict(),
  FollowMessageSchema,
]);
export type HostMessage = z.infer<typeof HostMessageSchema>;

/** Webview → host. Every action names the thread it was shown for, so a stale click cannot hit another thread. */
export const WebviewMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }).strict(),
  z.object({ type: z.literal('refresh') }).strict(),
  /** null: follow the thread of the latest @rawr request. */
  z.object({ type: z.literal('selectThread'), threadId: ThreadIdSchema.nullable() }).strict(),
  z.object({ type: z.literal('compactNow'), instructions: text(4_000) }).strict(),
  z.object({ type: z.literal('setMode'), mode: ModeSchema }).strict(),
  z.object({ type: z.literal('openSettings') }).strict(),
  z.object({ type: z.literal('exportLog'), threadId: ThreadIdSchema }).strict(),
  z.object({ type: z.literal('cancelSequence'), threadId: ThreadIdSchema }).strict(),
  z.object({ type: z.literal('undo'), threadId: ThreadIdSchema, seqId: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/) }).strict(),
  z.object({ type: z.literal('openScratch'), path: z.string().regex(/^\.scratch\/[A-Za-z0-9._-]{1,120}$/) }).strict(),
  ...FollowActionSchema.options,
]);
export type WebviewMessage = z.infer<typeof WebviewMessageSchema>;

/**
 * What the webview keeps with setState (survives hide/show, and reaches the serializer on window
 * reload). Parsed leniently on the way back: anything unexpected falls back to the defaults.
 */
export const PanelStateSchema = z.object({
  threadId: ThreadIdSchema.nullable().catch(null),
  showNoise: z.boolean().catch(false),
});
export type PanelState = z.infer<typeof PanelStateSchema>;

export function parsePanelState(raw: unknown): PanelState {
  const r = PanelStateSchema.safeParse(raw && typeof raw === 'object' ? raw : {});
  return r.success ? r.data : { threadId: null, showNoise: false };
}

/** Parses a webview message; the error names the first problem (for the log). */
export function parseWebviewMessage(raw: unknown): { ok: true; msg: WebviewMessage } | { ok: false; error: string } {
  const r = WebviewMessageSchema.safeParse(raw);
  if (r.success) return { ok: true, msg: r.data };
  const first = r.error.issues[0];
  return { ok: false, error: first ? `${first.path.join('.') || '(message)'}: ${first.message}` : 'invalid message' };
}
