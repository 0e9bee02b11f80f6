/**
 * One @rawr thread in this window: the core's thread as this window last heard it plus what it has not
 * sent yet (its outbox), and what this window has in flight for it (inFlight.ts). The core owns the
 * thread (docs/ARCHITECTURE.md#one-owner-of-the-thread): what the host adds (the agent's replies, tool
 * results, rawr's request turns, a compaction's swap) and what the agent did (observations) wait in the
 * outbox and go with the next event that can decide something, in one `apply` — one round trip per model
 * call; the core applies the commands that change the thread and answers with what it appended. A `Turn`
 * (turn.ts) drives the agent loop; the commands that come back run in an effect executor
 * (effectExecutor.ts), the one place commands are executed; the session is the executor's engine and
 * thread ports. It keeps no copy of the engine's state: what the status bar shows is the status the core
 * returned with its last answer.
 */
import * as vscode from 'vscode';
import { AgentAdapter } from '../../core/agent/adapter';
import { percentRemaining, tierOf } from '../../core/arbiter/tiers';
import type { Observation } from '../../core/engine/observation';
import { statusOf, type ThreadStatus } from '../../core/engine/status';
import type { Decision, EngineEvent, Fact, StepOutput } from '../../core/engine/types';
import type { Settings } from '../../core/settings/schema';
import type { ThreadMessage } from '../../core/thread/thread';
import type { Applied, CoreApi, ThreadInput } from '../../core/protocol/coreProtocol';
import { isThreadId } from '../../core/protocol/threadId';
import type { BoundaryBus } from '../boundaryBus';
import { systemClock, type Clock } from './clock';
import { EffectExecutor, type ExecutorPorts, type RequestPorts } from './effectExecutor';
import { InFlight } from './inFlight';
import type { EnginePort, IdlePort, ThreadPort } from './ports';
import { SummaryPreparer } from './summaryPreparer';
import type { TokenCounter } from './lmMessages';

export interface StatusView {
  threadId: string;
  percentRemaining: number | null;
  tier: string | null;
  sequenceRunning: boolean;
  lastDecision: Decision | null;
  /** Thread messages plus the tool definitions sent with each agent request. */
  usedTokens: number | null;
  window: number | null;
  /** The tool definitions' share of usedTokens, and how many tools (when this window counted them). */
  toolTokens?: number;
  toolCount?: number;
}

export interface SessionDeps {
  core: CoreApi;
  bus: BoundaryBus;
  log: vscode.LogOutputChannel;
  tokens: TokenCounter;
  workspace: () => vscode.Uri | undefined;
  /** Globs of workspace tools the agent may use besides rawr's own. */
  allowedTools: () => string[];
  /** A configured judgment model, or undefined to use the chat's model. */
  judgmentModel: () => Promise<vscode.LanguageModelChat | undefined>;
  onStatus: (view: StatusView) => void;
  /** The settings the core was configured with (tiers for the status view). */
  settings: () => Settings;
  onDecision?: (threadId: string, d: Decision) => void;
  /** A request made this thread the active one (remembered across window reloads). */
  onActiveThread?: (threadId: string) => void;
  /** Event times and deadlines (a fake one in the unit tests); the system clock by default. */
  clock?: Clock;
  /** The agent's base instructions template (prompts/rawr-agent.md), put at the start of a new thread. */
  agentPrompt?: () => string;
}

/**
 * What the compaction panel (src/host/panel) listens to: every arbiter step of a thread with the facts
 * it produced (decisions, boundaries, sequence phases, compactions…), and the thread swaps and undos. Fired
 * after the fact, for observers only: nothing in the agent loop depends on it.
 */
export type SessionActivity =
  { kind: 'step'; threadId: string; at: number; events: EngineEvent[]; facts: Fact[] } | { kind: 'swap' | 'undo'; threadId: string; at: number; seqId: string };

/**
 * Runs idle compaction for a thread (idleCompactor.ts; attached by the participant, which knows how to run
 * a turn): the executor hands it the arbiter's arm_idle and cancel_timer, a request waits on it.
 */
export interface IdleWatcher extends IdlePort {
  /** A background compaction runs (the session stays in memory meanwhile). */
  readonly running: boolean;
  /** The person is back: wait for (or, stopped, cancel) a background compaction, then tell them what happened. */
  returning(out: Pick<vscode.ChatResponseStream, 'markdown' | 'progress'>, token: vscode.CancellationToken): Promise<void>;
  dispose(): void;
}

