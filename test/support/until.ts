/** Polling waits for tests that watch real processes and files (no clock to advance there). */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Resolves once `ok()` holds; throws "timed out waiting for <what>" after `ms`. */
export async function until(what: string, ok: () => boolean, ms = 10_000, pollMs = 20): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(pollMs);
  }
}
