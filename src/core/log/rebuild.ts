/**
 * Cold replay: rebuild the engine state and the model-facing thread from a log, so a reload or a crash
 * loses nothing. Engine events are re-stepped (step is pure, so the state is identical); thread records
 * are applied in order; a compaction is remembered by where its record is, so that an undo (replayed, or
 * asked for later) reads its archive back from the log. A load may start from a checkpoint (checkpoint.ts).
 */
import { step } from '../engine/step';
import type { EngineEvent, EngineState, StepOutput } from '../engine/types';
import type { ThreadMessage } from '../thread/thread';
import type { LogRecord } from '../logformat/records';

/**
 * An undoable compaction as a loaded thread holds it: what the panel lists, and where its record is in the
 * log (`offset`, `bytes`: the line, without its newline), from which an undo reads its archive back. The
 * archive itself is not held: a thread with hundreds of compactions would hold hundreds of old threads.
 */
export interface CompactionMeta {
  seqId: string;
  tokensBefore: number;
  tokensAfter: number;
  at: number;
  offset?: number;
  bytes?: number;
}

/**
 * Undoable compactions a thread keeps, the newest (a checkpoint carries this list; an older one can no
 * longer be undone — its archive is still in the log).
 */
export const MAX_UNDOABLE = 50;

/** Where a rebuild starts: a fresh state, or a checkpoint's state and what it carried. */
export interface RebuildStart {
  state: EngineState;
  thread: ThreadMessage[];
  compactions: CompactionMeta[];
  requests: AppliedRequests;
  events: number;
}

export interface Rebuilt {
  state: EngineState;
  thread: ThreadMessage[];
  /** Compactions still undoable, oldest first (at most MAX_UNDOABLE). */
  compactions: CompactionMeta[];
  /** Events in the thread's history (a checkpoint's count plus those stepped here). */
  events: number;
  /** Events re-stepped by this rebuild (the records after the checkpoint it started from, or all). */
  stepped: number;
  /** The most recent identified requests (up to RID_WINDOW) and what each returned. */
  requests: AppliedRequests;
  /** Records that were valid but could not be applied (reported and skipped). */
  problems: Array<{ line: number; message: string }>;
}

export type RequestResult = StepOutput | { seqId: string; messages: ThreadMessage[] } | null;

/**
 * How many applied request ids are remembered. A retry comes from the client after the core process
 * died with requests in flight; the client has few in flight at once (each turn awaits its requests),
 * so a window this size covers every retry with room to spare, while a long thread's memory stays flat.
 */
export const RID_WINDOW = 256;

/** Request id → result, insertion ordered, oldest dropped beyond RID_WINDOW. */
export class AppliedRequests {
  private readonly map = new Map<string, RequestResult>();
  constructor(entries: Iterable<readonly [string, RequestResult]> = []) {
    for (const [rid, result] of entries) this.add(rid, result);
  }
  get size(): number {
    return this.map.size;
  }
  has(rid: string): boolean {
    return this.map.has(rid);
  }
  get(rid: string): RequestResult | undefined {
    return this.map.get(rid);
  }
  add(rid: string, result: RequestResult): void {
    this.map.delete(rid);
    this.map.set(rid, result);
    if (this.map.size > RID_WINDOW) this.map.delete(this.map.keys().next().value as string);
  }
  /** Oldest first (what a checkpoint stores, and gives back to the constructor). */
  entries(): Array<[string, RequestResult]> {
    return [...this.map];
  }
}

/**
 * Applies `records` from `start` (a fresh state, or a checkpoint's). An undo record needs the archive of
 * its compaction: `archiveOf` reads it back from the log (null: not there, the thread is left as it is);
 * without it (records already in memory) the archives of this rebuild's own compaction records are used.
 */
export function rebuild(
  records: Iterable<{ line?: number; record: LogRecord; offset?: number; bytes?: number }>,
  start: EngineState | RebuildStart,
  archiveOf?: (c: CompactionMeta) => ThreadMessage[] | null,
): Rebuilt {
  const from: RebuildStart =
    'thread' in start && 'requests' in start ? start : { state: start as EngineState, thread: [], compactions: [], requests: new AppliedRequests(), events: 0 };
  let state = from.state;
  let thread = from.thread;
  const compactions = from.compactions;
  let stepped = 0;
  const requests = from.requests;
  const problems: Rebuilt['problems'] = [];
  const seen = archiveOf ? undefined : new Map<CompactionMeta, ThreadMessage[]>();
  for (const { line, record, offset, bytes } of records) {
    switch (record.kind) {
      case 'event': {
        let r;
        try {
          r = step(state, record.event as EngineEvent);
        } catch (err) {
          // A valid-looking event the engine cannot apply must not make the thread unloadable.
          problems.push({ line: line ?? 0, message: `event ${record.event.type} could not be applied (${(err as Error).message}) — skipped` });
          break;
        }
        state = r.state;
        stepped++;
        if (record.rid) requests.add(record.rid, { commands: r.commands, facts: r.facts });
        break;
      }
      case 'message':
        thread.push(record.message);
        if (record.rid) requests.add(record.rid, null);
        break;
      case 'compaction': {
        if (record.rid) requests.add(record.rid, null);
        const meta: CompactionMeta = { seqId: record.seqId, tokensBefore: record.tokensBefore, tokensAfter: record.tokensAfter, at: record.at };
        if (offset !== undefined && bytes !== undefined) Object.assign(meta, { offset, bytes });
        pushUndoable(compactions, meta);
        seen?.set(meta, record.archived);
        thread = record.replacement.slice();
        break;
      }
      case 'undo': {
        // The last with that seqId: a live undo undoes the last compaction (CoreService.undo), and a
        // host may reuse a seqId.
        let k = compactions.length - 1;
        while (k >= 0 && compactions[k]!.seqId !== record.seqId) k--;
        if (k >= 0) {
          const archived = seen ? (seen.get(compactions[k]!) ?? null) : archiveOf!(compactions[k]!);
          if (archived) thread = archived.slice();
          else
            problems.push({ line: line ?? 0, message: `undo of ${record.seqId}: its compaction record could not be read back — the thread is left as it was` });
          compactions.splice(k);
        }
        if (record.rid) requests.add(record.rid, { seqId: record.seqId, messages: thread.slice() });
        break;
      }
      case 'decision':
      case 'judgment':
      case 'packet':
      case 'effect':
      case 'checkpoint':
        break; // derived from events (history for the panel and the export), or a shortcut to here: not state
      default: {
        const unknown: never = record;
        throw new Error(`unknown log record ${JSON.stringify(unknown)}`);
      }
    }
  }
  return { state, thread, compactions, events: from.events + stepped, stepped, requests, problems };
}

/** Adds an undoable compaction, dropping the oldest beyond MAX_UNDOABLE. */
export function pushUndoable(list: CompactionMeta[], c: CompactionMeta): void {
  list.push(c);
  if (list.length > MAX_UNDOABLE) list.splice(0, list.length - MAX_UNDOABLE);
}
