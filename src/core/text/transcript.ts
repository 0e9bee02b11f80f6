/**
 * The thread rendered as a transcript for the compaction (summary) request: tool output clipped, the
 * oldest middle dropped first when it cannot fit. Every message text is quoted (quote.ts), so file
 * contents or tool output cannot forge a "[user]" turn or close the <transcript> container.
 * Pure (the LM call itself is the host's: src/host/participant/compactor.ts).
 */
import type { ThreadMessage } from '../thread/thread';
import { quoteTurnText } from './quote';

import { clip as clipText } from './clip';

const clip = (s: string, n: number) => clipText(s, n, { marker: (omitted) => `… [${omitted} characters omitted]` });

export function renderTranscript(thread: readonly ThreadMessage[], budgetChars: number): string {
  const lines = thread.map((m) => {
    // Message texts are quoted: file contents or tool output cannot forge a turn or close <transcript>.
    if (m.role === 'tool') return `[tool result ${quoteTurnText(m.name)}${m.isError ? ' (error)' : ''}]\n${quoteTurnText(clip(m.text, 2000))}`;
    if (m.role === 'assistant') {
      const calls = (m.toolCalls ?? []).map((c) => `[tool call ${quoteTurnText(c.name)}] ${quoteTurnText(clip(JSON.stringify(c.input), 600))}`).join('\n');
      return `[assistant${m.synthetic ? ', during compaction' : ''}]\n${quoteTurnText(clip(m.text, 6000))}${calls ? `\n${calls}` : ''}`;
    }
    return `[user${m.synthetic ? ' (rawr)' : ''}]\n${quoteTurnText(clip(m.text, 6000))}`;
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

/** The whole summary request: the compaction prompt, then the quoted transcript in <transcript> tags. */
export function summaryRequest(summaryPrompt: string, thread: readonly ThreadMessage[], budgetChars: number): string {
  return `${summaryPrompt}\n\n<transcript>\n${renderTranscript(thread, budgetChars)}\n</transcript>`;
}

/** The one user message of the summary call: the request sized to the model's window (~3 characters a token, room left for the answer). */
export function summaryRequestText(summaryPrompt: string, thread: readonly ThreadMessage[], maxInputTokens: number): string {
  return summaryRequest(summaryPrompt, thread, Math.max(4_000, (maxInputTokens - 2_000) * 3));
}
