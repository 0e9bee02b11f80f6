/**
 * A scripted, loopback-only OpenAI-compatible model server for tests (node:http on 127.0.0.1, port 0).
 *
 * Endpoints: `POST /v1/chat/completions` (streaming SSE and non-streaming), `GET /v1/models`.
 * Answers come from a SCRIPT: an ordered list of rules, first match wins, plus a fallback:
 *
 *   const m = await startScriptedModel({
 *     rules: [
 *       { name: 'greet', when: (r) => lastUserText(r).includes('hello'), reply: { text: 'hi there' } },
 *       { name: 'edit', when: (r) => hasTool(r, 'edit'), reply: { text: 'editing', toolCalls: [{ name: 'edit', arguments: { path: 'a.ts' } }] }, times: 1 },
 *       { when: () => true, reply: (r) => ({ text: `you sent ${r.messages.length} messages` }) },
 *     ],
 *     fallback: { text: 'ok' },
 *   });
 *   const client = new OpenAI({ baseURL: m.url, apiKey: 'x' });   // m.url ends in /v1
 *   …; m.requests[0].messages;  await m.close();
 *
 * Every request is recorded (model, messages, tools, the raw body, the rule that answered) so tests can
 * assert what the model saw. A reply can also be an HTTP error (`status` + `error`), can stream slowly
 * (`chunkDelayMs`), interleave parallel tool calls, send raw (even invalid) tool-call JSON, or drop the
 * connection mid-stream — see ScriptReply.
 *
 * Streaming follows the OpenAI wire format: `data: {chat.completion.chunk}\n\n` events — a role chunk,
 * `delta.content` pieces, `delta.tool_calls[{index, id, type:'function', function:{name, arguments}}]`
 * with each call's arguments split over several chunks, a chunk with `finish_reason`, an optional usage
 * chunk (`stream_options.include_usage`), then `data: [DONE]`.
 *
 * multiPhaseScript() (below) plays a realistic multi-phase rawr coding session.
 *
 * This file is compiled by tsc to out/test/support/scriptedModel.js; the real-VS-Code suites (plain JS)
 * load it from there: `require(path.join(repoRoot, 'out/test/support/scriptedModel.js'))`.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

// ---- request / reply shapes ----------------------------------------------------------------------------

export interface ScriptMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | string;
  /** A string, or content parts (`[{type:'text', text}]`) from clients that send them. */
  content?: string | Array<{ type: string; text?: string }> | null;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  name?: string;
}

export interface ScriptTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: unknown };
}

/** What a rule sees: the parsed request. */
export interface ScriptRequest {
  /** 0-based position among all chat-completion requests this server received. */
  index: number;
  model: string;
  messages: ScriptMessage[];
  tools: ScriptTool[];
  stream: boolean;
  /** The whole JSON body (tool_choice, max_tokens, temperature, …). */
  body: Record<string, unknown>;
  headers: http.IncomingHttpHeaders;
}

export interface ScriptedToolCall {
  name: string;
  /** An object is sent as JSON; a string is sent verbatim (use it to send invalid JSON). */
  arguments: object | string;
  /** Default: `call_<request>_<n>`. */
  id?: string;
}

export interface ScriptReply {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Answer with this HTTP status and an OpenAI-style error body instead of a completion. */
  status?: number;
  /** The error body's message (string) or the whole `error` object. Default: a generic message. */
  error?: string | { message: string; type?: string; code?: string | null };
  /** Default 'tool_calls' when there are tool calls, else 'stop'. */
  finishReason?: string;
  /** Streaming: characters per `delta.content` chunk (default 12). */
  textChunkSize?: number;
  /** Streaming: pieces each tool call's arguments are split into (default 3). */
  argChunks?: number;
  /** Streaming: interleave the chunks of parallel tool calls (round-robin by index). */
  interleaveToolCalls?: boolean;
  /** Streaming: wait this long before each chunk (default 0). */
  chunkDelayMs?: number;
  /** Streaming: destroy the connection after this many chunks (no finish, no [DONE]). */
  dropAfterChunks?: number;
}

