/**
 * `rawr replay`: the same engine (step) run over a recording, at every point where rawr may act — each
 * turn completion and each tool-loop boundary (after a tool result, before the next model call; never
 * between a call and its result). The golden path is executed instantly with no LM: judgment falls back
 * deterministically, the packet is watcher-assembled, and a compaction shrinks the modelled context to
 * `postTokens`. After that the context is modelled as rawr would have had it: the post-compaction size
 * plus the growth the recording shows since; the recorded tool's own compactions do not happen in that
 * counterfactual (rawr is the only compactor), so their drops are ignored.
 */
import { savedFields } from './savedFields';
import { isRequest } from '../engine/partition';
import { step } from '../engine/step';
import { initialState } from '../engine/state';
import type { Decision, EngineEvent, EngineState, Request } from '../engine/types';
import type { Prompts } from '../prompts/promptSet';
import type { Settings } from '../settings/schema';
import { AgentAdapter, recordedActivity } from '../agent/adapter';
import type { Recording, RecordingItem } from './recording';
import { chooseWindow, type WindowChoice } from './windows';

export interface ReplayOptions {
  settings: Settings;
  prompts: Prompts;
  /** Context window (`--window`): overrides what the recording states and the model table (windows.ts). */
  window?: number;
  /**
   * The most the window can be: the agent's compaction window the person chose (Claude Code's
   * `CLAUDE_CODE_AUTO_COMPACT_WINDOW`, which Claude Code clamps to the model's window): the session is
   * scheduled in the smaller of it and the model's.
   */
  windowCap?: number;
  /** Modelled context right after a rawr compaction; default: first recorded context + 6,000 (summary + packet). */
  postTokens?: number;
  /** Used-fraction of a plain threshold compactor to compare with (Claude Code's auto-compact: 0.835). */
  baselineFraction?: number;
  /**
   * Judgment answers known so far, keyed by judgmentKey(system, user). With `needJudgments`, a judgment
   * not in the map stops the replay with NeedJudgment so the caller can ask an LM and run it again (the
   * replay is deterministic, so every earlier answer is reused); without it, the fallback decides.
   */
  judgments?: ReadonlyMap<string, string>;
  needJudgments?: boolean;
  /**
   * Live follow of a running session (the panel): rawr cannot compact someone else's agent, so a
   * "compact" decision changes nothing in the modelled context, and the tool's own compactions are real
   * drops. The arbiter then keeps seeing the context the agent really has.
   */
  live?: boolean;
  /**
   * Each decision as it is made, instead of keeping it in `Replayer.decisions` (the streaming replay
   * writes it out at once: a long recording's decisions are not held, stream.ts).
   */
  onDecision?: (d: ReplayDecision) => void;
  /**
   * Play the person's absences as the live host would (idle compaction, rawr.idleCompactMinutes): when
   * the next prompt comes that long after a turn end where the engine armed its idle watch, the watch
   * fires first. Off by default: `rawr replay`, live follow and the Claude Code hooks decide for agents
   * rawr cannot run while they wait; the cost bench turns it on to count what it saves.
   */
  idle?: boolean;
  /**
   * Earlier threads of the same workspace, as the host gives them (`phase_prior`, coreService.ts
   * workspacePhasePrior): the bench's --workspace mode. Absent: a thread with no prior, as before.
   */
  prior?: { phases: number[] };
}

/** Why a replay without --judge-url decides by the fallback rule (not a timeout: nobody was asked). */
export const NO_JUDGE = 'no judge configured: deterministic rule';

export const judgmentKey = (system: string, user: string) => `${system}\n\u0000\n${user}`;

/** Thrown when a judgment is needed that `judgments` does not hold yet. */
export class NeedJudgment extends Error {
  constructor(
    readonly key: string,
    readonly system: string,
    readonly user: string,
  ) {
    super('a judgment answer is needed');
  }
}

export interface ReplayDecision {
  type: 'decision';
  line: number;
  percentRemaining: number | null;
  tier: string | null;
  boundaries: string[];
  action: 'compact' | 'none' | 'suggest';
  reason: string;
  point: string;
  code: string;
  contextTokens: number;
  /** The phase forecast at this point (docs/benchmarks.md, "Forecasting the next phase"), when it was computed. */
  forecast?: { nextPhaseTokens: number; roomTokens: number; verdict: string; drove: boolean };
}

