/**
 * Did the compaction a PreCompact snapshot was taken for actually happen? PreCompact alone does not
 * say so: a `/compact` whose summary request fails, or an auto-compaction the agent abandons, fires
 * PreCompact and then nothing. The confirmations, any one of which is enough:
 *   - the PostCompact hook (only fired after a compaction that succeeded);
 *   - SessionStart with source `compact` (fired when the compacted session resumes);
 *   - a compaction record in the transcript after the snapshot: Claude Code's
 *     `{"type":"system","subtype":"compact_boundary"}`, Codex's top-level `compacted` record or its
 *     `event_msg` `item_completed` with a `ContextCompaction` item (older Codex: `context_compacted`).
 * The last one covers settings installed before the PostCompact hook existed, and a SessionStart hook
 * that was removed. See docs/ARCHITECTURE.md#claude-code-and-codex-hooks.
 */
import type { AgentId } from './store';
import { safeReadText } from '../../io/safeRead';
import { readTextFrom } from './readFrom';

/** Bytes read after the snapshot's offset: a compaction record comes within a few requests of it. */
const MAX_SCAN_BYTES = 32 * 1024 * 1024;

/** A transcript line that records a finished compaction, for `agent`. Pure. */
export function isCompactionRecord(agent: AgentId, raw: unknown): boolean {
  if (typeof raw !== 'object' || raw === null) return false;
  const r = raw as { type?: unknown; subtype?: unknown; payload?: { type?: unknown; item?: { type?: unknown } } };
  switch (agent) {
    case 'claude':
      return r.type === 'system' && r.subtype === 'compact_boundary';
    case 'codex':
      return (
        r.type === 'compacted' ||
        (r.type === 'event_msg' &&
          (r.payload?.type === 'context_compacted' || (r.payload?.type === 'item_completed' && r.payload.item?.type === 'ContextCompaction')))
      );
    default: {
      const _: never = agent;
      return _;
    }
  }
}

const HINTS: Record<AgentId, string[]> = { claude: ['compact_boundary'], codex: ['compacted', 'ContextCompaction'] };

/**
 * Whether `text` (JSON Lines) holds a compaction record; with `notBefore` (ms), only one whose
 * `timestamp` is at or after it. Pure.
 */
export function hasCompactionRecord(agent: AgentId, text: string, notBefore?: number): boolean {
  for (const line of text.split('\n')) {
    if (!HINTS[agent].some((h) => line.includes(h))) continue; // cheap filter before JSON.parse
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isCompactionRecord(agent, raw)) continue;
    if (notBefore === undefined) return true;
    const t = Date.parse(String((raw as { timestamp?: unknown }).timestamp));
    if (!Number.isNaN(t) && t >= notBefore) return true;
  }
  return false;
}

/**
 * Looks in the transcript for a compaction record written after the snapshot: from the byte offset the
 * snapshot recorded, or, when there is none or the file was replaced since, by the records' times.
 * False (never throws) when the transcript cannot be read.
 */
export async function transcriptConfirms(agent: AgentId, transcript: string, offset: number | undefined, takenAt: number): Promise<boolean> {
  try {
    if (offset !== undefined) {
      const r = await readTextFrom(transcript, offset, MAX_SCAN_BYTES);
      if (!r.shrank) return hasCompactionRecord(agent, r.text);
    }
    // Records carry ISO times in ms; a second of slack covers a snapshot taken in the same second.
    return hasCompactionRecord(agent, await safeReadText(transcript, { maxBytes: MAX_SCAN_BYTES, tail: true }), takenAt - 1000);
  } catch {
    return false;
  }
}
