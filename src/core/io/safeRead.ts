/**
 * The one way rawr reads a file it did not write itself in this process (prompt overrides, thread logs,
 * transcripts, plan files, hook state): a cloned repository is untrusted input, so a "file" may be a
 * symlink to /dev/zero, a FIFO that never delivers a byte, a directory, or a 10 GB blob.
 *
 * Rules (docs/ARCHITECTURE.md, "Robustness"):
 *  - open first, then fstat the open descriptor: the check is on what was actually opened (symlinks
 *    resolved by the kernel), so a swap between check and read cannot smuggle in another file;
 *  - opened with O_NONBLOCK, so opening a FIFO returns at once instead of waiting for a writer;
 *  - only a regular file is read; anything else is a SafeReadError naming what it is;
 *  - never more than `maxBytes` (+1 to notice a file that grew past the cap while being read);
 *  - text is UTF-8: a UTF-8 byte-order mark is dropped, a UTF-16/UTF-32 one is an error naming it.
 * The async functions never block the event loop (the extension host's). The Sync ones are for the
 * core process's synchronous arbiter and short-lived CLI processes, where the same caps bound the cost.
 */
import { constants, closeSync, fstatSync, openSync, promises as fsp, readSync, type Stats } from 'node:fs';

export type SafeReadProblem = 'not_found' | 'not_regular' | 'too_large' | 'encoding' | 'io';

export class SafeReadError extends Error {
  constructor(
    readonly problem: SafeReadProblem,
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'SafeReadError';
  }
}

export interface SafeReadOptions {
  /** Largest file read, in bytes. */
  maxBytes: number;
  /** Over the cap: read the last `maxBytes` bytes from the first line start in them instead of failing. */
  tail?: boolean;
}

/** Caps used across rawr (bytes). Prompts are hand-written; logs and transcripts hold whole sessions. */
export const MAX_PROMPT_BYTES = 256 * 1024;
export const MAX_LOG_BYTES = 256 * 1024 * 1024;
export const MAX_STATE_BYTES = 4 * 1024 * 1024;

// O_NONBLOCK does not exist on Windows (no FIFOs to hang on there); O_NOCTTY keeps a tty from becoming ours.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** What a non-regular file is, for the error message. */
export function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

const mib = (n: number) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(n % (1024 * 1024) ? 1 : 0)} MiB` : `${Math.ceil(n / 1024)} KiB`);

function openError(path: string, err: unknown): SafeReadError {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return new SafeReadError('not_found', path, `no such file: ${path}`);
  if (e.code === 'ELOOP') return new SafeReadError('not_regular', path, `${path}: too many levels of symbolic links`);
  return new SafeReadError('io', path, `${path}: cannot read (${e.code ?? e.message})`);
}

/** Checks an fstat result; returns where to start reading and how much. */
function plan(path: string, st: Stats, o: SafeReadOptions): { start: number; length: number; tail: boolean } {
  if (!st.isFile()) throw new SafeReadError('not_regular', path, `${path} is ${kindOf(st)}, not a regular file; rawr reads only regular files`);
  if (st.size <= o.maxBytes) return { start: 0, length: o.maxBytes + 1, tail: false };
  if (o.tail) return { start: st.size - o.maxBytes, length: o.maxBytes, tail: true };
  throw new SafeReadError('too_large', path, `${path} is ${mib(st.size)}, over rawr's ${mib(o.maxBytes)} limit for this file`);
}

/**
 * The first read's buffer: sized for the file as it is (+1 to notice growth), not for the cap (a search
 * reads thousands of small files; a hook's 32 MB cap on its state file, zeroed on every read, was most
 * of its garbage collection). A file that grows (or reports no size, as /proc files do) then gets the
 * full buffer (`full`).
 */
function firstBuffer(p: { tail: boolean }, st: Stats, full: number): Buffer {
  return Buffer.alloc(p.tail ? full : Math.min(full, st.size + 1));
}

function finish(path: string, buf: Buffer, n: number, o: SafeReadOptions, tail: boolean): Buffer {
  if (!tail && n > o.maxBytes) throw new SafeReadError('too_large', path, `${path} grew past rawr's ${mib(o.maxBytes)} limit while being read`);
  const got = buf.subarray(0, n);
  if (!tail) return got;
  const nl = got.indexOf(0x0a);
  return nl >= 0 ? got.subarray(nl + 1) : got;
}

/** One read the capped read asks for: `length` bytes at file `position` into `buf` from `offset`; answered with the bytes read. */
interface ReadRequest {
  buf: Buffer;
  offset: number;
  length: number;
  position: number;
}

/**
 * The checks and the capped read after the fstat, as the reads it needs: the async and the sync reader
 * each answer them with their own fs call, so the two cannot drift apart. Reads until the file ends or
 * the buffer is full; a full first buffer (sized for the file as it was) is grown once to `full`, so a
 * file that grew, or a /proc file that reports no size, is read up to the cap.
 */