export interface ReplaySummary {
  type: 'summary';
  format: Recording['format'];
  lines: number;
  window: number;
  /** Where the window came from and why (windows.ts). */
  windowSource: WindowChoice['source'];
  windowWhy: string;
  postTokens: number;
  evaluationPoints: number;
  /** `forecast`: the phase forecast drove this compaction (docs/benchmarks.md, "Forecasting the next phase"). */
  compactions: Array<{ line: number; tier: string | null; percentRemaining: number | null; boundaries: string[]; code: string; forecast: boolean }>;
  nativeCompactions: Array<{ line: number; trigger: string; preTokens?: number }>;
  counterfactualOverflows: number;
  overflowLines: number[];
  peakModelledTokens: number;
  peakRecordedTokens: number;
  baseline: { fraction: number; compactions: number[]; overflows: number };
  commitsSeen: number;
  planCheckpoints: number;
  problems: number;
  /**
   * Records that were read but could not be analysed (e.g. a shell command nested too deeply); all
   * counted in `problems`, the first MAX_ANALYSIS_PROBLEMS listed.
   */
  analysisProblems: Array<{ line: number; message: string }>;
  /** With ReplayOptions.idle: each idle compaction, and the context the person's next request starts on with and without it. */
  idle?: Array<{ line: number; awayMinutes: number; tokensWithout: number; tokensWith: number }>;
}

/**
 * A Replayer as plain JSON (Replayer.save): the engine state without its settings and prompts (given
 * again on restore), the context model and the evaluation point that is due. The summary's lists are
 * kept to their newest SAVED_LIST entries: they report, they do not decide.
 */
export interface SavedReplayer {
  state: Omit<EngineState, 'settings' | 'prompts'>;
  summary: ReplaySummary;
  window: number;
  recorded: number;
  sinceUsage: number;
  offset: number;
  baseOffset: number;
  nativePending: { before: number } | null;
  overflowing: boolean;
  baseOverflowing: boolean;
  shellCalls: Array<[string, string]>;
  analysisProblemCount: number;
  line: number;
  at: number;
  turnOpen: boolean;
  firstUsage: number | undefined;
  toolLoopDue: { line: number; at: number } | null;
}
const SAVED_LIST = 50;

/** What a Replayer saves as it is (the rest: its state, summary and adapter, below). */
const replayerFields = savedFields<SavedReplayer, Exclude<keyof SavedReplayer, 'state' | 'summary' | 'shellCalls'>>({
  window: true,
  recorded: true,
  sinceUsage: true,
  offset: true,
  baseOffset: true,
  nativePending: true,
  overflowing: true,
  baseOverflowing: true,
  analysisProblemCount: true,
  line: true,
  at: true,
  turnOpen: true,
  firstUsage: true,
  toolLoopDue: true,
});

/** Analysis problems listed in the summary at most (the count is in `problems`). */
export const MAX_ANALYSIS_PROBLEMS = 100;

/** `phases`: the thread's completed phase sizes at its end (what a later thread's prior reads: the bench's --workspace). */
export function replay(rec: Recording, opts: ReplayOptions): { decisions: ReplayDecision[]; summary: ReplaySummary; phases: readonly number[] } {
  const choice = chooseWindow(rec, opts.window, opts.windowCap);
  const firstUsage = rec.items.find((i) => i.type === 'usage') as Extract<RecordingItem, { type: 'usage' }> | undefined;
  const postTokens = opts.postTokens ?? Math.min(choice.window * 0.5, (firstUsage?.contextTokens ?? 20_000) + 6_000);
  const r = new Replayer(rec.format, choice, { ...opts, postTokens });
  for (const it of rec.items) r.push(it);
  return { ...r.finish(rec.lines, rec.problems.length), phases: r.phases };
}

/**
 * The replay, one recording item at a time: `replay` feeds a whole recording; the panel's live follow
 * feeds the items of the lines appended since its last read. A tool-loop point needs to know the next
 * item (another result of the same batch, or the person's prompt, are not tool-loop points), so it is
 * evaluated when that item arrives, with the line and time of the result, as a whole-file pass would.
 */
