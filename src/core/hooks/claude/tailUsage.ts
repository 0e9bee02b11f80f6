/**
 * The context Claude Code reported last, from the transcript's tail alone: what the steering hook
 * decides from while its follower is still reading a long session's history (steer.ts catchingUp).
 * Cheap and certain: one bounded read of the file's end, the newest main-thread model response with a
 * usage (its input, cache-read and cache-creation tokens: the importer's own sum, replay/import/claude.ts),
 * its message id (a new id = a new model response) and its model (the window, replay/windows.ts).
 */
import * as z from 'zod';
import { readTailBytes } from '../shared/readFrom';
import { newestRecords } from './newestRecords';
import { contextTokensOf } from '../../replay/import/schemas';

/** The tail searched for the newest usage (a response after a tool result of up to about this much). */
export const TAIL_USAGE_BYTES = 2 * 1024 * 1024;

export interface TailUsage {
  contextTokens: number;
  /** The response's message id. */
  id: string;
  model: string | null;
  /** When Claude Code wrote the response (its record's `timestamp`), if it says (steer.ts lostAnswerVerdict). */
  at?: string;
}

// Stricter than the importer's ClaudeAssistant (replay/import/schemas.ts): the id goes into the saved state,
// whose schema caps it (steerState.ts Previous.tail), and a negative count would lower the sum.
const Usage = z.object({
  input_tokens: z.number().nonnegative(),
  cache_read_input_tokens: z.number().nonnegative().nullish(),
  cache_creation_input_tokens: z.number().nonnegative().nullish(),
});
const Response = z.object({
  type: z.literal('assistant'),
  isSidechain: z.boolean().nullish(),
  timestamp: z.string().max(100).nullish(),
  message: z.object({ id: z.string().max(200), model: z.string().max(200).nullish(), usage: Usage }),
});

/** The newest main-thread model response's usage in the transcript's last `maxBytes`; null when there is none. */
export async function tailUsage(transcript: string, maxBytes = TAIL_USAGE_BYTES): Promise<TailUsage | null> {
  const { bytes, whole } = await readTailBytes(transcript, maxBytes);
  // The first line of a tail that starts inside the file may be cut.
  for (const rec of newestRecords(bytes.toString('utf8'), ['"assistant"', '"usage"'], !whole)) {
    const r = Response.safeParse(rec);
    if (!r.success || r.data.isSidechain) continue;
    const u = r.data.message.usage;
    const contextTokens = contextTokensOf(u);
    // 0: a synthetic record (an API error notice), not a model call (as the importer reads it).
    if (contextTokens > 0)
      return { contextTokens, id: r.data.message.id, model: r.data.message.model ?? null, ...(r.data.timestamp ? { at: r.data.timestamp } : {}) };
  }
  return null;
}
