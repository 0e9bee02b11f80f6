/**
 * The protocol between the extension host and the core process (docs/ARCHITECTURE.md#the-core-process),
 * in one place both sides import: what the host may ask (CoreApi), the JSON-RPC method names
 * (CORE_METHODS), the params of each request as zod schemas (PARAMS, checked by the server before
 * anything reaches the CoreService, so a malformed request is a JSON-RPC error naming the offending
 * field, never a crash or a poisoned event log), what the client sends (CoreParams), the process's
 * initialization options and the thread id (threadId.ts). src/server and src/host never import each
 * other: both import this.
 */
import * as z from 'zod';
import { EngineEventSchema, promptRecord, PromptsSchema } from '../engine/eventSchema';
import type { ThreadStatus } from '../engine/status';
import type { EngineEvent, StepOutput } from '../engine/types';
import type { PromptSet } from '../prompts/promptSet';
import type { DecisionRecord } from '../logformat/records';
import type { EngineState } from '../engine/types';
import { SettingsSchema } from '../settings/schema';
import { ThreadMessageSchema, type ThreadMessage } from '../thread/thread';
import { ThreadIdSchema } from './threadId';

export { ThreadIdSchema };

/**
 * What the extension host needs from the core (the arbiter + persistence). Implemented by the JSON-RPC
 * client of the core process (host/core/coreClient.ts) and, as a fallback and for tests, in-process by
 * CoreService (host/core/localCore.ts). Every method is async because it may cross a process boundary.
 */
export interface CoreApi {
  configure(config: PromptSet): Promise<void>;
  /**
   * The one write: the host's inputs in order (the messages it adds, a compaction's swap, the events), each
   * applied by the core, which also applies the commands that change the thread (messageOf) and answers
   * with the commands left for the host, the facts, the messages it appended and the thread's status.
   */
  apply(threadId: string, inputs: readonly ThreadInput[]): Promise<Applied>;
  undo(threadId: string): Promise<{ seqId: string; messages: ThreadMessage[] } | null>;
  snapshot(threadId: string): Promise<ThreadSnapshot>;
  listThreads(): Promise<string[]>;
  exportLog(threadId: string): Promise<string>;
  /** pid of the core process (undefined in-process): lets tests kill it to prove recovery. */
  pid(): Promise<number | undefined>;
}

/** A thread as the core holds it (for /status, the panel, a window opening the thread). */
export interface ThreadSnapshot {
  threadId: string;
  messages: ThreadMessage[];
  state: EngineState;
  decisions: DecisionRecord[];
  compactions: Array<{ seqId: string; tokensBefore: number; tokensAfter: number; at: number }>;
  problems: string[];
}

/** JSON-RPC method names (server and client share them). */
export const CORE_METHODS = {
  configure: 'rawr/configure',
  apply: 'rawr/apply',
  undo: 'rawr/undo',
  snapshot: 'rawr/snapshot',
  listThreads: 'rawr/listThreads',
  exportLog: 'rawr/exportLog',
  pid: 'rawr/pid',
} as const;

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

export type Compaction = z.infer<typeof CompactionSchema>;

/**
 * What the host sends: a message it adds (the agent's reply, a tool result, rawr's request turns), a
 * compaction's swap (atomic: archive and replacement in one record), or an event for the engine.
 */
export type ThreadInput = { kind: 'message'; message: ThreadMessage } | { kind: 'swap'; compaction: Compaction } | { kind: 'event'; event: EngineEvent };

export const ThreadInputSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('message'), message: ThreadMessageSchema }),
  z.object({ kind: z.literal('swap'), compaction: CompactionSchema }),
  z.object({ kind: z.literal('event'), event: EngineEventSchema }),
]);

/** A round trip's answer: the steps' commands and facts in order, what the core appended, where the thread stands. */
export interface Applied extends StepOutput {
  /** The messages the core put into the thread for the commands (messageOf), in order. */
  appended: ThreadMessage[];
  /** The thread's length afterwards: a host whose copy differs reads the thread again. */
  length: number;
  status: ThreadStatus;
}

/** Inputs one request may carry (a model call's worth is a few dozen). */
export const MAX_INPUTS = 1000;

/** Params of each request, keyed like CORE_METHODS. */
const RidSchema = z.string().min(1).max(100).optional();

export const PARAMS = {
  configure: z.object({ config: PromptSetSchema }),
  // rid: the client's id for this request, the same on a retry (see CoreService.replayed).
  apply: z.object({ threadId: ThreadIdSchema, inputs: z.array(ThreadInputSchema).max(MAX_INPUTS), rid: RidSchema }),
  undo: z.object({ threadId: ThreadIdSchema, rid: RidSchema }),
  snapshot: z.object({ threadId: ThreadIdSchema }),
  listThreads: z.union([z.object({}), z.null(), z.undefined()]),
  exportLog: z.object({ threadId: ThreadIdSchema }),
  pid: z.union([z.object({}), z.null(), z.undefined()]),
} as const;

/** What the client sends (the schemas above accept exactly these). */
export interface CoreParams {
  configure: { config: PromptSet };
  apply: { threadId: string; inputs: readonly ThreadInput[]; rid?: string };
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
