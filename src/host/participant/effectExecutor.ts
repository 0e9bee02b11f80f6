/**
 * The one place where the engine's commands run in the extension host (docs/ARCHITECTURE.md#effects).
 * Every command (src/core/engine/types.ts `Command`) is handled by the exhaustive switch in `execute`,
 * and nothing else is: facts are for observers (the session reads the ones it shows). Used by a chat
 * request (turn.ts), by the panel's Cancel and by recovery after an error (Session.cancel,
 * Participant.recover) and for the events no request drives (boundaries from the bus, token counts).
 *
 * It depends on ports (ports.ts), not on the classes behind them: the engine and the thread (the session),
 * the request's model, tools and chat output (a chat request; none for the panel and the bus), the clock
 * and what this window has in flight (inFlight.ts).
 *
 * One ordered queue: the commands of a step run in order, except the requests that need a model call or
 * a wait (judgment, scratch notes, packet, summary), which run after the other commands of their step, in
 * order; the event each one reports yields the next step's commands, queued behind. Nothing re-enters the
 * queue while it runs: the tool calls of rawr's own turns are not reported to the engine (it ignores them
 * during a sequence anyway). Deadlines are fixed end times: `start_timer` fixes when a timer ends, and
 * every call made under that timer (the scratch turn and the packet turn share the packet deadline) gets
 * only what is left of it.
 */
import * as vscode from 'vscode';
import type { Command, EngineEvent } from '../../core/engine/types';
import type { Settings } from '../../core/settings/schema';
import type { ThreadMessage } from '../../core/thread/thread';
import { RAWR_TOOL_INFOS, SCRATCH_TOOL, writeScratch } from '../tools/rawrTools';
import { block, handoffForChat, headsUpForChat, note } from './chatText';
import { compactedThread, selectRecentTail, tailBudget } from '../../core/sequence/recentTail';
import { planSummary } from '../../core/sequence/preparedSummary';
import { summarise } from './compactor';
import { isInstructions } from './agentPrompt';
import type { Clock } from './clock';
import type { InFlight } from './inFlight';
import type { TokenCounter } from './lmMessages';
import type { ChatOutput, EnginePort, IdlePort, ModelPort, ModelReply, ThreadPort, ToolPort } from './ports';
import type { SummaryPreparer } from './summaryPreparer';

/** What every executor of a thread has (the session provides it). */
export interface ExecutorPorts {
  engine: EnginePort;
  thread: ThreadPort;
  clock: Clock;
  inFlight: InFlight;
  preparer: SummaryPreparer;
  tokens: TokenCounter;
  log: vscode.LogOutputChannel;
  settings: () => Settings;
  /** A configured judgment model, or undefined to use the request's model. */
  judgmentModel: () => Promise<vscode.LanguageModelChat | undefined>;
  workspace: () => vscode.Uri | undefined;
  /** Idle compaction's timer (none in a bare executor: nothing arms it then). */
  idle?: IdlePort;
}

/** What a chat request adds: its output, its model and its tools. Without a model, requests are reported as not answered. */
export interface RequestPorts {
  /** Where rawr's lines go; none for the panel's Cancel and the bus (nobody is reading a chat then). */
  out?: ChatOutput;
  model?: ModelPort;
  tools?: ToolPort;
}

/** Fallback deadlines when no timer was started for a request (the engine always starts one). */
const FALLBACK_MS = { judgment: 20_000, packet: 180_000 } as const;

/** A request's work, run after the other commands of its step; it reports the event that answers it. */
type Deferred = () => Promise<EngineEvent>;

export class EffectExecutor {
  constructor(
    private readonly ports: ExecutorPorts,
    private readonly request: RequestPorts = {},
  ) {}

  private now(): number {
    return this.ports.clock.now();
  }

  private get thread(): ThreadPort {
    return this.ports.thread;
  }

