/**
 * One chat request of @rawr: the agent loop (model → tools → model …) and the executor of the golden
 * path the arbiter asks for at each evaluation point — after a tool result, before the next model call,
 * and at turn completion — rendered into this request's response stream.
 */
import * as vscode from 'vscode';
import type { Effect } from '../../core/engine/types';
import { detectShellBoundaries } from '../../core/signals/shell';
import type { ThreadMessage } from '../../core/thread/thread';
import { summarise } from './compactor';
import { toLmMessages } from './lmMessages';
import { block } from './render';
import type { Session } from './session';
import { PLAN_TOOL, RAWR_TOOL_INFOS, SCRATCH_TOOL, parsePlan, writeScratch } from '../tools/rawrTools';
import { agentTools } from './agentTools';
import { instructionsMessage, isInstructions } from './agentPrompt';
import { DECLINED_RESULT, isSkippedResult, showPlan, toolLine } from './toolDisplay';

/** Safety net against a model that never stops calling tools. */
const MAX_MODEL_CALLS = 60;
const REQUEST_EFFECTS = new Set<Effect['type']>(['request_judgment', 'request_scratch_write', 'request_packet', 'compact']);
const TERMINAL_TOOL = /terminal|shell|bash|exec/i;

interface ModelReply {
  text: string;
  toolCalls: Array<{ id: string; name: string; input: unknown }>;
}


export class Turn {
  private timers = new Map<string, number>();
  private modelCalls = 0;

  constructor(
    private readonly session: Session,
    private readonly model: vscode.LanguageModelChat,
    private readonly stream: vscode.ChatResponseStream,
    private readonly token: vscode.CancellationToken,
    private readonly toolInvocationToken: vscode.ChatParticipantToolToken | undefined,
  ) {}

  private get deps() {
    return this.session.deps;
  }

  /** Tools offered to the agent: rawr's own plus the workspace tools the settings allow. */
  private tools(): vscode.LanguageModelChatTool[] {
    return agentTools(this.deps.allowedTools());
  }

  /** A person's message: straight into the thread, or held if the arbiter compacts first (preflight). */
  async userMessage(text: string): Promise<void> {
    // A new thread starts with the agent's base instructions (agentPrompt.ts).
    if (this.session.messages.length === 0 && this.deps.agentPrompt) await this.session.append(await instructionsMessage(this.deps.agentPrompt(), this.tools()));
    const effects = await this.session.step({ type: 'user_message', at: Date.now(), text });
    const held = effects.some((e) => e.type === 'inject_heads_up' || e.type === 'annotate');
    if (!held) await this.session.append({ role: 'user', text });
    await this.drive(effects);
    await this.loop();
  }

  /** /compact and "Rawr: Compact Now": the golden path on demand, then the agent continues. */
  async compactNow(instructions: string): Promise<void> {
    await this.session.syncTokens(this.model, this.token, this.tools());
    const effects = await this.session.step({ type: 'compact_now', at: Date.now(), instructions });
    const compacted = await this.drive(effects);
    if (compacted) await this.loop();
  }

  /** The agent loop. Returns when the model answers without tool calls (and no compaction follows). */
  private async loop(): Promise<void> {
    while (!this.token.isCancellationRequested) {
      if (++this.modelCalls > MAX_MODEL_CALLS) {
        this.stream.markdown(`\n\n_[rawr] stopped after ${MAX_MODEL_CALLS} model calls in one request; send a message to continue._`);
        return;
      }
      const tools = this.tools();
      await this.session.syncTokens(this.model, this.token, tools);
      const reply = await this.callModel(tools, true);
      const assistant: ThreadMessage = { role: 'assistant', text: reply.text, ...(reply.toolCalls.length ? { toolCalls: reply.toolCalls } : {}) };
      await this.session.append(assistant);
      if (reply.text) await this.session.step({ type: 'assistant_message', at: Date.now(), text: reply.text });
      for (const c of reply.toolCalls) await this.session.step({ type: 'tool_call', at: Date.now(), id: c.id, name: c.name, input: c.input });

      if (reply.toolCalls.length === 0) {
        await this.session.syncTokens(this.model, this.token, this.tools());
        const compacted = await this.drive(await this.session.step({ type: 'evaluate', at: Date.now(), point: 'turn_complete' }));
        if (compacted) continue; // the agent continues from the handoff
        return;
      }
      for (const c of reply.toolCalls) await this.runTool(c);
      // Tool-loop boundary: every result is in, the next model call has not been made.
      await this.session.syncTokens(this.model, this.token, this.tools());
      await this.drive(await this.session.step({ type: 'evaluate', at: Date.now(), point: 'tool_loop' }));
    }
  }

