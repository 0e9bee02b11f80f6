/**
 * Line-by-line reading of a JSON Lines file of any size (transcripts, thread logs) with memory bounded
 * by the longest line allowed, not by the file: a 1 GB transcript is read 1 MiB at a time. The file is
 * opened like safeRead does (regular files only, checked on the open descriptor; FIFOs do not hang).
 * A line longer than `maxLineBytes` is not kept: it is reported as `tooLong` (with its length) and the
 * reader resynchronises at the next newline. Synchronous on purpose: the importers and the replay driver
 * are pure synchronous code, and the callers (the CLI, the core process) are not the extension host.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { bomEncoding, kindOf, SafeReadError } from './safeRead';

/** One line: its text, or (too long) its length in bytes. `unterminated`: the file's last line, with no newline (a torn write?). */
export type RawLine = (
  { line: number; text: string; tooLong?: undefined; unterminated?: boolean } | { line: number; text?: undefined; tooLong: number; unterminated?: boolean }
) & {
  /** Where the line starts in the file, and its length in bytes without its newline (file reads only). */
  offset?: number;
  bytes?: number;
};

export interface LineReadOptions {
  /** Longest line kept, in bytes (default 32 MiB: a transcript line can carry a pasted image). */
  maxLineBytes?: number;
  /** Read size (default 1 MiB). */
  chunkBytes?: number;
  /** Byte offset to start at (a line start: the records after a checkpoint); line numbers count from it. */
  from?: number;
}

export const DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024;
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** Opens `path` for line reading; throws a SafeReadError for a missing, non-regular or UTF-16 file. */
export function openLines(path: string, o: LineReadOptions = {}): { size: number; lines(): Generator<RawLine> } {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT' || e.code === 'ENOTDIR') throw new SafeReadError('not_found', path, `no such file: ${path}`);
    throw new SafeReadError('io', path, `${path}: cannot read (${e.code ?? e.message})`);
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw new SafeReadError('not_regular', path, `${path} is ${kindOf(st)}, not a regular file; rawr reads only regular files`);
  }
  const head = Buffer.alloc(4);
  const headLength = readSync(fd, head, 0, 4, 0);
  const enc = bomEncoding(head.subarray(0, headLength));
  if (enc && enc !== 'UTF-8') {
    closeSync(fd);
    throw new SafeReadError('encoding', path, `${path} is ${enc} text; rawr reads UTF-8 — save it as UTF-8`);
  }
  const skip = enc === 'UTF-8' ? 3 : 0;
  let used = false;
  return {
    size: st.size,
    // The splitter itself, not a generator around it: one resume and one result object less per line.
    lines() {
      if (used) throw new Error('openLines: lines() can be iterated once; open the file again');
      used = true;
      return splitLines(fd, Math.max(skip, o.from ?? 0), o.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, o.chunkBytes ?? 1024 * 1024);
    },
  };
}

/** The lines of the open file `fd` from byte `start`; the file is closed when they end (read to the end, or left). */
function* splitLines(fd: number, start: number, maxLine: number, chunkBytes: number): Generator<RawLine> {
  try {
    const chunk = Buffer.alloc(chunkBytes);
    let pos = start;
    let parts: Buffer[] = [];
    let partBytes = 0;
    let overflow = 0; // bytes of the current line beyond what was kept (the line is too long)
    let line = 0;
    let lineStart = start; // byte offset of the line being gathered
    const emit = (end: number, unterminated = false): RawLine => {
      line++;
      const offset = lineStart;
      lineStart = end + 1;
      if (overflow > 0) {
        const r: RawLine = { line, tooLong: partBytes + overflow, offset, bytes: end - offset, ...(unterminated ? { unterminated } : {}) };
        parts = [];
        partBytes = 0;
        overflow = 0;
        return r;
      }
      let buf = parts.length === 1 ? parts[0]! : Buffer.concat(parts, partBytes);
      if (buf.length > 0 && buf[buf.length - 1] === 0x0d) buf = buf.subarray(0, buf.length - 1);
      parts = [];
      partBytes = 0;
      return { line, text: buf.toString('utf8'), offset, bytes: end - offset, ...(unterminated ? { unterminated } : {}) };
    };
    const keep = (piece: Buffer) => {
      if (overflow > 0 || partBytes + piece.length > maxLine) {
        overflow += piece.length;
        return;
      }
      // Copied: `chunk` is reused for the next read.
      parts.push(Buffer.from(piece));
      partBytes += piece.length;
    };
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, pos);
      if (n === 0) break;
      const base = pos;
      pos += n;
      let from = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, from);
        if (nl < 0 || nl >= n) {
          keep(chunk.subarray(from, n));
          break;
        }
        if (partBytes === 0 && overflow === 0 && nl - from <= maxLine) {
          // The whole line is in this chunk (the common case): decoded from it, with no copy.
          line++;
          const end = nl > from && chunk[nl - 1] === 0x0d ? nl - 1 : nl;
          lineStart = base + nl + 1;
          yield { line, text: chunk.toString('utf8', from, end), offset: base + from, bytes: nl - from };
        } else {
          keep(chunk.subarray(from, nl));
          yield emit(base + nl);
        }
        from = nl + 1;
      }
    }
    if (partBytes > 0 || overflow > 0) yield emit(pos, true);
  } finally {
    closeSync(fd);
  }
}

/** Lines of an in-memory text, in the same shape (tests, and callers that already hold a string). */
export function* linesOfText(text: string): Generator<RawLine> {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let start = 0;
  let line = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    line++;
    let raw = text.slice(start, end);
    if (raw.endsWith('\r')) raw = raw.slice(0, -1);
    const unterminated = end === text.length;
    start = end + 1;
    yield unterminated ? { line, text: raw, unterminated } : { line, text: raw };
  }
}
