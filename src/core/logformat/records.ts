/**
 * Event-log records (docs/ARCHITECTURE.md#the-event-log): one JSON object a line, append-only, one
 * file per thread. Every record carries `rawr: 1` (format detection and versioning), the thread id, a
 * sequence number and a time. Validated with zod when read back: the log is untrusted input too.
 */
import * as z from 'zod';
import { EngineEventSchema } from '../engine/eventSchema';
import { ThreadMessageSchema } from '../thread/thread';

/**
 * `rid`: the id of the core request that wrote the record. A request retried after the core process
 * died mid-reply carries the same rid, and is answered from the log instead of being applied twice.
 */
/**
 * A decision as the panel and /status read it back: what they use, with its type (fields absent in
 * older logs may be missing; a field of the wrong type rejects the record).
 */
export const DecisionRecordSchema = z
  .object({
    id: z.string(),
    action: z.string(),
    code: z.string(),
    reason: z.string(),
    at: z.number().optional(),
    point: z.string().optional(),
    tier: z.string().nullable().optional(),
    percentRemaining: z.number().nullable().optional(),
    boundaries: z.array(z.object({ id: z.string(), kind: z.string(), detail: z.string() }).passthrough()).optional(),
    matched: z.array(z.string()).optional(),
  })
  .passthrough();

/** A decision read back from a log: a Decision, or an older or foreign one missing some fields. */
export type DecisionRecord = z.infer<typeof DecisionRecordSchema>;

const base = { rawr: z.literal(1), thread: z.string().min(1), at: z.number(), rid: z.string().max(100).optional() };

export const LogRecordSchema = z.discriminatedUnion('kind', [
  /**
   * An engine event, exactly as fed to step(): cold replay re-steps these to rebuild the state, so each
   * is validated as the event it claims to be (an unknown type or a wrong field type is skipped and
   * reported, never stepped).
   */
  z.object({ ...base, kind: z.literal('event'), event: EngineEventSchema }),
  /** A thread message appended to the model-facing thread. */
  z.object({ ...base, kind: z.literal('message'), message: ThreadMessageSchema }),
  /** A decision with its inputs and reason (also derivable from events; stored for the panel and export). */
  z.object({ ...base, kind: z.literal('decision'), decision: DecisionRecordSchema }),
  z.object({
    ...base,
    kind: z.literal('judgment'),
    corrId: z.string(),
    phase: z.enum(['request', 'result']),
    text: z.string(),
    latencyMs: z.number().optional(),
  }),
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
  /**
   * A checkpoint: the thread's whole loaded state at this point of the log (engine state, messages,
   * undoable compactions, request window, decisions; src/core/log/checkpoint.ts), so a load re-steps only
   * the records after it. Checked loosely here (every reader but the loader skips it, and a newer rawr may
   * write another version `v`); the loader validates the one it uses with CheckpointSchema.
   */
  z.object({ ...base, kind: z.literal('checkpoint'), v: z.number(), checkpoint: z.unknown() }),
]);
export type LogRecord = z.infer<typeof LogRecordSchema>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type NewLogRecord = DistributiveOmit<LogRecord, 'rawr' | 'thread'>;
