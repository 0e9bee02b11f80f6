/**
 * Reads a thread's append-only event log incrementally (vscode-free): each call returns the complete
 * lines written since the last one, so the panel never re-reads (or re-transfers) a long log. A torn last
 * line (a write in progress) is kept for the next call. The log is written by the core with one write(2)
 * per record on an O_APPEND descriptor (src/core/log/eventLog.ts), so complete lines are whole records.
 */
import { open } from 'node:fs/promises';

const CHUNK = 1 << 20;

export class LogTail {
  private offset = 0;
  private rest: Buffer = Buffer.alloc(0);

  constructor(readonly path: string) {}

  /** New complete lines; `reset` when the file shrank (replaced): the caller should start over. */
  async read(): Promise<{ lines: string[]; reset: boolean }> {
    let fh;
    try {
      fh = await open(this.path, 'r');
    } catch {
      return { lines: [], reset: false }; // no log yet
    }
    try {
      const { size } = await fh.stat();
      if (size < this.offset) {
        this.offset = 0;
        this.rest = Buffer.alloc(0);
        return { lines: [], reset: true };
      }
      const parts: Buffer[] = [this.rest];
      while (this.offset < size) {
        const buf = Buffer.alloc(Math.min(CHUNK, size - this.offset));
        const { bytesRead } = await fh.read(buf, 0, buf.length, this.offset);
        if (bytesRead <= 0) break;
        parts.push(buf.subarray(0, bytesRead));
        this.offset += bytesRead;
      }
      const all = Buffer.concat(parts);
      const end = all.lastIndexOf(0x0a);
      if (end < 0) {
        this.rest = all;
        return { lines: [], reset: false };
      }
      this.rest = Buffer.from(all.subarray(end + 1));
      return { lines: all.subarray(0, end).toString('utf8').split('\n'), reset: false };
    } finally {
      await fh.close();
    }
  }
}
