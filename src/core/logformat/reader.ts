/**
 * Reading rawr's event log (docs/ARCHITECTURE.md#the-event-log): the format's reader, in the kernel so
 * that what reads a log (the core's cold replay, `rawr replay` of a rawr log, the panel) needs nothing of
 * what writes one (src/core/log/eventLog.ts). Reading never throws: a corrupt line, or a truncated last
 * line from a crash, is reported with its line number and skipped; every record is validated
 * (records.ts). A line that is a torn fragment followed by a whole record (a writer died between its
 * torn-line check and its write) still yields the record.
 */
import { linesOfText, openLines, type RawLine } from '../io/lines';
import { SafeReadError } from '../io/safeRead';
import { fastLogRecord } from './fastRecord';
import { LogRecordSchema, type LogRecord } from './records';

/** Longest log line read back (a compaction record holds the whole archived thread). */
export const MAX_LOG_LINE_BYTES = 64 * 1024 * 1024;

export interface LogProblem {
  line: number;
  message: string;
}

/** A whole log read: its records, the problems of the lines that were skipped, and its line count. */
export type ParsedLog = { records: Array<{ line: number; record: LogRecord }>; problems: LogProblem[]; lines: number };

/** The log's records (validated) and the problems of the lines that were skipped. */
export function parseLog(source: string | Iterable<RawLine>): ParsedLog {
  return collect((problems, counted) => logRecords(source, problems, counted));
}

/** Every record of a record stream (logRecords, streamLog) in one array, with its problems and line count. */
function collect(stream: (problems: LogProblem[], counted: { lines: number }) => Iterable<{ line: number; record: LogRecord }>): ParsedLog {
  const problems: LogProblem[] = [];
  const counted = { lines: 0 };
  const records = [...stream(problems, counted)];
  return { records, problems, lines: counted.lines };
}

/**
 * The log's records one at a time, in order (`rawr replay` of a log of any size keeps none of them);
 * the skipped lines go to `problems`. Returns the number of lines.
 */
export function forEachLogRecord(
  source: string | Iterable<RawLine>,
  problems: { push(p: LogProblem): unknown },
  onRecord: (record: LogRecord, line: number) => void,
): number {
  const counted = { lines: 0 };
  for (const { record, line } of logRecords(source, problems, counted)) onRecord(record, line);
  return counted.lines;
}

/** forEachLogRecord as an iterable: records are parsed as they are taken (`lines`: the last line read so far). */
export function* logRecords(
  source: string | Iterable<RawLine>,
  problems: { push(p: LogProblem): unknown },
  counted: { lines: number } = { lines: 0 },
): Generator<{ line: number; record: LogRecord }> {
  for (const raw of typeof source === 'string' ? linesOfText(source) : source) {
    counted.lines = raw.line;
    const record = recordOfLine(raw, problems);
    if (record) yield { line: raw.line, record };
  }
}

/** One line's record, its problem (if any) reported first: a record salvaged after a torn fragment is reported before it is used. */
function recordOfLine(raw: RawLine, problems: { push(p: LogProblem): unknown }): LogRecord | undefined {
  if (raw.text === undefined) {
    problems.push({ line: raw.line, message: `line of ${raw.tooLong} bytes is over the ${MAX_LOG_LINE_BYTES / 1024 / 1024} MiB limit — skipped` });
    return undefined;
  }
  if (raw.text.trim() === '') return undefined;
  const got = parseRecord(raw.text);
  if (!(got instanceof LineProblem)) return got;
  const message = got.problem === NOT_JSON && raw.unterminated ? 'truncated last line (interrupted write?) — skipped' : got.problem;
  problems.push({ line: raw.line, message });
  return got.record;
}

const RECORD_START = '{"rawr":1,';
const NOT_JSON = 'not valid JSON — skipped';

/** Why a line is not (only) a record; `record`: the whole record found after a torn fragment. */
class LineProblem {
  constructor(
    readonly problem: string,
    readonly record?: LogRecord,
  ) {}
}

/**
 * One line: a record, or why not. A torn fragment glued before a whole record yields the record. A good
 * line allocates nothing but its record (a cold replay reads a hundred thousand of them).
 */
function parseRecord(text: string): LogRecord | LineProblem {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const at = text.lastIndexOf(RECORD_START);
    if (at > 0) {
      const rest = parseRecord(text.slice(at));
      if (!(rest instanceof LineProblem))
        return new LineProblem(`a torn record (${at} bytes, an interrupted write) precedes this record — the fragment was skipped`, rest);
    }
    return new LineProblem(NOT_JSON);
  }
  // The common records pass a hand-written check as strict as the schema (fastRecord.ts); the rest, and
  // every bad record, go through the schema, which says what is wrong.
  const fast = fastLogRecord(json);
  if (fast) return fast;
  const parsed = LogRecordSchema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return new LineProblem(`not a rawr log record (${first ? `${first.path.join('.') || 'record'}: ${first.message}` : 'invalid'}) — skipped`);
  }
  return parsed.data;
}

/**
 * Reads a thread's log line by line (memory bounded by the longest line, not the file). A missing file
 * is an empty log; a log that is not a regular file (a symlink to a device, a FIFO) is a problem, not a
 * read that hangs or fills memory.
 */
export function readLog(path: string): ParsedLog {
  return collect((problems, counted) => streamLog(path, problems, counted));
}

/**
 * A thread's log as records taken one at a time (the core's cold replay steps each as it is read and
 * keeps none: memory bounded by the longest line, and no 100,000 parsed records for the collector to
 * walk). The same file checks and problems as readLog; a missing file is an empty log. `from`: the byte
 * offset of a line to start at (the records after a checkpoint; lines are then counted from it); each
 * record says where its line is (`offset`, `bytes`), so a compaction's archive can be read back later.
 */
export function* streamLog(
  path: string,
  problems: { push(p: LogProblem): unknown },
  counted: { lines: number } = { lines: 0 },
  from = 0,
): Generator<{ line: number; record: LogRecord; offset?: number; bytes?: number }> {
  let opened;
  try {
    opened = openLines(path, { maxLineBytes: MAX_LOG_LINE_BYTES, from });
  } catch (err) {
    if (!(err instanceof SafeReadError && err.problem === 'not_found')) problems.push({ line: 0, message: `cannot read the log: ${(err as Error).message}` });
    return;
  }
  // logRecords' loop, not a delegation to it: each level of generators costs a resume and a result
  // object per record.
  for (const raw of opened.lines()) {
    counted.lines = raw.line;
    const record = recordOfLine(raw, problems);
    if (record) yield { line: raw.line, record, offset: raw.offset, bytes: raw.bytes };
  }
}
