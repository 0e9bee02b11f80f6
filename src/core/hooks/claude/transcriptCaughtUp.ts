/**
 * Claude Code asks PreCompact right before a model request, but writes the transcript behind itself:
 * measured with the real CLI (2.1.332, the real-agent tier), the previous tool call's result can still
 * be missing from the file when a hook that answers in ~100 ms reads it. The request being prepared
 * carries that result, so a transcript whose newest record is a response with a tool call has not caught
 * up yet. The steering hook waits for it (a few polls, a bounded time) before it decides: the decision
 * at that point is the one `rawr replay` makes there, and a boundary (the commit whose result is late)
 * must not pass unseen.
 */
import { readTailBytes } from '../shared/readFrom';

/** How far back the newest record is looked for first, then at most (a response with a large tool input). */
const FIRST_BYTES = 64 * 1024;
const MAX_BYTES = 1024 * 1024;
export const POLL_MS = 20;
/** Claude Code wrote within ~100 ms in the tier's runs; a transcript that never catches up costs this once. */
export const MAX_WAIT_MS = 600;

/** True when the newest complete record is an assistant response holding a tool call, or a record is half written. */
export async function awaitsToolResult(transcript: string): Promise<boolean> {
  let { bytes, whole } = await readTailBytes(transcript, FIRST_BYTES);
  if (bytes.length === 0) return false;
  // A record without its newline yet: Claude Code is writing.
  if (bytes[bytes.length - 1] !== 0x0a) return true;
  let start = bytes.lastIndexOf(0x0a, bytes.length - 2) + 1;
  if (start === 0 && !whole) {
    ({ bytes, whole } = await readTailBytes(transcript, MAX_BYTES));
    start = bytes.lastIndexOf(0x0a, bytes.length - 2) + 1;
    if (start === 0 && !whole) return false; // a record larger than that is not one to wait on
  }
  try {
    const rec = JSON.parse(bytes.subarray(start).toString('utf8')) as { type?: unknown; message?: { content?: unknown } };
    if (rec.type !== 'assistant' || !Array.isArray(rec.message?.content)) return false;
    return rec.message.content.some((b) => typeof b === 'object' && b !== null && (b as { type?: unknown }).type === 'tool_use');
  } catch {
    return false;
  }
}

/**
 * Checks `done`, then again every POLL_MS, until it is true or `maxWaitMs` passed; the milliseconds waited.
 * The last poll is checked too: what was written while it slept is not left unseen.
 */
export async function pollUntil(done: () => Promise<boolean>, maxWaitMs = MAX_WAIT_MS): Promise<number> {
  const start = Date.now();
  while (!(await done()) && Date.now() - start < maxWaitMs) await new Promise((r) => setTimeout(r, POLL_MS));
  return Date.now() - start;
}

/** Waits (polling) until the transcript has caught up or MAX_WAIT_MS passed; the milliseconds waited. */
export async function waitForTranscript(transcript: string, maxWaitMs = MAX_WAIT_MS): Promise<number> {
  // A missing or unreadable transcript ends the wait: it is the caller's to report.
  return pollUntil(
    () =>
      awaitsToolResult(transcript).then(
        (behind) => !behind,
        () => true,
      ),
    maxWaitMs,
  );
}