  /** Steps the engine with `ev` and runs its commands; returns whether the thread was compacted. */
  async feed(ev: EngineEvent): Promise<{ compacted: boolean }> {
    return this.run((await this.ports.engine.step(ev)).commands);
  }

  /** Runs commands in order, then the model calls they asked for; returns whether the thread was compacted. */
  async run(commands: readonly Command[]): Promise<{ compacted: boolean }> {
    const queue: Array<readonly Command[]> = [commands];
    let compacted = false;
    for (let batch = queue.shift(); batch; batch = queue.shift()) {
      const later: Deferred[] = [];
      for (const c of batch) {
        const r = await this.execute(c);
        if (r === 'compacted') compacted = true;
        else if (r) later.push(r);
      }
      for (const work of later) queue.push((await this.ports.engine.step(await work())).commands);
    }
    return { compacted };
  }

  private markdown(text: string): void {
    this.request.out?.markdown(text);
  }

  private async execute(c: Command): Promise<Deferred | 'compacted' | undefined> {
    const thread = this.thread;
    switch (c.type) {
      // The commands that change the thread were applied by the core (core/thread/commandMessage.ts):
      // here they are only shown.
      case 'append_user_message':
        return undefined;
      case 'hold_user_message':
        this.markdown(
          note(
            c.reason === 'preflight'
              ? 'Compacting before your message (preflight); it will be delivered unchanged after the handoff.'
              : 'Your message is held and will be delivered unchanged right after the handoff.',
          ),
        );
        return undefined;
      case 'deliver_queued_input':
        this.markdown(block('Your message, delivered after the handoff', c.text));
        return undefined;
      case 'annotate':
        this.markdown(note(c.text));
        return undefined;
      case 'suggest':
        this.markdown(note(c.decision.reason));
        this.request.out?.button({ command: 'rawr.compactNow', title: 'Compact now', arguments: [thread.threadId] });
        return undefined;
      case 'start_timer':
        this.ports.inFlight.startTimer(c.timerId, this.now() + c.ms);
        return undefined;
      case 'arm_idle':
        // The model of the request whose turn just ended runs the golden path if nobody comes back.
        this.ports.idle?.arm(c.timerId, c.ms, this.request.model?.model);
        return undefined;
      case 'cancel_timer':
        this.ports.inFlight.cancelTimer(c.timerId);
        this.ports.idle?.cancel(c.timerId);
        return undefined;
      case 'progress':
        this.request.out?.progress(c.text);
        return undefined;
      case 'inject_heads_up':
        this.markdown(block('rawr watcher → agent', headsUpForChat(c.text)));
        return undefined;
      case 'show_packet':
        // The agent's packet was streamed as the agent wrote it; the watcher's is shown here, once.
        if (c.author === 'watcher') this.markdown(block('Continuation packet — assembled by the rawr watcher', c.packet));
        return undefined;
      case 'show_compacted':
        this.markdown(`\n\n---\n\n**${c.text}**\n\n`);
        return undefined;
      case 'inject_handoff':
        // Only a finished compaction hands off: the agent goes on from the handoff.
        this.markdown(block('rawr handoff → agent', handoffForChat(c.text)));
        return 'compacted';
      case 'abort_compaction':
        // The compaction call running in this window stops and reports compaction_failed itself; with
        // none running (the window reloaded mid-sequence, or the request already ended) report it here.
        if (this.ports.inFlight.abortCompaction(c.seqId)) return undefined;
        return () => Promise.resolve({ type: 'compaction_failed', at: this.now(), seqId: c.seqId, error: 'cancelled' });
      case 'request_judgment':
        return () => this.judge(c);
      case 'prepare_summary': {
        // Off the critical path: not awaited; the compaction takes it (compact()) if it comes.
        const model = this.request.model;
        if (model && this.ports.preparer.start(model.model, thread.messages, c.summaryPrompt, thread.threadId))
          this.ports.log.info(`[${thread.threadId}] summarising ${thread.messages.length} messages in the background (${c.reason})`);
        return undefined;
      }
      case 'request_scratch_write':
        return () => this.scratch(c);
      case 'request_packet':
        return () => this.packet(c);
      case 'compact':
        return () => this.compact(c);
      default: {
        const unknown: never = c;
        throw new Error(`unknown command ${JSON.stringify(unknown)}`);
      }
    }
  }

