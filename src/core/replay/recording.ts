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
  | { type: 'native_compaction'; line: number; at: number; trigger: 'auto' | 'manual' | 'unknown'; preTokens?: number }
  /** Plan as written by TodoWrite / update_plan (normalized statuses). */
  | { type: 'plan'; line: number; at: number; steps: Array<{ text: string; status: 'pending' | 'in_progress' | 'completed' }> };

export interface Recording {
  format: RecordingFormat;
  /** Context window in tokens if the recording states it (Codex model_context_window); else undefined. */
  window?: number;
  /** Total lines of the source file. */
  lines: number;
  items: RecordingItem[];
  /** Lines that could not be parsed: reported, never fatal. */
  problems: Array<{ line: number; message: string }>;
}
