/**
 * The wire format of the core process's requests (CORE_METHODS), as zod schemas. The server validates
 * every request's params with these before anything reaches the CoreService, so a malformed request is a
 * JSON-RPC error with a message naming the offending field, never a crash or a poisoned event log. The
 * client (src/host/core/coreClient.ts) sends exactly these shapes.
 */
import { z } from 'zod';
import type { EngineEvent } from '../core/engine/types';
import { PROMPT_FILES, type PromptName, type PromptSet } from '../core/prompts/promptSet';
import { SettingsSchema } from '../core/settings/schema';
import { BOUNDARY_KINDS } from '../core/signals/types';
import { ThreadMessageSchema, type ThreadMessage } from '../core/thread/thread';

/** Same rule as CoreService (it is the file name of the thread's log). */
export const ThreadIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,80}$/, 'thread id must be 1–80 characters of A–Z, a–z, 0–9, "_" or "-"');

const PROMPT_NAMES = Object.keys(PROMPT_FILES) as PromptName[];
const promptRecord = <T extends z.ZodType>(value: T) =>
  z.object(Object.fromEntries(PROMPT_NAMES.map((n) => [n, value])) as Record<PromptName, T>);

const PromptsSchema = promptRecord(z.string());

const at = z.number();
const BoundarySourceSchema = z.enum(['git', 'terminal', 'plan_tool', 'agent_message', 'tool_result', 'turn', 'recording']);

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
  z.object({ type: z.literal('packet'), at, seqId: z.string(), text: z.string() }),
  z.object({ type: z.literal('compaction_done'), at, seqId: z.string(), tokensBefore: z.number(), tokensAfter: z.number() }),
  z.object({ type: z.literal('compaction_failed'), at, seqId: z.string(), error: z.string() }),
  z.object({ type: z.literal('timeout'), at, timerId: z.string() }),
  z.object({ type: z.literal('cancel'), at }),
  z.object({ type: z.literal('compact_now'), at, instructions: z.string().optional() }),
  z.object({ type: z.literal('settings'), at, settings: SettingsSchema, prompts: PromptsSchema.optional() }),
]);

const ProblemSchema = z.object({
  file: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  message: z.string(),
  severity: z.enum(['error', 'warning']),
});

export const PromptSetSchema: z.ZodType<PromptSet> = z.object({
  settings: SettingsSchema,
  prompts: PromptsSchema,
  sources: promptRecord(z.string()),
  problems: z.array(ProblemSchema),
});

export const CompactionSchema = z.object({
  seqId: z.string().min(1),
  tokensBefore: z.number(),
  tokensAfter: z.number(),
  replacement: z.array(ThreadMessageSchema),
});

/** Params of each request, keyed like CORE_METHODS. */
const RidSchema = z.string().min(1).max(100).optional();

export const PARAMS = {
  configure: z.object({ config: PromptSetSchema }),
  // rid: the client's id for this request, the same on a retry (see CoreService.replayed).
  step: z.object({ threadId: ThreadIdSchema, event: EngineEventSchema, rid: RidSchema }),
  appendMessage: z.object({ threadId: ThreadIdSchema, message: ThreadMessageSchema, rid: RidSchema }),
  swap: z.object({ threadId: ThreadIdSchema, compaction: CompactionSchema, rid: RidSchema }),
  undo: z.object({ threadId: ThreadIdSchema, rid: RidSchema }),
  snapshot: z.object({ threadId: ThreadIdSchema }),
  listThreads: z.union([z.object({}), z.null(), z.undefined()]),
  exportLog: z.object({ threadId: ThreadIdSchema }),
  pid: z.union([z.object({}), z.null(), z.undefined()]),
} as const;

/** What the client sends (the schemas above accept exactly these). */
export interface CoreParams {
  configure: { config: PromptSet };
  step: { threadId: string; event: EngineEvent; rid?: string };
  appendMessage: { threadId: string; message: ThreadMessage; rid?: string };
  swap: { threadId: string; compaction: { seqId: string; tokensBefore: number; tokensAfter: number; replacement: ThreadMessage[] }; rid?: string };
  undo: { threadId: string; rid?: string };
  snapshot: { threadId: string };
  listThreads: Record<string, never>;
  exportLog: { threadId: string };
  pid: Record<string, never>;
}

export const InitOptionsSchema = z.object({
  logDir: z.string().min(1),
  /** Searched in order: the workspace override folder first, then the shipped prompts folder. */
  promptDirs: z.array(z.string().min(1)),
  /**
   * The configuration last given to configure() (settings merged with VS Code's): a restarted process
   * starts with it instead of the prompt files alone. Absent on the first start.
   */
  config: PromptSetSchema.optional(),
});
export type InitOptions = z.infer<typeof InitOptionsSchema>;

/** "event.type: Invalid input …; threadId: …" — the first few issues, each with its path. */
export function describeZodError(error: z.ZodError, max = 3): string {
  const parts = error.issues.slice(0, max).map((i) => `${i.path.length ? i.path.join('.') : 'params'}: ${i.message}`);
  if (error.issues.length > max) parts.push(`… and ${error.issues.length - max} more`);
  return parts.join('; ');
}
