/**
 * A vscode.LanguageModelChat for the unit tier, played by the same scripts as the scripted HTTP server
 * (scriptedModel.ts): a request's messages and tools go through rawr's own converter to the OpenAI
 * shapes the scripts read, the reply comes back as streamed language-model parts. Like a real model it
 * streams asynchronously, honours cancellation (a cancelled request throws CancellationError), fails
 * with LanguageModelError on an error reply, and counts tokens (chars/4, as rawr's estimate and the
 * scripted server do). Each reply may take time on a fake clock (`takesMs`): the clock advances while
 * the model "thinks", so a deadline can pass in the middle of a call.
 */
import * as vscode from 'vscode';
import { toOpenAIMessages, toOpenAITools } from '../../src/host/lm/convert';
import { estimateTokens } from '../../src/host/lm/openaiChat';
import type { FakeClock } from './fakeClock';
import { pickReply, type RecordedRequest, type Script, type ScriptReply, type ScriptRequest, type ScriptRule } from './scriptedModel';

export interface ChatModelDouble extends vscode.LanguageModelChat {
  /** Every request, in order, with the rule that answered it. */
  readonly requests: RecordedRequest[];
  setScript(script: Script | ScriptRule[]): void;
}

export interface ChatModelOptions {
  id?: string;
  name?: string;
  maxInputTokens: number;
  clock?: FakeClock;
  /** How long (fake-clock ms) a reply takes, per request; default 0. */
  takesMs?: (req: ScriptRequest, rule: string) => number;
}

export function chatModelDouble(script: Script | ScriptRule[], opts: ChatModelOptions): ChatModelDouble {
  let current: Script = Array.isArray(script) ? { rules: script } : script;
  let uses = new Map<ScriptRule, number>();
  const requests: RecordedRequest[] = [];
  const id = opts.id ?? 'scripted';

  async function* parts(
    reply: ScriptReply,
    rec: RecordedRequest,
    token: vscode.CancellationToken,
  ): AsyncGenerator<vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart> {
    const text = reply.text ?? '';
    const size = reply.textChunkSize ?? 40;
    for (let k = 0; k < text.length; k += size) {
      await new Promise((r) => setImmediate(r));
      if (token.isCancellationRequested) {
        rec.clientClosed = true;
        throw new vscode.CancellationError();
      }
      rec.chunksSent++;
      yield new vscode.LanguageModelTextPart(text.slice(k, k + size));
    }
    for (const [n, c] of (reply.toolCalls ?? []).entries()) {
      await new Promise((r) => setImmediate(r));
      if (token.isCancellationRequested) {
        rec.clientClosed = true;
        throw new vscode.CancellationError();
      }
      const input = typeof c.arguments === 'string' ? (JSON.parse(c.arguments) as object) : c.arguments;
      yield new vscode.LanguageModelToolCallPart(c.id ?? `call_${rec.index}_${n}`, c.name, input);
    }
  }

  const model = {
    id,
    name: opts.name ?? 'Scripted model double',
    vendor: 'rawr-test',
    family: id,
    version: '1',
    maxInputTokens: opts.maxInputTokens,
    capabilities: { supportsToolCalling: true, supportsImageToText: false },
    requests,
    setScript(s: Script | ScriptRule[]) {
      current = Array.isArray(s) ? { rules: s } : s;
      uses = new Map();
    },
    async sendRequest(messages: vscode.LanguageModelChatMessage[], options: vscode.LanguageModelChatRequestOptions = {}, token?: vscode.CancellationToken) {
      const tok = token ?? new vscode.CancellationTokenSource().token;
      if (tok.isCancellationRequested) throw new vscode.CancellationError();
      const converted = toOpenAIMessages(messages as unknown as vscode.LanguageModelChatRequestMessage[]);
      const req: ScriptRequest = {
        index: requests.length,
        model: id,
        messages: converted.messages as ScriptRequest['messages'],
        tools: (toOpenAITools(options.tools) ?? []) as ScriptRequest['tools'],
        stream: true,
        body: {},
        headers: {},
      };
      const rec: RecordedRequest = { ...req, rule: '', at: opts.clock?.now() ?? Date.now(), clientClosed: false, chunksSent: 0 };
      requests.push(rec);
      const { rule, reply } = await pickReply(current, uses, req);
      rec.rule = rule;
      rec.reply = reply;
      const ms = opts.takesMs?.(req, rule) ?? 0;
      if (ms > 0) opts.clock?.advance(ms);
      if (reply.status !== undefined && reply.status >= 400) {
        const msg = typeof reply.error === 'string' ? reply.error : (reply.error?.message ?? `HTTP ${reply.status}`);
        throw new vscode.LanguageModelError(`${msg} (HTTP ${reply.status})`);
      }
      const stream = parts(reply, rec, tok);
      return {
        stream,
        text: (async function* () {
          for await (const p of stream) if (p instanceof vscode.LanguageModelTextPart) yield p.value;
        })(),
      };
    },
    async countTokens(input: string | vscode.LanguageModelChatMessage): Promise<number> {
      if (typeof input === 'string') return estimateTokens(input);
      return estimateTokens(toOpenAIMessages([input as unknown as vscode.LanguageModelChatRequestMessage]).messages);
    },
  };
  return model as unknown as ChatModelDouble;
}
