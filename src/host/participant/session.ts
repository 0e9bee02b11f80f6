/**
 * One @rawr thread in this window: its model-facing messages (mirrored from the core, which persists
 * them), and the executor of the arbiter's effects. A `Turn` (turn.ts) drives the agent loop and calls
 * into the session for every event; the session turns the resulting effects into chat output, model
 * calls and thread changes, and reports what happened back to the arbiter.
 */
import * as vscode from 'vscode';
import { percentRemaining, tierOf } from '../../core/arbiter/tiers';
import type { Decision, Effect, EngineEvent } from '../../core/engine/types';
import type { Settings } from '../../core/settings/schema';
import type { ThreadMessage } from '../../core/thread/thread';
import type { CoreApi } from '../core/coreApi';
import type { BoundaryBus } from '../boundaryBus';
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
  /** The agent's base instructions template (prompts/rawr-agent.md), put at the start of a new thread. */
  agentPrompt?: () => string;
}

/**
 * What the compaction panel (src/host/panel) listens to: every arbiter step of a thread with the effects
 * it produced (decisions, sequence phases, packets, compactions…), and the thread swaps and undos. Fired
 * after the fact, for observers only: nothing in the agent loop depends on it.
 */
export type SessionActivity =
  | { kind: 'step'; threadId: string; at: number; event: EngineEvent; effects: Effect[] }
  | { kind: 'swap' | 'undo'; threadId: string; at: number; seqId: string };

const SAFE_ID = /^[A-Za-z0-9_-]{1,80}$/;

export function newThreadId(): string {
  return `t${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

export class Session {
  messages: ThreadMessage[] = [];
  agentName: string;
  lastDecision: Decision | null = null;
  sequenceRunning = false;
  /** `used/window` last reported to the arbiter; cleared when the thread is swapped or restored. */
  private lastTokens: string | undefined;
  /** The tool definitions the last agent request of `model` carried (they ride along with every request);
   *  counted again (cached) at every sync. */
  private tools: { model: string; list: readonly vscode.LanguageModelChatTool[] } | undefined;
  /** The token count in the log when the session was opened (before any model counted this window). */
  private loggedTokens: { used: number; window: number } | null = null;
  /** The running chat request of this thread (set by Participant.handler): cancel() stops it. */
  activeRequest: vscode.CancellationTokenSource | undefined;
  private subscription: vscode.Disposable;
  // Panel hook (see SessionActivity): observers only.
  private readonly activity = new vscode.EventEmitter<SessionActivity>();
  readonly onActivity = this.activity.event;

  private constructor(
    readonly deps: SessionDeps,
    readonly threadId: string,
  ) {
    this.agentName = `rawr-${threadId.slice(-6)}`;
    // Boundaries seen anywhere in the workspace reach this thread's arbiter; it dedupes and ignores
    // those that arrive during its own synthetic turns.
    this.subscription = deps.bus.onBoundary((r) => {
      void this.step({ type: 'boundary', at: r.at, source: r.source, boundary: r.boundary }).catch((err) => deps.log.error(`boundary for ${threadId}: ${err}`));
    });
  }

  static async open(deps: SessionDeps, threadId: string): Promise<Session> {
    if (!SAFE_ID.test(threadId)) throw new Error(`invalid thread id ${threadId}`);
    const s = new Session(deps, threadId);
    const snap = await deps.core.snapshot(threadId);
    s.messages = snap.messages;
    s.agentName = snap.state.agentName;
    s.lastDecision = snap.state.lastDecision;
    s.loggedTokens = snap.state.tokens;
    for (const p of snap.problems) deps.log.warn(p);
    return s;
  }

  async step(ev: EngineEvent): Promise<Effect[]> {
    const effects = await this.deps.core.step(this.threadId, ev);
    for (const fx of effects) {
      if (fx.type === 'decision') {
        this.lastDecision = fx.decision;
        this.deps.log.info(`[${this.threadId}] ${fx.decision.point} → ${fx.decision.action} (${fx.decision.code}): ${fx.decision.reason}`);
        this.deps.onDecision?.(this.threadId, fx.decision);
      }
    }
    this.activity.fire({ kind: 'step', threadId: this.threadId, at: Date.now(), event: ev, effects });
    return effects;
  }

  async append(message: ThreadMessage): Promise<void> {
    await this.deps.core.appendMessage(this.threadId, message);
    this.messages.push(message);
  }

  /** Atomic: the core writes archive + replacement in one record first; only then is the mirror replaced. */
  async swap(seqId: string, tokensBefore: number, tokensAfter: number, replacement: ThreadMessage[]): Promise<void> {
    await this.deps.core.swap(this.threadId, { seqId, tokensBefore, tokensAfter, replacement });
    this.messages = replacement.slice();
    this.lastTokens = undefined;
    this.activity.fire({ kind: 'swap', threadId: this.threadId, at: Date.now(), seqId });
  }

  async undo(): Promise<string | null> {
    const r = await this.deps.core.undo(this.threadId);
    if (!r) return null;
    this.messages = r.messages;
    this.lastTokens = undefined;
    this.activity.fire({ kind: 'undo', threadId: this.threadId, at: Date.now(), seqId: r.seqId });
    return r.seqId;
  }

  /**
   * Cancel from the panel: the arbiter hears it first (it ends the sequence and frees held input, or, while
   * compacting, marks the compaction to be aborted so the thread is never half-swapped), then the running
   * request, if any, is stopped: its in-flight model call (judgment, scratch, packet or summary) is
   * cancelled and the agent loop ends, as with the chat's own Stop. Returns whether a sequence was running.
   */
  async cancel(): Promise<boolean> {
    const effects = await this.step({ type: 'cancel', at: Date.now() });
    if (effects.length === 0) return false; // nothing was running: leave the request alone
    let aborting: string | undefined;
    for (const fx of effects) {
      if (fx.type === 'sequence_ended') this.sequenceRunning = false;
      else if (fx.type === 'deliver_queued_input') await this.append({ role: 'user', text: fx.text });
      else if (fx.type === 'abort_compaction') aborting = fx.seqId;
    }
    if (this.activeRequest) this.activeRequest.cancel(); // the compaction call observes it and reports compaction_failed
    else if (aborting) {
      // Nobody is running the compaction (e.g. the window reloaded mid-sequence): report its end here.
      for (const fx of await this.step({ type: 'compaction_failed', at: Date.now(), seqId: aborting, error: 'cancelled' })) {
        if (fx.type === 'sequence_ended') this.sequenceRunning = false;
        else if (fx.type === 'deliver_queued_input') await this.append({ role: 'user', text: fx.text });
      }
    }
    return effects.length > 0;
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
      await this.step({ type: 'tokens', at: Date.now(), used, window });
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
    this.subscription.dispose();
    this.activity.dispose();
  }
}
