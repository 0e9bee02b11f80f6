/**
 * The one place where the arbiter's effects run in the extension host (docs/ARCHITECTURE.md, "effects").
 * Every engine effect (src/core/engine/types.ts `Effect`) is handled by the exhaustive switch in
 * `execute`: a new effect kind does not compile until it is handled here. Used by a chat request (`Turn`),
 * by the panel's Cancel (`Session.cancel`), by recovery after an error (`Participant.recover`) and for
 * the events no request drives (boundaries from the bus, token counts).
 *
 * Effects that need a model call (judgment, scratch notes, packet, summary) run after the other effects
 * of their batch; the event each one reports yields the next batch, until none is left. Their deadlines
 * are fixed end times: `start_timer` fixes when a timer ends, and every call made under that timer (the
 * scratch turn and the packet turn share the packet deadline) gets only what is left of it.
 */
import * as vscode from 'vscode';
import type { Effect, EngineEvent } from '../../core/engine/types';
import type { ThreadMessage } from '../../core/thread/thread';
import { RAWR_TOOL_INFOS, SCRATCH_TOOL, writeScratch } from '../tools/rawrTools';
import { block, handoffForChat, headsUpForChat, note } from './chatText';
import { compactedThread, selectRecentTail, tailBudget } from '../../core/sequence/recentTail';
import { planSummary } from '../../core/sequence/preparedSummary';
import { summarise } from './compactor';
import { isInstructions } from './agentPrompt';
import type { Session } from './session';

/** What the Chat view is given: the part of vscode.ChatResponseStream rawr uses. */
export type ChatOutput = Pick<vscode.ChatResponseStream, 'markdown' | 'progress' | 'button'>;

export interface ModelReply {
  text: string;
  toolCalls: Array<{ id: string; name: string; input: unknown }>;
}

/** The running chat request, for the effects that need the agent's model (the `Turn`). */
export interface AgentPort {
  readonly model: vscode.LanguageModelChat;
  readonly token: vscode.CancellationToken;
  /** One model call over the thread; streamed into the chat when `render`. */
  callModel(tools: vscode.LanguageModelChatTool[], render: boolean, token: vscode.CancellationToken): Promise<ModelReply>;
  /** Runs one tool call and records its result in the thread (true when it succeeded); a call to a tool not in `offered` gets an error result instead. */
  runTool(call: { id: string; name: string; input: unknown }, token: vscode.CancellationToken, offered?: readonly string[]): Promise<boolean>;
}

export interface ExecutorContext {
  /** Where rawr's lines go; none for the panel's Cancel and the bus (nobody is reading a chat then). */
  out?: ChatOutput;
  /** The chat request that can make model calls; without one, requests are reported as not answered. */
  agent?: AgentPort;
}

/** Fallback deadlines when no timer was started for a request (the engine always starts one). */
const FALLBACK_MS = { judgment: 20_000, packet: 180_000 } as const;

type Deferred = () => Promise<Effect[]>;

export class EffectExecutor {
  constructor(
    private readonly session: Session,
    private readonly ctx: ExecutorContext = {},
  ) {}

  private get deps() {
    return this.session.deps;
  }

  private now(): number {
    return this.session.clock.now();
  }

  /** Steps the arbiter with `ev` and runs what it says. */
  async feed(ev: EngineEvent): Promise<{ compacted: boolean }> {
    return this.run(await this.session.step(ev));
  }

  /** Runs effects in order, then the model calls they asked for; returns whether the thread was compacted. */
  async run(effects: readonly Effect[]): Promise<{ compacted: boolean }> {
    let batch = effects;
    let compacted = false;
    while (batch.length) {
      const later: Deferred[] = [];
      for (const fx of batch) {
        const r = await this.execute(fx);
        if (r === 'compacted') compacted = true;
        else if (r) later.push(r);
      }
      const next: Effect[] = [];
      for (const work of later) next.push(...(await work()));
      batch = next;
    }
    return { compacted };
  }

  private markdown(text: string): void {
    this.ctx.out?.markdown(text);
  }

