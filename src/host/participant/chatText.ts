/**
 * How rawr's own lines look in the Chat view: attributed, quoted, never raw HTML, and short — the
 * default Chat pane is narrow. The model gets the full texts (heads-up, handoff); the chat shows each
 * golden-path step once, without the hard line breaks of the prompt files, and without repeating the
 * continuation packet the agent just streamed.
 */

/** Blockquote every line; model/packet text stays inert Markdown (the chat renderer strips HTML). */
export function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');
}

export const block = (title: string, body: string) => `\n\n${quote(`**${title}**\n\n${body}`)}\n\n`;

/** One of rawr's own remarks, in italics, attributed once. */
export function note(text: string): string {
  return `\n\n_${text.startsWith('[rawr]') ? '' : '[rawr] '}${text.trim()}_\n\n`;
}

const BLOCK_START = /^\s*(?:[-*+] |\d+[.)] |#|>|\||```|~~~)/;

/**
 * Joins the hard-wrapped lines of each paragraph (prompt files are wrapped at ~100 columns; the Chat view
 * shows every newline as a line break, so a sentence would break in the middle). Lists, headings, quotes,
 * tables and fenced code keep their lines.
 */
export function unwrap(text: string): string {
  const out: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    const fence = /^\s*(```|~~~)/.test(line);
    const prev = out.length ? out[out.length - 1]! : '';
    // A heading or a table row ends at its newline; a paragraph or list item continues on the next line.
    const join = !fenced && !fence && line.trim() !== '' && prev.trim() !== '' && !BLOCK_START.test(line) && !/^\s*(#|\||```|~~~)/.test(prev);
    if (join) out[out.length - 1] = `${prev.trimEnd()} ${line.trim()}`;
    else out.push(line);
    if (fence) fenced = !fenced;
  }
  return out.join('\n');
}

/** The heads-up as the chat shows it: without its marker (the block's title says who speaks), unwrapped. */
export function headsUpForChat(text: string): string {
  return unwrap(text.replace(/^\[rawr watcher → agent\]\s*/, ''));
}

/**
 * The handoff as the chat shows it: the recovery steps and the scratch file, with the packet replaced by
 * a pointer to where the chat already shows it (the agent streamed it, or rawr showed the watcher's).
 */
export function handoffForChat(text: string): string {
  const body = text
    .replace(/^\[rawr handoff\]\s*/, '')
    // "Here is the continuation packet you wrote …:" + the tagged packet → that line, pointing up.
    .replace(/:[ \t]*\n+[ \t]*<continuation-packet>[\s\S]*?<\/continuation-packet>/, ': _(shown above)_')
    .replace(/<continuation-packet>[\s\S]*?<\/continuation-packet>/, '_(the continuation packet shown above)_');
  return unwrap(body);
}
