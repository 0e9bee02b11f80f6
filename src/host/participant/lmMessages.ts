/**
 * The model-facing thread (core ThreadMessage[]) as VS Code Language Model messages, and token counting
 * with a per-message cache so a turn only counts what is new.
 */
import * as vscode from 'vscode';
import type { ThreadMessage } from '../../core/thread/thread';

export function toLmMessages(thread: readonly ThreadMessage[]): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  let pendingResults: vscode.LanguageModelToolResultPart[] = [];
  const flush = () => {
    if (pendingResults.length) out.push(vscode.LanguageModelChatMessage.User(pendingResults));
    pendingResults = [];
  };
  for (const m of thread) {
    if (m.role === 'tool') {
      pendingResults.push(new vscode.LanguageModelToolResultPart(m.toolCallId, [new vscode.LanguageModelTextPart(m.text)]));
      continue;
    }
    flush();
    if (m.role === 'user') out.push(vscode.LanguageModelChatMessage.User(m.text));
    else {
      const parts: Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart> = [];
      if (m.text) parts.push(new vscode.LanguageModelTextPart(m.text));
      for (const c of m.toolCalls ?? []) parts.push(new vscode.LanguageModelToolCallPart(c.id, c.name, (c.input ?? {}) as object));
      out.push(vscode.LanguageModelChatMessage.Assistant(parts.length ? parts : ''));
    }
  }
  flush();
  return out;
}

/** Counts a thread with model.countTokens, caching per message object and model. */
export class TokenCounter {
  private cache = new WeakMap<ThreadMessage, { model: string; tokens: number }>();

  async count(model: vscode.LanguageModelChat, thread: readonly ThreadMessage[], token?: vscode.CancellationToken): Promise<number> {
    let total = 0;
    for (const m of thread) {
      const hit = this.cache.get(m);
      if (hit && hit.model === model.id) {
        total += hit.tokens;
        continue;
      }
      let n: number;
      try {
        n = await model.countTokens(toLmMessages([m])[0] ?? '', token);
      } catch {
        n = Math.ceil(JSON.stringify(m).length / 4); // a provider without counting: the usual chars/4 estimate
      }
      this.cache.set(m, { model: model.id, tokens: n });
      total += n;
    }
    return total;
  }
}