  private async callModel(tools: vscode.LanguageModelChatTool[], render: boolean): Promise<ModelReply> {
    const response = await this.model.sendRequest(toLmMessages(this.session.messages), { tools, justification: '@rawr runs the agent loop' }, this.token);
    const reply: ModelReply = { text: '', toolCalls: [] };
    for await (const part of response.stream) {
      if (part instanceof vscode.LanguageModelTextPart) {
        reply.text += part.value;
        if (render) this.stream.markdown(part.value);
      } else if (part instanceof vscode.LanguageModelToolCallPart) {
        reply.toolCalls.push({ id: part.callId, name: part.name, input: part.input });
      }
    }
    return reply;
  }

  private async runTool(call: { id: string; name: string; input: unknown }): Promise<void> {
    let output: string;
    let isError = false;
    try {
      if (call.name === PLAN_TOOL) {
        const plan = parsePlan(call.input);
        if (!plan.ok) throw new Error(`invalid plan: ${plan.error}`);
        await this.session.step({ type: 'plan', at: Date.now(), steps: plan.steps });
        const done = plan.steps.filter((s) => s.status === 'completed').length;
        output = `Plan recorded (${done}/${plan.steps.length} steps completed).`;
        this.stream.progress(`Plan: ${done}/${plan.steps.length} steps completed`); // a step of the response (VS Code folds finished steps)
        this.stream.markdown(showPlan(this.session, plan.steps));
      } else if (call.name === SCRATCH_TOOL) {
        const r = await writeScratch(this.deps.workspace(), this.session.agentName, call.input);
        if (!r.ok) throw new Error(r.error);
        output = `Scratch notes written to ${r.path}.`;
      } else if (this.tools().some((t) => t.name === call.name)) {
        const result = await vscode.lm.invokeTool(call.name, { input: (call.input ?? {}) as object, toolInvocationToken: this.toolInvocationToken }, this.token);
        output = result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
        const skipped = isSkippedResult(output);
        if (skipped) output = DECLINED_RESULT;
        this.stream.markdown(toolLine(call.name, call.input, output, skipped ? 'skipped' : 'ok'));
      } else {
        throw new Error(`tool "${call.name}" is not available to @rawr (see the rawr.tools.allowed setting)`);
      }
    } catch (err) {
      isError = true;
      // Skip in VS Code's confirmation arrives as a cancellation while the request itself goes on.
      const declined = (err instanceof vscode.CancellationError || (err as Error)?.name === 'Canceled') && !this.token.isCancellationRequested;
      output = declined ? DECLINED_RESULT : `Error: ${(err as Error).message}`;
      if (call.name !== PLAN_TOOL && call.name !== SCRATCH_TOOL) this.stream.markdown(toolLine(call.name, call.input, output, declined ? 'skipped' : 'error'));
    }
    await this.session.append({ role: 'tool', toolCallId: call.id, name: call.name, text: output, ...(isError ? { isError } : {}) });
    await this.session.step({ type: 'tool_result', at: Date.now(), id: call.id, output, isError });
    // Commits and pushes run through a terminal tool count like those typed in a terminal.
    const command = (call.input as { command?: unknown } | null)?.command;
    if (TERMINAL_TOOL.test(call.name) && typeof command === 'string') {
      const exit = /^exit code (\d+)/.exec(output)?.[1];
      for (const b of detectShellBoundaries({ command, exitCode: isError ? 1 : exit !== undefined ? Number(exit) : undefined, output })) {
        await this.session.step({ type: 'boundary', at: Date.now(), source: 'tool_result', boundary: b });
      }
    }
  }

  /**
   * Executes effects in order. Each batch holds at most one request (judgment, scratch, packet,
   * compaction) that needs an async model call; it runs after the batch's other effects, and the event
   * it produces yields the next batch. Returns true if the thread was compacted.
   */
  private async drive(effects: Effect[]): Promise<boolean> {
    let batch = effects;
    let compacted = false;
    while (batch.length) {
      let request: Effect | undefined;
      for (const fx of batch) {
        if (REQUEST_EFFECTS.has(fx.type)) request = fx;
        else if (await this.apply(fx)) compacted = true;
      }
      batch = request ? await this.fulfil(request) : [];
    }
    return compacted;
  }

