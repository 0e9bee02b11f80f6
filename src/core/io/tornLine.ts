/** Whether an append-only log ends inside a line: what its writers check before they append. */
import { readSync } from 'node:fs';

/**
 * Whether the file of `size` bytes open at `fd` ends inside a line (its last byte is not a newline): a
 * writer died mid-write. Its next record must then start with a newline, or it is glued to the torn line
 * and lost with it to every reader.
 */
export function endsTorn(fd: number, size: number): boolean {
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] !== 0x0a;
}
