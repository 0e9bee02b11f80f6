/**
 * Append-only JSON Lines event log, one file per thread: the writer (the format and its reader are
 * src/core/logformat/). Each record is written with a single write(2) on an O_APPEND descriptor, so two
 * writers (the extension host and the core process, or two windows) can never interleave inside a line.
 * Before every record the writer checks that the file ends with a newline: another writer that died
 * mid-write (at any time, not only before this one opened the file) leaves a torn line, and the record
 * is then written as "\n" + record in that same single write, so it is never glued onto the torn line
 * and lost with it. The reader (logformat/reader.ts) is the second line of defence: a line that is a
 * torn fragment followed by a whole record (a writer died between this check and its write) still
 * yields the record.
 */
import { closeSync, fstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { endsTorn } from '../io/tornLine';
import type { LogRecord, NewLogRecord } from '../logformat/records';

export class EventLog {
  private fd: number | undefined;
  constructor(
    readonly path: string,
    readonly thread: string,
  ) {}

  /**
   * Writes one record; returns where its line is (`offset`: the size before the write, after the newline
   * that ends a torn line; `bytes`: the line without its newline). One process writes a thread's log, so
   * that is where it landed; a reader of that place checks it anyway (checkpoint.ts).
   */
  append(record: NewLogRecord): { offset: number; bytes: number } {
    const full = { rawr: 1, thread: this.thread, ...record } as LogRecord;
    if (this.fd === undefined) {
      mkdirSync(dirname(this.path), { recursive: true });
      this.fd = openSync(this.path, 'a+');
    }
    // A torn last line (a writer that died mid-write, this one or another) is ended in the same write
    // as the record: one append per record.
    const { size } = fstatSync(this.fd);
    const torn = endsTorn(this.fd, size);
    const buf = Buffer.from(`${torn ? '\n' : ''}${JSON.stringify(full)}\n`, 'utf8');
    let off = 0;
    while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off);
    return { offset: size + (torn ? 1 : 0), bytes: buf.length - 1 - (torn ? 1 : 0) };
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
