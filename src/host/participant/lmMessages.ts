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

/** Counts a thread with model.countTokens, caching per message object, model and count epoch. */
export class TokenCounter {
  private cache = new WeakMap<ThreadMessage, { model: string; tokens: number }>();
  /** Tool-definition counts per model and tool set (the set rarely changes within a session). */
  private toolCache = new Map<string, number>();

  /**
   * @param source.epoch when a model's counts change meaning (rawr's own provider calibrating its estimate
   *   from the server's usage), its epoch changes and every cached count of that model is made again: a
   *   thread's total is never a sum of counts made two different ways.
   * @param source.describe how a model's counts are made, for /status (undefined: the model's own countTokens).
   */
  constructor(
    private readonly source: { epoch?: (model: vscode.LanguageModelChat) => number; describe?: (model: vscode.LanguageModelChat) => string | undefined } = {},
  ) {}

  private modelKey(model: vscode.LanguageModelChat): string {
    return `${model.vendor}/${model.id}#${this.source.epoch?.(model) ?? 0}`;
  }

  /** How `model`'s counts are made, in words. */
  describe(model: vscode.LanguageModelChat): string {
    return this.source.describe?.(model) ?? "the model's own countTokens";
  }

  /**
   * What the tool definitions sent with every agent request take of the context window: each tool's name,
   * description and input schema, counted by the model's tokenizer as the JSON a chat template embeds.
   * (Models wrap them in their own template, so this is close, not exact; it is not zero, which is what
   * counting only the messages would assume.)
   */
  async countTools(model: vscode.LanguageModelChat, tools: readonly vscode.LanguageModelChatTool[], token?: vscode.CancellationToken): Promise<number> {
    if (tools.length === 0) return 0;
    const key = `${this.modelKey(model)}\n${tools.map((t) => t.name).join('\n')}`;
    const hit = this.toolCache.get(key);
    if (hit !== undefined) return hit;
    const text = JSON.stringify(tools.map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema ?? {} })));
    let n: number;
    try {
      n = await model.countTokens(text, token);
    } catch {
      n = Math.ceil(text.length / 4);
    }
    if (this.toolCache.size > 64) this.toolCache.clear(); // tool sets come and go with settings; stay small
    this.toolCache.set(key, n);
    return n;
  }

  async count(model: vscode.LanguageModelChat, thread: readonly ThreadMessage[], token?: vscode.CancellationToken): Promise<number> {
    let total = 0;
    const modelKey = this.modelKey(model);
    for (const m of thread) {
      const hit = this.cache.get(m);
      if (hit && hit.model === modelKey) {
        total += hit.tokens;
        continue;
      }
      let n: number;
      try {
        n = await model.countTokens(toLmMessages([m])[0] ?? '', token);
      } catch {
        n = Math.ceil(JSON.stringify(m).length / 4); // a provider without counting: the usual chars/4 estimate
      }
      this.cache.set(m, { model: modelKey, tokens: n });
      total += n;
    }
    return total;
  }
}