  private async apply(fx: Effect): Promise<boolean> {
    switch (fx.type) {
      case 'decision':
        return false;
      case 'annotate':
        this.stream.markdown(`\n\n_${fx.text.startsWith('[rawr]') ? '' : '[rawr] '}${fx.text}_\n\n`);
        return false;
      case 'suggest':
        this.stream.markdown(`\n\n_[rawr] ${fx.decision.reason}_\n\n`);
        this.stream.button({ command: 'rawr.compactNow', title: 'Compact now', arguments: [this.session.threadId] });
        return false;
      case 'start_timer':
        this.timers.set(fx.timerId, fx.ms);
        return false;
      case 'cancel_timer':
        this.timers.delete(fx.timerId);
        return false;
      case 'progress':
        this.stream.progress(fx.text);
        return false;
      case 'inject_heads_up':
        this.session.sequenceRunning = true;
        this.stream.markdown(block('rawr watcher → agent', fx.text.replace(/^\[rawr watcher → agent\]\s*/, '')));
        await this.session.append({ role: 'user', text: fx.text, synthetic: true, kind: 'heads_up' });
        return false;
      case 'show_packet':
        if (fx.author === 'watcher') this.stream.markdown(block('Continuation packet — assembled by the rawr watcher (Variant B)', fx.packet));
        return false;
      case 'compacted':
        this.stream.markdown(`\n\n---\n\n**${fx.text}**\n\n`);
        return true;
      case 'inject_handoff':
        // The model gets the packet inside <continuation-packet> tags; the Chat view shows it as Markdown
        // (a tag line would otherwise start an HTML block and flatten the packet into one paragraph).
        this.stream.markdown(
          block(
            'rawr handoff → agent',
            fx.text
              .replace(/^\[rawr handoff\]\s*/, '')
              .replace(/\n?<continuation-packet>\n?/, '\n\n---\n\n')
              .replace(/\n?<\/continuation-packet>\n?/, '\n\n---\n\n'),
          ),
        );
        await this.session.append({ role: 'user', text: fx.text, synthetic: true, kind: 'handoff' });
        return false;
      case 'deliver_queued_input':
        this.stream.markdown(block('Your message, delivered after the handoff', fx.text));
        await this.session.append({ role: 'user', text: fx.text });
        return false;
      case 'sequence_ended':
        this.session.sequenceRunning = false;
        return false;
      case 'abort_compaction':
        return false; // the compaction LM call observes the request's cancellation token
      default:
        return false;
    }
  }