export type ReplySpec = ScriptReply | ((req: ScriptRequest) => ScriptReply | Promise<ScriptReply>);

export interface ScriptRule {
  /** Shown in recorded requests (`rule`) and logs. */
  name?: string;
  when: (req: ScriptRequest) => boolean;
  reply: ReplySpec;
  /** Match at most this many times (default: unlimited). */
  times?: number;
}

export interface Script {
  rules: ScriptRule[];
  /** Used when no rule matches. Default: `{ text: 'OK.' }`. */
  fallback?: ReplySpec;
}

export interface RecordedRequest extends ScriptRequest {
  /** Name of the rule that answered ('fallback', '(unauthorized)', or `rule #i` for unnamed rules). */
  rule: string;
  reply?: ScriptReply;
  at: number;
  /** True when the client went away before the response was complete (abort, cancellation). */
  clientClosed: boolean;
  /** Streaming: how many SSE chunks the server wrote before it finished or the client went away. */
  chunksSent: number;
  /** The prompt tokens the server counted (and reported as usage) for this request. */
  promptTokens?: number;
}

export interface ScriptedModelOptions {
  /** Model ids listed by GET /v1/models (default ['scripted']). Requests for any model are answered. */
  models?: string[];
  /** When set, requests must carry `Authorization: Bearer <apiKey>`, else HTTP 401. */
  apiKey?: string;
  /** Port (default 0 = any free port). Always bound to 127.0.0.1. */
  port?: number;
  /** Called with one line per request (debugging). */
  log?: (line: string) => void;
  /**
   * The model's "tokenizer": how many tokens a piece of text is, for the `usage` the server reports
   * (prompt: every message's text and tool-call arguments plus 4 per message, and the tool definitions'
   * JSON; completion: the reply). Default: ceil(chars / 4), which agrees with rawr's own estimate; a test
   * of the calibration gives a denser one (per model id, so one server can play several models).
   */
  tokenizer?: (text: string, model: string) => number;
}

export interface ScriptedModel {
  /** Base URL for an OpenAI client, ending in /v1 (e.g. http://127.0.0.1:43123/v1). */
  url: string;
  port: number;
  /** Every chat-completion request, in arrival order. */
  requests: RecordedRequest[];
  /** Replace the script (rule use counts restart). */
  setScript(script: Script | ScriptRule[]): void;
  /** Resolves when at least n requests were received. */
  waitForRequests(n: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  close(): Promise<void>;
}

// ---- helpers for rules ---------------------------------------------------------------------------------

/** The text of a message (content parts joined). */
export function textOf(m: ScriptMessage | undefined): string {
  if (!m || m.content === null || m.content === undefined) return '';
  if (typeof m.content === 'string') return m.content;
  return m.content.map((p) => (typeof p.text === 'string' ? p.text : '')).join('');
}
export const lastMessage = (r: ScriptRequest): ScriptMessage | undefined => r.messages[r.messages.length - 1];
/** True when the newest message is a user message (a new prompt, not a tool result). */
export const lastMessageIsUser = (r: ScriptRequest): boolean => lastMessage(r)?.role === 'user';
/** Text of the newest user-role message (it may be followed by assistant/tool messages). */
export function lastUserText(r: ScriptRequest): string {
  for (let i = r.messages.length - 1; i >= 0; i--) if (r.messages[i]!.role === 'user') return textOf(r.messages[i]);
  return '';
}
/** Text of the system/developer messages plus the first message (VS Code's LM API has no system role). */
export function systemOrFirstText(r: ScriptRequest): string {
  const parts = r.messages.filter((m) => m.role === 'system' || m.role === 'developer').map(textOf);
  if (r.messages[0] && r.messages[0].role !== 'system' && r.messages[0].role !== 'developer') parts.push(textOf(r.messages[0]));
  return parts.join('\n');
}
export const hasTool = (r: ScriptRequest, name: string): boolean => r.tools.some((t) => t.function?.name === name);
/** Tool calls of the newest assistant message that has any. */
export function lastAssistantToolCalls(r: ScriptRequest): Array<{ id: string; name: string; arguments: string }> {
  for (let i = r.messages.length - 1; i >= 0; i--) {
    const m = r.messages[i]!;
    if (m.role === 'assistant' && m.tool_calls?.length) return m.tool_calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }));
  }
  return [];
}
/** The tool-role messages at the end of the conversation (the results the model has not answered yet). */
export function trailingToolResults(r: ScriptRequest): ScriptMessage[] {
  const out: ScriptMessage[] = [];
  for (let i = r.messages.length - 1; i >= 0 && r.messages[i]!.role === 'tool'; i--) out.unshift(r.messages[i]!);
  return out;
}
const includesCI = (hay: string, needle: string) => hay.toLowerCase().includes(needle.toLowerCase());

