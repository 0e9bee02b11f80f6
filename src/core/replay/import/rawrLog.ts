/**
 * A rawr event log as a Recording, so `rawr replay` can rerun the arbiter over rawr's own sessions
 * (for instance with other settings). Only the recorded inputs are taken (messages, tools, tokens,
 * plans); rawr's own recorded compactions become the "native" ones the replay compares against.
 */
import { forEachLogRecord, type LogProblem } from '../../logformat/reader';
import { LogRecordSchema, type LogRecord } from '../../logformat/records';
import type { RecordImporter, Recording, RecordingItem } from '../recording';
import type { LineSource } from './schemas';

export function importRawrLog(text: LineSource): Recording {
  const imp = rawrLogImporter();
  return imp.finish(forEachLogRecord(text, imp.problems, (record, line) => imp.onLogRecord(record, line)));
}

export interface RawrLogImporter extends RecordImporter {
  /** One record already read and validated by the log reader (eventLog.ts, which also salvages torn lines). */
  onLogRecord(record: LogRecord, line: number): void;
}

/** The rawr log record interpreter, fed record by record (see RecordImporter). */
export function rawrLogImporter(): RawrLogImporter {
  const items: RecordingItem[] = [];
  const problems: LogProblem[] = [];
  let window: number | undefined;
  let lastUsed = 0;
  const onLogRecord = (record: LogRecord, line: number): void => {
    if (record.kind === 'compaction') {
      items.push({ type: 'native_compaction', line, at: record.at, trigger: 'auto', preTokens: record.tokensBefore });
      return;
    }
    if (record.kind !== 'event') return;
    const e = record.event as Record<string, unknown>;
    const at = typeof e.at === 'number' ? e.at : record.at;
    switch (e.type) {
      case 'user_message':
        items.push({ type: 'user_prompt', line, at, text: String(e.text ?? '') });
        break;
      case 'assistant_message':
        items.push({ type: 'assistant_text', line, at, text: String(e.text ?? '') });
        break;
      case 'tool_call':
        items.push({ type: 'tool_call', line, at, id: String(e.id), name: String(e.name), input: e.input });
        break;
      case 'tool_result':
        items.push({
          type: 'tool_result',
          line,
          at,
          id: String(e.id),
          output: String(e.output ?? ''),
          isError: e.isError === true,
          ...(typeof e.exitCode === 'number' ? { exitCode: e.exitCode } : {}),
        });
        break;
      case 'tokens':
        if (typeof e.used === 'number' && e.used !== lastUsed) {
          window = typeof e.window === 'number' ? e.window : window;
          items.push({ type: 'usage', line, at, contextTokens: e.used, ...(window ? { window } : {}) });
          lastUsed = e.used;
        }
        break;
      case 'plan':
        if (Array.isArray(e.steps))
          items.push({ type: 'plan', line, at, steps: e.steps as Array<{ text: string; status: 'pending' | 'in_progress' | 'completed' }> });
        break;
      default:
        break;
    }
  };
  const meta = () => (window !== undefined ? { window } : {});
  return {
    format: 'rawr',
    items,
    problems,
    onLogRecord,
    onRecord: (record, line) => {
      const r = LogRecordSchema.safeParse(record);
      if (r.success) onLogRecord(r.data, line);
      else problems.push({ line, message: `not a rawr log record (${r.error.issues[0]?.message ?? 'invalid'}) — skipped` });
    },
    take: () => items.splice(0),
    meta,
    finish: (lines: number): Recording => ({ format: 'rawr', window, lines, items, problems }),
  };
}