  /** Runs a model call with the deadline of the matching timer; undefined means the deadline passed. */
  private async withDeadline<T>(timerId: string, fallbackMs: number, work: (token: vscode.CancellationToken) => Promise<T>): Promise<T | undefined> {
    const ms = this.timers.get(timerId) ?? fallbackMs;
    const cts = new vscode.CancellationTokenSource();
    const outer = this.token.onCancellationRequested(() => cts.cancel());
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([work(cts.token), new Promise<undefined>((resolve) => (timer = setTimeout(() => (cts.cancel(), resolve(undefined)), ms)))]);
    } finally {
      if (timer) clearTimeout(timer);
      outer.dispose();
      cts.dispose();
    }
  }

  private async fulfil(fx: Effect): Promise<Effect[]> {
    const s = this.session;
    switch (fx.type) {
      case 'request_judgment': {
        const judge = (await this.deps.judgmentModel()) ?? this.model;
        this.stream.progress('rawr: asking judgment…');
        const started = Date.now();
        try {
          const text = await this.withDeadline(`judgment:${fx.corrId}`, fx.timeoutMs, async (token) => {
            const r = await judge.sendRequest([vscode.LanguageModelChatMessage.User(`${fx.system}\n\n---\n\n${fx.user}`)], { justification: 'rawr decides whether to compact now' }, token);
            let out = '';
            for await (const t of r.text) out += t;
            return out;
          });
          this.deps.log.info(`[${s.threadId}] judgment ${fx.corrId} answered in ${Date.now() - started} ms`);
          if (text === undefined) return s.step({ type: 'timeout', at: Date.now(), timerId: `judgment:${fx.corrId}` });
          return s.step({ type: 'judgment_result', at: Date.now(), corrId: fx.corrId, text });
        } catch (err) {
          this.deps.log.warn(`[${s.threadId}] judgment ${fx.corrId} failed: ${err}`);
          return s.step({ type: 'timeout', at: Date.now(), timerId: `judgment:${fx.corrId}` });
        }
      }
      case 'request_scratch_write': {
        this.stream.markdown(`\n\n_[rawr] asked the agent to write its scratch notes to \`${fx.path}\`._\n\n`);
        await s.append({ role: 'user', text: fx.text, synthetic: true, kind: 'scratch_request' });
        const written = await this.withDeadline(`packet:${fx.seqId}`, 120_000, async () => {
          for (let i = 0; i < 3; i++) {
            const reply = await this.callModel([RAWR_TOOL_INFOS.find((t) => t.name === SCRATCH_TOOL)!], true);
            await s.append({ role: 'assistant', text: reply.text, synthetic: true, kind: 'scratch', ...(reply.toolCalls.length ? { toolCalls: reply.toolCalls } : {}) });
            if (reply.toolCalls.length === 0) {
              // The agent answered in prose: keep its words as the scratch file rather than lose them.
              if (i === 0 && reply.text.trim()) await writeScratch(this.deps.workspace(), s.agentName, { content: reply.text });
              return true;
            }
            for (const c of reply.toolCalls) await this.runTool(c);
          }
          return true;
        });
        if (written === undefined) return s.step({ type: 'timeout', at: Date.now(), timerId: `packet:${fx.seqId}` });
        return s.step({ type: 'scratch_written', at: Date.now(), seqId: fx.seqId, path: fx.path });
      }
      case 'request_packet': {
        this.stream.markdown(`\n\n_[rawr] asked the agent for its continuation packet:_\n\n`);
        await s.append({ role: 'user', text: fx.text, synthetic: true, kind: 'packet_request' });
        const reply = await this.withDeadline(`packet:${fx.seqId}`, 180_000, () => this.callModel([], true));
        if (reply === undefined) return s.step({ type: 'timeout', at: Date.now(), timerId: `packet:${fx.seqId}` });
        await s.append({ role: 'assistant', text: reply.text, synthetic: true, kind: 'packet' });
        return s.step({ type: 'packet', at: Date.now(), seqId: fx.seqId, text: reply.text });
      }
      case 'compact': {
        const before = await this.deps.tokens.count(this.model, s.messages, this.token);
        try {
          const summary = await summarise(this.model, s.messages, fx.summaryPrompt, this.token);
          const replacement: ThreadMessage[] = [
            ...s.messages.filter(isInstructions), // the base instructions outlive every compaction
            { role: 'user', text: `[rawr] Summary of this thread before it was compacted:\n\n${summary}`, synthetic: true, kind: 'summary' },
            { role: 'assistant', text: fx.packet, synthetic: true, kind: 'packet' },
          ];
          const after = await this.deps.tokens.count(this.model, replacement, this.token);
          await s.swap(fx.seqId, before, after, replacement);
          return s.step({ type: 'compaction_done', at: Date.now(), seqId: fx.seqId, tokensBefore: before, tokensAfter: after });
        } catch (err) {
          const msg = err instanceof vscode.CancellationError || this.token.isCancellationRequested ? 'cancelled' : (err as Error).message;
          return s.step({ type: 'compaction_failed', at: Date.now(), seqId: fx.seqId, error: msg });
        }
      }
      default:
        return [];
    }
  }

  /** Renders /status. */
  async status(): Promise<void> {
    const s = this.session;
    const view = await s.syncTokens(this.model, this.token, this.tools());
    const snap = await this.deps.core.snapshot(s.threadId);
    const lines = [
      `**rawr status** — thread \`${s.threadId}\`, model ${this.model.name}`,
      '',
      `- Context: ${view.usedTokens ?? '?'} / ${view.window ?? '?'} tokens, **${view.percentRemaining === null ? '?' : view.percentRemaining.toFixed(1)}% remaining**, tier **${view.tier ?? 'none'}**`,
      `- Counted: the thread ${(view.usedTokens ?? 0) - (view.toolTokens ?? 0)} tokens + ${view.toolCount ?? 0} tool definitions ${view.toolTokens ?? 0} tokens, with ${this.deps.tokens.describe(this.model)}`,
      `- Mode: ${snap.state.settings.mode}; sequence: ${snap.state.seq.phase}`,
      `- Boundaries pending: ${snap.state.pending.map((b) => `${b.kind} ${b.detail}`).join('; ') || 'none'}`,
      `- Boundaries at the last decision: ${s.lastDecision?.boundaries.map((b) => `${b.kind} (${b.source}) ${b.detail}`).join('; ') || 'none'}`,
      `- Git/terminal boundaries seen recently: ${this.deps.bus.recent.slice(-5).map((r) => `${r.boundary.kind} (${r.source}) ${r.boundary.detail}`).join('; ') || 'none'}`,
      `- Last decision: ${s.lastDecision ? `${s.lastDecision.action} — ${s.lastDecision.reason}` : 'none yet'}`,
      `- Compactions: ${snap.compactions.length}${snap.compactions.length ? ` (last ${snap.compactions.at(-1)!.tokensBefore} → ${snap.compactions.at(-1)!.tokensAfter} tokens; /undo restores it)` : ''}`,
    ];
    this.stream.markdown(lines.join('\n'));
  }

  async undo(): Promise<void> {
    const seq = await this.session.undo();
    this.stream.markdown(seq ? `Restored the thread as it was before compaction \`${seq}\` (${this.session.messages.length} messages).` : 'Nothing to undo: this thread has not been compacted.');
  }

}
