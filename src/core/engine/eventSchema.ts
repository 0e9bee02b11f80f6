/**
 * The zod schema of every EngineEvent: the core process validates each request's event with it
 * (src/core/protocol/coreProtocol.ts), and the event log validates each event record it loads with it
 * (src/core/logformat/records.ts), so neither a bad request nor a hand-edited log line reaches step().
 */
import * as z from 'zod';
import type { EngineEvent } from './types';
import { PROMPT_FILES, type PromptName } from '../prompts/promptSet';
import { SettingsSchema } from '../settings/schema';
import { BOUNDARY_KINDS } from '../signals/types';

const PROMPT_NAMES = Object.keys(PROMPT_FILES) as PromptName[];
export const promptRecord = <T extends z.ZodType>(value: T) => z.object(Object.fromEntries(PROMPT_NAMES.map((n) => [n, value])) as Record<PromptName, T>);

export const PromptsSchema = promptRecord(z.string());

const at = z.number();
export const BoundarySourceSchema = z.enum(['git', 'terminal', 'plan_tool', 'agent_message', 'tool_result', 'turn', 'recording']);

/**
 * Every EngineEvent variant, exactly as loose as the TypeScript type (the engine itself handles odd values
 * such as a zero window); the annotation makes tsc check the schema against the engine's type.
 */
export const EngineEventSchema: z.ZodType<EngineEvent> = z.discriminatedUnion('type', [
  z.object({ type: z.literal('user_message'), at, text: z.string() }),
  z.object({ type: z.literal('assistant_message'), at, text: z.string() }),
  z.object({ type: z.literal('tool_call'), at, id: z.string(), name: z.string(), input: z.unknown() }),
  z.object({ type: z.literal('tool_result'), at, id: z.string(), output: z.string(), isError: z.boolean(), exitCode: z.number().optional() }),
  z.object({ type: z.literal('tokens'), at, used: z.number(), window: z.number() }),
  z.object({
    type: z.literal('boundary'),
    at,
    source: BoundarySourceSchema,
    boundary: z.object({ kind: z.enum(BOUNDARY_KINDS), key: z.string(), detail: z.string() }),
  }),
  z.object({
    type: z.literal('plan'),
    at,
    steps: z.array(z.object({ text: z.string(), status: z.enum(['pending', 'in_progress', 'completed']) })),
  }),
  z.object({ type: z.literal('evaluate'), at, point: z.enum(['turn_complete', 'tool_loop']) }),
  z.object({ type: z.literal('judgment_result'), at, corrId: z.string(), text: z.string() }),
  z.object({ type: z.literal('judgment_unavailable'), at, corrId: z.string(), why: z.string().max(500) }),
  z.object({ type: z.literal('scratch_written'), at, seqId: z.string(), path: z.string() }),
  z.object({ type: z.literal('packet'), at, seqId: z.string(), text: z.string(), scratchWritten: z.boolean().optional() }),
  z.object({ type: z.literal('compaction_done'), at, seqId: z.string(), tokensBefore: z.number(), tokensAfter: z.number() }),
  z.object({ type: z.literal('compaction_failed'), at, seqId: z.string(), error: z.string() }),
  z.object({ type: z.literal('timeout'), at, timerId: z.string() }),
  z.object({ type: z.literal('cancel'), at }),
  z.object({ type: z.literal('compact_now'), at, instructions: z.string().optional() }),
  z.object({ type: z.literal('overflow'), at, error: z.string().max(10_000) }),
  z.object({ type: z.literal('settings'), at, settings: SettingsSchema, prompts: PromptsSchema.optional() }),
  /** Phase sizes of earlier threads in the workspace (the phase forecast's prior). */
  z.object({ type: z.literal('phase_prior'), at, phases: z.array(z.number().finite().nonnegative()).max(100) }),
]);
