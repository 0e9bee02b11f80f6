/**
 * `rawr replay` of a file of any size with bounded memory (docs/ARCHITECTURE.md#replay): the recording's
 * items flow importer → Replayer → output and none is kept. Two passes over the lines, because the replay
 * needs from the start what only the whole file says:
 *   1. scan: the window (the model of most calls, the recorded evidence: an automatic compaction, the
 *      peak context — windows.ts), the first recorded context (the post-compaction size), whether a
 *      Codex rollout's prompts come from its user_message events, and whether anything is readable;
 *   2. replay: the importer again, each settled item pushed into the Replayer at once, each decision
 *      handed to `onDecision`.
 * What stays is bounded: the importer's few unsettled items and id caches (bounded.ts), the engine state
 * (its trail is capped), the first problems (and a count), and the summary (one entry per compaction).
 * The result is the one `replay(loadRecording(…))` gives for the whole file, which a test checks.
 * Pure: the lines come from the caller (a file read line by line, or a text).
 */
import { forEachLogRecord } from '../logformat/reader';
import { Replayer, type ReplayDecision, type ReplayOptions, type ReplaySummary } from './driver';
import { claudeImporter } from './import/claude';
import { codexImporter } from './import/codex';
import { rawrLogImporter } from './import/rawrLog';
import { readJsonLines, type LineSource, type Problem } from './import/schemas';
import type { RecordImporter, RecordingFormat, RecordingItem } from './recording';
import { chooseWindow, DEFAULT_WINDOW, type WindowChoice } from './windows';

/** Problems listed in detail at most (all are counted). */
export const MAX_PROBLEM_DETAIL = 20;

/** The problems of the lines that were skipped: how many, and the first few. */
export class ProblemTally {
  count = 0;
  readonly first: Problem[] = [];
  push(p: Problem): void {
    this.count++;
    if (this.first.length < MAX_PROBLEM_DETAIL) this.first.push(p);
  }
}

/** What the first pass learnt about the whole file. */
export interface RecordingScan {
  format: RecordingFormat;
  lines: number;
  /** Whether the file yields any item (else there is nothing to replay). */
  readable: boolean;
  problems: ProblemTally;
  window: WindowChoice;
  /** The first recorded context, in tokens (the default post-compaction size). */
  firstContext: number | undefined;
  /** Codex: the person's prompts come from response_item user messages (no user_message event). */
  promptsFromItems: boolean;
  /** The window the records state (the importer's last word, what `Recording.window` is for the whole file). */
  statedWindow: number | undefined;
}

/** Counts for a test that nothing grows with the file: what the replay holds after each record. */
export interface HeldCounts {
  line: number;
  /** Items read but not yet replayed (held by the importer). */
  items: number;
  /** Decisions kept by the Replayer (0: each is handed on). */
  decisions: number;
  /** Shell calls the Replayer remembers for their results. */
  shellCalls: number;
  /** Problems kept in detail. */
  problems: number;
}

export interface StreamOptions extends ReplayOptions {
  onDecision: (d: ReplayDecision) => void;
  /** After each record of the replay pass (tests). */
  onHeld?: (held: HeldCounts) => void;
}

/** A pass over the records: the format's importer fed every record, `after` called after each. */
function pass(
  format: RecordingFormat,
  source: LineSource,
  problems: ProblemTally,
  fallbackPrompts: 'inline' | 'drop',
  after: (imp: RecordImporter, line: number) => void,
): { importer: RecordImporter; lines: number; promptsFromItems: boolean } {
  const json = (imp: RecordImporter) =>
    readJsonLines(source, problems, (rec, line) => {
      imp.onRecord(rec, line);
      after(imp, line);
    });
  switch (format) {
    case 'claude': {
      const imp = claudeImporter();
      return { importer: imp, lines: json(imp), promptsFromItems: false };
    }
    case 'codex': {
      const imp = codexImporter({ fallbackPrompts });
      const lines = json(imp);
      return { importer: imp, lines, promptsFromItems: imp.promptsFromItems() };
    }
    case 'rawr': {
      const imp = rawrLogImporter();
      const lines = forEachLogRecord(source, problems, (rec, line) => {
        imp.onLogRecord(rec, line);
        after(imp, line);
      });
      return { importer: imp, lines, promptsFromItems: false };
    }
    default: {
      const _: never = format;
      throw new Error(`unknown format ${String(_)}`);
    }
  }
}

