/**
 * Append-only JSON Lines event log, one file per thread. Each record is written with a single write(2)
 * on an O_APPEND descriptor, so two writers (the extension host and the core process, or two windows)
 * can never interleave inside a line. Reading never throws: a corrupt line, or a truncated last line
 * from a crash, is reported with its line number and skipped.
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { LogRecordSchema, type LogRecord, type NewLogRecord } from './records';

export interface LogProblem {
  line: number;
  message: string;
}

export class EventLog {
  private fd: number | undefined;
  constructor(
    readonly path: string,
    readonly thread: string,
  ) {}

  append(record: NewLogRecord): LogRecord {
    const full = { rawr: 1, thread: this.thread, ...record } as LogRecord;
    if (this.fd === undefined) {
      mkdirSync(dirname(this.path), { recursive: true });
      this.fd = openSync(this.path, 'a+');
      // A crash mid-write leaves a torn last line; end it, or the next record would be glued onto it and
      // lost with it. Opening while another writer is mid-write can look torn too: then this only adds an
      // empty line after that record (appends never interleave), which readers skip.
      const { size } = fstatSync(this.fd);
      if (size > 0) {
        const last = Buffer.alloc(1);
        readSync(this.fd, last, 0, 1, size - 1);
        if (last[0] !== 0x0a) writeSync(this.fd, '\n');
      }
    }
    const buf = Buffer.from(`${JSON.stringify(full)}\n`, 'utf8');
    let off = 0;
    while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off);
    return full;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

export function parseLog(text: string): { records: Array<{ line: number; record: LogRecord }>; problems: LogProblem[] } {
  const records: Array<{ line: number; record: LogRecord }> = [];
  const problems: LogProblem[] = [];
  const lines = text.split('\n');
  const endsClean = text.endsWith('\n') || text.length === 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.trim() === '') continue;
    const lineNo = i + 1;
    const last = i === lines.length - 1 && !endsClean;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      problems.push({ line: lineNo, message: last ? 'truncated last line (interrupted write?) — skipped' : 'not valid JSON — skipped' });
      continue;
    }
    const parsed = LogRecordSchema.safeParse(json);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      problems.push({ line: lineNo, message: `not a rawr log record (${first ? `${first.path.join('.') || 'record'}: ${first.message}` : 'invalid'}) — skipped` });
      continue;
    }
    records.push({ line: lineNo, record: parsed.data });
  }
  return { records, problems };
}

export function readLog(path: string): ReturnType<typeof parseLog> {
  if (!existsSync(path)) return { records: [], problems: [] };
  return parseLog(readFileSync(path, 'utf8'));
}
