/**
 * The vscode-free core of the OpenAI-compatible language-model provider: the chat-completions message
 * shapes rawr sends, a streaming call that yields text and *complete* tool calls, error normalisation and
 * a token estimate. The VS Code adapter (openaiProvider.ts) and the unit tests both build on it; it
 * imports nothing from `vscode` and only types from `openai`.
 */
import type OpenAI from 'openai';
import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import * as z from 'zod';

// ---- message shapes (the subset of the chat-completions API rawr uses) ------------------------------

export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; /** JSON text, as the API carries it */ arguments: string };
}

export type OpenAIChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAIToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface OpenAITool {
  type: 'function';
  function: { name: string; description?: string; /** JSON schema of the arguments object */ parameters?: Record<string, unknown> };
}

export type OpenAIToolChoice = 'auto' | 'required' | 'none';

export interface StreamChatRequest {
  model: string;
  messages: OpenAIChatMessage[];
  tools?: OpenAITool[];
  /** Omitted = the server's default ('auto' when tools are given). Ignored without tools. */
  toolChoice?: OpenAIToolChoice;
  /**
   * Sent as `max_tokens`: the field every OpenAI-compatible server (LM Studio, llama.cpp, vLLM, Ollama)
   * understands. OpenAI's own reasoning models want `max_completion_tokens` instead; not handled.
   */
  maxTokens?: number;
  temperature?: number;
  /**
   * Ask for `stream_options.include_usage`: the server then reports its own token counts in a last chunk,
   * yielded as a `usage` part (the provider calibrates its estimate with it). Servers that do not know
   * the option mostly ignore it and send no usage; one that rejects it (HTTP 400 naming stream_options,
   * as older Azure OpenAI API versions do) is asked again without it, and `onUsageRejected` is called
   * so the caller stops asking that server.
   */
  includeUsage?: boolean;
  onUsageRejected?: (serverMessage: string) => void;
  signal?: AbortSignal;
}

export type StreamPart =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; id: string; name: string; input: unknown }
  /** The server's count for this request (only with includeUsage, and only from servers that send it). */
  | { type: 'usage'; promptTokens: number; completionTokens?: number };

/** The usage object servers put in the last chunk; anything else there is ignored, not trusted. */
const UsageSchema = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative().optional(),
});

// ---- errors -------------------------------------------------------------------------------------------

export type OpenAIChatErrorKind =
  | 'auth' // 401
  | 'forbidden' // 403
  | 'not_found' // 404 (usually: unknown model or wrong base URL)
  | 'rate_limit' // 429
  | 'bad_request' // other 4xx
  | 'server' // 5xx
  | 'connection' // no HTTP response at all
  | 'aborted' // the caller's AbortSignal fired
  | 'invalid_tool_call' // the model produced a tool call we cannot use
  | 'other';