export class Replayer {
  private state: EngineState;
  readonly decisions: ReplayDecision[] = [];
  readonly summary: ReplaySummary;
  private window: number;
  private postTokensFixed: number | undefined;
  // Context model. recorded = last reported context + estimate of what was appended since.
  private recorded = 0;
  private sinceUsage = 0;
  private offset = 0; // modelled = recorded - offset
  private baseOffset = 0; // same for the plain-threshold baseline
  private nativePending: { before: number } | null = null;
  private overflowing = false;
  private baseOverflowing = false;
  /** The recording's activity → engine events (the same adapter as the live turn's). */
  private adapter = new AgentAdapter();
  private analysisProblemCount = 0;
  private line = 0;
  private at = 0;
  private turnOpen = false;
  private pendingDecisions: Decision[] = [];
  private firstUsage: number | undefined;
  /** A tool result after which a tool-loop point is due, unless the next item says otherwise. */
  private toolLoopDue: { line: number; at: number } | null = null;
  private readonly baselineFraction: number;

  constructor(
    format: Recording['format'],
    choice: WindowChoice,
    private readonly opts: ReplayOptions,
  ) {
    this.window = choice.window;
    this.postTokensFixed = opts.postTokens;
    this.baselineFraction = opts.baselineFraction ?? 0.835;
    this.state = initialState({ threadId: 'replay', settings: opts.settings, prompts: opts.prompts });
    if (opts.prior) this.state = step(this.state, { type: 'phase_prior', at: 0, phases: opts.prior.phases }).state;
    this.summary = {
      type: 'summary',
      format,
      lines: 0,
      window: choice.window,
      windowSource: choice.source,
      windowWhy: choice.why,
      postTokens: this.postTokens(),
      evaluationPoints: 0,
      compactions: [],
      nativeCompactions: [],
      counterfactualOverflows: 0,
      overflowLines: [],
      peakModelledTokens: 0,
      peakRecordedTokens: 0,
      baseline: { fraction: this.baselineFraction, compactions: [], overflows: 0 },
      commitsSeen: 0,
      planCheckpoints: 0,
      problems: 0,
      analysisProblems: [],
    };
  }

  /** Everything this replay holds, as plain JSON (SavedReplayer); `Replayer.restore` goes on from it. */
  save(): SavedReplayer {
    const { settings: _s, prompts: _p, ...state } = this.state;
    const s = this.summary;
    const tail = <T>(xs: T[]) => xs.slice(-SAVED_LIST);
    return structuredClone({
      state,
      summary: {
        ...s,
        compactions: tail(s.compactions),
        nativeCompactions: tail(s.nativeCompactions),
        overflowLines: tail(s.overflowLines),
        baseline: { ...s.baseline, compactions: tail(s.baseline.compactions) },
        analysisProblems: tail(s.analysisProblems),
      },
      shellCalls: this.adapter.save(),
      ...replayerFields(this),
    });
  }

  /** A replay saved by `save`, with this run's settings, prompts and callbacks. */
  static restore(saved: SavedReplayer, opts: ReplayOptions): Replayer {
    const s = saved.summary;
    const r = new Replayer(s.format, { window: saved.window, source: s.windowSource, why: s.windowWhy }, opts);
    r.state = { ...saved.state, settings: opts.settings, prompts: opts.prompts };
    Object.assign(r.summary, s);
    r.adapter = AgentAdapter.restore(saved.shellCalls);
    Object.assign(r, replayerFields(saved));
    return r;
  }

  /**
   * The evaluation point the recording is at now, if one is due: after a batch of tool results, before
   * the next model call (which is when Claude Code asks its PreCompact hook). Evaluated on a copy, so
   * this replay is unchanged and evaluates the same point when the next record arrives, as a replay of
   * the whole file does; null when no tool-loop point is due.
   */
  peekToolLoop(): ReplayDecision | null {
    if (!this.toolLoopDue) return null;
    let made: ReplayDecision | null = null;
    const copy = this.fork({ ...this.opts, onDecision: (d) => (made = d) });
    copy.push({ type: 'assistant_text', line: this.line, at: this.at, text: '' });
    return made;
  }

  /**
   * A copy to evaluate on (peekToolLoop), without save()'s deep clone: the Claude Code hook peeks before
   * every model request while rawr defers, and cloning the whole engine state there was ~4 ms of each
   * call. The engine state is shared, since step() never changes the state it is given (the core is
   * pure: it returns a new one); what the replay changes in place — the summary, its counters and lists,
   * the adapter's open calls, the decisions — is the copy's own. (driver.peek test: a peek leaves save()
   * unchanged and decides as a restored copy does.)
   */
  private fork(opts: ReplayOptions): Replayer {
    const copy = Object.assign(Object.create(Replayer.prototype) as Replayer, this);
    const s = this.summary;
    const own = {
      opts,
      decisions: [] as ReplayDecision[],
      pendingDecisions: [] as Decision[],
      adapter: AgentAdapter.restore(this.adapter.save()),
      summary: {
        ...s,
        compactions: [...s.compactions],
        nativeCompactions: [...s.nativeCompactions],
        overflowLines: [...s.overflowLines],
        baseline: { ...s.baseline, compactions: [...s.baseline.compactions] },
        analysisProblems: [...s.analysisProblems],
        ...(s.idle ? { idle: [...s.idle] } : {}),
      },
    };
    return Object.assign(copy, own);
  }

