/**
 * The zod schema of EngineState (and of a step's output, which a checkpoint's request window holds): a
 * checkpoint in the event log (src/core/log/checkpoint.ts) carries a whole engine state, and the log is
 * untrusted input (docs/robustness.md), so a state read back is validated before it replaces a replay.
 * Composed from the schemas the boundary already has (settings, prompts, thread messages); the checks at
 * the end make tsc fail when EngineState, Command or Fact and their schema stop describing the same values.
 */
import * as z from 'zod';
import { BoundarySourceSchema, PromptsSchema } from './eventSchema';
import { SettingsSchema, TIERS } from '../settings/schema';
import { BOUNDARY_KINDS } from '../signals/types';
import type { Command, Decision, EngineState, Fact, StepOutput } from './types';

const StrengthSchema = z.enum(['strong', 'weak']);
const PacketAuthorSchema = z.enum(['agent', 'watcher']);
const TierSchema = z.enum(TIERS);

const BoundarySignalSchema = z.object({
  id: z.string(),
  kind: z.enum(BOUNDARY_KINDS),
  strength: StrengthSchema,
  source: BoundarySourceSchema,
  at: z.number(),
  turn: z.number(),
  synthetic: z.boolean(),
  detail: z.string(),
});

/** A decision's boundary: the signal's fields a decision keeps (DecisionBoundary). */
const DecisionBoundarySchema = BoundarySignalSchema.pick({ id: true, kind: true, strength: true, source: true, detail: true });

const DecisionForecastSchema = z.object({
  nextPhaseTokens: z.number(),
  roomTokens: z.number(),
  basis: z.enum(['thread', 'workspace', 'settings']),
  phases: z.number(),
  samples: z.array(z.number()).optional(),
  planFinished: z.boolean(),
  verdict: z.enum(['compact', 'fits', 'plan_done', 'defer']),
  avoids: z.string().optional(),
  drove: z.boolean(),
});

const DECISION_CODES = [
  'compact',
  'emergency',
  'overflow',
  'manual',
  'preflight',
  'judgment_approved',
  'judgment_vetoed',
  'judgment_fallback',
  'judgment_pending',
  'mode_off',
  'sequence_active',
  'no_tokens',
  'above_threshold',
  'active_work',
  'mid_turn_policy',
  'stalled',
  'suspended',
  'cooldown',
  'no_boundary',
  'weak_only',
  'not_packet_worthy',
  'forecast',
  'forecast_fits',
  'forecast_plan_done',
  'forecast_held',
  'idle',
] as const;

export const DecisionSchema = z.object({
  id: z.string(),
  at: z.number(),
  point: z.enum(['turn_complete', 'tool_loop', 'manual', 'preflight', 'overflow', 'idle']),
  action: z.enum(['compact', 'judge', 'preflight', 'suggest', 'tag', 'none']),
  code: z.enum(DECISION_CODES),
  tier: TierSchema.nullable(),
  percentRemaining: z.number().nullable(),
  boundaries: z.array(DecisionBoundarySchema),
  matched: z.array(z.string()),
  reason: z.string(),
  forecast: DecisionForecastSchema.optional(),
});

const TrailToolCallSchema = z.object({ id: z.string(), name: z.string(), input: z.string(), output: z.string().optional(), isError: z.boolean().optional() });

const TrailSchema = z.object({
  userRequests: z.array(z.object({ turn: z.number(), at: z.number(), text: z.string(), chars: z.number().optional() })),
  actions: z.array(z.object({ turn: z.number(), text: z.string() })),
  toolTail: z.array(TrailToolCallSchema),
  files: z.array(z.string()),
  lastAgentMessage: z.string(),
  excerpt: z.array(z.object({ role: z.enum(['user', 'assistant', 'tool']), text: z.string() })),
  commits: z.array(z.string()),
  edited: z.array(z.string()).optional(),
  errors: z.array(TrailToolCallSchema).optional(),
  lastCommand: TrailToolCallSchema.extend({ exitCode: z.number().optional() }).optional(),
});

const seqBase = { seqId: z.string(), decision: DecisionSchema, judgment: z.string().optional() };
const SequenceStateSchema = z.discriminatedUnion('phase', [
  z.object({ phase: z.literal('idle') }),
  z.object({ phase: z.literal('assessing'), seqId: z.string(), corrId: z.string(), decision: DecisionSchema }),
  z.object({ ...seqBase, phase: z.literal('awaiting_scratch'), scratchPath: z.string(), packetAuthor: PacketAuthorSchema }),
  z.object({ ...seqBase, phase: z.literal('awaiting_packet'), scratchPath: z.string().optional() }),
  z.object({
    ...seqBase,
    phase: z.literal('compacting'),
    packet: z.string(),
    authored: z.string().optional(),
    packetAuthor: PacketAuthorSchema,
    scratchPath: z.string().optional(),
    tokensBefore: z.number().nullable(),
    cancelRequested: z.boolean(),
  }),
]);

const PlanStepSchema = z.object({ text: z.string(), status: z.enum(['pending', 'in_progress', 'completed']) });

