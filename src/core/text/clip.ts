/** The one way rawr shortens a text for a log line, a prompt, a packet or the panel. */

export interface ClipOptions {
  /** What follows the kept characters of a cut text; default `…`. Given the number of characters cut. */
  marker?: (omitted: number) => string;
  /** The result, `…` included, is at most `max` characters (fixed-width places such as the panel). */
  total?: boolean;
  /**
   * The length of the original when `text` is itself already a clip of it (the trail keeps a bounded
   * copy): the marker counts what was cut from the original, not from the copy.
   */
  length?: number;
}

/**
 * `text` unchanged when it has at most `max` characters; otherwise its first `max` characters and a
 * marker saying it was cut (`…`, or e.g. `… [1200 more characters]` with a `marker`).
 */
export function clip(text: string, max: number, opts: ClipOptions = {}): string {
  if (text.length <= max) return text;
  if (opts.total) return `${text.slice(0, Math.max(0, max - 1))}…`;
  return `${text.slice(0, max)}${opts.marker ? opts.marker(Math.max(opts.length ?? 0, text.length) - max) : '…'}`;
}

/** A marker naming how much was cut: `… [N more characters]`. */
export const moreCharacters = (omitted: number) => `… [${omitted} more characters]`;
