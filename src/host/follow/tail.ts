/**
 * Bounded incremental reading of a file another program appends to (vscode-free): each `read` returns
 * at most `maxRead` bytes written since the last one, decoded as UTF-8 without splitting a character
 * (StringDecoder keeps a cut sequence for the next call). A file that shrank or was replaced (another
 * inode) is reported as `reset`: the caller starts over. Only regular files are read.
 */
import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { SAFE_READ_FLAGS } from '../../core/io/safeRead';

export class FileTail {
  private offset = 0;
  private decoder = new StringDecoder('utf8');
  private ino: number | null = null;

  constructor(
    readonly path: string,
    private readonly maxRead = 4 * 1024 * 1024,
  ) {}

  /** Bytes read so far. */
  get position(): number {
    return this.offset;
  }

  async read(): Promise<{ text: string; reset: boolean; more: boolean }> {
    const fh = await open(this.path, SAFE_READ_FLAGS); // non-blocking: a FIFO is refused below, not waited on
    try {
      const st = await fh.stat();
      if (!st.isFile()) throw new Error(`${this.path} is not a regular file`);
      if ((this.ino !== null && st.ino !== this.ino) || st.size < this.offset) {
        this.offset = 0;
        this.decoder = new StringDecoder('utf8');
        this.ino = st.ino;
        return { text: '', reset: true, more: st.size > 0 };
      }
      this.ino = st.ino;
      const n = Math.min(this.maxRead, st.size - this.offset);
      if (n <= 0) return { text: '', reset: false, more: false };
      const buf = Buffer.alloc(n);
      const { bytesRead } = await fh.read(buf, 0, n, this.offset);
      this.offset += bytesRead;
      return { text: this.decoder.write(buf.subarray(0, bytesRead)), reset: false, more: this.offset < st.size };
    } finally {
      await fh.close();
    }
  }
}
