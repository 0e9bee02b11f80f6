/**
 * Cold replay: rebuild the engine state and the model-facing thread from a log, so a reload or a crash
 * loses nothing. Engine events are re-stepped (step is pure, so the state is identical); thread records
 * are applied in order; compactions keep their archive so the last one can be undone.
 */
import { step } from '../engine/step';
import type { Effect, EngineEvent, EngineState } from '../engine/types';
import type { ThreadMessage } from '../thread/thread';
import type { LogRecord } from './records';

export interface Rebuilt {
  state: EngineState;
  thread: ThreadMessage[];
  /** Compactions still undoable, oldest first. */
  compactions: Array<{ seqId: string; archived: ThreadMessage[]; tokensBefore: number; tokensAfter: number; at: number }>;
  events: number;
  /** The last record written by an identified request, and what that request returned. */
  lastRequest: { rid: string; result: Effect[] | { seqId: string; messages: ThreadMessage[] } | null } | null;
}

export function rebuild(records: Iterable<{ record: LogRecord }>, initial: EngineState): Rebuilt {
  let state = initial;
  let thread: ThreadMessage[] = [];
  const compactions: Rebuilt['compactions'] = [];
  let events = 0;
  let lastRequest: Rebuilt['lastRequest'] = null;
  for (const { record } of records) {
    switch (record.kind) {
      case 'event': {
        const r = step(state, record.event as unknown as EngineEvent);
        state = r.state;
        events++;
        if (record.rid) lastRequest = { rid: record.rid, result: r.effects };
        break;
      }
      case 'message':
        thread.push(record.message);
        if (record.rid) lastRequest = { rid: record.rid, result: null };
        break;
      case 'compaction':
        if (record.rid) lastRequest = { rid: record.rid, result: null };
        compactions.push({ seqId: record.seqId, archived: record.archived, tokensBefore: record.tokensBefore, tokensAfter: record.tokensAfter, at: record.at });
        thread = record.replacement.slice();
        break;
      case 'undo': {
        const k = compactions.findIndex((c) => c.seqId === record.seqId);
        if (k >= 0) {
          thread = compactions[k]!.archived.slice();
          compactions.splice(k);
        }
        if (record.rid) lastRequest = { rid: record.rid, result: { seqId: record.seqId, messages: thread.slice() } };
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
  return { state, thread, compactions, events, lastRequest };
}
