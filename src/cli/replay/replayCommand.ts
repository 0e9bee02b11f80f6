/** Formats a replay as JSON Lines (the contract in docs/ARCHITECTURE.md#replay) or as a readable table with a verdict. */
import { NeedJudgment, type ReplayDecision, type ReplaySummary } from '../../core/replay/driver';
import { detectFormat, importRecording } from '../../core/replay/import/detect';
import { importRawrLog } from '../../core/replay/import/rawrLog';
import type { LineSource, Problem } from '../../core/replay/import/schemas';
import { openLines } from '../../core/io/lines';
import type { Recording, RecordingFormat } from '../../core/replay/recording';
import { ProblemTally, replayScanned, scanRecording, type RecordingScan } from '../../core/replay/stream';
import type { Prompts } from '../../core/prompts/promptSet';
import type { Settings } from '../../core/settings/schema';

export interface ReplayCommandOptions {
  settings: Settings;
  prompts: Prompts;
  format?: RecordingFormat | undefined;
  window?: number | undefined;
  postTokens?: number | undefined;
  json: boolean;
  file: string;
}

/** What to replay: a text already in memory, or a file read line by line (openLines: bounded memory). */
export type ReplayInput = string | { path: string };

/** Lines of the input: the text itself, or a fresh pass over the file (regular files only). */
export function sourceOf(input: ReplayInput): LineSource {
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

/** The format: as given, else detected from the first lines (a file is not read further). */
function formatOf(input: ReplayInput, format?: RecordingFormat): RecordingFormat {
  if (format) return format;
  const head = headOf(input);
  // "pass --format" cannot help a file with nothing in it
  if (head === '') throw new Error(`${typeof input === 'string' ? 'the input' : input.path} is empty or holds only blank lines: nothing to replay`);
  const f = detectFormat(head);
  if (!f) throw new Error('cannot tell the format (expected a Claude Code session, a Codex rollout or a rawr log); pass --format');
  return f;
}

/**
 * A file none of whose records could be read has nothing to replay: "no compaction needed" would be
 * a verdict about nothing (typically the wrong --format, or not a transcript at all).
 */
function nothingToReplay(f: RecordingFormat, problems: number, first: Problem | undefined, lines: number): Error {
  const why = first
    ? `${problems} problem${problems === 1 ? '' : 's'}; first: line ${first.line}: ${first.message}`
    : `none of its ${lines} lines is a ${f} record rawr replays`;
  return new Error(`no record could be read as ${f} (${why})`);
}

/** The whole recording in memory (the benchmarks); `rawr replay` and `rawr handoff` stream instead. */
export function loadRecording(input: ReplayInput, format?: RecordingFormat): Recording {
  const f = formatOf(input, format);
  const rec = f === 'rawr' ? importRawrLog(sourceOf(input)) : importRecording(sourceOf(input), f);
  if (rec.items.length === 0) throw nothingToReplay(f, rec.problems.length, rec.problems[0], rec.lines);
  return rec;
}

/** The first pass over the input (stream.ts): what the replay (or the handoff) needs before it starts. */
export function scan(input: ReplayInput, o: { format?: RecordingFormat | undefined; window?: number | undefined }): RecordingScan {
  const f = formatOf(input, o.format);
  const s = scanRecording(f, sourceOf(input), o.window);
  if (!s.readable) throw nothingToReplay(f, s.problems.count, s.problems.first[0], s.lines);
  return s;
}

/**
 * `rawr replay`, streamed: the output is written as it is made (with --json, each decision line as the
 * replay reaches it), and memory does not grow with the file (stream.ts).
 */
export function replayTo(input: ReplayInput, o: ReplayCommandOptions, write: (text: string) => void): void {
  const out = output(o, write);
  const s = scan(input, o);
  const { summary, problems } = replayScanned(s, sourceOf(input), { ...replayOptions(o), onDecision: out.decision });
  out.end(summary, problems);
}

/** The whole output as one string (tests, the benchmarks). */
export function replayFile(input: ReplayInput, o: ReplayCommandOptions): string {
  const parts: string[] = [];
  replayTo(input, o, (t) => parts.push(t));
  return parts.join('');
}

/** A judge: answers the judgment prompt (system + user message) with the model's raw text. */
export type Judge = (system: string, user: string) => Promise<string>;

/**
 * The replay with a real judgment LM: the (deterministic) replay runs until it needs an answer it does
 * not have, asks the judge, and runs again with every answer so far — one LM call per judgment. Each
 * run reads the file again. A run makes the same decisions as the one before up to the judgment that
 * stopped it (a decision is made after its judgment), so only the decisions past those already written
 * are written: the output streams as in replayTo.
 */
export async function replayToWithJudge(
  input: ReplayInput,
  o: ReplayCommandOptions,
  judge: Judge,
  write: (text: string) => void,
  onJudgment?: (n: number) => void,
): Promise<void> {
  const out = output(o, write);
  const s = scan(input, o);
  const judgments = new Map<string, string>();
  let written = 0;
  for (;;) {
    let made = 0;
    const onDecision = (d: ReplayDecision) => {
      if (made++ < written) return;
      written++;
      out.decision(d);
    };
    try {
      const { summary, problems } = replayScanned(s, sourceOf(input), { ...replayOptions(o), judgments, needJudgments: true, onDecision });
      out.end(summary, problems);
      return;
    } catch (err) {
      if (!(err instanceof NeedJudgment)) throw err;
      judgments.set(err.key, await judge(err.system, err.user));
      onJudgment?.(judgments.size);
    }
  }
}

/** replayToWithJudge, the whole output as one string. */
export async function replayFileWithJudge(input: ReplayInput, o: ReplayCommandOptions, judge: Judge, onJudgment?: (n: number) => void): Promise<string> {
  const parts: string[] = [];
  await replayToWithJudge(input, o, judge, (t) => parts.push(t), onJudgment);
  return parts.join('');
}

function replayOptions(o: ReplayCommandOptions) {
  return {
    settings: o.settings,
    prompts: o.prompts,
    ...(o.window !== undefined ? { window: o.window } : {}),
    ...(o.postTokens !== undefined ? { postTokens: o.postTokens } : {}),
  };
}

/**
 * The output as the replay goes: --json writes each decision line at once (batched into larger writes);
 * the table keeps only the decisions it shows and is written at the end.
 */
function output(o: ReplayCommandOptions, write: (text: string) => void): { decision(d: ReplayDecision): void; end(s: ReplaySummary, p: ProblemTally): void } {
  if (o.json) {
    let batch: string[] = [];
    let size = 0;
    const flush = () => {
      if (batch.length) write(batch.join(''));
      batch = [];
      size = 0;
    };
    return {
      decision(d) {
        const line = `${JSON.stringify(d)}\n`;
        batch.push(line);
        size += line.length;
        if (size >= 64 * 1024) flush();
      },
      end(summary, problems) {
        batch.push(`${JSON.stringify({ ...summary, file: o.file, problemsDetail: problems.first })}\n`);
        flush();
      },
    };
  }
  const shown: ReplayDecision[] = [];
  return {
    decision(d) {
      // Only the evaluation points that did or could have done something: a full log is --json.
      if (d.action !== 'none' || (d.tier !== null && d.code !== 'above_threshold' && d.code !== 'no_boundary')) shown.push(d);
    },
    end(summary) {
      write(table(shown, summary, o.file));
    },
  };
}

const k = (n: number | null) => (n === null ? '?' : `${(n / 1000).toFixed(1)}k`);

function table(shown: ReplayDecision[], s: ReplaySummary, file: string): string {
  const out: string[] = [];
  out.push(`rawr replay ${file}  (${s.format}, ${s.lines} lines, window ${k(s.window)}, post-compaction ${k(s.postTokens)})`);
  out.push(`window ${s.window.toLocaleString('en-US')} tokens: ${s.windowWhy}`);
  out.push('');
  out.push('  line  point          context  remain  tier       action   why');
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