  private async execute(fx: Effect): Promise<Deferred | 'compacted' | undefined> {
    const s = this.session;
    switch (fx.type) {
      case 'decision':
        s.noteDecision(fx.decision);
        return undefined;
      case 'append_user_message':
        await s.append({ role: 'user', text: fx.text });
        return undefined;
      case 'hold_user_message':
        this.markdown(
          note(
            fx.reason === 'preflight'
              ? 'Compacting before your message (preflight); it will be delivered unchanged after the handoff.'
              : 'Your message is held and will be delivered unchanged right after the handoff.',
          ),
        );
        return undefined;
      case 'deliver_queued_input':
        this.markdown(block('Your message, delivered after the handoff', fx.text));
        await s.append({ role: 'user', text: fx.text });
        return undefined;
      case 'boundary_noted':
      case 'boundaries_consumed':
      case 'judgment_ended':
        return undefined; // history: the core logged it for the panel
      case 'annotate':
        this.markdown(note(fx.text));
        return undefined;
      case 'suggest':
        this.markdown(note(fx.decision.reason));
        this.ctx.out?.button({ command: 'rawr.compactNow', title: 'Compact now', arguments: [s.threadId] });
        return undefined;
      case 'start_timer':
        s.deadlines.set(fx.timerId, this.now() + fx.ms);
        return undefined;
      case 'arm_idle':
        // The model of the request whose turn just ended runs the golden path if nobody comes back.
        s.idle?.arm(fx.timerId, fx.ms, this.ctx.agent?.model);
        return undefined;
      case 'cancel_timer':
        s.deadlines.delete(fx.timerId);
        s.idle?.cancel(fx.timerId);
        return undefined;
      case 'progress':
        this.ctx.out?.progress(fx.text);
        return undefined;
      case 'sequence_started':
        s.sequenceRunning = true;
        return undefined;
      case 'inject_heads_up':
        this.markdown(block('rawr watcher → agent', headsUpForChat(fx.text)));
        await s.append({ role: 'user', text: fx.text, synthetic: true, kind: 'heads_up' });
        return undefined;
      case 'show_packet':
        // The agent's packet was streamed as the agent wrote it; the watcher's is shown here, once.
        if (fx.author === 'watcher') this.markdown(block('Continuation packet — assembled by the rawr watcher', fx.packet));
        return undefined;
      case 'compacted':
        this.markdown(`\n\n---\n\n**${fx.text}**\n\n`);
        return 'compacted';
      case 'inject_handoff':
        this.markdown(block('rawr handoff → agent', handoffForChat(fx.text)));
        await s.append({ role: 'user', text: fx.text, synthetic: true, kind: 'handoff' });
        return undefined;
      case 'sequence_ended':
        s.sequenceRunning = false;
        return undefined;
      case 'abort_compaction': {
        // The compaction call running in this window stops and reports compaction_failed itself; with
        // none running (the window reloaded mid-sequence, or the request already ended) report it here.
        const running = s.compacting;
        if (running && running.seqId === fx.seqId) {
          running.cancel.cancel();
          return undefined;
        }
        return () => s.step({ type: 'compaction_failed', at: this.now(), seqId: fx.seqId, error: 'cancelled' });
      }
      case 'request_judgment':
        return () => this.judge(fx);
      case 'prepare_summary': {
        // Off the critical path: not awaited; the compaction takes it (compact()) if it comes.
        const agent = this.ctx.agent;
        if (agent && s.preparer.start(agent.model, s.messages, fx.summaryPrompt, s.threadId))
          this.deps.log.info(`[${s.threadId}] summarising ${s.messages.length} messages in the background (${fx.reason})`);
        return undefined;
      }
      case 'request_scratch_write':
        return () => this.scratch(fx);
      case 'request_packet':
        return () => this.packet(fx);
      case 'compact':
        return () => this.compact(fx);
      default: {
        const unknown: never = fx;
        throw new Error(`unknown effect ${JSON.stringify(unknown)}`);
      }
    }
  }

