/**
 * The normalized shape every importer (Claude Code, Codex, rawr log) produces for `rawr replay`.
 * One item per meaningful record; `line` is the 1-based line of the source file it came from.
 * The replay driver turns these into arbiter events (evaluation points, signals, token usage).
 */

export type RecordingFormat = 'claude' | 'codex' | 'rawr';

export type RecordingItem =
  /** A prompt typed by the person (not tool results, not injected context/meta records). */
  | { type: 'user_prompt'; line: number; at: number; text: string }
  /** Assistant visible text (one item per API response / message, already deduplicated). */
  | { type: 'assistant_text'; line: number; at: number; text: string }
  /** A tool call. `input` is the parsed arguments object (Codex's JSON-string arguments parsed). */
  | { type: 'tool_call'; line: number; at: number; id: string; name: string; input: unknown }
  /** A tool result. `exitCode` when the recording states one (shell tools). */
  | { type: 'tool_result'; line: number; at: number; id: string; output: string; isError: boolean; exitCode?: number }
  /**
   * Live context size as reported by the recording after a model call
   * (Claude: input + cache_read + cache_creation; Codex: last_token_usage.input_tokens).
   */
  | { type: 'usage'; line: number; at: number; contextTokens: number; window?: number }
  /** The recorded tool compacted by itself. */
  | {
      type: 'native_compaction';
      line: number;
      at: number;
      trigger: 'auto' | 'manual' | 'unknown';
      preTokens?: number;
      /** Claude Code's own size of the context the compaction left (2.1.332 records it for automatic ones). */
      postTokens?: number;
    }
  /** Plan as written by TodoWrite / update_plan (normalized statuses). */
  | { type: 'plan'; line: number; at: number; steps: Array<{ text: string; status: 'pending' | 'in_progress' | 'completed' }> };

export interface Recording {
  format: RecordingFormat;
  /** Context window in tokens if the recording states it (Codex model_context_window); else undefined. */
  window?: number;
  /**
   * Models of the main thread's model calls, most calls first (Claude: message.model per API response,
   * subagents excluded; Codex: turn_context.model per model call). Absent when none is named.
   */
  models?: Array<{ name: string; calls: number }>;
  /** Total lines of the source file. */
  lines: number;
  items: RecordingItem[];
  /** Lines that could not be parsed: reported, never fatal. */
  problems: Array<{ line: number; message: string }>;
}

/**
 * An importer fed one parsed record at a time (the file's reading layer owns the lines): `importX(text)`
 * runs it over a whole file, and the panel's live follow feeds it the lines appended since its last
 * read. `items` is only appended to while records arrive, so a reader can take the new tail; the
 * streaming replay (stream.ts) instead removes the settled items with `take` as it goes, so the
 * importer holds only the few a later record may still change.
 */
export interface RecordImporter {
  readonly format: RecordingFormat;
  readonly items: RecordingItem[];
  readonly problems: Array<{ line: number; message: string }>;
  /** One record (a parsed JSON line) with its 1-based line number. */
  onRecord(record: unknown, line: number): void;
  /**
   * Removes and returns the items no later record can change, oldest first (`final`: the file ended,
   * all of them). Claude Code splits one API response over several records and its text blocks are
   * merged into one item, so that item waits until the response is over.
   */
  take(final?: boolean): RecordingItem[];
  /** What the records so far say about the window and the models (see windows.ts). */
  meta(): { window?: number; models?: Array<{ name: string; calls: number }> };
  /** The recording of a whole file of `lines` lines (may complete what only the end can settle). */
  finish(lines: number): Recording;
  /**
   * Everything the importer holds, as plain JSON, so the next process goes on where this one stopped
   * (the Claude Code hooks read only a transcript's new tail: src/core/hooks/claude/steerState.ts).
   * Absent for importers that are never resumed.
   */
  save?(): unknown;
}