/** Every failure of streamChat is one of these: a kind, the HTTP status if any, the server's own words. */
export class OpenAIChatError extends Error {
  override readonly name = 'OpenAIChatError';
  constructor(
    readonly kind: OpenAIChatErrorKind,
    message: string,
    /** The server's own error message (or the underlying cause's), without our framing. */
    readonly serverMessage: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

interface ApiErrorLike {
  status?: number;
  error?: unknown;
  message?: string;
  cause?: unknown;
}

/** The server's own message out of an openai SDK error (`{error: {message}}`, `{error: "…"}`, raw text). */
function serverMessageOf(e: ApiErrorLike): string {
  const body = e.error as { message?: unknown } | string | undefined;
  if (typeof body === 'string' && body) return body;
  if (body && typeof body === 'object' && typeof body.message === 'string' && body.message) return body.message;
  const msg = String(e.message ?? e);
  // The SDK formats "<status> <message>"; strip the status it prefixed.
  return e.status !== undefined ? msg.replace(new RegExp(`^${e.status}\\s+`), '') : msg;
}

/** Normalise anything thrown by the openai client (or a fetch underneath it) into an OpenAIChatError. */
export function toOpenAIChatError(err: unknown, where?: string): OpenAIChatError {
  if (err instanceof OpenAIChatError) return err;
  const e = (err ?? {}) as ApiErrorLike;
  const at = where ? ` (${where})` : '';
  if (err instanceof APIUserAbortError || (err instanceof Error && err.name === 'AbortError')) {
    return new OpenAIChatError('aborted', 'The request was cancelled.', 'aborted', undefined, { cause: err });
  }
  if (err instanceof APIError && typeof e.status === 'number') {
    const status = e.status;
    const server = serverMessageOf(e);
    const kind: OpenAIChatErrorKind =
      status === 401
        ? 'auth'
        : status === 403
          ? 'forbidden'
          : status === 404
            ? 'not_found'
            : status === 429
              ? 'rate_limit'
              : status >= 500
                ? 'server'
                : status >= 400
                  ? 'bad_request'
                  : 'other';
    return new OpenAIChatError(kind, `The OpenAI-compatible server${at} answered HTTP ${status}: ${server}`, server, status, { cause: err });
  }
  if (err instanceof APIConnectionError) {
    const cause = e.cause as { message?: string; cause?: { message?: string; code?: string } } | undefined;
    const detail = [cause?.message, cause?.cause?.code ?? cause?.cause?.message].filter(Boolean).join(': ');
    const server = detail || String(e.message ?? 'connection error');
    return new OpenAIChatError(
      'connection',
      `Cannot reach the OpenAI-compatible server${at}: ${String(e.message ?? 'connection error')}${detail ? ` (${detail})` : ''}`,
      server,
      undefined,
      { cause: err },
    );
  }
  const msg = err instanceof Error ? err.message : String(err);
  return new OpenAIChatError('other', `OpenAI-compatible request failed${at}: ${msg}`, msg, undefined, { cause: err });
}

// ---- streaming ------------------------------------------------------------------------------------------

interface PendingCall {
  index: number;
  id: string;
  name: string;
  args: string;
}

function finishCall(c: PendingCall): StreamPart {
  if (!c.name) {
    throw new OpenAIChatError(
      'invalid_tool_call',
      `The model streamed a tool call (index ${c.index}, id ${c.id || '?'}) without a function name.`,
      'missing function name',
    );
  }
  const text = c.args.trim();
  let input: unknown = {};
  if (text !== '') {
    try {
      input = JSON.parse(text);
    } catch (e) {
      const shown = text.length > 200 ? `${text.slice(0, 200)}…` : text;
      throw new OpenAIChatError(
        'invalid_tool_call',
        `The model called tool "${c.name}" with arguments that are not valid JSON (${(e as Error).message}): ${shown}`,
        (e as Error).message,
      );
    }
  }
  return { type: 'tool_call', id: c.id || `call_${c.index}_${Date.now().toString(36)}`, name: c.name, input };
}

/**
 * One streamed chat completion. Yields text deltas as they arrive and each tool call once it is complete
 * (deltas are assembled by their `index`; `arguments` fragments are concatenated and parsed as JSON when
 * the choice finishes or the stream ends). Throws OpenAIChatError: HTTP errors carry the server's
 * message, invalid tool-call JSON is `invalid_tool_call`, an aborted signal is `aborted`.
 */
export async function* streamChat(client: OpenAI, req: StreamChatRequest): AsyncGenerator<StreamPart, void, undefined> {
  const body: OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming = {
    model: req.model,
    messages: req.messages,
    stream: true,
  };
  // tool_choice only goes with tools: servers reject it alone.
  if (req.tools && req.tools.length > 0) {
    body.tools = req.tools;
    if (req.toolChoice) body.tool_choice = req.toolChoice;
  }
  if (req.maxTokens !== undefined) body.max_tokens = req.maxTokens;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.includeUsage) body.stream_options = { include_usage: true };

  const pending = new Map<number, PendingCall>();
  const flush = function* (): Generator<StreamPart> {
    const calls = [...pending.values()].sort((a, b) => a.index - b.index);
    pending.clear();
    for (const c of calls) yield finishCall(c);
  };

  let stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>;
  const create = () => client.chat.completions.create(body, req.signal ? { signal: req.signal } : undefined);
  try {
    if (req.signal?.aborted) throw new OpenAIChatError('aborted', 'The request was cancelled.', 'aborted');
    try {
      stream = await create();
    } catch (e) {
      const err = toOpenAIChatError(e);
      if (!(body.stream_options && err.kind === 'bad_request' && /stream_options|include_usage/i.test(err.serverMessage))) throw err;
      // The server rejects the usage option itself: ask again without it (nothing was streamed yet).
      delete body.stream_options;
      req.onUsageRejected?.(err.serverMessage);
      stream = await create();
    }
  } catch (e) {
    throw toOpenAIChatError(e);
  }

  const it = stream[Symbol.asyncIterator]();
  try {
    for (;;) {
      let r: IteratorResult<OpenAI.Chat.Completions.ChatCompletionChunk>;
      try {
        r = await it.next();
      } catch (e) {
        const err = toOpenAIChatError(e);
        if (err.kind !== 'other') throw err;
        // undici's "terminated" & co.: the HTTP response started, then the connection went away.
        throw new OpenAIChatError(
          'connection',
          `The OpenAI-compatible server's response broke off mid-stream: ${err.serverMessage}`,
          err.serverMessage,
          undefined,
          { cause: e },
        );
      }
      if (r.done) {
        // The SDK ends the stream quietly when its signal fires: report the abort instead of a short answer.
        if (req.signal?.aborted) throw new OpenAIChatError('aborted', 'The request was cancelled.', 'aborted');
        break;
      }
      if (req.signal?.aborted) throw new OpenAIChatError('aborted', 'The request was cancelled.', 'aborted');
      if (req.includeUsage && r.value.usage) {
        const u = UsageSchema.safeParse(r.value.usage);
        if (u.success)
          yield {
            type: 'usage',
            promptTokens: u.data.prompt_tokens,
            ...(u.data.completion_tokens !== undefined ? { completionTokens: u.data.completion_tokens } : {}),
          };
      }
      const choice = r.value.choices?.[0];
      if (!choice) continue; // e.g. the usage-only chunk
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string' && delta.content !== '') yield { type: 'text', text: delta.content };
      for (const tc of delta.tool_calls ?? []) {
        const index = typeof tc.index === 'number' ? tc.index : pending.size;
        let c = pending.get(index);
        if (!c) {
          c = { index, id: '', name: '', args: '' };
          pending.set(index, c);
        }
        if (tc.id) c.id = tc.id;
        const fn = tc.function;
        // Servers differ: most send the name once, some repeat it whole, a few stream it in pieces.
        if (fn?.name && fn.name !== c.name) c.name = c.name && !fn.name.startsWith(c.name) ? c.name + fn.name : fn.name;
        if (typeof fn?.arguments === 'string') c.args += fn.arguments;
      }
      if (choice.finish_reason) yield* flush();
    }
    yield* flush(); // a server that ends the stream without a finish_reason
  } finally {
    // Stop the HTTP stream if the consumer broke out early or we threw.
    await it.return?.().catch(() => undefined);
  }
}

// ---- token estimate ---------------------------------------------------------------------------------

/**
 * Overhead per message in the estimate: the chat template's role markers and separators (OpenAI documents
 * 3–4 tokens per message for its own models; local templates are similar).
 */
export const TOKENS_PER_MESSAGE = 4;

/**
 * Token estimate without a tokenizer (none is available offline, and the server's is unknown): about
 * 4 characters per token for English text and code (ceil(chars / 4)), plus TOKENS_PER_MESSAGE per message.
 * Tool calls count their name and JSON arguments, tool results their content. It is a heuristic: CJK text
 * and dense JSON run higher, whitespace-heavy text lower, so callers should keep a safety margin.
 */
export function estimateTokens(textOrMessages: string | OpenAIChatMessage | readonly OpenAIChatMessage[]): number {
  if (typeof textOrMessages === 'string') return Math.ceil(textOrMessages.length / 4);
  const list: readonly OpenAIChatMessage[] = Array.isArray(textOrMessages) ? textOrMessages : [textOrMessages as OpenAIChatMessage];
  let chars = 0;
  for (const m of list) {
    chars += m.content?.length ?? 0;
    if (m.role === 'assistant') for (const c of m.tool_calls ?? []) chars += c.function.name.length + c.function.arguments.length;
  }
  return Math.ceil(chars / 4) + TOKENS_PER_MESSAGE * list.length;
}