  /**
   * Runs `work` until the timer `timerId` ends (its end was fixed by start_timer); undefined when it ended
   * first, in which case `work`'s token is cancelled. The request's own cancellation cancels it too.
   */
  private async withDeadline<T>(timerId: string, fallbackMs: number, work: (token: vscode.CancellationToken) => Promise<T>): Promise<T | undefined> {
    const clock = this.session.clock;
    const endsAt = this.session.deadlines.get(timerId) ?? clock.now() + fallbackMs;
    const left = endsAt - clock.now();
    if (left <= 0) return undefined;
    const cts = new vscode.CancellationTokenSource();
    const outer = this.ctx.agent?.token.onCancellationRequested(() => cts.cancel());
    if (this.ctx.agent?.token.isCancellationRequested) cts.cancel();
    let timer: { dispose(): void } | undefined;
    try {
      const deadline = new Promise<undefined>((resolve) => {
        timer = clock.setTimer(() => {
          cts.cancel();
          resolve(undefined);
        }, left);
      });
      return await Promise.race([work(cts.token), deadline]);
    } finally {
      timer?.dispose();
      outer?.dispose();
      cts.dispose();
    }
  }

  private async judge(fx: Extract<Effect, { type: 'request_judgment' }>): Promise<Effect[]> {
    const s = this.session;
    const timeout = () => s.step({ type: 'timeout', at: this.now(), timerId: `judgment:${fx.corrId}` });
    const agent = this.ctx.agent;
    if (!agent) return timeout();
    const judge = (await this.deps.judgmentModel()) ?? agent.model;
    this.ctx.out?.progress('rawr: asking whether this is a good moment to compact…');
    const started = this.now();
    try {
      const text = await this.withDeadline(`judgment:${fx.corrId}`, fx.timeoutMs || FALLBACK_MS.judgment, async (token) => {
        const r = await judge.sendRequest(
          [vscode.LanguageModelChatMessage.User(`${fx.system}\n\n---\n\n${fx.user}`)],
          { justification: 'rawr decides whether to compact now' },
          token,
        );
        let out = '';
        for await (const t of r.text) out += t;
        return out;
      });
      this.deps.log.info(`[${s.threadId}] judgment ${fx.corrId} ${text === undefined ? 'timed out' : 'answered'} after ${this.now() - started} ms`);
      if (text === undefined) return timeout();
      return s.step({ type: 'judgment_result', at: this.now(), corrId: fx.corrId, text });
    } catch (err) {
      this.deps.log.warn(`[${s.threadId}] judgment ${fx.corrId} failed: ${err}`);
      return timeout();
    }
  }

  /** The scratch tool, offered to the agent in the turns that ask for its working notes. */
  private static readonly scratchTool = RAWR_TOOL_INFOS.find((t) => t.name === SCRATCH_TOOL)!;

  /** Runs the tool calls of a rawr turn (only rawr_write_scratch is offered); true when notes were written (a failed write does not count). */
  private async runScratchCalls(reply: ModelReply, agent: AgentPort, token: vscode.CancellationToken): Promise<boolean> {
    let written = false;
    for (const c of reply.toolCalls) if ((await agent.runTool(c, token, [SCRATCH_TOOL])) && c.name === SCRATCH_TOOL) written = true;
    return written;
  }

  private async appendReply(reply: ModelReply, kind: 'scratch' | 'packet'): Promise<void> {
    await this.session.append({
      role: 'assistant',
      text: reply.text,
      synthetic: true,
      kind,
      ...(reply.toolCalls.length ? { toolCalls: reply.toolCalls } : {}),
    });
  }