/** The importer's own problems (a record that is JSON but not a valid record) into the tally, in line order. */
function drainProblems(imp: RecordImporter, problems: ProblemTally): void {
  if (imp.problems.length === 0) return;
  for (const p of imp.problems) problems.push(p);
  imp.problems.length = 0;
}

/** Pass 1: what the replay needs to know before it starts (module comment). */
export function scanRecording(format: RecordingFormat, source: LineSource, windowOption?: number): RecordingScan {
  const problems = new ProblemTally();
  let items = 0;
  let firstContext: number | undefined;
  let peak: Extract<RecordingItem, { type: 'usage' }> | undefined;
  let compaction: Extract<RecordingItem, { type: 'native_compaction' }> | undefined;
  const seen = (batch: RecordingItem[]) => {
    items += batch.length;
    for (const it of batch) {
      if (it.type === 'usage') {
        firstContext ??= it.contextTokens;
        if (!peak || it.contextTokens > peak.contextTokens) peak = it;
      } else if (it.type === 'native_compaction' && !compaction && it.trigger === 'auto' && it.preTokens !== undefined && it.preTokens <= DEFAULT_WINDOW)
        compaction = it; // the only one chooseWindow could take as evidence: the first such
    }
  };
  const { importer, lines, promptsFromItems } = pass(format, source, problems, 'drop', (imp) => {
    seen(imp.take());
    drainProblems(imp, problems);
  });
  seen(importer.take(true));
  drainProblems(importer, problems);
  const evidence: RecordingItem[] = [...(compaction ? [compaction] : []), ...(peak ? [peak] : [])];
  return {
    format,
    lines,
    readable: items > 0 || promptsFromItems, // the prompts counted in pass 2 only
    problems,
    window: chooseWindow({ format, ...importer.meta(), items: evidence }, windowOption),
    firstContext,
    promptsFromItems,
    statedWindow: importer.meta().window,
  };
}

/**
 * Pass 2's reading: every item of the recording, in order, handed to `onItem` as soon as it is settled
 * (the importer keeps only the few a later record may change); `afterRecord` after each record.
 * Returns the number of lines.
 */
export function forEachItem(
  scan: RecordingScan,
  source: LineSource,
  problems: ProblemTally,
  onItem: (it: RecordingItem) => void,
  afterRecord?: (imp: RecordImporter, line: number) => void,
): number {
  const { importer, lines } = pass(scan.format, source, problems, scan.promptsFromItems ? 'inline' : 'drop', (imp, line) => {
    for (const it of imp.take()) onItem(it);
    drainProblems(imp, problems);
    afterRecord?.(imp, line);
  });
  for (const it of importer.take(true)) onItem(it);
  drainProblems(importer, problems);
  return lines;
}

/** Pass 2: the replay itself, each item into the Replayer as soon as it is settled. */
export function replayScanned(scan: RecordingScan, source: LineSource, o: StreamOptions): { summary: ReplaySummary; problems: ProblemTally } {
  const postTokens = o.postTokens ?? Math.min(scan.window.window * 0.5, (scan.firstContext ?? 20_000) + 6_000);
  const r = new Replayer(scan.format, scan.window, { ...o, postTokens });
  const problems = new ProblemTally();
  const lines = forEachItem(
    scan,
    source,
    problems,
    (it) => r.push(it),
    (imp, line) => o.onHeld?.({ line, items: imp.items.length, decisions: r.decisions.length, shellCalls: r.shellCallsHeld, problems: problems.first.length }),
  );
  const { summary } = r.finish(lines, problems.count);
  return { summary, problems };
}
