/**
 * One chat request of @rawr: the agent loop (model → tools → model …), with the arbiter asked at each
 * evaluation point — after a tool result, before the next model call, and at turn completion. What the
 * agent does is reported through the core's agent adapter; the commands that come back run in this
 * request's effect executor (effectExecutor.ts), which reaches the model, the tools and the chat through
 * the same ports the loop uses (agentModel.ts, agentToolRunner.ts), never through the turn.
 */
import type * as vscode from 'vscode';
import type { AgentActivity } from '../../core/agent/adapter';
import { isShellTool } from '../../core/signals/tools';
import { isObservation } from '../../core/engine/observation';
import type { EngineEvent } from '../../core/engine/types';
import type { ThreadMessage } from '../../core/thread/thread';
import { AgentModel } from './agentModel';
import { AgentToolRunner } from './agentToolRunner';
import type { EffectExecutor } from './effectExecutor';
import { callWithOverflowRecovery } from './overflow';
import type { ChatOutput, ToolCall } from './ports';
import type { Session } from './session';
import { agentTools } from './agentTools';
import { instructionsMessage } from './agentPrompt';

/** Safety net against a model that never stops calling tools. */
const MAX_MODEL_CALLS = 60;

export class Turn {
  private modelCalls = 0;
  private readonly agent: AgentModel;
  private readonly toolRunner: AgentToolRunner;
  private readonly exec: EffectExecutor;

  constructor(
    private readonly session: Session,
    readonly model: vscode.LanguageModelChat,
    private readonly stream: ChatOutput,
    readonly token: vscode.CancellationToken,
    toolInvocationToken: vscode.ChatParticipantToolToken | undefined,
  ) {
    this.agent = new AgentModel(model, token, session, stream);
    this.toolRunner = new AgentToolRunner({
      thread: session,
      out: stream,
      workspace: session.deps.workspace,
      tools: () => this.tools(),
      requestToken: token,
      toolInvocationToken,
    });
    this.exec = session.executor({ out: stream, model: this.agent, tools: this.toolRunner });
  }

  private now(): number {
    return this.session.clock.now();
  }

  /** Tells the arbiter and runs what it says; true when the thread was compacted. */
  private async feed(ev: EngineEvent): Promise<boolean> {
    return (await this.exec.feed(ev)).compacted;
  }

  /**
   * What the agent did, as engine events through the core's agent adapter (the replay's too). Observations
   * (core/engine/observation.ts) wait in the session's outbox for the next step: one round trip per model call.
   */
  private async report(activity: AgentActivity): Promise<void> {
    for (const ev of this.session.adapter.adapt(activity).events) {
      if (isObservation(ev)) this.session.note(ev);
      else await this.feed(ev);
    }
  }

  /** Tools offered to the agent: rawr's own plus the workspace tools the settings allow. */
  tools(): vscode.LanguageModelChatTool[] {
    return agentTools(this.session.deps.allowedTools());
  }

  /**
   * A person's message: the arbiter says whether it goes into the thread now (append_user_message) or is
   * held until a compaction ends (hold_user_message, then deliver_queued_input); then the agent works.
   */
  async userMessage(text: string): Promise<void> {
    // A new thread starts with the agent's base instructions (agentPrompt.ts).
    const agentPrompt = this.session.deps.agentPrompt;
    if (this.session.messages.length === 0 && agentPrompt) await this.session.append(await instructionsMessage(agentPrompt(), this.tools()));
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
      const r = await callWithOverflowRecovery(() => this.agent.call(tools, true, this.token), {
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
      for (const c of reply.toolCalls) await this.runTool(c);
      // Tool-loop boundary: every result is in, the next model call has not been made.
      await this.session.syncTokens(this.model, this.token, this.tools());
      await this.feed({ type: 'evaluate', at: this.now(), point: 'tool_loop' });
    }
  }

  /** One of the agent's tool calls: run (its result goes into the thread), then reported — a plan first. */
  private async runTool(call: ToolCall): Promise<void> {
    const { output, isError, plan } = await this.toolRunner.run(call, this.token);
    if (plan) await this.report({ type: 'plan', at: this.now(), steps: [...plan] });
    // rawr's terminal tool states the exit code on its first line (tools/terminalTool.ts); a shell call
    // that failed without one did not run its command to success.
    const stated = /^exit code (\d+)/.exec(output)?.[1];
    const exitCode = !isShellTool(call.name) ? undefined : isError ? 1 : stated !== undefined ? Number(stated) : undefined;
    await this.report({ type: 'tool_result', at: this.now(), id: call.id, output, isError, ...(exitCode !== undefined ? { exitCode } : {}) });
  }
}
