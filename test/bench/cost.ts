/**
 * What a compaction costs in model calls and tokens (`npm run bench:handoff` prints it after the probe
 * table). At every native compaction of the recordings, rawr's golden path is run by the real engine over
 * the thread before that line, its model calls answered by the scripted model over HTTP through the real
 * openai client (test/support/scriptedModel.ts), and the input + output tokens the server counts are
 * summed per configuration — against one summary call over the same thread (what Claude Code and Copilot
 * spend: the conversation as messages, then the summary instruction). Counted, never timed. Goal: ≤ 1.3×
 * that single call.
 *
 * The requests are built as the host builds them (effectExecutor.ts): the judgment as one message, the
 * scratch and packet turns as the whole thread plus rawr's request, the summary with summaryRequestText.
 *
 * Caveat, printed with the table: the background summary (configs 2–4) is prepared on the same thread
 * just before the compaction, so at the boundary it covers everything and is reused as is. That assumes
 * no turn between the decision that starts it and the boundary; in a live session, turns in between that
 * outgrow the verbatim tail's budget cost one more (incremental) summary call over them (planSummary), so
 * configs 2–4 are counted at their cheapest.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import OpenAI from 'openai';
import { buildJudgmentPrompt } from '../../src/core/arbiter/judgment';
import { step } from '../../src/core/engine/step';
import type { Decision, EngineState } from '../../src/core/engine/types';
import { dirReader, shippedPromptsDir } from '../../src/core/prompts/fs';
import { loadPromptSet } from '../../src/core/prompts/promptSet';
import { recordingThread, stateBefore } from '../../src/core/replay/handoffAt';
import { summaryRequestText } from '../../src/core/text/transcript';
import { fillTemplate } from '../../src/core/prompts/promptSet';
import { planSummary, prepareSummaryOf, type PreparedSummary } from '../../src/core/sequence/preparedSummary';
import { tailBudget } from '../../src/core/sequence/recentTail';
import type { Settings } from '../../src/core/settings/schema';
import type { ThreadMessage } from '../../src/core/thread/thread';
import { streamChat, type OpenAIChatMessage } from '../../src/host/lm/openaiChat';
import { loadRecording } from '../../src/cli/replay/replayCommand';
import { multiPhaseScript, SCRATCH_TOOL, startScriptedModel, type ScriptedModel } from '../support/scriptedModel';
import { formatOf, nativeCompactions } from './probes';

export const COST_CONFIGS: Array<{ name: string; settings: Partial<Settings> }> = [
  { name: 'defaults (judgment; one turn: scratch notes + agent packet, which stands in for the summary)', settings: {} },
  { name: 'agent packet, and a summary (prepared in the background)', settings: { agent_packet_replaces_summary: false } },
  { name: 'watcher packet (judgment, background summary, scratch turn)', settings: { packet_author: 'watcher' } },
  { name: 'watcher packet, no scratch (judgment, background summary)', settings: { packet_author: 'watcher', scratch_write_enabled: false } },
];

interface Spent {
  calls: number;
  /** Model calls between the heads-up and the swap (the judgment, which decides, is not on that path). */
  critical: number;
  input: number;
  output: number;
}

const approx = (t: string) => Math.ceil(t.length / 4);

function toOpenAI(thread: readonly ThreadMessage[]): OpenAIChatMessage[] {
  return thread.map((m): OpenAIChatMessage => {
    if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.text };
    if (m.role === 'user') return { role: 'user', content: m.text };
    const calls = (m.toolCalls ?? []).map((c) => ({
      id: c.id,
      type: 'function' as const,
      function: { name: c.name, arguments: JSON.stringify(c.input ?? {}) },
    }));
    return calls.length ? { role: 'assistant', content: m.text || null, tool_calls: calls } : { role: 'assistant', content: m.text };
  });
}

const SCRATCH_TOOL_DEF = {
  type: 'function' as const,
  function: {
    name: SCRATCH_TOOL,
    description: 'Write working notes.',
    parameters: { type: 'object', properties: { content: { type: 'string' } }, required: ['content'] },
  },
};

class Meter {
  spent: Spent = { calls: 0, critical: 0, input: 0, output: 0 };
  /** Set once the sequence started: calls made from then on are on the critical path. */
  inSequence = false;
  constructor(
    private readonly server: ScriptedModel,
    private readonly client: OpenAI,
  ) {}

