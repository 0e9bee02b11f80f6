/**
 * A scripted, loopback-only Anthropic Messages API server (node:http on 127.0.0.1, port 0) that the real
 * Claude Code CLI can run against offline (test/agents/claudeCode.test.ts). Endpoints:
 * `POST /v1/messages` (streaming SSE and plain JSON), `POST /v1/messages/count_tokens`, `GET /v1/models`;
 * anything else (Claude Code's `HEAD /` probe) is a 404 JSON.
 *
 * Request kinds, classified from the body:
 *   compact  Claude Code's summary request: its last user-role message asks to "create a detailed
 *            summary of the conversation" (newer versions append role "system" messages after it).
 *            Answered with <analysis>/<summary>, or refused with a 400 when `failCompact`.
 *   main     the agent loop (the Bash tool is offered): the scripted work below, then a text answer.
 *   side     anything else (session title, topic check): a short answer.
 * Main-agent script per person prompt containing DO_WORK: the task tool (TodoWrite, TaskCreate, or
 * ToolSearch + TaskCreate/TaskUpdate when the task tools are deferred), Read PLAN.md, Write hello.txt,
 * Bash `git commit`, then text. The answer says "[model saw rawr handoff]" when the request contains
 * rawr's handoff marker.
 * `MULTI_BASH n [COMMIT_AT k]` in the prompt: n Bash calls, one per model reply (`echo bash-step-i`),
 * call k a commit ("phase 1 done": a phase boundary in the middle of the turn), then text.
 * Usage reported (input_tokens): `bigTokens` while a user message says INFLATE or OVERFLOW and the
 * conversation is not compacted yet (INFLATE_ONCE: only the very first request), else 3000 — this is
 * what makes Claude Code compact by itself. With `usageSchedule`, a request of a conversation not
 * compacted yet reports the entry indexed by the number of tool results it holds (the last one beyond
 * the end): a context that grows step by step through a turn. OVERFLOW: once the turn holds 2 tool results, main requests
 * get the API's 400 "prompt is too long", which Claude Code answers by compacting and retrying.
 *
 * When a request carries rawr's heads-up asking for the continuation packet in a file (the golden path
 * in Claude Code), the next reply writes PACKET (with PACKET_TOKEN) there with the Write tool, once; the
 * scripted steps go on after it.
 * Every request body is kept (`requests`) so tests can assert what the model saw.
 */
import * as http from 'node:http';
import { jsonServer } from './jsonServer';
import type { AddressInfo } from 'node:net';

export interface AnthropicServerOptions {
  /** The project folder Claude Code runs in (for the Read / Write paths). */
  cwd: string;
  bigTokens?: number;
  /** Refuse the compaction request (a `/compact` whose summary fails: scenario E). */
  failCompact?: boolean;
  /** Context per number of tool results in the conversation, until it is compacted (see above). */
  usageSchedule?: number[];
}

export interface RecordedRequest {
  n: number;
  kind: 'compact' | 'main' | 'side';
  status: number;
  raw: string;
  body: any;
}

export interface ScriptedAnthropic {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

const SMALL = 3000;
/** The continuation packet the scripted model writes when rawr's heads-up asks for it; its token shows where it reached the model. */
export const PACKET_TOKEN = 'GOLDEN-PACKET-7731';
const PACKET = `## What just completed\nphase 1 committed (phase 1 done).\n\n## Where we are now\nSteps 1-5 done, step 6 run.\n\n## What's next\nRun the remaining step, then report (${PACKET_TOKEN}).\n\n## Decisions, invariants and traps\nNone.\n`;
const COMPACTED_RE = /continued from a previous conversation|This session is being continued/i;

const textOf = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: any) =>
      b.type === 'text' ? b.text : b.type === 'tool_result' ? `[tool_result ${typeof b.content === 'string' ? b.content : JSON.stringify(b.content)}]` : '',
    )
    .join('\n');
};
const hasToolResult = (m: any) => Array.isArray(m.content) && m.content.some((b: any) => b.type === 'tool_result');

export function classify(body: any): RecordedRequest['kind'] {
  const msgs: any[] = body.messages ?? [];
  const last = [...msgs].reverse().find((m) => m.role === 'user');
  if (last && /create a detailed summary of the conversation/i.test(textOf(last.content))) return 'compact';
  return (body.tools ?? []).some((t: any) => t.name === 'Bash') ? 'main' : 'side';
}

