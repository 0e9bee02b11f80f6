/**
 * The wire format of the core process's requests (CORE_METHODS), as zod schemas. The server validates
 * every request's params with these before anything reaches the CoreService, so a malformed request is a
 * JSON-RPC error with a message naming the offending field, never a crash or a poisoned event log. The
 * client (src/host/core/coreClient.ts) sends exactly these shapes.
 */
import { z } from 'zod';
import { EngineEventSchema, promptRecord, PromptsSchema } from '../core/engine/eventSchema';
import type { EngineEvent } from '../core/engine/types';
import type { PromptSet } from '../core/prompts/promptSet';
import { SettingsSchema } from '../core/settings/schema';
import { ThreadMessageSchema, type ThreadMessage } from '../core/thread/thread';

/** Same rule as CoreService (it is the file name of the thread's log). */
export const ThreadIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,80}$/, 'thread id must be 1–80 characters of A–Z, a–z, 0–9, "_" or "-"');

// EngineEventSchema lives in the core: the event log validates every record it loads with it too.
export { EngineEventSchema };

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
