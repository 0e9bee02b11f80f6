/**
 * Checkpoints in a thread's event log (docs/ARCHITECTURE.md#the-event-log): a `checkpoint` record holds
 * what a loaded thread holds (engine state, messages, undoable compactions with where their records are,
 * request window, kept decisions), so a load re-steps only the records after the last one instead of the
 * whole history; and a compaction's archive stays in the log, read back by the one thing that needs it
 * (an undo). Everything here reads the log, which is untrusted input (docs/robustness.md): a checkpoint
 * is used only when it validates (its version, its thread, every field by schema); anything else is a
 * problem and the load falls back to an earlier checkpoint or to the full replay. Never throws.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { openLines } from '../io/lines';
import * as z from 'zod';
import { EngineStateSchema, StepOutputSchema } from '../engine/stateSchema';
import { MAX_LOG_LINE_BYTES, streamLog } from '../logformat/reader';
import { DecisionRecordSchema, LogRecordSchema } from '../logformat/records';
import { ThreadMessageSchema, type ThreadMessage } from '../thread/thread';
import { MAX_UNDOABLE, RID_WINDOW, type CompactionMeta } from './rebuild';

/** The version of the checkpoint's shape; a checkpoint of another version is not used (full replay). */
export const CHECKPOINT_V = 1;

/**
 * A checkpoint is written when the log has grown by CHECKPOINT_GROWTH times the last one's size since it
 * (the bound on what checkpoints add to a log: all but the last are at most 1/CHECKPOINT_GROWTH of the
 * other records), and, besides right after a compaction record, by CHECKPOINT_EVERY_BYTES.
 */
export const CHECKPOINT_EVERY_BYTES = 1024 * 1024;
export const CHECKPOINT_GROWTH = 4;

/**
 * How far from the end of a log a load looks for a checkpoint (read backwards, 1 MiB at a time). The last
 * one is CHECKPOINT_EVERY_BYTES (or CHECKPOINT_GROWTH checkpoints) plus a record from the end; beyond
 * this (an older rawr's log, or huge checkpoints), the load is a full replay.
 */
export const CHECKPOINT_SCAN_BYTES = 32 * 1024 * 1024;
const SCAN_CHUNK = 1024 * 1024;

const CompactionMetaSchema = z.object({
  seqId: z.string(),
  tokensBefore: z.number(),
  tokensAfter: z.number(),
  at: z.number(),
  offset: z.number().int().nonnegative().optional(),
  bytes: z.number().int().nonnegative().optional(),
});

const RequestResultSchema = z.union([StepOutputSchema, z.object({ seqId: z.string(), messages: z.array(ThreadMessageSchema) }), z.null()]);

export const CheckpointSchema = z.object({
  /** Engine events in the history up to here (a full replay's count). */
  events: z.number().int().nonnegative(),
  state: EngineStateSchema,
  messages: z.array(ThreadMessageSchema),
  compactions: z.array(CompactionMetaSchema).max(MAX_UNDOABLE),
  requests: z.array(z.tuple([z.string().max(100), RequestResultSchema])).max(RID_WINDOW),
  decisions: z.array(DecisionRecordSchema),
});
export type Checkpoint = z.infer<typeof CheckpointSchema>;

const CheckpointRecordSchema = z.object({
  rawr: z.literal(1),
  thread: z.string(),
  kind: z.literal('checkpoint'),
  at: z.number(),
  v: z.number(),
  checkpoint: z.unknown(),
});

/** A checkpoint found: its content, where its line is, and where the records after it start. */
export interface FoundCheckpoint {
  checkpoint: Checkpoint;
  offset: number;
  bytes: number;
  /** The offset of the first record after it. */
  after: number;
}

/** Where a top-level checkpoint record's kind is written (the writer puts rawr, thread, then kind first). */
const KIND = Buffer.from(',"kind":"checkpoint",');
/** A line start `{"rawr":1,"thread":"<id>"` before KIND: the id is a JSON string with no escapes (a thread id). */
const LINE_HEAD = /^\{"rawr":1,"thread":"[^"\\]{0,200}"$/;
const HEAD_BYTES = 256;

function openRegular(path: string): { fd: number; size: number } | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0));
  } catch {
    return undefined; // missing or unreadable: the replay says so
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    return undefined;
  }
  return { fd, size: st.size };
}

/**
 * The last valid checkpoint of `threadId` within CHECKPOINT_SCAN_BYTES of the end of the log, or
 * undefined (then: a full replay). Each checkpoint found but not used is reported in `problems`.
 */
export function lastCheckpoint(path: string, threadId: string, problems: string[]): FoundCheckpoint | undefined {
  const f = openRegular(path);
  if (!f) return undefined;
  try {
    const floor = Math.max(0, f.size - CHECKPOINT_SCAN_BYTES);
    // Chunks from the end: each is read with HEAD_BYTES before it (the line head of a match near its
    // start) and KIND's length after it (a match across the boundary); a match is counted in the chunk
    // where it starts.
    for (let hi = f.size; hi > floor; hi -= SCAN_CHUNK) {
      const lo = Math.max(floor, hi - SCAN_CHUNK);
      const readFrom = Math.max(0, lo - HEAD_BYTES);
      const readTo = Math.min(f.size, hi + KIND.length);
      const buf = Buffer.alloc(readTo - readFrom);
      const n = readSync(f.fd, buf, 0, buf.length, readFrom);
      let at = buf.lastIndexOf(KIND, Math.min(n - KIND.length, hi - 1 - readFrom));
      while (at >= 0) {
        const pos = readFrom + at;
        if (pos < lo) break;
        const lineStart = headBefore(buf, at, readFrom);
        if (lineStart !== undefined) {
          const found = checkpointAt(path, lineStart, threadId, problems);
          if (found) return found;
        }
        at = at > 0 ? buf.lastIndexOf(KIND, at - 1) : -1;
      }
    }
    return undefined;
  } finally {
    closeSync(f.fd);
  }
}

