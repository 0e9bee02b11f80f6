/**
 * Claude Code asks PreCompact right before a model request, but writes the transcript behind itself:
 * measured with the real CLI (2.1.332, the real-agent tier), the previous tool call's result can still
 * be missing from the file when a hook that answers in ~100 ms reads it. The request being prepared
 * carries that result, so a transcript whose newest record is a response with a tool call has not caught
 * up yet. The steering hook waits for it (a few polls, a bounded time) before it decides: the decision
 * at that point is the one `rawr replay` makes there, and a boundary (the commit whose result is late)
 * must not pass unseen. The same holds one step earlier for the PostToolUse hook (steer.ts steerAtTool):
 * the response that made the tool call can still be missing when it reads (waitForToolCall).
 */
import { readTailBytes } from '../shared/readFrom';
import { newestRecords } from './newestRecords';

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
    return holdsToolUse(JSON.parse(bytes.subarray(start).toString('utf8')));
  } catch {
    return false;
  }
}

/** Whether `rec` is a model response holding a tool call (of id `toolUseId`, when given). */
function holdsToolUse(rec: unknown, toolUseId?: string): boolean {
  const r = rec as { type?: unknown; message?: { content?: unknown } } | null;
  const content = r?.message?.content;
  if (r?.type !== 'assistant' || !Array.isArray(content)) return false;
  return content.some((b: unknown) => {
    const block = b as { type?: unknown; id?: unknown } | null;
    return typeof block === 'object' && block !== null && block.type === 'tool_use' && (toolUseId === undefined || block.id === toolUseId);
  });
}

/**
 * True when the transcript's tail holds the model response that made tool call `toolUseId` (a record
 * whose content has that `tool_use`): the PostToolUse hook is run before Claude Code writes the call's
 * result, and, on a loaded machine, before it has written the response that made the call (measured,
 * 2.1.332: a CI run whose commit's hook read the transcript ~60 ms after the response, without it).
 * Searched in the last 64 KB, then in the last 1 MB (a response with large tool inputs after it).
 */
export async function holdsToolCall(transcript: string, toolUseId: string): Promise<boolean> {
  const needle = JSON.stringify(toolUseId);
  for (const max of [FIRST_BYTES, MAX_BYTES]) {
    const { bytes, whole } = await readTailBytes(transcript, max);
    for (const rec of newestRecords(bytes.toString('utf8'), ['"tool_use"', needle], !whole)) if (holdsToolUse(rec, toolUseId)) return true;
    if (whole) return false;
  }
  return false;
}

/** Waits (polling) until the transcript holds tool call `toolUseId` (holdsToolCall) or `maxWaitMs` passed; the milliseconds waited. */
export async function waitForToolCall(transcript: string, toolUseId: string, maxWaitMs = MAX_WAIT_MS): Promise<number> {
  // A missing or unreadable transcript ends the wait: it is the caller's to report.
  return pollUntil(() => holdsToolCall(transcript, toolUseId).catch(() => true), maxWaitMs);
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