  async call(
    messages: OpenAIChatMessage[],
    tools: (typeof SCRATCH_TOOL_DEF)[] = [],
  ): Promise<{ text: string; calls: Array<{ id: string; name: string; input: unknown }> }> {
    let text = '';
    const calls: Array<{ id: string; name: string; input: unknown }> = [];
    for await (const p of streamChat(this.client, { model: 'scripted', messages, ...(tools.length ? { tools } : {}) })) {
      if (p.type === 'text') text += p.text;
      else if (p.type === 'tool_call') calls.push({ id: p.id, name: p.name, input: p.input });
    }
    this.spent.calls++;
    if (this.inSequence) this.spent.critical++;
    this.spent.input += this.server.requests.at(-1)!.promptTokens ?? 0;
    this.spent.output += approx(text + calls.map((c) => c.name + JSON.stringify(c.input)).join(''));
    return { text, calls };
  }
}

/** The golden path from a decision to compaction_done, its model calls made like the host's executor. */
async function goldenPath(start: EngineState, thread0: readonly ThreadMessage[], window: number, meter: Meter): Promise<void> {
  const thread = thread0.slice();
  let state = start;
  const at = 1;
  const d: Decision = {
    id: 'dcost',
    at,
    point: 'turn_complete',
    action: 'judge',
    code: 'judgment_pending',
    tier: 'early',
    percentRemaining: 40,
    boundaries: [],
    matched: [],
    reason: 'cost benchmark',
  };
  if (state.settings.judgment_enabled) {
    const j = buildJudgmentPrompt(state.prompts, d, {
      threadId: state.threadId,
      turn: state.turn,
      tokens: { used: 0.6 * window, window },
      trail: state.trail,
      plan: state.plan,
    });
    await meter.call([{ role: 'user', content: `${j.system}\n\n---\n\n${j.user}` }]);
  }
  // What the engine does at such a decision when the compaction will need a summary call
  // (prepare_summary): the summary of the thread as it stands starts beside the judgment, off the
  // critical path; at the boundary the host plans with it (sequence/preparedSummary.ts).
  const s0 = state.settings;
  let prepared: PreparedSummary | undefined;
  if (s0.packet_author === 'watcher' || !s0.agent_packet_replaces_summary) {
    const prompt = fillTemplate(state.prompts.compactionSummary, { instructions: '' });
    const reply = await meter.call([{ role: 'user', content: summaryRequestText(prompt, thread, window) }]);
    prepared = prepareSummaryOf(thread, prompt, reply.text);
  }
  let r = step(state, { type: 'compact_now', at });
  for (let guard = 0; guard < 20; guard++) {
    state = r.state;
    let next: Parameters<typeof step>[1] | undefined;
    for (const fx of r.commands) {
      switch (fx.type) {
        case 'inject_heads_up':
          meter.inSequence = true;
          thread.push({ role: 'user', text: fx.text, synthetic: true, kind: 'heads_up' });
          break;
        case 'request_scratch_write': {
          thread.push({ role: 'user', text: fx.text, synthetic: true, kind: 'scratch_request' });
          const reply = await meter.call(toOpenAI(thread), [SCRATCH_TOOL_DEF]);
          thread.push({ role: 'assistant', text: reply.text, synthetic: true, kind: 'scratch', ...(reply.calls.length ? { toolCalls: reply.calls } : {}) });
          for (const c of reply.calls) thread.push({ role: 'tool', toolCallId: c.id, name: c.name, text: `Scratch notes written to ${fx.path}.` });
          next = { type: 'scratch_written', at, seqId: fx.seqId, path: fx.path };
          break;
        }
        case 'request_packet': {
          thread.push({ role: 'user', text: fx.text, synthetic: true, kind: 'packet_request' });
          let reply = await meter.call(toOpenAI(thread), fx.scratchPath ? [SCRATCH_TOOL_DEF] : []);
          thread.push({ role: 'assistant', text: reply.text, synthetic: true, kind: 'packet', ...(reply.calls.length ? { toolCalls: reply.calls } : {}) });
          for (const c of reply.calls) thread.push({ role: 'tool', toolCallId: c.id, name: c.name, text: `Scratch notes written to ${fx.scratchPath}.` });
          const scratchWritten = reply.calls.length > 0;
          if (!reply.text.trim() && reply.calls.length) {
            reply = await meter.call(toOpenAI(thread));
            thread.push({ role: 'assistant', text: reply.text, synthetic: true, kind: 'packet' });
          }
          next = { type: 'packet', at, seqId: fx.seqId, text: reply.text, ...(fx.scratchPath ? { scratchWritten } : {}) };
          break;
        }
        case 'compact': {
          if (fx.summarise === false) {
            next = { type: 'compaction_done', at, seqId: fx.seqId, tokensBefore: 0.6 * window, tokensAfter: 5000 };
            break;
          }
          const plan = planSummary(prepared, thread, fx.summaryPrompt, tailBudget(state.settings.keep_recent_tokens, window, 0.6 * window));
          if (plan.kind === 'full') await meter.call([{ role: 'user', content: summaryRequestText(fx.summaryPrompt, thread, window) }]);
          else if (plan.kind === 'incremental') await meter.call([{ role: 'user', content: summaryRequestText(fx.summaryPrompt, plan.thread, window) }]);
          next = { type: 'compaction_done', at, seqId: fx.seqId, tokensBefore: 0.6 * window, tokensAfter: 5000 };
          break;
        }
        default:
          break;
      }
    }
    if (!next || next.type === 'compaction_done') return;
    r = step(state, next);
  }
}

