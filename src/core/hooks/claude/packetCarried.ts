/**
 * Whether Claude Code carries the agent's continuation packet into the context after a compaction by
 * itself. Measured on 2.1.332 (../shared/claude-code-e2e/steer/README.md, real-agent S5): a compaction
 * keeps the newest tool call and its result verbatim after the summary, and re-attaches the files the
 * session wrote or read last; on the golden path the compaction follows the packet's write directly, so
 * the first request after it held the packet twice from Claude Code and a third time in rawr's handoff.
 * rawr's handoff then points at the packet instead of quoting it again (inject.ts). Decided at PreCompact
 * (the transcript Claude Code writes after a compaction is not written yet when SessionStart runs): the
 * newest tool call of the transcript holds the packet's text in its input (a Write of the file, or a
 * shell command that wrote it). Pure.
 */
import { newestRecords } from './newestRecords';

/** The strings of a tool call's input, at any depth. */
function stringsOf(v: unknown, out: string[] = [], depth = 0): string[] {
  if (typeof v === 'string') out.push(v);
  else if (depth < 8 && Array.isArray(v)) for (const x of v) stringsOf(x, out, depth + 1);
  else if (depth < 8 && typeof v === 'object' && v !== null) for (const x of Object.values(v)) stringsOf(x, out, depth + 1);
  return out;
}

const normalized = (s: string) => s.replace(/\r\n/g, '\n').trim();

/**
 * `tail`: the end of a Claude Code transcript (JSON lines; a first line cut by the read is skipped as
 * unparseable). True when its newest tool call (of the main thread) holds `packetText` in its input.
 */
export function newestToolCallHolds(tail: string, packetText: string): boolean {
  const want = normalized(packetText);
  if (!want) return false;
  for (const record of newestRecords(tail, ['"tool_use"'])) {
    const rec = record as { type?: unknown; isSidechain?: unknown; message?: { content?: unknown } } | null;
    if (rec?.type !== 'assistant' || rec.isSidechain === true || !Array.isArray(rec.message?.content)) continue;
    const calls = (rec.message.content as Array<{ type?: unknown; input?: unknown }>).filter((b) => b?.type === 'tool_use');
    if (calls.length === 0) continue;
    return stringsOf(calls.at(-1)!.input).some((s) => normalized(s).includes(want));
  }
  return false;
}
