/**
 * Recognise a transcript's format from its first records, and import it.
 * Pure: no I/O, no vscode.
 */
import type { Recording, RecordingFormat } from '../recording';
import { importClaude } from './claude';
import { importCodex } from './codex';
import type { LineSource } from './schemas';

/** How many non-blank lines to look at: the first record is enough for every file seen so far. */
const SNIFF_LINES = 20;

const CODEX_TYPES = new Set(['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted']);
const CLAUDE_TYPES = new Set(['user', 'assistant', 'system', 'progress', 'file-history-snapshot', 'queue-operation', 'summary']);

/** Format of one parsed record, or null if it says nothing. */
function formatOf(rec: unknown): RecordingFormat | null {
  if (typeof rec !== 'object' || rec === null || Array.isArray(rec)) return null;
  const r = rec as Record<string, unknown>;
  if (r.rawr === 1) return 'rawr';
  if (typeof r.type !== 'string') return null;
  // Codex wraps everything as {timestamp, type, payload}; Claude records never have `payload`.
  if ('payload' in r && CODEX_TYPES.has(r.type)) return 'codex';
  if (CLAUDE_TYPES.has(r.type) && ('uuid' in r || 'sessionId' in r || 'message' in r || 'messageId' in r || 'leafUuid' in r)) return 'claude';
  return null;
}

/**
 * 'claude' | 'codex' | 'rawr' from the first recognisable record among the first SNIFF_LINES
 * non-blank lines (bad lines are passed over); null if none is recognisable.
 * Reads only the head of the text: no split of a 10 MB file.
 */
export function detectFormat(text: string): RecordingFormat | null {
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a UTF-8 byte-order mark is not part of line 1
  let seen = 0;
  while (start < text.length && seen < SNIFF_LINES) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const raw = text.slice(start, end).trim();
    start = end + 1;
    if (raw === '') continue;
    seen++;
    let rec: unknown;
    try {
      rec = JSON.parse(raw);
    } catch {
      continue;
    }
    const f = formatOf(rec);
    if (f) return f;
  }
  return null;
}

/**
 * Import a Claude Code or Codex transcript (format detected unless given).
 * Throws only for a whole-file issue: unrecognisable format, or a rawr log (its own importer).
 */
export function importRecording(text: LineSource, format?: RecordingFormat): Recording {
  const f = format ?? (typeof text === 'string' ? detectFormat(text) : null);
  switch (f) {
    case 'claude':
      return importClaude(text);
    case 'codex':
      return importCodex(text);
    case 'rawr':
      throw new Error('rawr logs are handled by the rawr log importer, not importRecording');
    case null:
      throw new Error('unrecognised transcript: expected Claude Code or Codex JSON Lines');
    default: {
      const unknown: never = f;
      throw new Error(`unknown format ${String(unknown)}`);
    }
  }
}