  /** Live follow: the window can become known later (Codex states it with its first token count). */
  setWindow(choice: WindowChoice): void {
    if (choice.window === this.window && choice.why === this.summary.windowWhy) return;
    this.window = choice.window;
    Object.assign(this.summary, { window: choice.window, windowSource: choice.source, windowWhy: choice.why, postTokens: this.postTokens() });
  }

  /** Modelled context right after a rawr compaction (ReplayOptions.postTokens). */
  private postTokens(): number {
    return this.postTokensFixed ?? Math.min(this.window * 0.5, (this.firstUsage ?? 20_000) + 6_000);
  }

  /** The engine's state now (live follow shows its tier, boundaries and plan). */
  get engine(): EngineState {
    return this.state;
  }
  /** Shell calls remembered for their results (bounded; the streaming replay's test counts them). */
  get shellCallsHeld(): number {
    return this.adapter.shellCallsHeld;
  }
  /** The modelled context now, in tokens. */
  modelledTokens(): number {
    return Math.round(this.modelled());
  }

  private modelled(): number {
    return Math.max(0, this.recorded + this.sinceUsage - this.offset);
  }

  private feed(ev: EngineEvent): void {
    const r = step(this.state, ev);
    this.state = r.state;
    for (const f of r.facts) if (f.type === 'decision') this.pendingDecisions.push(f.decision);
    // Only the engine's requests need an answer in a counterfactual; its directives (chat lines, thread
    // messages, timers cancelled, a background summary) have nothing to act on: no chat, no thread, no model.
    for (const c of r.commands) if (isRequest(c)) this.answer(c);
  }

  /** The event a request is answered with, at once: the replay models the agent, it does not wait for one. */
  private answer(req: Request): void {
    const at = this.at;
    switch (req.type) {
      case 'request_judgment': {
        const key = judgmentKey(req.system, req.user);
        const answer = this.opts.judgments?.get(key);
        if (answer !== undefined) this.feed({ type: 'judgment_result', at, corrId: req.corrId, text: answer });
        else if (this.opts.needJudgments) throw new NeedJudgment(key, req.system, req.user);
        else this.feed({ type: 'judgment_unavailable', at, corrId: req.corrId, why: NO_JUDGE });
        return;
      }
      case 'request_scratch_write':
        this.feed({ type: 'scratch_written', at, seqId: req.seqId, path: req.path });
        return;
      case 'request_packet':
        // No agent to write one: the packet deadline passes at once (the watcher writes it).
        this.feed({ type: 'timeout', at, timerId: `packet:${req.seqId}` });
        return;
      case 'compact': {
        const before = this.modelled();
        const post = this.postTokens();
        // Live, the agent's context is what its transcript says (its own compaction, if any, shows
        // there); the engine is still told a compaction frees what one does, or its loop prevention
        // would take every compaction it decides on a live session for one that freed nothing and
        // stop deciding (the Claude Code hook allows exactly those: src/core/hooks/claude/steer.ts).
        if (!this.opts.live) this.offset += before - post;
        this.feed({ type: 'compaction_done', at, seqId: req.seqId, tokensBefore: before, tokensAfter: post });
        return;
      }
      case 'start_timer': // every wait is answered at once above, so no timer ever runs out
      case 'arm_idle': // the person's next prompt disarms it; ReplayOptions.idle plays the absence (awayUntilNow)
      case 'abort_compaction': // only a cancel asks for it, and a recording has none
        return;
      default: {
        const unknown: never = req;
        throw new Error(`unknown request ${JSON.stringify(unknown)}`);
      }
    }
  }

  private syncTokens(): void {
    // Before the recording states its first context size the replay does not know it: the person's text
    // alone is not the context (the system prompt and tools are), and reporting it would count the whole
    // starting context as growth of the first phase.
    if (this.firstUsage === undefined) return;
    this.feed({ type: 'tokens', at: this.at, used: Math.round(this.modelled()), window: this.window });
  }

