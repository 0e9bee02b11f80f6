/**
 * The compaction LM call: the thread rendered as a transcript (tool output clipped, oldest middle
 * dropped first when it cannot fit), summarised with the compaction prompt. The caller swaps the thread
 * only if this returns, so a failure leaves the thread as it was.
 */
import * as vscode from 'vscode';
import type { ThreadMessage } from '../../core/thread/thread';
import { renderTranscript, summaryRequestText } from '../../core/text/transcript';

export { renderTranscript };

export async function summarise(
  model: vscode.LanguageModelChat,
  thread: readonly ThreadMessage[],
  summaryPrompt: string,
  token: vscode.CancellationToken,
): Promise<string> {
  const request = summaryRequestText(summaryPrompt, thread, model.maxInputTokens);
  const response = await model.sendRequest(
    [vscode.LanguageModelChatMessage.User(request)],
    { justification: 'rawr compacts this thread at a phase boundary' },
    token,
  );
  let text = '';
  for await (const chunk of response.text) text += chunk;
  if (!text.trim()) throw new Error('the model returned an empty summary');
  return text.trim();
}
