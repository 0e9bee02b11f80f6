/**
 * A hand-written check of the log records a thread is mostly made of (engine events of the eight kinds
 * a turn produces), so that loading a long log does not pay the general zod schema for each of them
 * (docs/ARCHITECTURE.md#the-event-log). It is at least as strict as `LogRecordSchema` and gives the same
 * value (unknown keys dropped, fresh objects except a tool call's free-form `input`): a record it does
 * not accept, for any reason, goes to the zod schema, which accepts it or says what is wrong. A property
 * test (test/property/fastRecord.property.test.ts) checks both on random and mutated records.
 */
import type { EngineEvent } from '../engine/types';
import { BOUNDARY_KINDS, type BoundaryKind, type BoundarySource } from '../signals/types';
import type { LogRecord } from './records';

type Obj = Record<string, unknown>;

/** A plain object (what JSON.parse makes), not an array, null or a class instance. */
const isPlain = (v: unknown): v is Obj => typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isStr = (v: unknown): v is string => typeof v === 'string';

const KINDS: ReadonlySet<string> = new Set(BOUNDARY_KINDS);
const SOURCES: ReadonlySet<string> = new Set<BoundarySource>(['git', 'terminal', 'plan_tool', 'agent_message', 'tool_result', 'turn', 'recording']);
const STATUSES: ReadonlySet<string> = new Set(['pending', 'in_progress', 'completed']);
const POINTS: ReadonlySet<string> = new Set(['turn_complete', 'tool_loop']);

/** The event, rebuilt with only its schema's keys; undefined if it is not one of the common kinds, exactly right. */
function fastEvent(e: unknown): EngineEvent | undefined {
  if (!isPlain(e) || !isNum(e.at)) return undefined;
  const at = e.at;
  switch (e.type) {
    case 'user_message':
    case 'assistant_message':
      return isStr(e.text) ? { type: e.type, at, text: e.text } : undefined;
    case 'tool_call':
      // `input` is free-form (z.unknown), but the key must be there.
      return isStr(e.id) && isStr(e.name) && 'input' in e ? { type: 'tool_call', at, id: e.id, name: e.name, input: e.input } : undefined;
    case 'tool_result': {
      if (!isStr(e.id) || !isStr(e.output) || typeof e.isError !== 'boolean') return undefined;
      if (!('exitCode' in e)) return { type: 'tool_result', at, id: e.id, output: e.output, isError: e.isError };
      return isNum(e.exitCode) ? { type: 'tool_result', at, id: e.id, output: e.output, isError: e.isError, exitCode: e.exitCode } : undefined;
    }
    case 'tokens':
      return isNum(e.used) && isNum(e.window) ? { type: 'tokens', at, used: e.used, window: e.window } : undefined;
    case 'boundary': {
      const b = e.boundary;
      if (!isStr(e.source) || !SOURCES.has(e.source) || !isPlain(b) || !isStr(b.kind) || !KINDS.has(b.kind) || !isStr(b.key) || !isStr(b.detail))
        return undefined;
      return { type: 'boundary', at, source: e.source as BoundarySource, boundary: { kind: b.kind as BoundaryKind, key: b.key, detail: b.detail } };
    }
    case 'plan': {
      if (!Array.isArray(e.steps)) return undefined;
      const steps: Array<{ text: string; status: 'pending' | 'in_progress' | 'completed' }> = [];
      for (const s of e.steps as unknown[]) {
        if (!isPlain(s) || !isStr(s.text) || !isStr(s.status) || !STATUSES.has(s.status)) return undefined;
        steps.push({ text: s.text, status: s.status as 'pending' | 'in_progress' | 'completed' });
      }
      return { type: 'plan', at, steps };
    }
    case 'evaluate':
      return isStr(e.point) && POINTS.has(e.point) ? { type: 'evaluate', at, point: e.point as 'turn_complete' | 'tool_loop' } : undefined;
    default:
      return undefined; // the other kinds are rare: the schema checks them
  }
}

/** The record if it is an engine event record of a common kind and valid; undefined means "ask the schema". */
export function fastLogRecord(json: unknown): LogRecord | undefined {
  if (!isPlain(json) || json.rawr !== 1 || json.kind !== 'event' || !isStr(json.thread) || json.thread.length === 0 || !isNum(json.at)) return undefined;
  const rid = json.rid;
  if (rid === undefined ? 'rid' in json : !isStr(rid) || rid.length > 100) return undefined;
  const event = fastEvent(json.event);
  if (!event) return undefined;
  if (isStr(rid)) return { rawr: 1, thread: json.thread, at: json.at, rid, kind: 'event', event };
  return { rawr: 1, thread: json.thread, at: json.at, kind: 'event', event };
}