  private checkOverflow(): void {
    const s = this.summary;
    const m = this.modelled();
    s.peakModelledTokens = Math.max(s.peakModelledTokens, Math.round(m));
    if (m > this.window) {
      if (!this.overflowing) {
        s.counterfactualOverflows++;
        s.overflowLines.push(this.line);
      }
      this.overflowing = true;
    } else this.overflowing = false;
    // The plain-threshold baseline: compacts whenever used >= fraction, at the same evaluation points.
    const b = Math.max(0, this.recorded + this.sinceUsage - this.baseOffset);
    if (b > this.window) {
      if (!this.baseOverflowing) s.baseline.overflows++;
      this.baseOverflowing = true;
    } else this.baseOverflowing = false;
  }

  private evaluate(point: 'turn_complete' | 'tool_loop', final = false): void {
    const s = this.summary;
    this.checkOverflow();
    const b = Math.max(0, this.recorded + this.sinceUsage - this.baseOffset);
    if (b >= this.baselineFraction * this.window) {
      s.baseline.compactions.push(this.line);
      this.baseOffset += b - this.postTokens();
    }
    this.syncTokens();
    const contextTokens = Math.round(this.modelled());
    this.pendingDecisions = [];
    this.feed({ type: 'evaluate', at: this.at, point });
    s.evaluationPoints++;
    const ds = this.pendingDecisions;
    if (ds.length === 0) return;
    const first = ds[0]!;
    const last = ds[ds.length - 1]!;
    // A preflight decision compacts before the next prompt, i.e. at this very point of the recording;
    // at the end of the recording there is no next prompt, so it never runs.
    const compacted = ds.some((d) => d.action === 'compact' || (d.action === 'preflight' && !final));
    const action: ReplayDecision['action'] = compacted ? 'compact' : last.action === 'suggest' ? 'suggest' : 'none';
    const boundaries = first.boundaries.map((x) => `${x.kind}${x.detail ? ` ${x.detail}` : ''}`);
    const decision: ReplayDecision = {
      type: 'decision',
      line: this.line,
      percentRemaining: first.percentRemaining,
      tier: first.tier,
      boundaries,
      action,
      reason:
        last.action === 'preflight'
          ? `${last.reason} (${final ? 'no next prompt in the recording: never runs' : 'compacts before the next prompt'})`
          : last.reason,
      point,
      code: last.code,
      contextTokens,
      ...(last.forecast
        ? {
            forecast: {
              nextPhaseTokens: last.forecast.nextPhaseTokens,
              roomTokens: last.forecast.roomTokens,
              verdict: last.forecast.verdict,
              drove: last.forecast.drove,
            },
          }
        : {}),
    };
    if (this.opts.onDecision) this.opts.onDecision(decision);
    else this.decisions.push(decision);
    if (compacted) {
      s.compactions.push({
        line: this.line,
        tier: first.tier,
        percentRemaining: first.percentRemaining,
        boundaries,
        code: last.code,
        forecast: ds.some((d) => d.forecast?.drove === true && d.forecast.verdict === 'compact'),
      });
    }
  }

  /**
   * ReplayOptions.idle: the person was away from `turnEndedAt` until this prompt. If the engine's idle
   * watch is armed and its time passed, its timeout comes first (the golden path runs as any compaction
   * of the counterfactual does), so the prompt goes into the compacted context.
   */
  private awayUntilNow(turnEndedAt: number): void {
    const watch = this.state.idle;
    const ms = this.state.settings.idle_compact_minutes * 60_000;
    if (!watch || !(ms > 0) || !(turnEndedAt > 0) || this.at - turnEndedAt < ms) return;
    const tokensWithout = Math.round(this.modelled());
    this.pendingDecisions = [];
    this.feed({ type: 'timeout', at: turnEndedAt + ms, timerId: watch.timerId });
    const d = this.pendingDecisions.find((x) => x.code === 'idle');
    if (!d) return;
    const boundaries = d.boundaries.map((x) => `${x.kind}${x.detail ? ` ${x.detail}` : ''}`);
    const decision: ReplayDecision = {
      type: 'decision',
      line: this.line,
      percentRemaining: d.percentRemaining,
      tier: d.tier,
      boundaries,
      action: 'compact',
      reason: d.reason,
      point: 'idle',
      code: d.code,
      contextTokens: tokensWithout,
    };
    if (this.opts.onDecision) this.opts.onDecision(decision);
    else this.decisions.push(decision);
    const s = this.summary;
    s.compactions.push({ line: this.line, tier: d.tier, percentRemaining: d.percentRemaining, boundaries, code: d.code, forecast: false });
    const awayMinutes = Math.round((this.at - turnEndedAt) / 60_000);
    (s.idle ??= []).push({ line: this.line, awayMinutes, tokensWithout, tokensWith: Math.round(this.modelled()) });
  }

