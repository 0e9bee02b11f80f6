/**
 * One chat request of @rawr: the agent loop (model → tools → model …), with the arbiter asked at each
 * evaluation point — after a tool result, before the next model call, and at turn completion. What the
 * arbiter says runs in this request's effect executor (effectExecutor.ts), rendered into its response
 * stream; the golden path's model calls (scratch notes, packet) come back here through `AgentPort`.
 */
import * as vscode from 'vscode';
import type { AgentActivity } from '../../core/agent/adapter';
import { isShellTool } from '../../core/agent/tools';
import type { EngineEvent } from '../../core/engine/types';
import type { ThreadMessage } from '../../core/thread/thread';
import type { AgentPort, ChatOutput, EffectExecutor, ModelReply } from './effectExecutor';
import { toLmMessages } from './lmMessages';
import { callWithOverflowRecovery } from './overflow';
import type { Session } from './session';
import { PLAN_TOOL, SCRATCH_TOOL, parsePlan, writeScratch } from '../tools/rawrTools';
import { agentTools } from './agentTools';
import { instructionsMessage } from './agentPrompt';
import { DECLINED_RESULT, isSkippedResult, showPlan, toolLine } from './toolDisplay';

/** Safety net against a model that never stops calling tools. */
const MAX_MODEL_CALLS = 60;

export class Turn implements AgentPort {
  private modelCalls = 0;
  private readonly exec: EffectExecutor;

  constructor(
    private readonly session: Session,
    readonly model: vscode.LanguageModelChat,
    private readonly stream: ChatOutput,
    readonly token: vscode.CancellationToken,
    private readonly toolInvocationToken: vscode.ChatParticipantToolToken | undefined,
  ) {
    this.exec = session.executor({ out: stream, agent: this });
  }

  private get deps() {
    return this.session.deps;
  }

  private now(): number {
    return this.session.clock.now();
  }

  /** Tells the arbiter and runs what it says; true when the thread was compacted. */
  private async feed(ev: EngineEvent): Promise<boolean> {
    return (await this.exec.feed(ev)).compacted;
  }

  /** What the agent did, as engine events through the core's agent adapter (the replay's too). */
  private async report(activity: AgentActivity): Promise<void> {
    for (const ev of this.session.adapter.adapt(activity).events) await this.feed(ev);
  }

  /** Tools offered to the agent: rawr's own plus the workspace tools the settings allow. */
  private tools(): vscode.LanguageModelChatTool[] {
    return agentTools(this.deps.allowedTools());
  }

  /**
   * A person's message: the arbiter says whether it goes into the thread now (append_user_message) or is
   * held until a compaction ends (hold_user_message, then deliver_queued_input); then the agent works.
   */
  async userMessage(text: string): Promise<void> {
    // A new thread starts with the agent's base instructions (agentPrompt.ts).
    if (this.session.messages.length === 0 && this.deps.agentPrompt)
      await this.session.append(await instructionsMessage(this.deps.agentPrompt(), this.tools()));
    await this.report({ type: 'user_message', at: this.now(), text });
    await this.loop();
  }

  /** /compact and "Rawr: Compact Now": the golden path on demand, then the agent continues. */
  async compactNow(instructions: string): Promise<void> {
    await this.session.syncTokens(this.model, this.token, this.tools());
    if (await this.feed({ type: 'compact_now', at: this.now(), instructions })) await this.loop();
  }

