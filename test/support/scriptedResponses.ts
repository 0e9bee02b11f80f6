/**
 * A scripted, loopback-only OpenAI Responses API server (node:http on 127.0.0.1, port 0) that the real
 * Codex CLI can run against offline (test/agents/codex.test.ts). Codex only calls `POST /v1/responses`
 * (SSE: response.created, output_item.added/done, response.completed with usage); `GET /v1/models`
 * answers an empty list; anything else is a 404.
 *
 * Request kinds:
 *   compact  Codex's summary request: header `x-codex-turn-metadata` with `request_kind: "compaction"`
 *            (or its "CONTEXT CHECKPOINT COMPACTION" prompt). Answered with a summary, or refused with
 *            a 400 when `failCompact`.
 *   title    the TUI's thread-title request (json_schema with a `title` property).
 *   main     everything else: when the latest person prompt says DO_WORK, one shell call (`git
 *            commit` of hello.txt) first, then a text answer that says "[model saw rawr handoff]" when
 *            the request contains rawr's handoff marker.
 * Usage (input_tokens): `bigTokens` while the conversation says INFLATE and holds no compaction
 * summary yet, else 3000 — above the config's `model_auto_compact_token_limit` Codex compacts.
 */
import * as http from 'node:http';
import { jsonServer } from './jsonServer';
import type { AddressInfo } from 'node:net';

export interface ResponsesServerOptions {
  cwd: string;
  bigTokens?: number;
  failCompact?: boolean;
}
export interface RecordedResponsesRequest {
  n: number;
  kind: 'compact' | 'title' | 'main';
  status: number;
  raw: string;
  body: any;
}
export interface ScriptedResponses {
  url: string;
  requests: RecordedResponsesRequest[];
  close(): Promise<void>;
}

const SMALL = 3000;
const SUMMARY_MARK = 'SCRIPTED-COMPACTION-SUMMARY';

const textOfItem = (it: any): string => {
  if (!it) return '';
  if (typeof it.content === 'string') return it.content;
  if (Array.isArray(it.content)) return it.content.map((c: any) => c.text ?? '').join('\n');
  if (it.type === 'function_call_output') return typeof it.output === 'string' ? it.output : JSON.stringify(it.output);
  return '';
};

function classify(body: any, headers: http.IncomingHttpHeaders): RecordedResponsesRequest['kind'] {
  try {
    if (JSON.parse(String(headers['x-codex-turn-metadata'] ?? '{}')).request_kind === 'compaction') return 'compact';
  } catch {
    /* not JSON */
  }
  const input: any[] = Array.isArray(body.input) ? body.input : [];
  const lastUser = [...input].reverse().find((i) => i.type === 'message' && i.role === 'user');
  if ((lastUser && /CONTEXT CHECKPOINT COMPACTION/.test(textOfItem(lastUser))) || /CONTEXT CHECKPOINT COMPACTION/.test(body.instructions ?? ''))
    return 'compact';
  const fmt = body.text?.format;
  if (fmt?.type === 'json_schema' && fmt.schema?.properties?.title) return 'title';
  return 'main';
}