export function newThreadId(): string {
  return `t${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

export class Session implements EnginePort, ThreadPort {
  /** The core's thread as of its last answer. */
  private confirmed: ThreadMessage[] = [];
  /** What this window has not sent yet, in order (sent with the next step, or by flush()). */
  private outbox: ThreadInput[] = [];
  /** The thread as the model sees it now: `confirmed` with the outbox applied (cached until either changes). */
  private view: ThreadMessage[] | undefined;
  /** One apply at a time, in the order they were asked for (each takes the outbox as it is then). */
  private sending: Promise<unknown> = Promise.resolve();
  /** What the core said with its last answer (the status bar's decision and sequence). */
  private status: ThreadStatus;
  /**
   * The log says a sequence was running when this window opened the thread (the window reloaded, or the
   * core restarted, in the middle of it): nobody here drives it, so the next request cancels it first.
   * A fact about this window (who drives the sequence), not about the engine.
   */
  private orphaned = false;
  /** The running chat request of this thread (Participant.handler attaches it): cancel() stops it. */
  private request: vscode.CancellationTokenSource | undefined;
  /** `used/window` last reported to the arbiter; cleared when the thread is swapped or restored. */
  private lastTokens: string | undefined;
  /** The tool definitions the last agent request of `model` carried (they ride along with every request);
   *  counted again (cached) at every sync. */
  private tools: { model: string; list: readonly vscode.LanguageModelChatTool[] } | undefined;
  /** The timers and the compaction call this window runs for the thread (written by the executor). */
  readonly inFlight = new InFlight();
  /** Idle compaction for this thread, when the participant attached it (none in a bare session). */
  private idleWatcher: IdleWatcher | undefined;
  /** The summary prepared in the background for the next compaction (prepare_summary). */
  readonly preparer: SummaryPreparer;
  readonly clock: Clock;
  /** This thread's agent activity → engine events (core/agent/adapter.ts; the replay uses the same). */
  readonly adapter = new AgentAdapter();
  private readonly ports: ExecutorPorts;
  private subscription: vscode.Disposable;
  // Panel hook (see SessionActivity): observers only.
  private readonly activity = new vscode.EventEmitter<SessionActivity>();
  readonly onActivity = this.activity.event;

  private constructor(
    readonly deps: SessionDeps,
    readonly threadId: string,
    status: ThreadStatus,
  ) {
    this.status = status;
    this.clock = deps.clock ?? systemClock;
    this.preparer = new SummaryPreparer(deps.log);
    this.ports = {
      engine: this,
      thread: this,
      clock: this.clock,
      inFlight: this.inFlight,
      preparer: this.preparer,
      tokens: deps.tokens,
      log: deps.log,
      settings: deps.settings,
      judgmentModel: deps.judgmentModel,
      workspace: deps.workspace,
      idle: {
        arm: (timerId, ms, model) => this.idleWatcher?.arm(timerId, ms, model),
        cancel: (timerId) => this.idleWatcher?.cancel(timerId),
      },
    };
    // Boundaries seen anywhere in the workspace reach this thread's arbiter; it dedupes and ignores
    // those that arrive during its own synthetic turns.
    this.subscription = deps.bus.onBoundary((r) => {
      // During a request it goes with the request's next step; otherwise now.
      const events = this.adapter.adapt({ type: 'boundary_seen', at: r.at, source: r.source, boundary: r.boundary }).events;
      for (const event of events) this.queue({ kind: 'event', event });
      if (!this.request) this.flush().catch((err) => deps.log.error(`boundary for ${threadId}: ${err}`));
    });
  }

  static async open(deps: SessionDeps, threadId: string): Promise<Session> {
    if (!isThreadId(threadId)) throw new Error(`invalid thread id ${threadId}`);
    const snap = await deps.core.snapshot(threadId);
    const s = new Session(deps, threadId, statusOf(snap.state));
    s.confirmed = snap.messages;
    s.orphaned = snap.state.seq.phase !== 'idle';
    for (const p of snap.problems) deps.log.warn(p);
    return s;
  }

  /** The model-facing thread: the core's, with what this window has not sent yet. */
  get messages(): readonly ThreadMessage[] {
    if (!this.view) {
      let view = this.confirmed.slice();
      for (const input of this.outbox) view = withInput(view, input);
      this.view = view;
    }
    return this.view;
  }

  get agentName(): string {
    return this.status.agentName;
  }

  /** The engine's last decision, for the status bar. */
  get lastDecision(): Decision | null {
    return this.status.lastDecision;
  }

  /** A compaction sequence runs (from its heads-up to its end; not while a judgment is only being asked). */
  get sequenceRunning(): boolean {
    return this.status.phase !== 'idle' && this.status.phase !== 'assessing';
  }

  /** The compaction call running in this window, if any. */
  get compacting(): { readonly seqId: string } | undefined {
    return this.inFlight.compacting;
  }

  /** Whether something runs for this thread: a request, a sequence (driven here or orphaned), a call, a timer, a background compaction. */
  busy(now: number): boolean {
    return this.request !== undefined || this.sequenceRunning || this.orphaned || this.inFlight.busy(now) || this.idleWatcher?.running === true;
  }

  /** A chat request of this thread is running (idle compaction never starts under one). */
  get requestRunning(): boolean {
    return this.request !== undefined;
  }

  /** Idle compaction for this thread (the participant attaches it: it knows how to run a background turn). */
  attachIdle(watcher: IdleWatcher): void {
    this.idleWatcher?.dispose();
    this.idleWatcher = watcher;
  }

  /** The idle watcher, for a request that starts (it waits for a background compaction first). */
  get idle(): IdleWatcher | undefined {
    return this.idleWatcher;
  }

  /**
   * Once per window: whether the engine was mid-sequence when the thread was opened here (then the caller
   * cancels it, since nothing here drives it). Asked at the start of a request, and answered once.
   */
  takeOrphanedSequence(): boolean {
    const was = this.orphaned;
    this.orphaned = false;
    return was;
  }

  /** A chat request of this thread runs until the returned function is called; cancel() stops it meanwhile. */
  attachRequest(cts: vscode.CancellationTokenSource): () => void {
    this.request = cts;
    return () => {
      if (this.request === cts) this.request = undefined;
    };
  }

  /**
   * Sends `ev` to the arbiter with everything the outbox holds, in one round trip, and returns what it
   * said, for the caller to run the commands in an executor (`executor().feed(ev)` does both).
   */
  async step(ev: EngineEvent): Promise<StepOutput> {
    this.outbox.push({ kind: 'event', event: ev });
    const out = await this.flush();
    return { commands: out?.commands ?? [], facts: out?.facts ?? [] };
  }

  /** What the agent did (an observation: its step decides nothing): sent with the next step. */
  note(ev: Observation): void {
    this.outbox.push({ kind: 'event', event: ev });
  }

  /** Sends the outbox, if anything is in it; the answer, or undefined when there was nothing to send. */
  flush(): Promise<Applied | undefined> {
    const sent = this.sending.then(() => this.send());
    this.sending = sent.catch(() => undefined);
    return sent;
  }

  private async send(): Promise<Applied | undefined> {
    const inputs = this.outbox;
    if (inputs.length === 0) return undefined;
    this.outbox = [];
    let out: Applied;
    try {
      out = await this.deps.core.apply(this.threadId, inputs);
    } catch (err) {
      // Not known how much was applied: this window's copy is read again from the core.
      await this.reload().catch(() => undefined);
      throw err;
    }
    let thread = this.confirmed.slice();
    for (const input of inputs) thread = withInput(thread, input);
    thread.push(...out.appended);
    this.confirmed = thread;
    this.view = undefined;
    if (thread.length !== out.length) {
      // A retried request the core had applied before it restarted answers without what it appended.
      this.deps.log.warn(`[${this.threadId}] this window's copy of the thread differs from the core's (${thread.length} ≠ ${out.length} messages): read again`);
      await this.reload();
    }
    this.status = out.status;
    this.observe(out.facts);
    const events = inputs.flatMap((i) => (i.kind === 'event' ? [i.event] : []));
    for (const i of inputs)
      if (i.kind === 'swap') this.activity.fire({ kind: 'swap', threadId: this.threadId, at: this.clock.now(), seqId: i.compaction.seqId });
    if (events.length) this.activity.fire({ kind: 'step', threadId: this.threadId, at: this.clock.now(), events, facts: out.facts });
    return out;
  }

  /** The core's thread and status, read again (the outbox is kept: it was not sent). */
  private async reload(): Promise<void> {
    const snap = await this.deps.core.snapshot(this.threadId);
    this.confirmed = snap.messages;
    this.status = statusOf(snap.state);
    this.view = undefined;
  }

  /** The decisions, for the log and whoever listens (the panel's badge). */
  private observe(facts: readonly Fact[]): void {
    for (const f of facts) {
      if (f.type !== 'decision') continue;
      this.deps.log.info(`[${this.threadId}] ${f.decision.point} → ${f.decision.action} (${f.decision.code}): ${f.decision.reason}`);
      this.deps.onDecision?.(this.threadId, f.decision);
    }
  }

  /** An effect executor for this thread: with a chat request's output, model and tools, or none (bus, panel). */
  executor(request: RequestPorts = {}): EffectExecutor {
    return new EffectExecutor(this.ports, request);
  }

  /** Into the thread now (for the model), to the core with the next step. */
  async append(message: ThreadMessage): Promise<void> {
    this.queue({ kind: 'message', message });
  }

  /** Atomic: the core writes archive + replacement in one record, with the step that reports the compaction. */
  async swap(seqId: string, tokensBefore: number, tokensAfter: number, replacement: ThreadMessage[]): Promise<void> {
    this.queue({ kind: 'swap', compaction: { seqId, tokensBefore, tokensAfter, replacement } });
    this.lastTokens = undefined;
    this.preparer.discard();
  }

  private queue(input: ThreadInput): void {
    this.outbox.push(input);
    if (this.view) this.view = withInput(this.view, input);
  }

  async undo(): Promise<string | null> {
    await this.flush();
    const r = await this.deps.core.undo(this.threadId);
    if (!r) return null;
    this.confirmed = r.messages;
    this.view = undefined;
    this.lastTokens = undefined;
    this.preparer.discard();
    this.activity.fire({ kind: 'undo', threadId: this.threadId, at: this.clock.now(), seqId: r.seqId });
    return r.seqId;
  }

  /**
   * Cancel from the panel: the arbiter hears it first (it ends the sequence and frees held input, or, while
   * compacting, asks for the compaction call to be aborted, so the thread is never half-swapped), then the
   * running request, if any, is stopped: its in-flight model call is cancelled and the agent loop ends, as
   * with the chat's own Stop. Returns whether a sequence was running.
   */
  async cancel(): Promise<boolean> {
    this.orphaned = false;
    const out = await this.step({ type: 'cancel', at: this.clock.now() });
    if (out.commands.length === 0 && out.facts.length === 0) return false; // nothing was running: leave the request alone
    await this.executor().run(out.commands);
    this.request?.cancel();
    return true;
  }

  /**
   * The status view from the last count the log holds (no model needed: after a window reload, before the
   * next request counts again); undefined when the thread was never counted.
   */
  loggedStatus(): StatusView | undefined {
    const t = this.status.tokens;
    return t && t.window > 0 ? this.statusView(t.used, t.window) : undefined;
  }

  /**
   * Counts the thread plus the tool definitions the next agent request carries (`tools`; when omitted,
   * the last counted set of this model) and tells the arbiter; returns the view for the status bar.
   */
  async syncTokens(model: vscode.LanguageModelChat, token?: vscode.CancellationToken, tools?: readonly vscode.LanguageModelChatTool[]): Promise<StatusView> {
    if (tools) this.tools = { model: model.id, list: tools };
    const toolList = this.tools?.model === model.id ? this.tools.list : undefined;
    // Counted on every sync, not kept as a number: the TokenCounter's cache answers, and a recalibrated
    // model's tools are counted again with the rest of the thread.
    const toolPart = toolList ? { count: toolList.length, tokens: await this.deps.tokens.countTools(model, toolList, token) } : undefined;
    const used = (await this.deps.tokens.count(model, this.messages, token)) + (toolPart?.tokens ?? 0);
    const window = model.maxInputTokens;
    // The loop syncs before every model call and at every evaluation point; only a change is news to
    // the arbiter (and worth a log record).
    const key = `${used}/${window}`;
    if (key !== this.lastTokens) {
      this.note({ type: 'tokens', at: this.clock.now(), used, window });
      this.lastTokens = key;
    }
    const view = this.statusView(used, window, toolPart);
    this.deps.onStatus(view);
    return view;
  }

  private statusView(used: number, window: number, toolPart?: { count: number; tokens: number }): StatusView {
    const pct = window > 0 ? percentRemaining(used, window) : null;
    return {
      threadId: this.threadId,
      percentRemaining: pct,
      tier: pct === null ? null : tierOf(pct, this.deps.settings()),
      sequenceRunning: this.sequenceRunning,
      lastDecision: this.lastDecision,
      usedTokens: used,
      window,
      ...(toolPart ? { toolTokens: toolPart.tokens, toolCount: toolPart.count } : {}),
    };
  }

  dispose(): void {
    // What was not sent yet (a count, a boundary) still reaches the log.
    this.flush().catch((err) => this.deps.log.warn(`[${this.threadId}] ${err}`));
    this.idleWatcher?.dispose();
    this.subscription.dispose();
    this.activity.dispose();
  }
}

/** The thread after one input of the host's: a message appended, a swap's replacement; an event changes nothing here. */
function withInput(thread: ThreadMessage[], input: ThreadInput): ThreadMessage[] {
  switch (input.kind) {
    case 'message':
      thread.push(input.message);
      return thread;
    case 'swap':
      return input.compaction.replacement.slice();
    case 'event':
      return thread;
    default: {
      const unknown: never = input;
      throw new Error(`unknown input ${JSON.stringify(unknown)}`);
    }
  }
}
