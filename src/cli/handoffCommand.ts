/**
 * `rawr handoff FILE --line N [--json]`: the model-facing thread rawr would continue with if it compacted
 * the recorded session at line N (core/replay/handoffAt.ts), as plain text or JSON. The file streams as
 * in `rawr replay` (two passes over its lines, nothing kept that grows with it).
 */
import { handoffStreamed } from '../core/replay/handoffAt';
import type { Prompts } from '../core/prompts/promptSet';
import type { Settings } from '../core/settings/schema';
import type { ThreadMessage } from '../core/thread/thread';
import { scan, sourceOf, type ReplayInput } from './replayCommand';

export interface HandoffCommandOptions {
  settings: Settings;
  prompts: Prompts;
  format?: 'claude' | 'codex' | 'rawr' | undefined;
  line: number;
  json: boolean;
  file: string;
}

function heading(m: ThreadMessage): string {
  if (m.role === 'tool') return `tool result: ${m.name}${m.isError ? ' (error)' : ''}`;
  const who = m.synthetic ? `${m.role}, rawr ${m.kind ?? 'synthetic'}` : m.role;
  return who;
}

/** One message as the model gets it: its text, then its tool calls as name + JSON input. */
export function renderMessage(m: ThreadMessage): string {
  const calls = m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => `[tool call ${c.name} ${c.id}] ${JSON.stringify(c.input)}`) : [];
  return [`──── ${heading(m)} ────`, m.text, ...calls].filter((s, k) => k === 0 || s !== '').join('\n');
}

export function handoffFile(input: ReplayInput, o: HandoffCommandOptions): string {
  const s = scan(input, { format: o.format });
  const h = handoffStreamed(s, sourceOf(input), o.line, o.settings, o.prompts);
  if (o.json) {
    return `${JSON.stringify({ file: o.file, format: s.format, line: h.line, itemsBefore: h.itemsBefore, parts: { packet: h.packet, handoff: h.handoff, tail: h.tail }, tokens: h.tokens, thread: h.thread }, null, 2)}\n`;
  }
  return `${h.thread.map(renderMessage).join('\n\n')}\n`;
}
