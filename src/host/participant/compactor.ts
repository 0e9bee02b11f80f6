/**
 * The compaction LM call: the thread rendered as a transcript (tool output clipped, oldest middle
 * dropped first when it cannot fit), summarised with the compaction prompt. The caller swaps the thread
 * only if this returns, so a failure leaves the thread as it was.
 */
import * as vscode from 'vscode';
import type { ThreadMessage } from '../../core/thread/thread';
import { clip as clipText } from '../../core/text/clip';

const clip = (s: string, n: number) => clipText(s, n, { marker: (omitted) => `… [${omitted} characters omitted]` });

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

export async function summarise(
  model: vscode.LanguageModelChat,
  thread: readonly ThreadMessage[],
  summaryPrompt: string,
  token: vscode.CancellationToken,
): Promise<string> {
  const budget = Math.max(4_000, (model.maxInputTokens - 2_000) * 3); // ~3 chars a token, leaving room for the answer
  const request = `${summaryPrompt}\n\n<transcript>\n${renderTranscript(thread, budget)}\n</transcript>`;
  const response = await model.sendRequest([vscode.LanguageModelChatMessage.User(request)], { justification: 'rawr compacts this thread at a phase boundary' }, token);
  let text = '';
  for await (const chunk of response.text) text += chunk;
  if (!text.trim()) throw new Error('the model returned an empty summary');
  return text.trim();
}
