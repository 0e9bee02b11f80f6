/**
 * A rawr event log as a Recording, so `rawr replay` can rerun the arbiter over rawr's own sessions
 * (for instance with other settings). Only the recorded inputs are taken (messages, tools, tokens,
 * plans); rawr's own recorded compactions become the "native" ones the replay compares against.
 */
import { parseLog } from '../../log/eventLog';
import type { Recording, RecordingItem } from '../recording';
import type { LineSource } from './schemas';

export function importRawrLog(text: LineSource): Recording {
  const { records, problems, lines } = parseLog(text);
  const items: RecordingItem[] = [];
  let window: number | undefined;
  let lastUsed = 0;
  for (const { line, record } of records) {
    if (record.kind === 'compaction') {
      items.push({ type: 'native_compaction', line, at: record.at, trigger: 'auto', preTokens: record.tokensBefore });
      continue;
    }
    if (record.kind !== 'event') continue;
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
  }
  return { format: 'rawr', window, lines, items, problems };
}