  /** One recording item, in file order. */
  push(it: RecordingItem): void {
    const due = this.toolLoopDue;
    if (due) {
      this.toolLoopDue = null;
      // A tool-loop boundary: all results of this batch are in and the model is about to be called.
      if (it.type !== 'tool_result' && it.type !== 'user_prompt') {
        const keep = { line: this.line, at: this.at };
        this.line = due.line;
        this.at = due.at;
        this.evaluate('tool_loop');
        this.line = keep.line;
        this.at = keep.at;
      }
    }
    const s = this.summary;
    const before = this.at;
    this.line = it.line;
    this.at = Math.max(this.at, it.at || 0); // recordings' clocks can step back with parallel tools
    const at = this.at;
    switch (it.type) {
      case 'user_prompt':
        if (this.turnOpen) this.evaluate('turn_complete');
        if (this.opts.idle) this.awayUntilNow(before);
        this.turnOpen = true;
        this.sinceUsage += Math.ceil(it.text.length / 4);
        this.syncTokens();
        this.feedActivity(it);
        break;
      case 'assistant_text':
      case 'tool_call':
        this.feedActivity(it);
        break;
      case 'tool_result':
        this.sinceUsage += Math.ceil(it.output.length / 4);
        this.feedActivity(it);
        if (this.state.openToolCalls.length === 0) this.toolLoopDue = { line: it.line, at };
        break;
      case 'usage': {
        if (this.nativePending) {
          // The recorded tool compacted: in rawr's counterfactual that drop never happens (live: it did).
          if (!this.opts.live) {
            this.offset -= this.nativePending.before - it.contextTokens;
            this.baseOffset -= this.nativePending.before - it.contextTokens;
          }
          this.nativePending = null;
        }
        if (this.firstUsage === undefined) {
          this.firstUsage = it.contextTokens;
          s.postTokens = this.postTokens();
        }
        this.recorded = it.contextTokens;
        this.sinceUsage = 0;
        s.peakRecordedTokens = Math.max(s.peakRecordedTokens, this.recorded);
        this.checkOverflow();
        break;
      }
      case 'native_compaction':
        s.nativeCompactions.push({ line: it.line, trigger: it.trigger, ...(it.preTokens !== undefined ? { preTokens: it.preTokens } : {}) });
        this.nativePending = { before: this.recorded + this.sinceUsage };
        break;
      case 'plan': {
        const before = this.state.pending.length;
        this.feedActivity(it);
        if (this.state.pending.length > before && this.state.pending[this.state.pending.length - 1]!.kind === 'plan_checkpoint') s.planCheckpoints++;
        break;
      }
      default: {
        const _: never = it;
        return _;
      }
    }
  }

  /** An item of agent activity, through the adapter, at the replay's clock. */
  private feedActivity(it: RecordingItem): void {
    const activity = recordedActivity(it, this.at);
    if (!activity) return;
    const adapted = this.adapter.adapt(activity);
    if (adapted.problem !== undefined) {
      this.analysisProblemCount++;
      if (this.summary.analysisProblems.length < MAX_ANALYSIS_PROBLEMS) this.summary.analysisProblems.push({ line: it.line, message: adapted.problem });
    }
    for (const ev of adapted.events) {
      if (ev.type === 'boundary' && ev.boundary.kind === 'commit') this.summary.commitsSeen++;
      this.feed(ev);
    }
  }

  /** This thread's completed phase sizes so far (the forecast's), oldest first: what a later thread's prior reads. */
  get phases(): readonly number[] {
    return this.state.forecast.phases;
  }

  /** The end of the file: the open turn completes (the person's next prompt would come here). */
  finish(lines: number, problems: number): { decisions: ReplayDecision[]; summary: ReplaySummary } {
    this.toolLoopDue = null; // no model call followed the last results
    this.summary.lines = lines;
    this.summary.problems = problems + this.analysisProblemCount;
    if (this.turnOpen) {
      this.line = lines;
      this.evaluate('turn_complete', true);
    }
    return { decisions: this.decisions, summary: this.summary };
  }
}
