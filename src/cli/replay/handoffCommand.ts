/**
 * `rawr handoff FILE --line N [--json]`: the model-facing thread rawr would continue with if it compacted
 * the recorded session at line N (core/replay/handoffAt.ts), as plain text or JSON. The file streams as
 * in `rawr replay` (two passes over its lines, nothing kept that grows with it).
 */
import { HandoffFeed, handoffStreamed } from '../../core/replay/handoffAt';
import { forEachItem, ProblemTally } from '../../core/replay/stream';
import { linesOfText } from '../../core/io/lines';
import { nativeSummaryAt } from '../../core/hooks/shared/repair';
import { repairOf } from '../../core/sequence/repair';
import { estimateTokens } from '../../core/sequence/recentTail';
import type { Prompts } from '../../core/prompts/promptSet';
import type { Settings } from '../../core/settings/schema';
import type { ThreadMessage } from '../../core/thread/thread';
import { scan, sourceOf, type ReplayInput } from './replayCommand';

export interface HandoffCommandOptions {
  settings: Settings;
  prompts: Prompts;
  format?: 'claude' | 'codex' | 'rawr' | undefined;
  line: number;
  json: boolean;
  file: string;
  /** `--native`: what the hooks would inject after the tool's own compaction recorded at `line` (the repair of its summary). */
  native?: boolean;
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
  if (o.native) return nativeRepairFile(input, o);
  const s = scan(input, { format: o.format });
  const h = handoffStreamed(s, sourceOf(input), o.line, o.settings, o.prompts);
  if (o.json) {
    return `${JSON.stringify({ file: o.file, format: s.format, line: h.line, itemsBefore: h.itemsBefore, parts: { packet: h.packet, handoff: h.handoff, tail: h.tail }, tokens: h.tokens, thread: h.thread }, null, 2)}\n`;
  }
  return `${h.thread.map(renderMessage).join('\n\n')}\n`;
}

/**
 * `--native`: the tool compacted by itself at `line` (a Claude Code `compact_boundary`, a Codex
 * `compacted` record); its summary is read from the transcript there, rawr's trail from the records
 * before it, and the output is what the hooks inject after that compaction: the repair (the facts the
 * summary lost), or a line saying it kept them all.
 */
function nativeRepairFile(input: ReplayInput, o: HandoffCommandOptions): string {
  const s = scan(input, { format: o.format });
  if (s.format === 'rawr') throw new Error('--native reads a Claude Code transcript or a Codex rollout (a rawr log has no tool compaction)');
  const src = sourceOf(input);
  const native = nativeSummaryAt(typeof src === 'string' ? linesOfText(src) : src, o.line);
  if (!native) throw new Error(`line ${o.line} is not a compaction recorded by the tool (a Claude Code compact_boundary or a Codex compacted record)`);
  const feed = new HandoffFeed(o.settings, o.prompts, s.statedWindow);
  forEachItem(s, sourceOf(input), new ProblemTally(), (it) => {
    if (it.line < o.line) feed.push(it);
  });
  const repair = repairOf(native.summary, feed.state);
  if (o.json) {
    const tokens = { summary: estimateTokens(native.summary), repair: estimateTokens(repair.text) };
    return `${JSON.stringify({ file: o.file, format: s.format, line: o.line, trigger: native.trigger, summary: native.summary, repair: repair.text, classes: repair.classes, tokens }, null, 2)}\n`;
  }
  return repair.text ? `${repair.text}\n` : `(the summary at line ${o.line} kept every fact of rawr's trail: nothing to inject)\n`;
}