function* cappedRead(path: string, st: Stats, o: SafeReadOptions): Generator<ReadRequest, Buffer, number> {
  const p = plan(path, st, o);
  const full = Math.min(p.length, o.maxBytes + 1);
  let buf = firstBuffer(p, st, full);
  let n = 0;
  for (;;) {
    while (n < buf.length) {
      const got = yield { buf, offset: n, length: buf.length - n, position: p.start + n };
      if (got === 0) break;
      n += got;
    }
    if (n < buf.length || buf.length === full) break;
    const bigger = Buffer.alloc(full);
    buf.copy(bigger, 0, 0, n);
    buf = bigger;
  }
  return finish(path, buf, n, o, p.tail);
}

/** Reads a regular file's bytes within the cap, without blocking the event loop. */
export async function safeReadBytes(path: string, o: SafeReadOptions): Promise<Buffer> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(path, OPEN_FLAGS);
  } catch (err) {
    throw openError(path, err);
  }
  try {
    return await readOpenFile(handle, path, o);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * The checks and the capped read of safeReadBytes on a file the caller opened itself (with O_NONBLOCK,
 * e.g. after checking where the descriptor points); the caller closes it.
 */
export async function readOpenFile(handle: fsp.FileHandle, path: string, o: SafeReadOptions): Promise<Buffer> {
  try {
    const reads = cappedRead(path, await handle.stat(), o);
    let step = reads.next();
    while (!step.done) {
      const r = step.value;
      step = reads.next((await handle.read(r.buf, r.offset, r.length, r.position)).bytesRead);
    }
    return step.value;
  } catch (err) {
    throw err instanceof SafeReadError ? err : openError(path, err);
  }
}

/** The flags safeReadBytes opens with (read-only, non-blocking: a FIFO cannot hang the open). */
export const SAFE_READ_FLAGS = OPEN_FLAGS;

/** Same checks and cap as safeReadBytes, synchronously (core process, CLI). */
export function safeReadBytesSync(path: string, o: SafeReadOptions): Buffer {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (err) {
    throw openError(path, err);
  }
  try {
    const reads = cappedRead(path, fstatSync(fd), o);
    let step = reads.next();
    while (!step.done) {
      const r = step.value;
      step = reads.next(readSync(fd, r.buf, r.offset, r.length, r.position));
    }
    return step.value;
  } catch (err) {
    throw err instanceof SafeReadError ? err : openError(path, err);
  } finally {
    closeSync(fd);
  }
}

/**
 * UTF-8 text of a file's bytes: a UTF-8 BOM is dropped; a UTF-16 or UTF-32 BOM is an error that names
 * the encoding (decoding it as UTF-8 would yield a string of NULs and garbage, reported line by line).
 */
export function decodeUtf8(path: string, buf: Buffer): string {
  const enc = bomEncoding(buf);
  if (enc === 'UTF-8') return buf.subarray(3).toString('utf8');
  if (enc) throw new SafeReadError('encoding', path, `${path} is ${enc} text; rawr reads UTF-8 — save it as UTF-8`);
  return buf.toString('utf8');
}

/** The encoding a byte-order mark at the start of `buf` announces, if any. */
export function bomEncoding(buf: Uint8Array): 'UTF-8' | 'UTF-16 LE' | 'UTF-16 BE' | 'UTF-32 LE' | 'UTF-32 BE' | undefined {
  const [a, b, c, d] = buf;
  if (a === 0xef && b === 0xbb && c === 0xbf) return 'UTF-8';
  if (a === 0xff && b === 0xfe) return c === 0 && d === 0 ? 'UTF-32 LE' : 'UTF-16 LE';
  if (a === 0xfe && b === 0xff) return 'UTF-16 BE';
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return 'UTF-32 BE';
  return undefined;
}

export async function safeReadText(path: string, o: SafeReadOptions): Promise<string> {
  return decodeUtf8(path, await safeReadBytes(path, o));
}

export function safeReadTextSync(path: string, o: SafeReadOptions): string {
  return decodeUtf8(path, safeReadBytesSync(path, o));
}

/** safeReadText, but a missing file is `undefined` (every other problem still throws). */
export async function safeReadTextIfExists(path: string, o: SafeReadOptions): Promise<string | undefined> {
  try {
    return await safeReadText(path, o);
  } catch (err) {
    if (err instanceof SafeReadError && err.problem === 'not_found') return undefined;
    throw err;
  }
}

export function safeReadTextIfExistsSync(path: string, o: SafeReadOptions): string | undefined {
  try {
    return safeReadTextSync(path, o);
  } catch (err) {
    if (err instanceof SafeReadError && err.problem === 'not_found') return undefined;
    throw err;
  }
}