export async function startScriptedAnthropic(opts: AnthropicServerOptions): Promise<ScriptedAnthropic> {
  const big = opts.bigTokens ?? 190_000;
  const requests: RecordedRequest[] = [];
  let seq = 0;
  let toolSeq = 0;

  const usageFor = (body: any) => {
    const msgs: any[] = body.messages ?? [];
    const all = msgs.map((m) => textOf(m.content)).join('\n');
    const schedule = opts.usageSchedule ?? [];
    if (schedule.length) {
      const k = msgs.filter(hasToolResult).length;
      const input = COMPACTED_RE.test(all) ? SMALL : schedule[Math.min(k, schedule.length - 1)]!;
      return { input_tokens: input, output_tokens: 50, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    }
    const once = /INFLATE_ONCE/.test(all) && !msgs.some(hasToolResult);
    const isBig = once || (/INFLATE(?!_ONCE)|OVERFLOW/.test(all) && !COMPACTED_RE.test(all));
    return { input_tokens: isBig ? big : SMALL, output_tokens: 50, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  };
  const promptTooLong = (body: any) => {
    const msgs: any[] = body.messages ?? [];
    const all = msgs.map((m) => textOf(m.content)).join('\n');
    if (!/OVERFLOW/.test(all) || COMPACTED_RE.test(all)) return false;
    return msgs.filter((m) => m.role === 'user' && hasToolResult(m)).length >= 2;
  };

  const mainReply = (body: any): { blocks: Block[]; stop: string } => {
    const msgs: any[] = body.messages ?? [];
    let start = -1;
    for (let i = msgs.length - 1; i >= 0; i--)
      if (msgs[i].role === 'user' && !hasToolResult(msgs[i])) {
        start = i;
        break;
      }
    const prompt = start >= 0 ? textOf(msgs[start].content) : '';
    const turn = msgs.slice(start + 1);
    const results = turn.filter((m) => m.role === 'user' && hasToolResult(m)).length;
    const tools: string[] = (body.tools ?? []).map((t: any) => t.name);
    const tag = JSON.stringify(body).includes('[rawr handoff]') ? ' [model saw rawr handoff]' : '';
    const uses = turn.filter((m) => m.role === 'assistant' && Array.isArray(m.content)).flatMap((m) => m.content.filter((b: any) => b.type === 'tool_use'));
    const resultText = (id: string) => {
      for (const m of turn) for (const b of Array.isArray(m.content) ? m.content : []) if (b.type === 'tool_result' && b.tool_use_id === id) return textOf([b]);
      return '';
    };
    // Deferred task tools (newer Claude Code): TaskCreate only after ToolSearch has loaded it.
    const deferred =
      uses.some((b: any) => b.name === 'ToolSearch') ||
      (results === 0 && tools.includes('ToolSearch') && !tools.includes('TaskCreate') && !tools.includes('TodoWrite'));
    const steps: Array<{ name: string; input: unknown }> = [];
    if (/DO_WORK/.test(prompt)) {
      let taskId = '1';
      if (deferred) {
        const created = uses.find((b: any) => b.name === 'TaskCreate');
        const m = created ? /#(\d+)/.exec(resultText(created.id)) : null;
        if (m) taskId = m[1]!;
        steps.push({ name: 'ToolSearch', input: { query: 'select:TaskCreate,TaskUpdate' } });
        steps.push({
          name: 'TaskCreate',
          input: { subject: 'Step 1: write hello.txt and commit', description: 'Write hello.txt and commit it', activeForm: 'Writing hello.txt' },
        });
        steps.push({ name: 'TaskUpdate', input: { taskId, status: 'in_progress' } });
      } else if (tools.includes('TodoWrite')) {
        steps.push({
          name: 'TodoWrite',
          input: {
            todos: [
              { content: 'Step 1: write hello.txt and commit', status: 'in_progress', activeForm: 'Writing hello.txt' },
              { content: 'Step 2: follow PLAN.md', status: 'pending', activeForm: 'Following PLAN.md' },
            ],
          },
        });
      } else if (tools.includes('TaskCreate')) {
        steps.push({
          name: 'TaskCreate',
          input: { subject: 'Step 1: write hello.txt and commit', description: 'Write hello.txt and commit it', activeForm: 'Writing hello.txt' },
        });
      }
      steps.push({ name: 'Read', input: { file_path: `${opts.cwd}/PLAN.md` } });
      steps.push({ name: 'Write', input: { file_path: `${opts.cwd}/hello.txt`, content: 'hello\n' } });
      steps.push({
        name: 'Bash',
        input: { command: 'git add -A && git commit -qm "step 1: hello.txt" && git log --oneline -1', description: 'Commit step 1' },
      });
    }
    const mb = /MULTI_BASH(?:\s+(\d+))?(?:\s+COMMIT_AT\s+(\d+))?/.exec(prompt);
    if (mb) {
      const n = Number(mb[1] ?? 4);
      const commitAt = Number(mb[2] ?? 0);
      for (let i = 1; i <= n; i++)
        steps.push({
          name: 'Bash',
          input:
            i === commitAt
              ? { command: 'echo phase-1 >> work.txt && git add -A && git commit -m "phase 1 done"', description: 'Commit phase 1' }
              : { command: `echo bash-step-${i}`, description: `step ${i}` },
        });
    }
    // rawr's heads-up (the golden path in Claude Code, src/core/hooks/claude/golden.ts) asks for the
    // continuation packet in a file: the model writes it with the Write tool, once, before going on.
    const isPacketWrite = (b: any) => b.name === 'Write' && typeof b.input?.file_path === 'string' && b.input.file_path.includes('/.scratch/');
    const packetAsk = /Write your continuation packet now, with your file-writing tool, to `([^`]+)`/.exec(JSON.stringify(body));
    const packetWrites = uses.filter(isPacketWrite).length;
    if (packetAsk && packetWrites === 0) {
      return {
        blocks: [
          { type: 'text', text: 'Writing the continuation packet.' },
          {
            type: 'tool_use',
            id: `toolu_scripted${String(++toolSeq).padStart(6, '0')}`,
            name: 'Write',
            input: { file_path: `${opts.cwd}/${packetAsk[1]}`, content: PACKET },
          },
        ],
        stop: 'tool_use',
      };
    }
    const done = results - packetWrites;
    if (done < steps.length) {
      const s = steps[done]!;
      return {
        blocks: [
          { type: 'text', text: `Working (step ${done + 1}/${steps.length}).` },
          { type: 'tool_use', id: `toolu_scripted${String(++toolSeq).padStart(6, '0')}`, name: s.name, input: s.input },
        ],
        stop: 'tool_use',
      };
    }
    return { blocks: [{ type: 'text', text: `Done: ${prompt.slice(0, 80).replace(/\s+/g, ' ')}${tag}` }], stop: 'end_turn' };
  };

  const reply = (kind: RecordedRequest['kind'], body: any): { blocks: Block[]; stop: string } => {
    if (kind === 'compact') {
      return {
        blocks: [
          {
            type: 'text',
            text: '<analysis>Scripted work.</analysis>\n<summary>\n1. Primary Request and Intent: write hello.txt and commit it (step 1), then step 2.\n7. Pending Tasks: step 2.\n8. Current Work: step 1 committed.\n</summary>',
          },
        ],
        stop: 'end_turn',
      };
    }
    if (kind === 'main') return mainReply(body);
    const sys = JSON.stringify(body.system ?? '');
    if (/title/i.test(sys)) return { blocks: [{ type: 'text', text: '{"title":"Scripted session"}' }], stop: 'end_turn' };
    if (/isNewTopic/i.test(sys)) return { blocks: [{ type: 'text', text: '{"isNewTopic":false,"title":null}' }], stop: 'end_turn' };
    return { blocks: [{ type: 'text', text: 'ok' }], stop: 'end_turn' };
  };

  const send = (res: http.ServerResponse, body: any, r: { blocks: Block[]; stop: string }) => {
    const id = `msg_scripted_${seq}`;
    const usage = usageFor(body);
    const model = body.model ?? 'claude-scripted';
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${id}` });
      res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model, content: r.blocks, stop_reason: r.stop, stop_sequence: null, usage }));
      return;
    }
    const sse = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${id}` });
    sse('message_start', {
      type: 'message_start',
      message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
    });
    r.blocks.forEach((b, index) => {
      if (b.type === 'text') {
        sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        for (let i = 0; i < b.text.length; i += 200)
          sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text.slice(i, i + 200) } });
      } else {
        sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
        sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } });
      }
      sse('content_block_stop', { type: 'content_block_stop', index });
    });
    sse('message_delta', { type: 'message_delta', delta: { stop_reason: r.stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
    sse('message_stop', { type: 'message_stop' });
    res.end();
  };

  const error = (res: http.ServerResponse, status: number, type: string, message: string) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ type: 'error', error: { type, message } }));
  };

  const server = jsonServer((req, res, raw, body) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'POST' && url.pathname === '/v1/messages' && body) {
      const kind = classify(body);
      const n = ++seq;
      if (kind === 'main' && promptTooLong(body)) {
        requests.push({ n, kind, status: 400, raw, body });
        return error(res, 400, 'invalid_request_error', `prompt is too long: ${big + 25_000} tokens > ${big} maximum`);
      }
      if (kind === 'compact' && opts.failCompact) {
        requests.push({ n, kind, status: 400, raw, body });
        return error(res, 400, 'invalid_request_error', 'scripted server: compaction request refused');
      }
      requests.push({ n, kind, status: 200, raw, body });
      return send(res, body, reply(kind, body));
    }
    if (req.method === 'POST' && url.pathname === '/v1/messages/count_tokens') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ input_tokens: SMALL }));
    }
    if (req.method === 'GET' && url.pathname.startsWith('/v1/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(
        JSON.stringify({
          data: [{ type: 'model', id: 'claude-sonnet-4-5-20250929', display_name: 'Scripted Sonnet', created_at: '2025-09-29T00:00:00Z' }],
          has_more: false,
          first_id: null,
          last_id: null,
        }),
      );
    }
    error(res, 404, 'not_found_error', `scripted server: no ${req.method} ${url.pathname}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
