/**
 * Event-log records (docs/ARCHITECTURE.md#the-event-log): one JSON object a line, append-only, one
 * file per thread. Every record carries `rawr: 1` (format detection and versioning), the thread id, a
 * sequence number and a time. Validated with zod when read back: the log is untrusted input too.
 */
import { z } from 'zod';
import { ThreadMessageSchema } from '../thread/thread';

/**
 * `rid`: the id of the core request that wrote the record. A request retried after the core process
 * died mid-reply carries the same rid, and is answered from the log instead of being applied twice.
 */
const base = { rawr: z.literal(1), thread: z.string().min(1), at: z.number(), rid: z.string().max(100).optional() };

export const LogRecordSchema = z.discriminatedUnion('kind', [
  /** An engine event, exactly as fed to step(): cold replay re-steps these to rebuild the state. */
  z.object({ ...base, kind: z.literal('event'), event: z.object({ type: z.string() }).passthrough() }),
  /** A thread message appended to the model-facing thread. */
  z.object({ ...base, kind: z.literal('message'), message: ThreadMessageSchema }),
  /** A decision with its inputs and reason (also derivable from events; stored for the panel and export). */
  z.object({ ...base, kind: z.literal('decision'), decision: z.object({ id: z.string(), action: z.string(), code: z.string(), reason: z.string() }).passthrough() }),
  z.object({ ...base, kind: z.literal('judgment'), corrId: z.string(), phase: z.enum(['request', 'result']), text: z.string(), latencyMs: z.number().optional() }),
  /** A compaction: the whole pre-compaction thread is archived so it can be undone. */
  z.object({
    ...base,
    kind: z.literal('compaction'),
    seqId: z.string(),
    tokensBefore: z.number(),
    tokensAfter: z.number(),
    archived: z.array(ThreadMessageSchema),
    replacement: z.array(ThreadMessageSchema),
  }),
  /** Undo of a compaction: the archived thread becomes current again. */
  z.object({ ...base, kind: z.literal('undo'), seqId: z.string() }),
  z.object({ ...base, kind: z.literal('packet'), seqId: z.string(), author: z.enum(['agent', 'watcher']), text: z.string() }),
  /**
   * An effect of the event before it, in the log's form (loggedEffect.ts): what happened, said once by
   * the engine, for the panel and the export. Checked loosely here (a newer rawr may log kinds this one
   * does not know; they are skipped by readers), strictly by the readers that use them.
   */
  z.object({ ...base, kind: z.literal('effect'), effect: z.object({ type: z.string() }).passthrough() }),
]);
export type LogRecord = z.infer<typeof LogRecordSchema>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type NewLogRecord = DistributiveOmit<LogRecord, 'rawr' | 'thread'>;
