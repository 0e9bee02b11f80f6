/**
 * The thread as the transcript the compaction summary call reads (tool output clipped, the oldest middle
 * dropped first when it cannot fit). Pure, so the cost benchmark renders exactly what the host sends.
 */
import type { ThreadMessage } from '../thread/thread';

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}… [${s.length - n} characters omitted]` : s);

export function renderTranscript(thread: readonly ThreadMessage[], budgetChars: number): string {
  const lines = thread.map((m) => {
    if (m.role === 'tool') return `[tool result ${m.name}${m.isError ? ' (error)' : ''}]\n${clip(m.text, 2000)}`;
    if (m.role === 'assistant') {
      const calls = (m.toolCalls ?? []).map((c) => `[tool call ${c.name}] ${clip(JSON.stringify(c.input), 600)}`).join('\n');
      return `[assistant${m.synthetic ? ', during compaction' : ''}]\n${clip(m.text, 6000)}${calls ? `\n${calls}` : ''}`;
    }
    return `[user${m.synthetic ? ' (rawr)' : ''}]\n${clip(m.text, 6000)}`;
  });
  // Keep the first request and the most recent work; drop from the oldest middle until it fits.
  let total = lines.reduce((n, l) => n + l.length + 2, 0);
  let k = 1;
  while (total > budgetChars && k < lines.length - 2) {
    total -= lines[k]!.length + 2;
    lines[k] = '';
    k++;
  }
  const kept = lines.filter(Boolean);
  if (k > 1) kept.splice(1, 0, `[… ${k - 1} older messages omitted to fit the summariser's window …]`);
  return kept.join('\n\n');
}

/** The one user message of the summary call: the prompt, then the transcript sized to the model's window. */
export function summaryRequestText(summaryPrompt: string, thread: readonly ThreadMessage[], maxInputTokens: number): string {
  const budget = Math.max(4_000, (maxInputTokens - 2_000) * 3); // ~3 chars a token, leaving room for the answer
  return `${summaryPrompt}\n\n<transcript>\n${renderTranscript(thread, budget)}\n</transcript>`;
}