// ---- the server ------------------------------------------------------------------------------------------

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const approxTokens = (s: string) => Math.ceil(s.length / 4);

/** What a server counts as the prompt: messages (text, tool-call names and arguments, 4 per message) and tools. */
function promptTokensOf(req: ScriptRequest, tokenize: (text: string) => number): number {
  let n = 0;
  for (const m of req.messages) {
    const text = typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => p.text ?? '').join('');
    n += tokenize(text) + (m.tool_calls ?? []).reduce((k, c) => k + tokenize(c.function.name + c.function.arguments), 0) + 4;
  }
  return n + (req.tools.length ? tokenize(JSON.stringify(req.tools)) : 0);
}

function splitEvery(s: string, size: number): string[] {
  if (s === '') return [];
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}
function splitInto(s: string, pieces: number): string[] {
  if (s.length === 0) return [''];
  const size = Math.max(1, Math.ceil(s.length / Math.max(1, pieces)));
  return splitEvery(s, size);
}

function errorBody(reply: ScriptReply): { error: { message: string; type: string; code: string | null } } {
  const status = reply.status ?? 500;
  const type = status === 401 ? 'invalid_request_error' : status >= 500 ? 'server_error' : 'invalid_request_error';
  if (typeof reply.error === 'object') return { error: { type, code: null, ...reply.error } };
  return { error: { message: reply.error ?? `scripted error (HTTP ${status})`, type, code: null } };
}

/**
 * The reply a script gives to a request: the first rule that matches (and has uses left), else the
 * fallback. `uses` counts each rule's matches. Shared with the in-process model double (chatModel.ts).
 */
export async function pickReply(script: Script, uses: Map<ScriptRule, number>, req: ScriptRequest): Promise<{ rule: string; reply: ScriptReply }> {
  for (const [i, rule] of script.rules.entries()) {
    const used = uses.get(rule) ?? 0;
    if (rule.times !== undefined && used >= rule.times) continue;
    if (!rule.when(req)) continue;
    uses.set(rule, used + 1);
    const reply = typeof rule.reply === 'function' ? await rule.reply(req) : rule.reply;
    return { rule: rule.name ?? `rule #${i}`, reply };
  }
  const fb = script.fallback ?? { text: 'OK.' };
  return { rule: 'fallback', reply: typeof fb === 'function' ? await fb(req) : fb };
}