/** The file offset of the line that starts a record head ending at `at` in `buf`, if it is one. */
function headBefore(buf: Buffer, at: number, bufStart: number): number | undefined {
  const from = Math.max(0, at - HEAD_BYTES);
  const nl = buf.lastIndexOf(0x0a, at);
  const start = nl >= from ? nl + 1 : bufStart + from === 0 ? 0 : -1;
  if (start < 0) return undefined;
  return LINE_HEAD.test(buf.toString('utf8', start, at)) ? bufStart + start : undefined;
}

/** The checkpoint whose line starts at `offset`, validated; undefined (and a problem) when it is not usable. */
function checkpointAt(path: string, offset: number, threadId: string, problems: string[]): FoundCheckpoint | undefined {
  const where = `checkpoint at byte ${offset}`;
  const line = lineAt(path, offset);
  if (line === undefined) {
    problems.push(`${where}: unterminated or over ${MAX_LOG_LINE_BYTES / 1024 / 1024} MiB (interrupted write?) — not used`);
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(line.text);
  } catch {
    problems.push(`${where}: not valid JSON — not used`);
    return undefined;
  }
  const rec = CheckpointRecordSchema.safeParse(json);
  if (!rec.success) {
    problems.push(`${where}: not a checkpoint record — not used`);
    return undefined;
  }
  if (rec.data.thread !== threadId) {
    problems.push(`${where}: of another thread (${rec.data.thread.slice(0, 80)}) — not used`);
    return undefined;
  }
  if (rec.data.v !== CHECKPOINT_V) {
    problems.push(`${where}: version ${rec.data.v}, this rawr reads ${CHECKPOINT_V} — not used`);
    return undefined;
  }
  const cp = CheckpointSchema.safeParse(rec.data.checkpoint);
  if (!cp.success) {
    const first = cp.error.issues[0];
    problems.push(`${where}: invalid (${first ? `${first.path.join('.') || 'checkpoint'}: ${first.message}` : 'invalid'}) — not used`);
    return undefined;
  }
  if (cp.data.state.threadId !== threadId) {
    problems.push(`${where}: its state is of another thread — not used`);
    return undefined;
  }
  return { checkpoint: cp.data, offset, bytes: line.bytes, after: offset + line.bytes + 1 };
}

/**
 * The whole line at `offset` (ended by a newline, at most MAX_LOG_LINE_BYTES), read as every log line is
 * (openLines: a regular file, UTF-8); undefined when there is none, it is unterminated or too long.
 */
function lineAt(path: string, offset: number): { text: string; bytes: number } | undefined {
  try {
    // the first line only: leaving the loop ends the reader, which closes the file
    for (const raw of openLines(path, { from: offset, maxLineBytes: MAX_LOG_LINE_BYTES }).lines())
      return raw.text === undefined || raw.unterminated || raw.bytes === undefined ? undefined : { text: raw.text, bytes: raw.bytes };
  } catch {
    /* not there, or not a regular file any more */
  }
  return undefined;
}

/**
 * The archive of compaction `c`, read back from the log: its record at the offset the thread noted (checked:
 * a compaction record of this thread and seqId), else the last compaction record with that seqId found by
 * a streaming scan of the log. null (with a problem) when neither is there.
 */
export function readArchive(path: string, threadId: string, c: CompactionMeta, problems: string[]): ThreadMessage[] | null {
  if (c.offset !== undefined && c.bytes !== undefined && c.bytes <= MAX_LOG_LINE_BYTES) {
    const got = archiveAt(path, threadId, c);
    if (got) return got;
    problems.push(`compaction ${c.seqId}: its record is not at byte ${c.offset} — looked for it in the whole log`);
  }
  let found: ThreadMessage[] | null = null;
  const scanProblems: Array<{ line: number; message: string }> = [];
  for (const { record } of streamLog(path, scanProblems)) {
    if (record.kind === 'compaction' && record.seqId === c.seqId && record.thread === threadId) found = record.archived;
  }
  if (!found) problems.push(`compaction ${c.seqId}: no record of it in the log — it cannot be undone`);
  return found;
}

function archiveAt(path: string, threadId: string, c: CompactionMeta): ThreadMessage[] | undefined {
  const line = lineAt(path, c.offset!);
  if (line === undefined || line.bytes !== c.bytes) return undefined;
  try {
    const rec = LogRecordSchema.safeParse(JSON.parse(line.text));
    if (rec.success && rec.data.kind === 'compaction' && rec.data.seqId === c.seqId && rec.data.thread === threadId) return rec.data.archived;
  } catch {
    /* not JSON there */
  }
  return undefined;
}
