/**
 * One @rawr thread in this window: its model-facing messages (mirrored from the core, which persists
 * them) and what this window has in flight for it (inFlight.ts). A `Turn` (turn.ts) drives the agent
 * loop; every event goes to the arbiter through `step`, and the commands it returns run in an effect
 * executor (effectExecutor.ts), the one place commands are executed; the session is the executor's engine
 * and thread ports. It keeps no copy of the engine's state: /status asks the core, and what the status
 * bar shows (the last decision, whether a sequence runs) is what the engine's facts said.
 */
import * as vscode from 'vscode';
import { AgentAdapter } from '../../core/agent/adapter';
import { percentRemaining, tierOf } from '../../core/arbiter/tiers';
import type { Decision, EngineEvent, Fact, StepOutput } from '../../core/engine/types';
import type { Settings } from '../../core/settings/schema';
import type { ThreadMessage } from '../../core/thread/thread';
import type { CoreApi } from '../../core/protocol/coreProtocol';
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
  { kind: 'step'; threadId: string; at: number; event: EngineEvent; facts: Fact[] } | { kind: 'swap' | 'undo'; threadId: string; at: number; seqId: string };

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
  private thread: ThreadMessage[] = [];
  private name: string;
  /** The last decision and the running sequence, as the engine's facts said (observe()); nothing else writes them. */
  private decision: Decision | null = null;
  private sequence: string | null = null;
  /**
   * The log says a sequence was running when this window opened the thread (the window reloaded, or the
   * core restarted, in the middle of it): nobody here drives it, so the next request cancels it first.
   */
  private orphaned = false;
  /** The running chat request of this thread (Participant.handler attaches it): cancel() stops it. */
  private request: vscode.CancellationTokenSource | undefined;
  /** `used/window` last reported to the arbiter; cleared when the thread is swapped or restored. */
  private lastTokens: string | undefined;
  /** The tool definitions the last agent request of `model` carried (they ride along with every request);
   *  counted again (cached) at every sync. */
  private tools: { model: string; list: readonly vscode.LanguageModelChatTool[] } | undefined;
  /** The token count in the log when the session was opened (before any model counted this window). */
  private loggedTokens: { used: number; window: number } | null = null;
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
  ) {
    this.name = `rawr-${threadId.slice(-6)}`;
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
      const exec = this.executor();
      const feedAll = async () => {
        for (const ev of this.adapter.adapt({ type: 'boundary_seen', at: r.at, source: r.source, boundary: r.boundary }).events) await exec.feed(ev);
      };
      feedAll().catch((err) => deps.log.error(`boundary for ${threadId}: ${err}`));
    });
  }

  static async open(deps: SessionDeps, threadId: string): Promise<Session> {
    if (!isThreadId(threadId)) throw new Error(`invalid thread id ${threadId}`);
    const s = new Session(deps, threadId);
    const snap = await deps.core.snapshot(threadId);
    s.thread = snap.messages;
    s.name = snap.state.agentName;
    s.decision = snap.state.lastDecision;
    s.loggedTokens = snap.state.tokens;
    s.orphaned = snap.state.seq.phase !== 'idle';
    for (const p of snap.problems) deps.log.warn(p);
    return s;
  }

  /** The model-facing thread as this window knows it (the core's copy is the record). */
  get messages(): readonly ThreadMessage[] {
    return this.thread;
  }

  get agentName(): string {
    return this.name;
  }

  /** The engine's last decision (its `decision` fact), for the status bar. */
  get lastDecision(): Decision | null {
    return this.decision;
  }

  /** Between the engine's sequence_started and sequence_ended facts. */
  get sequenceRunning(): boolean {
    return this.sequence !== null;
  }

  /** The compaction call running in this window, if any. */
  get compacting(): { readonly seqId: string } | undefined {
    return this.inFlight.compacting;
  }

  /** Whether something runs for this thread: a request, a sequence (driven here or orphaned), a call, a timer, a background compaction. */
  busy(now: number): boolean {
    return this.request !== undefined || this.sequence !== null || this.orphaned || this.inFlight.busy(now) || this.idleWatcher?.running === true;
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
   * Sends one event to the arbiter and returns what it said, for the caller to run the commands in an
   * executor (`executor().feed(ev)` does both). The facts are observed here, and passed on to the panel.
   */
  async step(ev: EngineEvent): Promise<StepOutput> {
    const out = await this.deps.core.step(this.threadId, ev);
    this.observe(out.facts);
    this.activity.fire({ kind: 'step', threadId: this.threadId, at: this.clock.now(), event: ev, facts: out.facts });
    return out;
  }

  /** The facts the window shows: a decision (log, status bar), a sequence starting or ending (status bar, cache). */
  private observe(facts: readonly Fact[]): void {
    for (const f of facts) {
      if (f.type === 'decision') {
        this.decision = f.decision;
        this.deps.log.info(`[${this.threadId}] ${f.decision.point} → ${f.decision.action} (${f.decision.code}): ${f.decision.reason}`);
        this.deps.onDecision?.(this.threadId, f.decision);
      } else if (f.type === 'sequence_started') this.sequence = f.seqId;
      else if (f.type === 'sequence_ended') this.sequence = null;
    }
  }

  /** An effect executor for this thread: with a chat request's output, model and tools, or none (bus, panel). */
  executor(request: RequestPorts = {}): EffectExecutor {
    return new EffectExecutor(this.ports, request);
  }

  async append(message: ThreadMessage): Promise<void> {
    await this.deps.core.appendMessage(this.threadId, message);
    this.thread.push(message);
  }

  /** Atomic: the core writes archive + replacement in one record first; only then is the mirror replaced. */
  async swap(seqId: string, tokensBefore: number, tokensAfter: number, replacement: ThreadMessage[]): Promise<void> {
    await this.deps.core.swap(this.threadId, { seqId, tokensBefore, tokensAfter, replacement });
    this.thread = replacement.slice();
    this.lastTokens = undefined;
    this.preparer.discard();
    this.activity.fire({ kind: 'swap', threadId: this.threadId, at: this.clock.now(), seqId });
  }

  async undo(): Promise<string | null> {
    const r = await this.deps.core.undo(this.threadId);
    if (!r) return null;
    this.thread = r.messages;
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
    const t = this.loggedTokens;
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
      await this.executor().feed({ type: 'tokens', at: this.clock.now(), used, window });
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
    this.idleWatcher?.dispose();
    this.subscription.dispose();
    this.activity.dispose();
  }
}