export async function startScriptedModel(script: Script | ScriptRule[], opts: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  let current: Script = Array.isArray(script) ? { rules: script } : script;
  let uses = new Map<ScriptRule, number>();
  const requests: RecordedRequest[] = [];
  const waiters: Array<() => void> = [];
  const log = opts.log ?? (() => undefined);
  const models = opts.models ?? ['scripted'];
  let counter = 0;

  const pick = (req: ScriptRequest) => pickReply(current, uses, req);

  function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }

  async function completions(httpReq: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch (e) {
      sendJson(res, 400, { error: { message: `request body is not JSON: ${(e as Error).message}`, type: 'invalid_request_error', code: null } });
      return;
    }
    const req: ScriptRequest = {
      index: requests.length,
      model: String(body.model ?? ''),
      messages: Array.isArray(body.messages) ? (body.messages as ScriptMessage[]) : [],
      tools: Array.isArray(body.tools) ? (body.tools as ScriptTool[]) : [],
      stream: body.stream === true,
      body,
      headers: httpReq.headers,
    };
    const rec: RecordedRequest = { ...req, rule: '', at: Date.now(), clientClosed: false, chunksSent: 0 };
    requests.push(rec);
    for (const w of waiters.splice(0)) w();
    res.on('close', () => {
      if (!res.writableFinished) rec.clientClosed = true;
    });

    if (opts.apiKey !== undefined && httpReq.headers.authorization !== `Bearer ${opts.apiKey}`) {
      rec.rule = '(unauthorized)';
      log(`#${req.index} 401 (bad or missing API key)`);
      sendJson(res, 401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } });
      return;
    }

    const { rule, reply } = await pick(req);
    rec.rule = rule;
    rec.reply = reply;
    log(`#${req.index} ${req.stream ? 'stream' : 'json'} model=${req.model} msgs=${req.messages.length} tools=${req.tools.length} → ${rule}`);

    if (reply.status !== undefined && reply.status >= 400) {
      sendJson(res, reply.status, errorBody(reply));
      return;
    }

    const id = `chatcmpl-scripted-${++counter}`;
    const created = Math.floor(Date.now() / 1000);
    const model = req.model || models[0]!;
    const calls = (reply.toolCalls ?? []).map((c, n) => ({
      id: c.id ?? `call_${req.index}_${n}`,
      name: c.name,
      args: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
    }));
    const finish = reply.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop');
    const tokenize = (text: string) => (opts.tokenizer ? opts.tokenizer(text, model) : approxTokens(text));
    const promptTokens = promptTokensOf(req, tokenize);
    rec.promptTokens = promptTokens;
    const completionTokens = tokenize((reply.text ?? '') + calls.map((c) => c.name + c.args).join(''));
    const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };

    if (!req.stream) {
      sendJson(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: reply.text ?? null,
              ...(calls.length ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })) } : {}),
            },
            finish_reason: finish,
          },
        ],
        usage,
      });
      return;
    }

    // SSE
    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    });
    const events: unknown[] = [chunk({ role: 'assistant', content: '' })];
    for (const piece of splitEvery(reply.text ?? '', Math.max(1, reply.textChunkSize ?? 12))) events.push(chunk({ content: piece }));
    const perCall = calls.map((c, index) => [
      chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }),
      ...splitInto(c.args, reply.argChunks ?? 3).map((a) => chunk({ tool_calls: [{ index, function: { arguments: a } }] })),
    ]);
    if (reply.interleaveToolCalls) {
      for (let k = 0; perCall.some((l) => k < l.length); k++) for (const l of perCall) if (k < l.length) events.push(l[k]);
    } else {
      for (const l of perCall) events.push(...l);
    }
    events.push(chunk({}, finish));
    const streamOptions = body.stream_options as { include_usage?: boolean } | undefined;
    if (streamOptions?.include_usage) events.push({ id, object: 'chat.completion.chunk', created, model, choices: [], usage });

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    let sent = 0;
    for (const ev of events) {
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
      if (res.destroyed || rec.clientClosed) return;
      if (reply.dropAfterChunks !== undefined && sent >= reply.dropAfterChunks) {
        res.destroy();
        return;
      }
      res.write(`data: ${JSON.stringify(ev)}\n\n`);
      sent++;
      rec.chunksSent = sent;
    }
    if (res.destroyed) return;
    res.end('data: [DONE]\n\n');
  }

  const server = http.createServer((httpReq, res) => {
    const chunks: Buffer[] = [];
    httpReq.on('data', (c: Buffer) => chunks.push(c));
    httpReq.on('end', () => {
      const url = new URL(httpReq.url ?? '/', 'http://127.0.0.1');
      const p = url.pathname.replace(/\/+$/, '');
      const handle = async () => {
        if (httpReq.method === 'GET' && (p === '/v1/models' || p === '/models')) {
          sendJson(res, 200, { object: 'list', data: models.map((m) => ({ id: m, object: 'model', created: 0, owned_by: 'scripted' })) });
        } else if (httpReq.method === 'POST' && (p === '/v1/chat/completions' || p === '/chat/completions')) {
          await completions(httpReq, res, Buffer.concat(chunks).toString('utf8'));
        } else {
          sendJson(res, 404, { error: { message: `scripted model: no route ${httpReq.method} ${url.pathname}`, type: 'invalid_request_error', code: null } });
        }
      };
      handle().catch((e: unknown) => {
        log(`handler error: ${(e as Error).stack ?? String(e)}`);
        if (!res.headersSent) sendJson(res, 500, { error: { message: `scripted model crashed: ${(e as Error).message}`, type: 'server_error', code: null } });
        else res.destroy();
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    setScript(s) {
      current = Array.isArray(s) ? { rules: s } : s;
      uses = new Map();
    },
    async waitForRequests(n, timeoutMs = 10_000) {
      const end = Date.now() + timeoutMs;
      while (requests.length < n) {
        const left = end - Date.now();
        if (left <= 0) throw new Error(`scripted model: waited ${timeoutMs} ms for ${n} request(s), got ${requests.length}`);
        await Promise.race([new Promise<void>((r) => waiters.push(r)), sleep(Math.min(left, 250))]);
      }
      return requests;
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

// ---- a realistic multi-phase rawr session ------------------------------------------------------------------

/** The texts rawr sends that the multi-phase script reacts to (keep in sync with prompts/*.md). */
export const RAWR_MARKERS = {
  /** System/first message of the judgment call (prompts/rawr-auto-compaction-judgment.md). */
  judgment: 'internal scheduler deciding whether to trigger RAWR auto-compaction',
  /** The compaction summary instructions (prompts/rawr-compaction-summary.md). */
  summary: 'Summarise the conversation so far',
  /** The scratch-write request (prompts/rawr-scratch-write.md). */
  scratch: '[rawr] Save your working notes',
  /** The packet request (body of prompts/rawr-auto-compact.md). */
  packet: '[rawr] Write your continuation packet',
  /** The heads-up banner (prompts/rawr-heads-up.md), when sent on its own. */
  headsUp: '[rawr watcher → agent]',
  /** First line of the handoff (prompts/rawr-handoff.md). */
  handoff: '[rawr handoff]',
} as const;

export const PLAN_TOOL = 'rawr_update_plan';
export const SCRATCH_TOOL = 'rawr_write_scratch';

export type PlanStatus = 'pending' | 'in_progress' | 'completed';
/** One step of rawr_update_plan's input (src/host/tools/rawrTools.ts: `{ steps: [{text, status}], explanation? }`). */
export interface PlanItem {
  text: string;
  status: PlanStatus;
}

/** Where the session is, derived from the conversation alone (so it survives rawr's compaction). */
export interface PhaseState {
  steps: string[];
  /** Completed steps (always a prefix of the plan). */
  done: number;
  /** Whether step `done` (0-based) is marked in progress. */
  inProgress: boolean;
  /** The user's original request (first user message that is not a rawr message). */
  task: string;
}

export interface MultiPhaseOptions {
  /** The plan, one step per phase (default: 3 steps). */
  steps?: string[];
  /** Input of rawr_update_plan. Default `{ steps: [{ text, status }], explanation }` (rawrTools.ts PlanInput). */
  planArgs?: (plan: PlanItem[], explanation: string) => object;
  /** Input of rawr_write_scratch. Default `{ content }`. */
  scratchArgs?: (content: string, scratchPath: string | undefined) => object;
  /** Extra characters appended to each completed-step message, to grow the context (default 0). */
  fillerChars?: number;
  /** End the turn after each completed step instead of one long autonomous turn (default false). */
  stopAfterEachPhase?: boolean;
  /** The judgment answer (default: always compact, with a reason naming the phase). */
  judgment?: (req: ScriptRequest, s: PhaseState) => { should_compact: boolean; reason: string };
}

export const DEFAULT_STEPS = [
  'Add the token-bucket rate limiter in src/limiter.ts',
  'Wire the limiter into the HTTP middleware in src/server.ts',
  'Write tests for burst and refill in test/limiter.test.ts',
];

/** "Steps completed: K of N" — written into packets and summaries so the state survives compaction. */
const PROGRESS_RE = /Steps completed: (\d+) of (\d+)(; step \d+ in progress)?/g;

/** The summary below names the task this way, so the task survives compaction too. */
const SUMMARY_TASK_RE = /The user asked: "([^"]*)"/;

function isRawrText(t: string): boolean {
  return Object.values(RAWR_MARKERS).some((m) => includesCI(t, m)) || t.trimStart().startsWith('[rawr');
}

function parsePlanArgs(args: string): PlanItem[] | undefined {
  try {
    const o = JSON.parse(args) as { plan?: unknown; steps?: unknown };
    const list = Array.isArray(o.steps) ? o.steps : Array.isArray(o.plan) ? o.plan : undefined; // rawr's {steps} or Codex-style {plan}
    if (!list) return undefined;
    return list.map((it: { step?: unknown; text?: unknown; status?: unknown }) => ({
      text: String(it.text ?? it.step ?? ''),
      status: (['pending', 'in_progress', 'completed'].includes(String(it.status)) ? it.status : 'pending') as PlanStatus,
    }));
  } catch {
    return undefined;
  }
}

/** Derive the session state from the messages: the latest rawr_update_plan call or progress line wins. */
export function phaseState(req: ScriptRequest, steps: string[] = DEFAULT_STEPS): PhaseState {
  let done = 0;
  let inProgress = false;
  let task = '';
  for (const m of req.messages) {
    const text = textOf(m);
    const summarised = SUMMARY_TASK_RE.exec(text)?.[1];
    if (summarised && (!task || task === text.trim())) task = summarised;
    // (a prompt's attachments block, which rawr appends to the person's words, is not the task)
    else if (m.role === 'user' && !task && text.trim() && !isRawrText(text)) task = text.split('\n\n[rawr] Attached by the user:')[0]!.trim();
    for (const hit of text.matchAll(PROGRESS_RE)) {
      done = Math.min(Number(hit[1]), steps.length);
      inProgress = !!hit[3];
    }
    if (m.role === 'assistant') {
      for (const c of m.tool_calls ?? []) {
        if (c.function.name !== PLAN_TOOL) continue;
        const plan = parsePlanArgs(c.function.arguments);
        if (!plan) continue;
        let k = 0;
        while (k < plan.length && plan[k]!.status === 'completed') k++;
        done = Math.min(k, steps.length);
        inProgress = plan[k]?.status === 'in_progress';
      }
    }
  }
  return { steps, done, inProgress, task: task || '(no task given)' };
}

function progressLine(s: PhaseState): string {
  return `Steps completed: ${s.done} of ${s.steps.length}${s.inProgress ? `; step ${s.done + 1} in progress` : ''}`;
}

function filler(n: number, seed: string): string {
  if (n <= 0) return '';
  const base = `Working notes for ${seed}: checked the call sites, ran the focused tests, reviewed edge cases and error paths. `;
  return '\n\n' + base.repeat(Math.ceil(n / base.length)).slice(0, n);
}

/** The continuation packet the scripted agent writes (well-formed: the four sections, > 400 chars). */
export function scriptedPacket(s: PhaseState): string {
  const completed = s.steps.slice(0, s.done);
  const next = s.steps[s.done];
  return [
    '## What just completed',
    completed.length
      ? completed.map((t, i) => `- Step ${i + 1}: ${t} (done, tests green).`).join('\n')
      : '- Nothing finished yet: the plan was set up and the first step started.',
    '',
    '## Where we are now',
    `${progressLine(s)}.`,
    `Task: ${s.task.slice(0, 200)}`,
    'All completed steps are verified by the focused unit tests; the working tree is clean apart from the current step.',
    '',
    "## What's next",
    next ? `1. Step ${s.done + 1}: ${next}.` : '1. Nothing left in the plan: report the result to the user.',
    ...s.steps.slice(s.done + 1).map((t, i) => `${i + 2}. Step ${s.done + i + 2}: ${t}.`),
    '',
    '## Decisions, invariants and traps',
    '- Keep the limiter pure (no timers); time is passed in, so tests stay deterministic.',
    '- Invariant: tokens never exceed the bucket capacity; refill is computed lazily on each call.',
    '- Trap: the middleware must not count health-check requests against the limit.',
  ].join('\n');
}

function scriptedSummary(s: PhaseState): string {
  return [
    '## Summary of the session so far',
    `The user asked: "${s.task.slice(0, 300)}".`,
    `The agent planned ${s.steps.length} steps: ${s.steps.map((t, i) => `(${i + 1}) ${t}`).join('; ')}.`,
    `${progressLine(s)}.`,
    'Decisions: the limiter is pure and time is injected; health checks bypass the limit.',
  ].join('\n');
}

/**
 * A realistic multi-phase coding session for rawr, as data-driven rules (first match wins; the array is
 * returned so callers can splice in their own rules or replace one by name):
 *
 * 1. `judgment` — system/first message is the judgment prompt → strict JSON `{"should_compact", "reason"}`.
 * 2. `summary` — "Summarise the conversation so far" in the system/first or last user message → a summary
 *    (which carries the "Steps completed: K of N" line).
 * 3. `scratch-confirm` — the newest messages are the result of a rawr_write_scratch call → one line (the
 *    packet, when the packet was asked for in the same turn).
 * 4. `scratch` — newest message is the scratch request → calls rawr_write_scratch with {content}; when it
 *    also asks for the packet (one turn for both), the reply's text is the packet too.
 * 5. `packet` — newest message contains the packet request → the four-section packet (no tool calls).
 * 6. `heads-up` — newest message is a heads-up on its own → a one-line acknowledgement.
 * 7. `work` — everything else (a user prompt, a tool result, "[rawr handoff]"…): the next action of the
 *    plan, derived from the conversation (phaseState): set up the plan / start step K (rawr_update_plan
 *    with step K in_progress) → finish step K (text + rawr_update_plan with step K completed, a plan
 *    checkpoint) → … → "All done" when every step is completed. With stopAfterEachPhase the turn also
 *    ends after each completed step. After a handoff the state comes from the packet's progress line.
 */
export function multiPhaseScript(opts: MultiPhaseOptions = {}): Script {
  const steps = opts.steps ?? DEFAULT_STEPS;
  const planArgs = opts.planArgs ?? ((plan: PlanItem[], explanation: string) => ({ steps: plan, explanation }));
  const scratchArgs = opts.scratchArgs ?? ((content: string) => ({ content }));
  const state = (r: ScriptRequest) => phaseState(r, steps);
  const plan = (done: number, inProgress: boolean): PlanItem[] =>
    steps.map((text, i) => ({ text, status: i < done ? 'completed' : i === done && inProgress ? 'in_progress' : 'pending' }));
  const newestText = (r: ScriptRequest) => (lastMessageIsUser(r) ? textOf(lastMessage(r)) : '');

  const rules: ScriptRule[] = [
    {
      name: 'judgment',
      when: (r) => includesCI(systemOrFirstText(r), RAWR_MARKERS.judgment),
      reply: (r) => {
        // The judgment request carries the plan as a trail ("- [x] step"), not as tool calls.
        const s0 = state(r);
        const doneInTrail = (JSON.stringify(r.messages).match(/- \[x\] /g) ?? []).length;
        const s = doneInTrail > s0.done ? { ...s0, done: Math.min(doneInTrail, s0.steps.length) } : s0;
        const verdict = opts.judgment?.(r, s) ?? {
          should_compact: true,
          reason: s.done > 0 ? `phase boundary: step ${s.done} of ${s.steps.length} is complete` : 'phase boundary: the plan is set up',
        };
        return { text: JSON.stringify(verdict) };
      },
    },
    {
      name: 'summary',
      when: (r) => includesCI(systemOrFirstText(r), RAWR_MARKERS.summary) || includesCI(newestText(r), RAWR_MARKERS.summary),
      reply: (r) => ({ text: scriptedSummary(state(r)) }),
    },
    {
      name: 'scratch-confirm',
      when: (r) => trailingToolResults(r).length > 0 && lastAssistantToolCalls(r).some((c) => c.name === SCRATCH_TOOL),
      reply: (r) => {
        // The notes were asked for with the packet (one turn for both): the agent goes on with the packet.
        if (includesCI(lastUserText(r), RAWR_MARKERS.packet)) return { text: scriptedPacket(state(r)) };
        const path = /`([^`\s]*\/[^`\s]*)`/.exec(lastUserText(r))?.[1];
        return { text: `Working notes written${path ? ` to \`${path}\`` : ''}.` };
      },
    },
    {
      name: 'scratch',
      when: (r) => includesCI(newestText(r), RAWR_MARKERS.scratch),
      reply: (r) => {
        const s = state(r);
        const path = /`([^`\s]*\/[^`\s]*)`/.exec(newestText(r))?.[1];
        const content = [
          `# Working notes (${progressLine(s)})`,
          `Task: ${s.task}`,
          ...s.steps.map((t, i) => `- [${i < s.done ? 'x' : ' '}] ${t}`),
          'Commands: `npm test -- --grep limiter` (green at the last run).',
        ].join('\n');
        const notes = { name: SCRATCH_TOOL, arguments: scratchArgs(content, path) };
        // Asked for both in one turn (the agent packet): the packet is the text, the notes a tool call.
        if (includesCI(newestText(r), RAWR_MARKERS.packet)) return { text: scriptedPacket(s), toolCalls: [notes] };
        return { toolCalls: [notes] };
      },
    },
    {
      name: 'packet',
      when: (r) => includesCI(newestText(r), RAWR_MARKERS.packet),
      reply: (r) => ({ text: scriptedPacket(state(r)) }),
    },
    {
      name: 'heads-up',
      when: (r) => includesCI(newestText(r), RAWR_MARKERS.headsUp),
      reply: { text: 'Understood: pausing at this boundary, ready to write the continuation packet.' },
    },
    {
      name: 'work',
      when: () => true,
      reply: (r) => {
        const s = state(r);
        const n = s.steps.length;
        if (s.done >= n) {
          return { text: `All done: all ${n} plan steps are complete. In summary: ${s.steps.map((t, i) => `(${i + 1}) ${t}`).join('; ')}. All tests pass.` };
        }
        const justCompleted = trailingToolResults(r).length > 0 && lastAssistantToolCalls(r).some((c) => c.name === PLAN_TOOL) && !s.inProgress && s.done > 0;
        if (opts.stopAfterEachPhase && justCompleted) {
          return { text: `Step ${s.done} of ${n} is complete. Next phase: step ${s.done + 1}, ${s.steps[s.done]}. Say "continue" when ready.` };
        }
        const k = s.done + 1;
        if (!s.inProgress) {
          const intro = s.done === 0 ? `I'll do this in ${n} steps. ` : `Moving on to the next phase. `;
          return {
            text: `${intro}Starting step ${k} of ${n}: ${s.steps[s.done]}.`,
            toolCalls: [{ name: PLAN_TOOL, arguments: planArgs(plan(s.done, true), `starting step ${k}`) }],
          };
        }
        return {
          text: `Finished step ${k} of ${n}: ${s.steps[s.done]}. The focused tests pass.${filler(opts.fillerChars ?? 0, `step ${k}`)}`,
          toolCalls: [{ name: PLAN_TOOL, arguments: planArgs(plan(k, false), `completed step ${k}`) }],
        };
      },
    },
  ];
  return { rules, fallback: { text: 'OK.' } };
}

/**
 * The reply of a server whose context the request does not fit: HTTP 400 with OpenAI's body and code
 * (vLLM and LM Studio answer alike), for rawr's overflow recovery (src/host/participant/overflow.ts).
 */
export function contextLengthExceeded(window = 8192, tokens = window + 1808): ScriptReply {
  return {
    status: 400,
    error: {
      message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
      type: 'invalid_request_error',
      code: 'context_length_exceeded',
    },
  };
}