  /**
   * Runs `work` until the timer `timerId` ends (its end was fixed by start_timer); undefined when it ended
   * first, in which case `work`'s token is cancelled. The request's own cancellation cancels it too.
   */
  private async withDeadline<T>(timerId: string, fallbackMs: number, work: (token: vscode.CancellationToken) => Promise<T>): Promise<T | undefined> {
    const clock = this.ports.clock;
    const endsAt = this.ports.inFlight.deadline(timerId) ?? clock.now() + fallbackMs;
    const left = endsAt - clock.now();
    if (left <= 0) return undefined;
    const cts = new vscode.CancellationTokenSource();
    const outer = this.request.model?.token.onCancellationRequested(() => cts.cancel());
    if (this.request.model?.token.isCancellationRequested) cts.cancel();
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

  private async judge(c: Extract<Command, { type: 'request_judgment' }>): Promise<EngineEvent> {
    const threadId = this.thread.threadId;
    const timeout: EngineEvent = { type: 'timeout', at: this.now(), timerId: `judgment:${c.corrId}` };
    const agent = this.request.model;
    if (!agent) return timeout;
    const judge = (await this.ports.judgmentModel()) ?? agent.model;
    this.request.out?.progress('rawr: asking whether this is a good moment to compact…');
    const started = this.now();
    try {
      const text = await this.withDeadline(`judgment:${c.corrId}`, c.timeoutMs || FALLBACK_MS.judgment, async (token) => {
        const r = await judge.sendRequest(
          [vscode.LanguageModelChatMessage.User(`${c.system}\n\n---\n\n${c.user}`)],
          { justification: 'rawr decides whether to compact now' },
          token,
        );
        let out = '';
        for await (const t of r.text) out += t;
        return out;
      });
      this.ports.log.info(`[${threadId}] judgment ${c.corrId} ${text === undefined ? 'timed out' : 'answered'} after ${this.now() - started} ms`);
      if (text === undefined) return { ...timeout, at: this.now() };
      return { type: 'judgment_result', at: this.now(), corrId: c.corrId, text };
    } catch (err) {
      this.ports.log.warn(`[${threadId}] judgment ${c.corrId} failed: ${err}`);
      return { ...timeout, at: this.now() };
    }
  }

  /** The scratch tool, offered to the agent in the turns that ask for its working notes. */
  private static readonly scratchTool = RAWR_TOOL_INFOS.find((t) => t.name === SCRATCH_TOOL)!;

  /** Runs the tool calls of a rawr turn (only rawr_write_scratch is offered); true when notes were written (a failed write does not count). */
  private async runScratchCalls(reply: ModelReply, tools: ToolPort, token: vscode.CancellationToken): Promise<boolean> {
    let written = false;
    for (const c of reply.toolCalls) if (!(await tools.run(c, token, [SCRATCH_TOOL])).isError && c.name === SCRATCH_TOOL) written = true;
    return written;
  }

  private async appendReply(reply: ModelReply, kind: 'scratch' | 'packet'): Promise<void> {
    await this.thread.append({
      role: 'assistant',
      text: reply.text,
      synthetic: true,
      kind,
      ...(reply.toolCalls.length ? { toolCalls: reply.toolCalls } : {}),
    });
  }

  /** The model and tools of the chat request, when there is one (rawr's own turns need both). */
  private agent(): { model: ModelPort; tools: ToolPort } | undefined {
    const { model, tools } = this.request;
    return model && tools ? { model, tools } : undefined;
  }

  /** The agent's own scratch turn (only when the watcher writes the packet): one model call. */
  private async scratch(c: Extract<Command, { type: 'request_scratch_write' }>): Promise<EngineEvent> {
    const thread = this.thread;
    const timeout = (): EngineEvent => ({ type: 'timeout', at: this.now(), timerId: `packet:${c.seqId}` });
    const agent = this.agent();
    if (!agent) return timeout();
    this.request.out?.progress(`The agent is writing its scratch notes to ${c.path}…`);
    await thread.append({ role: 'user', text: c.text, synthetic: true, kind: 'scratch_request' });
    const written = await this.withDeadline(`packet:${c.seqId}`, FALLBACK_MS.packet, async (token) => {
      const reply = await agent.model.call([EffectExecutor.scratchTool], false, token);
      await this.appendReply(reply, 'scratch');
      // No confirmation round: the tool result is the last word of this turn (the compaction follows).
      if (await this.runScratchCalls(reply, agent.tools, token)) return true;
      // The agent answered in prose: keep its words as the scratch file rather than lose them.
      if (reply.text.trim()) await writeScratch(this.ports.workspace(), thread.agentName, { content: reply.text });
      return true;
    });
    if (written === undefined) return timeout();
    return { type: 'scratch_written', at: this.now(), seqId: c.seqId, path: c.path };
  }

  /**
   * The packet turn: the agent writes its packet as its reply, streamed into the chat. When the engine
   * asks for scratch notes in the same turn, rawr_write_scratch is offered and its calls run; an agent
   * that only wrote its notes is asked once more, without tools, for the packet itself.
   */
  private async packet(c: Extract<Command, { type: 'request_packet' }>): Promise<EngineEvent> {
    const timeout = (): EngineEvent => ({ type: 'timeout', at: this.now(), timerId: `packet:${c.seqId}` });
    const agent = this.agent();
    if (!agent) return timeout();
    this.markdown(
      note(
        c.scratchPath
          ? `The agent saves its working notes to \`${c.scratchPath}\` and writes its continuation packet:`
          : 'The agent writes its continuation packet:',
      ),
    );
    await this.thread.append({ role: 'user', text: c.text, synthetic: true, kind: 'packet_request' });
    const done = await this.withDeadline(`packet:${c.seqId}`, FALLBACK_MS.packet, async (token) => {
      let reply = await agent.model.call(c.scratchPath ? [EffectExecutor.scratchTool] : [], true, token);
      await this.appendReply(reply, 'packet');
      const scratchWritten = await this.runScratchCalls(reply, agent.tools, token);
      if (!reply.text.trim() && reply.toolCalls.length) {
        reply = await agent.model.call([], true, token);
        await this.appendReply(reply, 'packet');
      }
      return { text: reply.text, scratchWritten };
    });
    if (done === undefined) return timeout();
    return { type: 'packet', at: this.now(), seqId: c.seqId, text: done.text, ...(c.scratchPath ? { scratchWritten: done.scratchWritten } : {}) };
  }

  /**
   * The thread after a compaction: the agent's base instructions (they outlive every compaction), the
   * summary and packet, then the recent turns verbatim within keep_recent_tokens.
   */
  private replacementThread(summary: string | null, packet: string, tailTokens: number): ThreadMessage[] {
    const messages = this.thread.messages;
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
    c: Extract<Command, { type: 'compact' }>,
    model: vscode.LanguageModelChat,
    token: vscode.CancellationToken,
  ): Promise<EngineEvent> {
    try {
      const before = await this.ports.tokens.count(model, this.thread.messages, token);
      const replacement = this.replacementThread(null, c.packet, this.tailBudget(model, before));
      const after = await this.ports.tokens.count(model, replacement, token);
      await this.thread.swap(c.seqId, before, after, replacement);
      return { type: 'compaction_done', at: this.now(), seqId: c.seqId, tokensBefore: before, tokensAfter: after };
    } catch (err) {
      const msg = err instanceof vscode.CancellationError || token.isCancellationRequested ? 'cancelled' : (err as Error).message;
      return { type: 'compaction_failed', at: this.now(), seqId: c.seqId, error: msg };
    }
  }

  /** The verbatim tail's budget for a compaction of `tokensBefore` tokens (keep_recent_tokens, capped). */
  private tailBudget(model: vscode.LanguageModelChat, tokensBefore: number): number {
    return tailBudget(this.ports.settings().keep_recent_tokens, model.maxInputTokens, tokensBefore);
  }

  /**
   * The summary of the thread: the one prepared in the background when it is still fresh and what came
   * after it fits in the verbatim tail (no call), or one call over it plus the new part; else one call
   * over the whole thread. A stale prepared summary is discarded (sequence/preparedSummary.ts).
   */
  private async summary(prompt: string, model: vscode.LanguageModelChat, tailTokens: number, token: vscode.CancellationToken): Promise<string> {
    const { log } = this.ports;
    const { threadId, messages } = this.thread;
    const plan = planSummary(await this.ports.preparer.take(token), messages, prompt, tailTokens);
    switch (plan.kind) {
      case 'full':
        if (plan.why === 'stale') log.info(`[${threadId}] the summary prepared in the background is stale (the thread changed): discarded`);
        return summarise(model, messages, prompt, token);
      case 'prepared':
        log.info(`[${threadId}] using the summary prepared in the background (${plan.newMessages} newer messages kept verbatim): no summary call`);
        this.request.out?.progress('Compacting thread context… (with the summary prepared in the background)');
        return plan.summary;
      case 'incremental':
        log.info(`[${threadId}] summarising the prepared summary and ${plan.newMessages} newer messages`);
        this.request.out?.progress(`Compacting thread context… (the summary prepared in the background, plus the ${plan.newMessages} newer messages)`);
        return summarise(model, plan.thread, prompt, token);
      default: {
        const unknown: never = plan;
        throw new Error(`unknown summary plan ${JSON.stringify(unknown)}`);
      }
    }
  }

  private async compact(c: Extract<Command, { type: 'compact' }>): Promise<EngineEvent> {
    const agent = this.request.model;
    if (!agent) return { type: 'compaction_failed', at: this.now(), seqId: c.seqId, error: 'no chat request is running to summarise the thread' };
    if (c.summarise === false) return this.compactWithoutSummary(c, agent.model, agent.token);
    const cancel = new vscode.CancellationTokenSource();
    const outer = agent.token.onCancellationRequested(() => cancel.cancel());
    if (agent.token.isCancellationRequested) cancel.cancel();
    const done = this.ports.inFlight.compactionStarted(c.seqId, cancel);
    try {
      const before = await this.ports.tokens.count(agent.model, this.thread.messages, cancel.token);
      // One budget for both: what the prepared summary may leave out is exactly what the tail keeps.
      const tailTokens = this.tailBudget(agent.model, before);
      const summary = await this.summary(c.summaryPrompt, agent.model, tailTokens, cancel.token);
      if (cancel.token.isCancellationRequested) throw new vscode.CancellationError();
      // Summary, packet, then the recent turns verbatim (keep_recent_tokens); the handoff follows.
      const replacement = this.replacementThread(summary, c.packet, tailTokens);
      const after = await this.ports.tokens.count(agent.model, replacement, cancel.token);
      await this.thread.swap(c.seqId, before, after, replacement);
      return { type: 'compaction_done', at: this.now(), seqId: c.seqId, tokensBefore: before, tokensAfter: after };
    } catch (err) {
      const msg = err instanceof vscode.CancellationError || cancel.token.isCancellationRequested ? 'cancelled' : (err as Error).message;
      return { type: 'compaction_failed', at: this.now(), seqId: c.seqId, error: msg };
    } finally {
      done();
      outer.dispose();
      cancel.dispose();
    }
  }
}