export const EngineStateSchema = z.object({
  threadId: z.string(),
  agentName: z.string(),
  settings: SettingsSchema,
  prompts: PromptsSchema,
  turn: z.number(),
  tokens: z.object({ used: z.number(), window: z.number() }).nullable(),
  pending: z.array(BoundarySignalSchema),
  seenIds: z.array(z.string()),
  openToolCalls: z.array(z.string()),
  queuedInput: z.array(z.string()),
  workActivityThisTurn: z.boolean(),
  plan: z.object({ steps: z.array(PlanStepSchema), completed: z.array(z.string()) }).nullable(),
  lastCompaction: z
    .object({
      at: z.number(),
      turn: z.number(),
      percentBefore: z.number().nullable(),
      percentAfter: z.number().nullable(),
      outcome: z.enum(['failed', 'cancelled']).optional(),
    })
    .nullable(),
  stall: z.enum(['none', 'stalled', 'suspended']),
  preflight: DecisionSchema.nullable(),
  manualPending: z.object({ instructions: z.string() }).nullable(),
  instructions: z.string(),
  trail: TrailSchema,
  seq: SequenceStateSchema,
  counter: z.number(),
  lastDecision: DecisionSchema.nullable(),
  forecast: z.object({ grown: z.number(), closeAt: z.number(), phases: z.array(z.number()), prior: z.array(z.number()), fresh: z.number().nullable() }),
  forecastHold: z.object({ signals: z.array(BoundarySignalSchema), matched: z.array(z.string()), forecast: DecisionForecastSchema }).nullable(),
  summaryPrepared: z.boolean().optional(),
  idle: z
    .object({ timerId: z.string(), boundaries: z.array(DecisionBoundarySchema) })
    .nullable()
    .optional(),
  turnCloses: z.array(DecisionBoundarySchema).optional(),
});

export const CommandSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('request_judgment'), corrId: z.string(), system: z.string(), user: z.string(), timeoutMs: z.number() }),
  z.object({ type: z.literal('start_timer'), timerId: z.string(), ms: z.number() }),
  z.object({ type: z.literal('arm_idle'), timerId: z.string(), ms: z.number() }),
  z.object({ type: z.literal('request_scratch_write'), seqId: z.string(), text: z.string(), path: z.string() }),
  z.object({ type: z.literal('request_packet'), seqId: z.string(), text: z.string(), scratchPath: z.string().optional() }),
  z.object({ type: z.literal('compact'), seqId: z.string(), packet: z.string(), summaryPrompt: z.string(), summarise: z.literal(false).optional() }),
  z.object({ type: z.literal('abort_compaction'), seqId: z.string() }),
  z.object({ type: z.literal('append_user_message'), text: z.string() }),
  z.object({ type: z.literal('hold_user_message'), text: z.string(), reason: z.enum(['sequence_running', 'preflight']) }),
  z.object({ type: z.literal('annotate'), level: z.enum(['info', 'warning']), text: z.string() }),
  z.object({ type: z.literal('suggest'), decision: DecisionSchema }),
  z.object({ type: z.literal('prepare_summary'), summaryPrompt: z.string(), reason: z.string() }),
  z.object({ type: z.literal('cancel_timer'), timerId: z.string() }),
  z.object({ type: z.literal('progress'), text: z.string() }),
  z.object({ type: z.literal('inject_heads_up'), seqId: z.string(), text: z.string() }),
  z.object({ type: z.literal('show_packet'), seqId: z.string(), packet: z.string(), author: PacketAuthorSchema }),
  z.object({ type: z.literal('show_compacted'), seqId: z.string(), text: z.string() }),
  z.object({ type: z.literal('inject_handoff'), seqId: z.string(), text: z.string() }),
  z.object({ type: z.literal('deliver_queued_input'), text: z.string() }),
]);

export const FactSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('decision'), decision: DecisionSchema }),
  z.object({
    type: z.literal('boundary_noted'),
    boundary: BoundarySignalSchema,
    status: z.enum(['pending', 'ignored']),
    why: z.enum(['new', 'duplicate', 'during_sequence']),
  }),
  z.object({ type: z.literal('boundaries_consumed'), ids: z.array(z.string()), by: z.string(), why: z.enum(['decision', 'compaction']) }),
  z.object({ type: z.literal('sequence_started'), seqId: z.string(), decisionId: z.string(), reason: z.string(), packetAuthor: PacketAuthorSchema }),
  z.object({ type: z.literal('judgment_ended'), corrId: z.string(), outcome: z.enum(['answered', 'invalid', 'timed_out', 'cancelled']) }),
  z.object({
    type: z.literal('compacted'),
    seqId: z.string(),
    tokensBefore: z.number(),
    tokensAfter: z.number(),
    text: z.string(),
    receipt: z.record(z.string(), z.object({ facts: z.number(), kept: z.number(), added: z.number() })).optional(),
  }),
  z.object({ type: z.literal('sequence_ended'), seqId: z.string(), outcome: z.enum(['compacted', 'failed', 'cancelled', 'vetoed']) }),
]);

export const StepOutputSchema = z.object({ commands: z.array(CommandSchema), facts: z.array(FactSchema) });

/** tsc fails here when a schema accepts something its type does not, or misses something the type has. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const stateSchemaMatches: Same<z.infer<typeof EngineStateSchema>, EngineState> = true;
const decisionSchemaMatches: Same<z.infer<typeof DecisionSchema>, Decision> = true;
const commandSchemaMatches: Same<z.infer<typeof CommandSchema>, Command> = true;
const factSchemaMatches: Same<z.infer<typeof FactSchema>, Fact> = true;
const stepOutputSchemaMatches: Same<z.infer<typeof StepOutputSchema>, StepOutput> = true;
void [stateSchemaMatches, decisionSchemaMatches, commandSchemaMatches, factSchemaMatches, stepOutputSchemaMatches];