export async function startScriptedResponses(opts: ResponsesServerOptions): Promise<ScriptedResponses> {
  const big = opts.bigTokens ?? 190_000;
  const requests: RecordedResponsesRequest[] = [];
  let seq = 0;
  let callSeq = 0;

  const usageFor = (body: any) => {
    const all = JSON.stringify(body.input ?? []);
    const input = /INFLATE/.test(all) && !all.includes(SUMMARY_MARK) ? big : SMALL;
    return {
      input_tokens: input,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 50,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: input + 50,
    };
  };

  const mainReply = (body: any): any[] => {
    const input: any[] = Array.isArray(body.input) ? body.input : [];
    let start = -1;
    for (let i = input.length - 1; i >= 0; i--) {
      const it = input[i];
      if (
        it.type === 'message' &&
        it.role === 'user' &&
        !/^(<(environment_context|user_instructions|permissions)|Another language model started)/.test(textOfItem(it).trim())
      ) {
        start = i;
        break;
      }
    }
    const prompt = start >= 0 ? textOfItem(input[start]) : '';
    let outputs = input.slice(start + 1).filter((i) => i.type === 'function_call_output' || i.type === 'custom_tool_call_output').length;
    if (input.slice(start + 1).some((i) => i.type === 'message' && /Another language model started/.test(textOfItem(i)))) outputs = 1; // work done before the compaction
    const names: string[] = (body.tools ?? []).map((t: any) => t.name ?? t.function?.name ?? t.type);
    const tag = JSON.stringify(body).includes('[rawr handoff]') ? ' [model saw rawr handoff]' : '';
    if (/DO_WORK/.test(prompt) && outputs < 1) {
      const cmd = 'echo hello > hello.txt && git add -A && git commit -qm "step 1: hello.txt" && git log --oneline -1';
      const call = names.includes('exec_command')
        ? { name: 'exec_command', args: { cmd, workdir: opts.cwd } }
        : names.includes('shell_command')
          ? { name: 'shell_command', args: { command: cmd } }
          : { name: 'shell', args: { command: ['bash', '-lc', cmd] } };
      return [{ type: 'function_call', name: call.name, arguments: JSON.stringify(call.args), call_id: `call_scripted_${++callSeq}` }];
    }
    return [
      {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: `Done: ${prompt.slice(0, 80).replace(/\s+/g, ' ')}${tag}`, annotations: [] }],
      },
    ];
  };

  const reply = (kind: RecordedResponsesRequest['kind'], body: any): any[] => {
    if (kind === 'title')
      return [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: JSON.stringify({ title: 'Scripted task' }), annotations: [] }] }];
    if (kind === 'compact')
      return [
        {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: `${SUMMARY_MARK}: hello.txt is committed (step 1). Next: step 2.`, annotations: [] }],
        },
      ];
    return mainReply(body);
  };

  const send = (res: http.ServerResponse, body: any, items: any[]) => {
    const id = `resp_scripted_${seq}`;
    const sse = (data: any) => res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const base = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model: body.model ?? 'scripted', status: 'in_progress', output: [] };
    sse({ type: 'response.created', response: base });
    const done: any[] = [];
    items.forEach((raw, idx) => {
      const item = { id: `item_${id}_${idx}`, status: 'completed', ...raw };
      if (item.type === 'message') {
        const text = item.content[0].text;
        sse({ type: 'response.output_item.added', output_index: idx, item: { ...item, status: 'in_progress', content: [] } });
        sse({
          type: 'response.content_part.added',
          output_index: idx,
          item_id: item.id,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [] },
        });
        sse({ type: 'response.output_text.delta', output_index: idx, item_id: item.id, content_index: 0, delta: text });
        sse({ type: 'response.output_text.done', output_index: idx, item_id: item.id, content_index: 0, text });
      } else {
        sse({ type: 'response.output_item.added', output_index: idx, item: { ...item, status: 'in_progress', arguments: '' } });
        sse({ type: 'response.function_call_arguments.delta', output_index: idx, item_id: item.id, delta: item.arguments });
        sse({ type: 'response.function_call_arguments.done', output_index: idx, item_id: item.id, arguments: item.arguments });
      }
      sse({ type: 'response.output_item.done', output_index: idx, item });
      done.push(item);
    });
    sse({ type: 'response.completed', response: { ...base, status: 'completed', output: done, usage: usageFor(body) } });
    res.end();
  };

  const server = jsonServer((req, res, raw, body) => {
    const url = (req.url ?? '/').split('?')[0]!;
    if (req.method === 'POST' && /\/responses$/.test(url) && body) {
      const kind = classify(body, req.headers);
      const n = ++seq;
      if (kind === 'compact' && opts.failCompact) {
        requests.push({ n, kind, status: 400, raw, body });
        res.writeHead(400, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { message: 'scripted server: compaction refused', type: 'invalid_request_error', code: null, param: null } }));
      }
      requests.push({ n, kind, status: 200, raw, body });
      return send(res, body, reply(kind, body));
    }
    if (req.method === 'GET' && /\/models$/.test(url)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ object: 'list', data: [], models: [] }));
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'not found (scripted)', type: 'invalid_request_error' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
