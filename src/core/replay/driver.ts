/**
 * `rawr replay`: the same engine (step) run over a recording, at every point where rawr may act — each
 * turn completion and each tool-loop boundary (after a tool result, before the next model call; never
 * between a call and its result). The golden path is executed instantly with no LM: judgment falls back
 * deterministically, the packet is watcher-assembled, and a compaction shrinks the modelled context to
 * `postTokens`. After that the context is modelled as rawr would have had it: the post-compaction size
 * plus the growth the recording shows since; the recorded tool's own compactions do not happen in that
 * counterfactual (rawr is the only compactor), so their drops are ignored.
 */
import { step } from '../engine/step';
import { initialState } from '../engine/state';
import type { Decision, EngineEvent, EngineState } from '../engine/types';
import type { Prompts } from '../prompts/promptSet';
import type { Settings } from '../settings/schema';
import { detectShellBoundaries } from '../signals/shell';
import type { Recording, RecordingItem } from './recording';

export interface ReplayOptions {
  settings: Settings;
  prompts: Prompts;
  /** Context window when the recording does not state one (Claude Code: 200k). */
  window?: number;
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
}

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
  /** The phase forecast at this point (README, "Forecasting the next phase"), when it was computed. */
  forecast?: { nextPhaseTokens: number; roomTokens: number; verdict: string; drove: boolean };
}

export interface ReplaySummary {
  type: 'summary';
  format: Recording['format'];
  lines: number;
  window: number;
  postTokens: number;
  evaluationPoints: number;
  /** `forecast`: the phase forecast drove this compaction (README, "Forecasting the next phase"). */
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
}

const SHELL_TOOLS = new Set(['bash', 'shell', 'exec_command', 'local_shell', 'run_in_terminal', 'runinterminal']);
const isShell = (name: string) => SHELL_TOOLS.has(name.toLowerCase());

function commandOf(input: unknown): string | undefined {
  if (typeof input === 'string') return input;
  if (!input || typeof input !== 'object') return undefined;
  const o = input as Record<string, unknown>;
  if (typeof o.command === 'string') return o.command;
  if (Array.isArray(o.command)) return JSON.stringify(o.command);
  if (typeof o.cmd === 'string') return o.cmd;
  return undefined;
}

