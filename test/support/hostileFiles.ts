/**
 * What a cloned repository can put where rawr expects a small text file, and how a test waits on a read
 * of it without hanging itself: a FIFO no one writes to blocks a plain open(2) for ever (a blocked
 * thread-pool thread even keeps mocha from exiting), so a read under test is raced against a generous
 * guard and any reader still stuck is let go afterwards.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';

export const posix = process.platform !== 'win32';

export function mkfifo(file: string): void {
  execFileSync('mkfifo', [file]);
}

/**
 * Lets go of a reader stuck opening `fifo` (code that does not open non-blocking): its write end opened
 * and closed at once, so the reader's open returns and its read sees the end of the file. With no reader
 * waiting the open fails (ENXIO): nothing to let go.
 */
export function releaseFifo(fifo: string): void {
  try {
    fs.closeSync(fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
  } catch {
    /* no reader waiting */
  }
}

/** Far above any read of a small file: reaching it means the read hangs (a hang test, not a speed test). */
export const HANG_GUARD_MS = 20_000;

/** `p`'s value, or the marker HUNG when it has not settled by the guard (a rejection is passed on). */
export const HUNG = Symbol('hung');
export async function unlessHung<T>(p: Promise<T>, guardMs = HANG_GUARD_MS): Promise<T | typeof HUNG> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<typeof HUNG>((resolve) => (timer = setTimeout(() => resolve(HUNG), guardMs)));
  try {
    return await Promise.race([p, guard]);
  } finally {
    clearTimeout(timer);
  }
}
