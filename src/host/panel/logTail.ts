/**
 * Reads a thread's append-only event log incrementally (vscode-free): each call returns the complete
 * lines written since the last one, so the panel never re-reads (or re-transfers) a long log. A torn last
 * line (a write in progress) is kept for the next call. The log is written by the core with one write(2)
 * per record on an O_APPEND descriptor (src/core/log/eventLog.ts), so complete lines are whole records.
 *
 * Bounded by what the panel shows, not by the thread's history: a call reads at most `maxBytes`. When more
 * than that is new (the panel opening on a long thread, or a long while unread), only the last `maxBytes`
 * are read, from the first line that starts in them, and `skipped` says how many bytes were passed over.
 * The panel shows the recent history (its timeline keeps the last 1,500 entries anyway); the core's own
 * snapshot and the log itself keep everything.
 */
import { open } from 'node:fs/promises';

const CHUNK = 1 << 20;

/** What the panel reads of a log at most per call: the recent history of even a busy thread (~50k records). */
export const PANEL_TAIL_BYTES = 8 * 1024 * 1024;

export class LogTail {
  private offset = 0;
  private rest: Buffer = Buffer.alloc(0);
  /** The next read starts inside a line (after a skip): its first line is not whole and is dropped. */
  private midLine = false;

  constructor(
    readonly path: string,
    readonly maxBytes = PANEL_TAIL_BYTES,
  ) {}

  /**
   * New complete lines; `reset` when the file shrank (replaced): the caller should start over; `skipped`:
   * bytes of the log before these lines that were not read (over `maxBytes`), 0 when none.
   */
  async read(): Promise<{ lines: string[]; reset: boolean; skipped: number }> {
    let fh;
    try {
      fh = await open(this.path, 'r');
    } catch {
      return { lines: [], reset: false, skipped: 0 }; // no log yet
    }
    try {
      const { size } = await fh.stat();
      if (size < this.offset) {
        this.offset = 0;
        this.rest = Buffer.alloc(0);
        this.midLine = false;
        return { lines: [], reset: true, skipped: 0 };
      }
      let skipped = 0;
      if (size - this.offset + this.rest.length > this.maxBytes) {
        // Too much is new: start `maxBytes` before the end, inside some line (dropped below).
        skipped = size - this.maxBytes - this.offset + this.rest.length;
        this.offset = size - this.maxBytes;
        this.rest = Buffer.alloc(0);
        // a start right after a line's end drops nothing
        const before = Buffer.alloc(1);
        this.midLine = this.offset > 0 && ((await fh.read(before, 0, 1, this.offset - 1)).bytesRead !== 1 || before[0] !== 0x0a);
      }
      const parts: Buffer[] = [this.rest];
      while (this.offset < size) {
        const buf = Buffer.alloc(Math.min(CHUNK, size - this.offset));
        const { bytesRead } = await fh.read(buf, 0, buf.length, this.offset);
        if (bytesRead <= 0) break;
        parts.push(buf.subarray(0, bytesRead));
        this.offset += bytesRead;
      }
      let all = Buffer.concat(parts);
      if (this.midLine) {
        const first = all.indexOf(0x0a);
        if (first < 0) {
          // no line ends in what was read yet: all of it is the skipped line's
          skipped += all.length;
          this.rest = Buffer.alloc(0);
          return { lines: [], reset: false, skipped };
        }
        skipped += first + 1;
        all = all.subarray(first + 1);
        this.midLine = false;
      }
      const end = all.lastIndexOf(0x0a);
      if (end < 0) {
        this.rest = Buffer.from(all);
        return { lines: [], reset: false, skipped };
      }
      this.rest = Buffer.from(all.subarray(end + 1));
      return { lines: all.subarray(0, end).toString('utf8').split('\n'), reset: false, skipped };
    } finally {
      await fh.close();
    }
  }
}