export function replay(rec: Recording, opts: ReplayOptions): { decisions: ReplayDecision[]; summary: ReplaySummary } {
  const window = rec.window ?? opts.window ?? 200_000;
  const firstUsage = rec.items.find((i) => i.type === 'usage') as Extract<RecordingItem, { type: 'usage' }> | undefined;
  const postTokens = opts.postTokens ?? Math.min(window * 0.5, (firstUsage?.contextTokens ?? 20_000) + 6_000);
  const baselineFraction = opts.baselineFraction ?? 0.835;

  let state: EngineState = initialState({ threadId: 'replay', settings: opts.settings, prompts: opts.prompts });
  const decisions: ReplayDecision[] = [];
  const summary: ReplaySummary = {
    type: 'summary', format: rec.format, lines: rec.lines, window, postTokens, evaluationPoints: 0, compactions: [], nativeCompactions: [],
    counterfactualOverflows: 0, overflowLines: [], peakModelledTokens: 0, peakRecordedTokens: 0,
    baseline: { fraction: baselineFraction, compactions: [], overflows: 0 }, commitsSeen: 0, planCheckpoints: 0, problems: rec.problems.length,
  };

  // Context model. recorded = last reported context + estimate of what was appended since.
  let recorded = 0;
  let sinceUsage = 0;
  let offset = 0; // modelled = recorded - offset
  let baseOffset = 0; // same for the plain-threshold baseline
  let nativePending: { before: number } | null = null;
  let overflowing = false;
  let baseOverflowing = false;
  const calls = new Map<string, { name: string; input: unknown }>();
  let line = 0;
  let at = 0;
  let turnOpen = false;
  let pendingDecisions: Decision[] = [];

  const modelled = () => Math.max(0, recorded + sinceUsage - offset);
  const feed = (ev: EngineEvent) => {
    const r = step(state, ev);
    state = r.state;
    for (const fx of r.effects) {
      switch (fx.type) {
        case 'decision':
          pendingDecisions.push(fx.decision);
          break;
        case 'request_judgment': {
          const key = judgmentKey(fx.system, fx.user);
          const answer = opts.judgments?.get(key);
          if (answer !== undefined) feed({ type: 'judgment_result', at, corrId: fx.corrId, text: answer });
          else if (opts.needJudgments) throw new NeedJudgment(key, fx.system, fx.user);
          else feed({ type: 'timeout', at, timerId: `judgment:${fx.corrId}` });
          break;
        }
        case 'request_scratch_write':
          feed({ type: 'scratch_written', at, seqId: fx.seqId, path: fx.path });
          break;
        case 'request_packet':
          feed({ type: 'timeout', at, timerId: `packet:${fx.seqId}` });
          break;
        case 'compact': {
          const before = modelled();
          offset += before - postTokens;
          feed({ type: 'compaction_done', at, seqId: fx.seqId, tokensBefore: before, tokensAfter: postTokens });
          break;
        }
        default:
          break;
      }
    }
  };
  const syncTokens = () => feed({ type: 'tokens', at, used: Math.round(modelled()), window });
  const checkOverflow = () => {
    const m = modelled();
    summary.peakModelledTokens = Math.max(summary.peakModelledTokens, Math.round(m));
    if (m > window) {
      if (!overflowing) {
        summary.counterfactualOverflows++;
        summary.overflowLines.push(line);
      }
      overflowing = true;
    } else overflowing = false;
    // The plain-threshold baseline: compacts whenever used >= fraction, at the same evaluation points.
    const b = Math.max(0, recorded + sinceUsage - baseOffset);
    if (b > window) {
      if (!baseOverflowing) summary.baseline.overflows++;
      baseOverflowing = true;
    } else baseOverflowing = false;
  };
  const evaluate = (point: 'turn_complete' | 'tool_loop', final = false) => {
    checkOverflow();
    const b = Math.max(0, recorded + sinceUsage - baseOffset);
    if (b >= baselineFraction * window) {
      summary.baseline.compactions.push(line);
      baseOffset += b - postTokens;
    }
    syncTokens();
    const contextTokens = Math.round(modelled());
    pendingDecisions = [];
    feed({ type: 'evaluate', at, point });
    summary.evaluationPoints++;
    const ds = pendingDecisions;
    if (ds.length === 0) return;
    const first = ds[0]!;
    const last = ds[ds.length - 1]!;
    // A preflight decision compacts before the next prompt, i.e. at this very point of the recording;
    // at the end of the recording there is no next prompt, so it never runs.
    const compacted = ds.some((d) => d.action === 'compact' || (d.action === 'preflight' && !final));
    const action: ReplayDecision['action'] = compacted ? 'compact' : last.action === 'suggest' ? 'suggest' : 'none';
    const boundaries = first.boundaries.map((b) => `${b.kind}${b.detail ? ` ${b.detail}` : ''}`);
    decisions.push({
      type: 'decision', line, percentRemaining: first.percentRemaining, tier: first.tier, boundaries, action,
      reason: last.action === 'preflight' ? `${last.reason} (${final ? 'no next prompt in the recording: never runs' : 'compacts before the next prompt'})` : last.reason,
      point, code: last.code, contextTokens,
      ...(last.forecast ? { forecast: { nextPhaseTokens: last.forecast.nextPhaseTokens, roomTokens: last.forecast.roomTokens, verdict: last.forecast.verdict, drove: last.forecast.drove } } : {}),
    });
    if (compacted) {
      summary.compactions.push({ line, tier: first.tier, percentRemaining: first.percentRemaining, boundaries, code: last.code, forecast: ds.some((d) => d.forecast?.drove === true && d.forecast.verdict === 'compact') });
    }
  };

  const items = rec.items;
  for (let k = 0; k < items.length; k++) {
    const it = items[k]!;
    line = it.line;
    at = Math.max(at, it.at || 0); // recordings' clocks can step back with parallel tools
    switch (it.type) {
      case 'user_prompt':
        if (turnOpen) evaluate('turn_complete');
        turnOpen = true;
        sinceUsage += Math.ceil(it.text.length / 4);
        syncTokens();
        feed({ type: 'user_message', at, text: it.text });
        break;
      case 'assistant_text':
        feed({ type: 'assistant_message', at, text: it.text });
        break;
      case 'tool_call':
        calls.set(it.id, { name: it.name, input: it.input });
        feed({ type: 'tool_call', at, id: it.id, name: it.name, input: it.input });
        break;
      case 'tool_result': {
        sinceUsage += Math.ceil(it.output.length / 4);
        feed({ type: 'tool_result', at, id: it.id, output: it.output, isError: it.isError, ...(it.exitCode !== undefined ? { exitCode: it.exitCode } : {}) });
        const call = calls.get(it.id);
        const command = call && isShell(call.name) ? commandOf(call.input) : undefined;
        if (command !== undefined) {
          for (const b of detectShellBoundaries({ command, exitCode: it.exitCode, output: it.output })) {
            if (b.kind === 'commit') summary.commitsSeen++;
            feed({ type: 'boundary', at, source: 'tool_result', boundary: b });
          }
        }
        const nextItem = items[k + 1];
        // A tool-loop boundary: all results of this batch are in and the model is about to be called.
        if (state.openToolCalls.length === 0 && nextItem && nextItem.type !== 'tool_result' && nextItem.type !== 'user_prompt') evaluate('tool_loop');
        break;
      }
      case 'usage': {
        if (nativePending) {
          // The recorded tool compacted: in rawr's counterfactual that drop never happens.
          offset -= nativePending.before - it.contextTokens;
          baseOffset -= nativePending.before - it.contextTokens;
          nativePending = null;
        }
        recorded = it.contextTokens;
        sinceUsage = 0;
        summary.peakRecordedTokens = Math.max(summary.peakRecordedTokens, recorded);
        checkOverflow();
        break;
      }
      case 'native_compaction':
        summary.nativeCompactions.push({ line: it.line, trigger: it.trigger, ...(it.preTokens !== undefined ? { preTokens: it.preTokens } : {}) });
        nativePending = { before: recorded + sinceUsage };
        break;
      case 'plan': {
        const before = state.pending.length;
        feed({ type: 'plan', at, steps: it.steps });
        if (state.pending.length > before && state.pending[state.pending.length - 1]!.kind === 'plan_checkpoint') summary.planCheckpoints++;
        break;
      }
    }
  }
  if (turnOpen) {
    line = rec.lines;
    evaluate('turn_complete', true);
  }
  return { decisions, summary };
}