export interface CostRow {
  file: string;
  line: number;
  baseline: Spent;
  configs: Spent[];
}

export async function runCostBench(files: string[]): Promise<CostRow[]> {
  const set = loadPromptSet([dirReader(shippedPromptsDir())]);
  const server = await startScriptedModel(multiPhaseScript());
  const client = new OpenAI({ baseURL: server.url, apiKey: 'bench', maxRetries: 0 });
  const rows: CostRow[] = [];
  try {
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const lines = text.split('\n');
      const format = formatOf(lines);
      if (!format) continue;
      const natives = nativeCompactions(lines, format);
      if (!natives.length) continue;
      const rec = loadRecording(text, format);
      const window = rec.window ?? 200_000;
      for (const n of natives) {
        const base = new Meter(server, client);
        const { items } = stateBefore(rec, n.line, set.settings, set.prompts);
        const thread = recordingThread(items);
        // What Claude Code and Copilot send: the conversation as it stands, then the summary instruction.
        await base.call([...toOpenAI(thread), { role: 'user', content: set.prompts.compactionSummary.replace('{instructions}', '').trim() }]);
        const configs: Spent[] = [];
        for (const c of COST_CONFIGS) {
          const settings = { ...set.settings, ...c.settings };
          const { state } = stateBefore(rec, n.line, settings, set.prompts);
          const meter = new Meter(server, client);
          await goldenPath({ ...state, tokens: { used: 0.6 * window, window } }, thread, window, meter);
          configs.push(meter.spent);
        }
        rows.push({ file: basename(file), line: n.line, baseline: base.spent, configs });
      }
    }
  } finally {
    await server.close();
  }
  return rows;
}

const kt = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(Math.round(n)));

export function formatCostBench(rows: CostRow[]): string {
  const out: string[] = [];
  out.push(`cost per compaction (model calls, input + output tokens as the scripted model counts them) vs one summary call over the same thread`);
  out.push(
    'caveat: configs 2–4 prepare the background summary on the same thread just before compacting, so it is reused whole — this assumes no turn between the decision and the boundary; in a live session, turns in between that outgrow the verbatim tail cost one more (incremental) summary call: configs 2–4 are counted at their cheapest.',
  );
  out.push('');
  const tot = (s: Spent) => s.input + s.output;
  out.push(
    `${'recording'.padEnd(46)} ${'line'.padStart(5)}  ${'one summary call'.padEnd(18)} ${COST_CONFIGS.map((_c, k) => `config ${k + 1}`.padEnd(22)).join(' ')}`,
  );
  for (const r of rows) {
    out.push(
      `${r.file.padEnd(46)} ${String(r.line).padStart(5)}  ${`${r.baseline.calls} call, ${kt(tot(r.baseline))}`.padEnd(18)} ${r.configs.map((c) => `${c.calls} calls ${kt(tot(c))} ${(tot(c) / tot(r.baseline)).toFixed(2)}×`.padEnd(22)).join(' ')}`,
    );
  }
  out.push('');
  const base = rows.reduce((n, r) => n + tot(r.baseline), 0);
  COST_CONFIGS.forEach((c, k) => {
    const sum = rows.reduce((n, r) => n + tot(r.configs[k]!), 0);
    const worst = Math.max(...rows.map((r) => tot(r.configs[k]!) / tot(r.baseline)));
    const critical = Math.max(...rows.map((r) => r.configs[k]!.critical));
    out.push(
      `config ${k + 1}: ${c.name.padEnd(58)} ${(sum / base).toFixed(2)}× overall, worst ${worst.toFixed(2)}×, ≤ ${critical} model call${critical === 1 ? '' : 's'} between heads-up and swap${k === 0 ? ` — goal for the defaults ≤ 1.3× overall: ${sum / base <= 1.3 ? 'MET' : 'MISSED'}, ≤ 1 call: ${critical <= 1 ? 'MET' : 'MISSED'}` : ''}`,
    );
  });
  out.push('(a thread of a few hundred tokens costs more than 1.3× with any judgment call: its prompt alone is ~450 tokens)');
  return out.join('\n');
}
