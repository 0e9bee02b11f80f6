/**
 * What the extension host needs from the core (the arbiter + persistence). Implemented by the JSON-RPC
 * client of the core process (coreClient.ts) and, as a fallback and for tests, in-process by
 * CoreService. Every method is async because it may cross a process boundary.
 */
import type { Effect, EngineEvent } from '../../core/engine/types';
import type { PromptSet } from '../../core/prompts/promptSet';
import type { ThreadSnapshot } from '../../core/service/coreService';
import type { ThreadMessage } from '../../core/thread/thread';

export interface CoreApi {
  configure(config: PromptSet): Promise<void>;
  step(threadId: string, event: EngineEvent): Promise<Effect[]>;
  appendMessage(threadId: string, message: ThreadMessage): Promise<void>;
  swap(threadId: string, c: { seqId: string; tokensBefore: number; tokensAfter: number; replacement: ThreadMessage[] }): Promise<void>;
  undo(threadId: string): Promise<{ seqId: string; messages: ThreadMessage[] } | null>;
  snapshot(threadId: string): Promise<ThreadSnapshot>;
  listThreads(): Promise<string[]>;
  exportLog(threadId: string): Promise<string>;
  /** pid of the core process (undefined in-process): lets tests kill it to prove recovery. */
  pid(): Promise<number | undefined>;
}

/** JSON-RPC method names (server and client share them). */
export const CORE_METHODS = {
  configure: 'rawr/configure',
  step: 'rawr/step',
  appendMessage: 'rawr/appendMessage',
  swap: 'rawr/swap',
  undo: 'rawr/undo',
  snapshot: 'rawr/snapshot',
  listThreads: 'rawr/listThreads',
  exportLog: 'rawr/exportLog',
  pid: 'rawr/pid',
} as const;