  /**
   * The arbiter's idle watch ended with nobody using the thread (idleCompactor.ts): the golden path runs
   * in this background turn; the agent does not go on working (nobody asked it to). True when compacted.
   */
  async idleTimeout(timerId: string): Promise<boolean> {
    return this.feed({ type: 'timeout', at: this.now(), timerId });
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
      // A request rejected as too long compacts (no LM) and is sent once more (overflow.ts).
      const r = await callWithOverflowRecovery(() => this.callModel(tools, true, this.token), {
        compact: (error) => this.feed({ type: 'overflow', at: this.now(), error }),
        say: (md) => this.stream.markdown(md),
      });
      if (!r.ok) return void this.stream.markdown(r.message);
      const reply = r.value;
      const assistant: ThreadMessage = { role: 'assistant', text: reply.text, ...(reply.toolCalls.length ? { toolCalls: reply.toolCalls } : {}) };
      await this.session.append(assistant);
      if (reply.text) await this.report({ type: 'assistant_message', at: this.now(), text: reply.text });
      for (const c of reply.toolCalls) await this.report({ type: 'tool_call', at: this.now(), id: c.id, name: c.name, input: c.input });

      if (reply.toolCalls.length === 0) {
        await this.session.syncTokens(this.model, this.token, this.tools());
        if (await this.feed({ type: 'evaluate', at: this.now(), point: 'turn_complete' })) continue; // the agent continues from the handoff
        return;
      }
      for (const c of reply.toolCalls) await this.runTool(c, this.token);
      // Tool-loop boundary: every result is in, the next model call has not been made.
      await this.session.syncTokens(this.model, this.token, this.tools());
      await this.feed({ type: 'evaluate', at: this.now(), point: 'tool_loop' });
    }
  }

  async callModel(tools: vscode.LanguageModelChatTool[], render: boolean, token: vscode.CancellationToken): Promise<ModelReply> {
    const response = await this.model.sendRequest(toLmMessages(this.session.messages), { tools, justification: '@rawr runs the agent loop' }, token);
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

  async runTool(call: { id: string; name: string; input: unknown }, token: vscode.CancellationToken, offered?: readonly string[]): Promise<boolean> {
    let output: string;
    let isError = false;
    try {
      // A model may call a tool it was not offered (rawr's own turns offer one or none): answered, never run.
      if (offered && !offered.includes(call.name)) throw new Error(`tool "${call.name}" was not offered in this turn; only ${offered.join(', ') || 'no tool'}`);
      if (call.name === PLAN_TOOL) {
        const plan = parsePlan(call.input);
        if (!plan.ok) throw new Error(`invalid plan: ${plan.error}`);
        await this.report({ type: 'plan', at: this.now(), steps: plan.steps });
        const done = plan.steps.filter((s) => s.status === 'completed').length;
        output = `Plan recorded (${done}/${plan.steps.length} steps completed).`;
        this.stream.progress(`Plan: ${done}/${plan.steps.length} steps completed`); // a step of the response (VS Code folds finished steps)
        this.stream.markdown(showPlan(this.session, plan.steps));
      } else if (call.name === SCRATCH_TOOL) {
        const r = await writeScratch(this.deps.workspace(), this.session.agentName, call.input);
        if (!r.ok) throw new Error(r.error);
        output = `Scratch notes written to ${r.path}.`;
      } else if (this.tools().some((t) => t.name === call.name)) {
        const result = await vscode.lm.invokeTool(call.name, { input: (call.input ?? {}) as object, toolInvocationToken: this.toolInvocationToken }, token);
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
    // rawr's terminal tool states the exit code on its first line (tools/terminalTool.ts); a shell call
    // that failed without one did not run its command to success.
    const stated = /^exit code (\d+)/.exec(output)?.[1];
    const exitCode = !isShellTool(call.name) ? undefined : isError ? 1 : stated !== undefined ? Number(stated) : undefined;
    await this.report({ type: 'tool_result', at: this.now(), id: call.id, output, isError, ...(exitCode !== undefined ? { exitCode } : {}) });
    return !isError;
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
      `- Git/terminal boundaries seen recently: ${
        this.deps.bus.recent
          .slice(-5)
          .map((r) => `${r.boundary.kind} (${r.source}) ${r.boundary.detail}`)
          .join('; ') || 'none'
      }`,
      `- Last decision: ${s.lastDecision ? `${s.lastDecision.action} — ${s.lastDecision.reason}` : 'none yet'}`,
      `- Compactions: ${snap.compactions.length}${snap.compactions.length ? ` (last ${snap.compactions.at(-1)!.tokensBefore} → ${snap.compactions.at(-1)!.tokensAfter} tokens; /undo restores it)` : ''}`,
    ];
    this.stream.markdown(lines.join('\n'));
  }

  /** /undo: the thread as it was before the last compaction, counted again (status bar and arbiter). */
  async undo(): Promise<void> {
    const last = (await this.deps.core.snapshot(this.session.threadId)).compactions.at(-1);
    const seq = await this.session.undo();
    if (!seq || !last) {
      this.stream.markdown('Nothing to undo: this thread has not been compacted.');
      return;
    }
    const view = await this.session.syncTokens(this.model, this.token, this.tools());
    const left = view.percentRemaining === null ? '' : `, ${view.percentRemaining.toFixed(1)}% of the context left`;
    this.stream.markdown(
      `Undid the last compaction (${kTokens(last.tokensBefore)} → ${kTokens(last.tokensAfter)} tokens): the thread is back as it was before it — ${this.session.messages.length} messages${left}.`,
    );
  }
}

const kTokens = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));
