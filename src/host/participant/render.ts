/** How rawr's own blocks look in the Chat view: attributed, quoted, never raw HTML. */
import type { Decision } from '../../core/engine/types';

/** Blockquote every line; model/packet text stays inert Markdown (the chat renderer strips HTML). */
export function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');
}

export const block = (title: string, body: string) => `\n\n${quote(`**${title}**\n\n${body}`)}\n\n`;

export function decisionLine(d: Decision): string {
  return `[rawr] ${d.action === 'none' ? 'not compacting' : d.action}: ${d.reason}`;
}

const k = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));
export const tokensText = (used: number, window: number) => `${k(used)} / ${k(window)} tokens`;