  /** The agent's own scratch turn (only when the watcher writes the packet): one model call. */
  private async scratch(fx: Extract<Effect, { type: 'request_scratch_write' }>): Promise<Effect[]> {
    const s = this.session;
    const agent = this.ctx.agent;
    const timeout = () => s.step({ type: 'timeout', at: this.now(), timerId: `packet:${fx.seqId}` });
    if (!agent) return timeout();
    this.ctx.out?.progress(`The agent is writing its scratch notes to ${fx.path}…`);
    await s.append({ role: 'user', text: fx.text, synthetic: true, kind: 'scratch_request' });
    const written = await this.withDeadline(`packet:${fx.seqId}`, FALLBACK_MS.packet, async (token) => {
      const reply = await agent.callModel([EffectExecutor.scratchTool], false, token);
      await this.appendReply(reply, 'scratch');
      // No confirmation round: the tool result is the last word of this turn (the compaction follows).
      if (await this.runScratchCalls(reply, agent, token)) return true;
      // The agent answered in prose: keep its words as the scratch file rather than lose them.
      if (reply.text.trim()) await writeScratch(this.deps.workspace(), s.agentName, { content: reply.text });
      return true;
    });
    if (written === undefined) return timeout();
    return s.step({ type: 'scratch_written', at: this.now(), seqId: fx.seqId, path: fx.path });
  }

  /**
   * The packet turn: the agent writes its packet as its reply, streamed into the chat. When the engine
   * asks for scratch notes in the same turn, rawr_write_scratch is offered and its calls run; an agent
   * that only wrote its notes is asked once more, without tools, for the packet itself.
   */
  private async packet(fx: Extract<Effect, { type: 'request_packet' }>): Promise<Effect[]> {
    const s = this.session;
    const agent = this.ctx.agent;
    const timeout = () => s.step({ type: 'timeout', at: this.now(), timerId: `packet:${fx.seqId}` });
    if (!agent) return timeout();
    this.markdown(
      note(
        fx.scratchPath
          ? `The agent saves its working notes to \`${fx.scratchPath}\` and writes its continuation packet:`
          : 'The agent writes its continuation packet:',
      ),
    );
    await s.append({ role: 'user', text: fx.text, synthetic: true, kind: 'packet_request' });
    const done = await this.withDeadline(`packet:${fx.seqId}`, FALLBACK_MS.packet, async (token) => {
      let reply = await agent.callModel(fx.scratchPath ? [EffectExecutor.scratchTool] : [], true, token);
      await this.appendReply(reply, 'packet');
      const scratchWritten = await this.runScratchCalls(reply, agent, token);
      if (!reply.text.trim() && reply.toolCalls.length) {
        reply = await agent.callModel([], true, token);
        await this.appendReply(reply, 'packet');
      }
      return { text: reply.text, scratchWritten };
    });
    if (done === undefined) return timeout();
    return s.step({
      type: 'packet',
      at: this.now(),
      seqId: fx.seqId,
      text: done.text,
      ...(fx.scratchPath ? { scratchWritten: done.scratchWritten } : {}),
    });
  }

  /**
   * The thread after a compaction: the agent's base instructions (they outlive every compaction), the
   * summary and packet, then the recent turns verbatim within keep_recent_tokens.
   */
  private replacementThread(summary: string | null, packet: string, tailTokens: number): ThreadMessage[] {
    const messages = this.session.messages;
    const instructions = messages.filter(isInstructions);
    const work = messages.filter((m) => !isInstructions(m));
    const tail = selectRecentTail(work, tailTokens);
    return [...instructions, ...compactedThread(summary, packet, tail)];
  }

  /**
   * Overflow recovery's compaction: no model call (it could be rejected as too long again). The thread
   * becomes the recent turns verbatim; the handoff that follows carries the watcher packet.
   */
  private async compactWithoutSummary(
    fx: Extract<Effect, { type: 'compact' }>,
    model: vscode.LanguageModelChat,
    token: vscode.CancellationToken,
  ): Promise<Effect[]> {
    const s = this.session;
    try {
      const before = await this.deps.tokens.count(model, s.messages, token);
      const replacement = this.replacementThread(null, fx.packet, this.tailBudget(model, before));
      const after = await this.deps.tokens.count(model, replacement, token);
      await s.swap(fx.seqId, before, after, replacement);
      return s.step({ type: 'compaction_done', at: this.now(), seqId: fx.seqId, tokensBefore: before, tokensAfter: after });
    } catch (err) {
      const msg = err instanceof vscode.CancellationError || token.isCancellationRequested ? 'cancelled' : (err as Error).message;
      return s.step({ type: 'compaction_failed', at: this.now(), seqId: fx.seqId, error: msg });
    }
  }

