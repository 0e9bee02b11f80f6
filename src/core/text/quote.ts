/**
 * Quoting untrusted text (tool output, file contents, a model's own words) into the texts rawr builds
 * for the model: a watcher packet, the handoff's <continuation-packet>, the summary request's
 * <transcript>. Quoted text must not be able to end its container or speak with rawr's voice:
 *  - a Markdown code fence is longer than any backtick run inside the text, so nothing inside closes it;
 *  - rawr's container tags (<continuation-packet>, <transcript>) inside the text are escaped (&lt;…);
 *  - rawr's markers ("[rawr …]" block labels, "CONTEXT COMPACTION DETECTED") are marked as quoted;
 *  - in a transcript, a line that starts like a turn label ("[user]", "[assistant]", "[tool result …]")
 *    is escaped, so file contents cannot forge a turn.
 * See docs/ARCHITECTURE.md ("Robustness").
 */

/** Tags rawr wraps quoted text in; the text must never open or close one of them. */
export const CONTAINER_TAGS = ['continuation-packet', 'transcript'] as const;

/** Longest run of consecutive backticks in `text`. */
export function longestBacktickRun(text: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 96) {
      run++;
      if (run > longest) longest = run;
    } else run = 0;
  }
  return longest;
}

/** `text` in a Markdown code fence that nothing inside it can close (at least three backticks). */
export function fenced(text: string, info = ''): string {
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
  return `${fence}${info}\n${text}\n${fence}`;
}

const TAG = new RegExp(`<(\\s*/?\\s*)(${CONTAINER_TAGS.join('|')})\\b`, 'gi');
const RAWR_LABEL = /\[(\s*)rawr\b/gi;
const COMPACTION_MARKER = /CONTEXT\s+COMPACTION\s+DETECTED/gi;

/**
 * Neutralises rawr's container tags and markers inside untrusted text, visibly (a reader, human or
 * model, sees that something was quoted; no marker string survives to be matched).
 */
export function defang(text: string): string {
  return text
    .replace(TAG, (_m, slash: string, tag: string) => `&lt;${slash}${tag}`)
    .replace(RAWR_LABEL, (_m, space: string) => `[quoted:${space}rawr`)
    .replace(COMPACTION_MARKER, '(quoted) context-compaction-detected');
}

/** Untrusted text for inside a code fence: defanged, then fenced. */
export function quoteBlock(text: string, info = ''): string {
  return fenced(defang(text), info);
}

const TURN_LABEL = /^(\s*)\[(user|assistant|tool\b)/gim;

/** A message's text for a rendered transcript: defanged, and no line can pose as a turn label. */
export function quoteTurnText(text: string): string {
  return defang(text).replace(TURN_LABEL, (_m, space: string, label: string) => `${space}\\[${label}`);
}
