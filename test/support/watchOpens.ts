/** Counting this process's opens of one file: a test's "once the hook has looked" without a fixed sleep. */
import { createRequire } from 'node:module';

/**
 * Counts this process's opens of `file`: a hook run in-process opens the transcript for every read
 * (src/core/hooks/shared/readFrom.ts), so a test can write "once the hook is waiting" — a condition —
 * instead of after a fixed sleep that a slow machine turns into "before the hook read".
 */
export function watchOpens(file: string): { readonly count: number; stop(): void } {
  const fsp = createRequire(__filename)('node:fs/promises') as { open: (f: unknown, ...rest: unknown[]) => Promise<unknown> };
  const real = fsp.open;
  let count = 0;
  fsp.open = (f, ...rest) => {
    if (f === file) count++;
    return real(f, ...rest);
  };
  return {
    get count() {
      return count;
    },
    stop: () => void (fsp.open = real),
  };
}
