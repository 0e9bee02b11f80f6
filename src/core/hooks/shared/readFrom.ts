/**
 * Reading an append-only transcript from a byte offset the hook recorded earlier (the snapshot's
 * transcript size), with the same rules as every other read of a file rawr did not write
 * (src/core/io/safeRead.ts): opened non-blocking, checked with fstat on the open descriptor, only a
 * regular file, never more than `maxBytes`. The core's reader reads whole files or their tails; this is
 * the one read that starts at an offset.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type * as z from 'zod';
import { kindOf, SafeReadError } from '../../io/safeRead';

async function openRegular(file: string) {
  const fh = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0));
  const st = await fh.stat().catch(async (err: unknown) => {
    await fh.close();
    throw err;
  });
  if (!st.isFile()) {
    await fh.close();
    throw new SafeReadError('not_regular', file, `${file} is ${kindOf(st)}, not a regular file; rawr reads only regular files`);
  }
  return { fh, st };
}

/** The size of a regular file (the same checks as a read). */
export async function regularFileSize(file: string): Promise<number> {
  const { fh, st } = await openRegular(file);
  await fh.close();
  return st.size;
}

/** `length` bytes from `from` on (fewer if the file ends first). */
async function readRange(fh: Awaited<ReturnType<typeof openRegular>>['fh'], from: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  let n = 0;
  while (n < buf.length) {
    const { bytesRead } = await fh.read(buf, n, buf.length - n, from + n);
    if (bytesRead === 0) break;
    n += bytesRead;
  }
  return buf.subarray(0, n);
}

/** The last `maxBytes` of a regular file (one open), and whether that is the whole file. */
export async function readTailBytes(file: string, maxBytes: number): Promise<{ bytes: Buffer; whole: boolean }> {
  const { fh, st } = await openRegular(file);
  try {
    const from = Math.max(0, st.size - maxBytes);
    return { bytes: await readRange(fh, from, st.size - from), whole: from === 0 };
  } finally {
    await fh.close();
  }
}

/** Up to `maxBytes` from byte `from` on, as bytes; `shrank` when the file is now smaller than `from` (replaced). */
export async function readTextFromBytes(file: string, from: number, maxBytes: number): Promise<{ bytes: Buffer; size: number; shrank: boolean }> {
  const { fh, st } = await openRegular(file);
  try {
    if (st.size < from) return { bytes: Buffer.alloc(0), size: st.size, shrank: true };
    return { bytes: await readRange(fh, from, Math.min(maxBytes, st.size - from)), size: st.size, shrank: false };
  } finally {
    await fh.close();
  }
}

/** readTextFromBytes decoded as UTF-8. */
export async function readTextFrom(file: string, from: number, maxBytes: number): Promise<{ text: string; size: number; shrank: boolean }> {
  const r = await readTextFromBytes(file, from, maxBytes);
  return { text: r.bytes.toString('utf8'), size: r.size, shrank: r.shrank };
}

/**
 * The newest `max` records of a JSON-lines log rawr appends to (the hooks' steer-log.jsonl and
 * hook-log.jsonl), oldest first: only the last `tailBytes` are read (a bounded read of a regular file),
 * the first line of that tail is dropped when the read began inside the file (it may be cut), and lines
 * that do not parse or fail `schema` are skipped (a line cut by a concurrent write). No log, or not a
 * regular file: none.
 */
export async function jsonLinesTail<T>(file: string, schema: z.ZodType<T>, tailBytes: number, max: number): Promise<T[]> {
  let text: string;
  let from: number;
  try {
    const size = await regularFileSize(file);
    from = Math.max(0, size - tailBytes);
    text = (await readTextFrom(file, from, tailBytes)).text;
  } catch {
    return [];
  }
  const lines = text.split('\n');
  if (from > 0) lines.shift();
  const out: T[] = [];
  for (const line of lines) {
    if (!line.trim()) continue;
    try {
      const r = schema.safeParse(JSON.parse(line));
      if (r.success) out.push(r.data);
    } catch {
      /* not JSON: skipped */
    }
  }
  return out.slice(-max);
}
