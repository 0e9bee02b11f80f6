/** Formats a replay as JSON Lines (the contract in docs/ARCHITECTURE.md#replay) or as a readable table with a verdict. */
import { NeedJudgment, replay, type ReplayDecision, type ReplaySummary } from '../core/replay/driver';
import { detectFormat, importRecording } from '../core/replay/import/detect';
import { importRawrLog } from '../core/replay/import/rawrLog';
import type { LineSource } from '../core/replay/import/schemas';
import { openLines } from '../core/io/lines';
import type { Recording } from '../core/replay/recording';
import type { Prompts } from '../core/prompts/promptSet';
import type { Settings } from '../core/settings/schema';

export interface ReplayCommandOptions {
  settings: Settings;
  prompts: Prompts;
  format?: 'claude' | 'codex' | 'rawr' | undefined;
  window?: number | undefined;
  postTokens?: number | undefined;
  json: boolean;
  file: string;
}

/** What to replay: a text already in memory, or a file read line by line (openLines: bounded memory). */
export type ReplayInput = string | { path: string };

/** Lines of the input: the text itself, or a fresh pass over the file (regular files only). */
function sourceOf(input: ReplayInput): LineSource {
  return typeof input === 'string' ? input : openLines(input.path).lines();
}

/** The first non-blank lines of the input, enough for detectFormat (a file is not read further). */
function headOf(input: ReplayInput): string {
  if (typeof input === 'string') return input;
  const head: string[] = [];
  for (const raw of openLines(input.path).lines()) {
    if (raw.text === undefined || raw.text.trim() === '') continue;
    head.push(raw.text);
    if (head.length >= 20) break;
  }
  return head.join('\n');
}

export function loadRecording(input: ReplayInput, format?: 'claude' | 'codex' | 'rawr'): Recording {
  const f = format ?? detectFormat(headOf(input));
  if (!f) throw new Error('cannot tell the format (expected a Claude Code session, a Codex rollout or a rawr log); pass --format');
  const rec = f === 'rawr' ? importRawrLog(sourceOf(input)) : importRecording(sourceOf(input), f);
  // A file none of whose records could be read has nothing to replay: "no compaction needed" would be
  // a verdict about nothing (typically the wrong --format, or not a transcript at all).
  if (rec.items.length === 0) {
    const first = rec.problems[0];
    const why = first
      ? `${rec.problems.length} problem${rec.problems.length === 1 ? '' : 's'}; first: line ${first.line}: ${first.message}`
      : `none of its ${rec.lines} lines is a ${f} record rawr replays`;
    throw new Error(`no record could be read as ${f} (${why})`);
  }
  return rec;
}

export function replayFile(input: ReplayInput, o: ReplayCommandOptions): string {
  const rec = loadRecording(input, o.format);
  return format(rec, replay(rec, replayOptions(o)), o);
}

/** A judge: answers the judgment prompt (system + user message) with the model's raw text. */
export type Judge = (system: string, user: string) => Promise<string>;

/**
 * The replay with a real judgment LM: the (deterministic) replay runs until it needs an answer it does
 * not have, asks the judge, and runs again with every answer so far — one LM call per judgment.
 */
export async function replayFileWithJudge(text: ReplayInput, o: ReplayCommandOptions, judge: Judge, onJudgment?: (n: number) => void): Promise<string> {
  const rec = loadRecording(text, o.format);
  const judgments = new Map<string, string>();
  for (;;) {
    try {
      return format(rec, replay(rec, { ...replayOptions(o), judgments, needJudgments: true }), o);
    } catch (err) {
      if (!(err instanceof NeedJudgment)) throw err;
      judgments.set(err.key, await judge(err.system, err.user));
      onJudgment?.(judgments.size);
    }
  }
}

function replayOptions(o: ReplayCommandOptions) {
  return {
    settings: o.settings,
    prompts: o.prompts,
    ...(o.window !== undefined ? { window: o.window } : {}),
    ...(o.postTokens !== undefined ? { postTokens: o.postTokens } : {}),
  };
}

function format(rec: Recording, { decisions, summary }: { decisions: ReplayDecision[]; summary: ReplaySummary }, o: ReplayCommandOptions): string {
  if (o.json) {
    const lines = decisions.map((d) => JSON.stringify(d));
    lines.push(JSON.stringify({ ...summary, file: o.file, problemsDetail: rec.problems.slice(0, 20) }));
    return `${lines.join('\n')}\n`;
  }
  return table(decisions, summary, o.file);
}

const k = (n: number | null) => (n === null ? '?' : `${(n / 1000).toFixed(1)}k`);

function table(decisions: ReplayDecision[], s: ReplaySummary, file: string): string {
  const out: string[] = [];
  out.push(`rawr replay ${file}  (${s.format}, ${s.lines} lines, window ${k(s.window)}, post-compaction ${k(s.postTokens)})`);
  out.push(`window ${s.window.toLocaleString('en-US')} tokens: ${s.windowWhy}`);
  out.push('');
  out.push('  line  point          context  remain  tier       action   why');
  // Only the evaluation points that did or could have done something: a full log is --json.
  const shown = decisions.filter((d) => d.action !== 'none' || (d.tier !== null && d.code !== 'above_threshold' && d.code !== 'no_boundary'));
  for (const d of shown) {
    out.push(
      `${String(d.line).padStart(6)}  ${d.point.padEnd(13)} ${k(d.contextTokens).padStart(8)}  ${(d.percentRemaining === null ? '?' : `${d.percentRemaining.toFixed(1)}%`).padStart(6)}  ${(d.tier ?? '-').padEnd(9)}  ${d.action.padEnd(7)}  ${d.reason}`,
    );
  }
  if (shown.length === 0) out.push('  (no evaluation point came near a tier)');
  out.push('');
  out.push(
    `boundaries in the recording: ${s.commitsSeen} commit${s.commitsSeen === 1 ? '' : 's'}, ${s.planCheckpoints} plan checkpoint${s.planCheckpoints === 1 ? '' : 's'} (TodoWrite / Task tools / update_plan)`,
  );
  for (const n of s.nativeCompactions)
    out.push(`recorded tool compacted by itself at line ${n.line} (${n.trigger}${n.preTokens ? `, ${k(n.preTokens)} tokens` : ''})`);
  const lines = s.compactions.map((c) => `${c.line} (${c.boundaries.map((b) => b.split(' ')[0]).join('+') || c.code})`);
  out.push(
    `rawr would compact ${s.compactions.length}× at line ${lines.join(', ') || '—'}; a plain ${(s.baseline.fraction * 100).toFixed(1)}% threshold ${s.baseline.compactions.length}×`,
  );
  out.push(
    `counterfactual overflows: ${s.counterfactualOverflows}${s.overflowLines.length ? ` at line ${s.overflowLines.join(', ')}` : ''}; peak modelled context ${k(s.peakModelledTokens)} of ${k(s.window)}`,
  );
  const verdict =
    s.counterfactualOverflows > 0
      ? 'VERDICT: rawr would have overflowed the window — thresholds too low for this session'
      : s.compactions.length === 0
        ? 'VERDICT: no compaction needed'
        : `VERDICT: ${s.compactions.filter((c) => c.code !== 'emergency').length}/${s.compactions.length} compactions at phase boundaries, 0 overflows`;
  out.push(verdict);
  return `${out.join('\n')}\n`;
}
