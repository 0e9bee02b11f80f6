/**
 * Cold replay: rebuild the engine state and the model-facing thread from a log, so a reload or a crash
 * loses nothing. Engine events are re-stepped (step is pure, so the state is identical); thread records
 * are applied in order; compactions keep their archive so the last one can be undone.
 */
import { step } from '../engine/step';
import type { EngineEvent, EngineState, StepOutput } from '../engine/types';
import type { ThreadMessage } from '../thread/thread';
import type { LogRecord } from '../logformat/records';

export interface Rebuilt {
  state: EngineState;
  thread: ThreadMessage[];
  /** Compactions still undoable, oldest first. */
  compactions: Array<{ seqId: string; archived: ThreadMessage[]; tokensBefore: number; tokensAfter: number; at: number }>;
  events: number;
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
}

export function rebuild(records: Iterable<{ line?: number; record: LogRecord }>, initial: EngineState): Rebuilt {
  let state = initial;
  let thread: ThreadMessage[] = [];
  const compactions: Rebuilt['compactions'] = [];
  let events = 0;
  const requests = new AppliedRequests();
  const problems: Rebuilt['problems'] = [];
  for (const { line, record } of records) {
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
        events++;
        if (record.rid) requests.add(record.rid, { commands: r.commands, facts: r.facts });
        break;
      }
      case 'message':
        thread.push(record.message);
        if (record.rid) requests.add(record.rid, null);
        break;
      case 'compaction':
        if (record.rid) requests.add(record.rid, null);
        compactions.push({ seqId: record.seqId, archived: record.archived, tokensBefore: record.tokensBefore, tokensAfter: record.tokensAfter, at: record.at });
        thread = record.replacement.slice();
        break;
      case 'undo': {
        const k = compactions.findIndex((c) => c.seqId === record.seqId);
        if (k >= 0) {
          thread = compactions[k]!.archived.slice();
          compactions.splice(k);
        }
        if (record.rid) requests.add(record.rid, { seqId: record.seqId, messages: thread.slice() });
        break;
      }
      case 'decision':
      case 'judgment':
      case 'packet':
      case 'effect':
        break; // derived from events: history for the panel and the export, not state
      default: {
        const unknown: never = record;
        throw new Error(`unknown log record ${JSON.stringify(unknown)}`);
      }
    }
  }
  return { state, thread, compactions, events, requests, problems };
}
