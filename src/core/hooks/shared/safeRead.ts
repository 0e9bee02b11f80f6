/**
 * Reading files a hook did not write (transcripts, plan files, settings, its own state, which a
 * repository may have replaced): only regular files, within a size cap, never blocking on a FIFO.
 *
 * The file is opened first (O_NONBLOCK, so opening a FIFO returns at once instead of waiting for a
 * writer) and then checked with fstat on that same descriptor, so the check is about the file that is
 * read (after symlinks are resolved), not about a path that could be swapped in between. Character
 * devices (`/dev/zero`), FIFOs, sockets and folders are refused with a clear message.
 */
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

export class NotRegularFileError extends Error {
  constructor(readonly file: string, readonly kind: string) {
    super(`${file} is not a regular file (${kind})`);
  }
}
export class TooLargeError extends Error {
  constructor(readonly file: string, readonly size: number, readonly max: number) {
    super(`${file} is larger than ${max} bytes (${size})`);
  }
}

const kindOf = (st: import('node:fs').Stats) =>
  st.isDirectory() ? 'a folder' : st.isCharacterDevice() ? 'a character device' : st.isBlockDevice() ? 'a block device'
    : st.isFIFO() ? 'a FIFO' : st.isSocket() ? 'a socket' : 'not a file';

async function openRegular(file: string): Promise<{ fh: FileHandle; size: number }> {
  // O_NONBLOCK only matters for the open itself (FIFOs); regular-file reads are never non-blocking.
  const fh = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new NotRegularFileError(file, kindOf(st));
    return { fh, size: st.size };
  } catch (err) {
    await fh.close();
    throw err;
  }
}

async function readRange(fh: FileHandle, start: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await fh.read(buf, got, length - got, start + got);
    if (bytesRead === 0) break; // the file shrank meanwhile
    got += bytesRead;
  }
  return buf.subarray(0, got);
}

/** The whole file as UTF-8; TooLargeError above `maxBytes`. */
export async function readRegularFile(file: string, maxBytes: number): Promise<string> {
  const { fh, size } = await openRegular(file);
  try {
    if (size > maxBytes) throw new TooLargeError(file, size, maxBytes);
    return (await readRange(fh, 0, size)).toString('utf8');
  } finally {
    await fh.close();
  }
}

/**
 * Up to `maxBytes` from byte `from` on (a position the caller recorded earlier, e.g. the size of an
 * append-only transcript). `shrank` when the file is now smaller than `from` (it was replaced).
 */
export async function readRegularFrom(file: string, from: number, maxBytes: number): Promise<{ text: string; size: number; shrank: boolean }> {
  const { fh, size } = await openRegular(file);
  try {
    if (size < from) return { text: '', size, shrank: true };
    return { text: (await readRange(fh, from, Math.min(maxBytes, size - from))).toString('utf8'), size, shrank: false };
  } finally {
    await fh.close();
  }
}

/** The last `maxBytes` of the file, starting after the first newline in them when the file was cut. */
export async function readRegularTail(file: string, maxBytes: number): Promise<{ text: string; size: number; cut: boolean }> {
  const { fh, size } = await openRegular(file);
  try {
    if (size <= maxBytes) return { text: (await readRange(fh, 0, size)).toString('utf8'), size, cut: false };
    const text = (await readRange(fh, size - maxBytes, maxBytes)).toString('utf8');
    return { text: text.slice(text.indexOf('\n') + 1), size, cut: true };
  } finally {
    await fh.close();
  }
}