  /** The verbatim tail's budget for a compaction of `tokensBefore` tokens (keep_recent_tokens, capped). */
  private tailBudget(model: vscode.LanguageModelChat, tokensBefore: number): number {
    return tailBudget(this.deps.settings().keep_recent_tokens, model.maxInputTokens, tokensBefore);
  }

  /**
   * The summary of the thread: the one prepared in the background when it is still fresh and what came
   * after it fits in the verbatim tail (no call), or one call over it plus the new part; else one call
   * over the whole thread. A stale prepared summary is discarded (sequence/preparedSummary.ts).
   */
  private async summary(prompt: string, model: vscode.LanguageModelChat, tailTokens: number, token: vscode.CancellationToken): Promise<string> {
    const s = this.session;
    const plan = planSummary(await s.preparer.take(token), s.messages, prompt, tailTokens);
    switch (plan.kind) {
      case 'full':
        if (plan.why === 'stale') this.deps.log.info(`[${s.threadId}] the summary prepared in the background is stale (the thread changed): discarded`);
        return summarise(model, s.messages, prompt, token);
      case 'prepared':
        this.deps.log.info(`[${s.threadId}] using the summary prepared in the background (${plan.newMessages} newer messages kept verbatim): no summary call`);
        this.ctx.out?.progress('Compacting thread context… (with the summary prepared in the background)');
        return plan.summary;
      case 'incremental':
        this.deps.log.info(`[${s.threadId}] summarising the prepared summary and ${plan.newMessages} newer messages`);
        this.ctx.out?.progress(`Compacting thread context… (the summary prepared in the background, plus the ${plan.newMessages} newer messages)`);
        return summarise(model, plan.thread, prompt, token);
      default: {
        const unknown: never = plan;
        throw new Error(`unknown summary plan ${JSON.stringify(unknown)}`);
      }
    }
  }

  private async compact(fx: Extract<Effect, { type: 'compact' }>): Promise<Effect[]> {
    const s = this.session;
    const agent = this.ctx.agent;
    if (!agent) return s.step({ type: 'compaction_failed', at: this.now(), seqId: fx.seqId, error: 'no chat request is running to summarise the thread' });
    if (fx.summarise === false) return this.compactWithoutSummary(fx, agent.model, agent.token);
    const cancel = new vscode.CancellationTokenSource();
    const outer = agent.token.onCancellationRequested(() => cancel.cancel());
    if (agent.token.isCancellationRequested) cancel.cancel();
    s.compacting = { seqId: fx.seqId, cancel };
    try {
      const before = await this.deps.tokens.count(agent.model, s.messages, cancel.token);
      // One budget for both: what the prepared summary may leave out is exactly what the tail keeps.
      const tailTokens = this.tailBudget(agent.model, before);
      const summary = await this.summary(fx.summaryPrompt, agent.model, tailTokens, cancel.token);
      if (cancel.token.isCancellationRequested) throw new vscode.CancellationError();
      // Summary, packet, then the recent turns verbatim (keep_recent_tokens); the handoff follows.
      const replacement = this.replacementThread(summary, fx.packet, tailTokens);
      const after = await this.deps.tokens.count(agent.model, replacement, cancel.token);
      await s.swap(fx.seqId, before, after, replacement);
      return s.step({ type: 'compaction_done', at: this.now(), seqId: fx.seqId, tokensBefore: before, tokensAfter: after });
    } catch (err) {
      const msg = err instanceof vscode.CancellationError || cancel.token.isCancellationRequested ? 'cancelled' : (err as Error).message;
      return s.step({ type: 'compaction_failed', at: this.now(), seqId: fx.seqId, error: msg });
    } finally {
      if (s.compacting?.cancel === cancel) s.compacting = undefined;
      outer.dispose();
      cancel.dispose();
    }
  }
}
