/**
 * Continuation packets as Markdown *data*, not HTML (vscode-free, unit-tested). The parsing is markdown-it's
 * (CommonMark with GFM tables, the most used JavaScript Markdown parser), with `html: false`, so raw HTML in
 * a packet is text; and its *renderer is never used*: its token stream is turned into blocks and inline
 * spans, which the webview turns into DOM nodes whose text is set with textContent only. A packet holding
 * `<script>` or `<img onerror=…>` therefore shows those characters and nothing else, whatever markdown-it
 * would have rendered. Links keep their target only when it is http(s) or mailto (the webview lets VS Code
 * open them outside); images show their alt text (a packet never loads anything).
 */
import MarkdownIt from 'markdown-it';
import type { Block, Inline } from './messages';

type Token = MarkdownIt.Token;

/** Longest text rendered: a packet is bounded by the packet deadline, but a log is untrusted input. */
const MAX_CHARS = 150_000;
/** Deepest list nesting shown as its own level (deeper items stay at this level). */
const MAX_LEVEL = 8;

// linkify off: a bare URL in a packet stays text (only an explicit [text](url) is a link).
const md = new MarkdownIt('default', { html: false, linkify: false, typographer: false });

const SAFE_HREF = /^(https?:\/\/|mailto:)/i;

export function parseMarkdown(source: string): Block[] {
  const src = source.length > MAX_CHARS ? `${source.slice(0, MAX_CHARS)}\n\n… [${source.length - MAX_CHARS} more characters]` : source;
  return toBlocks(md.parse(src, {}));
}

/** Inline spans of one line of Markdown (no blocks). */
export function parseInline(s: string): Inline[] {
  return inlineSpans(md.parseInline(s, {})[0]?.children ?? []);
}

/** Blocks from markdown-it's block tokens (a flat stream with _open/_close pairs). */
function toBlocks(tokens: Token[]): Block[] {
  const blocks: Block[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    switch (t.type) {
      case 'heading_open':
        blocks.push({ type: 'heading', level: Number(t.tag.slice(1)) || 1, inlines: inlineSpans(tokens[i + 1]?.children ?? []) });
        i = closing(tokens, i);
        break;
      case 'paragraph_open':
        blocks.push({ type: 'paragraph', inlines: inlineSpans(tokens[i + 1]?.children ?? []) });
        i = closing(tokens, i);
        break;
      case 'blockquote_open': {
        const end = closing(tokens, i);
        blocks.push({ type: 'quote', inlines: joinInlines(tokens.slice(i + 1, end).filter((x) => x.type === 'inline')) });
        i = end;
        break;
      }
      case 'bullet_list_open':
      case 'ordered_list_open': {
        const end = closing(tokens, i);
        const start = Number(t.attrGet('start') ?? 1);
        blocks.push({
          type: 'list',
          ordered: t.type === 'ordered_list_open',
          start: Number.isFinite(start) ? Math.min(Math.max(start, 0), 1_000_000) : 1,
          items: listItems(tokens.slice(i + 1, end)),
        });
        i = end;
        break;
      }
      case 'fence':
        blocks.push({ type: 'code', lang: (t.info.trim().split(/\s+/)[0] ?? '').slice(0, 40), text: t.content.replace(/\n$/, '') });
        break;
      case 'code_block':
        blocks.push({ type: 'code', lang: '', text: t.content.replace(/\n$/, '') });
        break;
      case 'hr':
        blocks.push({ type: 'rule' });
        break;
      case 'table_open': {
        const end = closing(tokens, i);
        blocks.push(table(tokens.slice(i + 1, end)));
        i = end;
        break;
      }
      default:
        break; // html_block cannot occur (html: false); anything else has no block of its own
    }
  }
  return blocks;
}

/** Index of the token that closes the one at `i` (same nesting level, `_close`). */
function closing(tokens: Token[], i: number): number {
  const open = tokens[i]!;
  const type = open.type.replace(/_open$/, '_close');
  for (let j = i + 1; j < tokens.length; j++) if (tokens[j]!.type === type && tokens[j]!.level === open.level) return j;
  return tokens.length - 1;
}

/** List items, nested lists flattened into levels (the webview indents by level). */
function listItems(tokens: Token[]): Array<{ level: number; inlines: Inline[] }> {
  const items: Array<{ level: number; inlines: Inline[] }> = [];
  let depth = 0;
  let current: Part[] | undefined;
  const flush = (level: number) => {
    if (current) items.push({ level: Math.min(level, MAX_LEVEL), inlines: joinInlines(current) });
    current = undefined;
  };
  for (const t of tokens) {
    if (t.type === 'bullet_list_open' || t.type === 'ordered_list_open') {
      flush(depth);
      depth++;
    } else if (t.type === 'bullet_list_close' || t.type === 'ordered_list_close') {
      flush(depth);
      depth--;
    } else if (t.type === 'list_item_open') {
      flush(depth);
      current = [];
    } else if (t.type === 'inline') (current ??= []).push(t);
    else if (t.type === 'fence' || t.type === 'code_block')
      (current ??= []).push(t.content.replace(/\n$/, '')); // code in an item: a code span
    else if (t.type === 'list_item_close') flush(depth);
  }
  flush(depth);
  return items;
}

/** What a list item or a quote holds: paragraphs (inline tokens) and code (its text). */
type Part = Token | string;

/** The inline spans of an item's or a quote's parts, one space between them. */
function joinInlines(parts: Part[]): Inline[] {
  const out: Inline[] = [];
  parts.forEach((t, k) => {
    if (k > 0) push(out, 'text', ' ');
    if (typeof t === 'string') push(out, 'code', t);
    else for (const x of inlineSpans(t.children ?? [])) push(out, x.t, x.v, x.href);
  });
  return out;
}

/** A GFM table: header cells, column alignment, body rows. */
function table(tokens: Token[]): Block {
  const header: Inline[][] = [];
  const align: Array<'left' | 'center' | 'right' | null> = [];
  const rows: Inline[][][] = [];
  let inHead = false;
  let row: Inline[][] | undefined;
  for (const t of tokens) {
    if (t.type === 'thead_open') inHead = true;
    else if (t.type === 'thead_close') inHead = false;
    else if (t.type === 'tr_open') row = [];
    else if (t.type === 'tr_close' && row && !inHead) rows.push(row);
    else if (t.type === 'th_open' || t.type === 'td_open') {
      if (inHead) {
        const a = /text-align:(left|center|right)/.exec(t.attrGet('style') ?? '')?.[1];
        align.push((a as 'left' | 'center' | 'right' | undefined) ?? null);
      }
    } else if (t.type === 'inline') {
      const cell = inlineSpans(t.children ?? []);
      if (inHead) header.push(cell);
      else row?.push(cell);
    }
  }
  return { type: 'table', header, align, rows };
}

/** Appends a span, merging adjacent text (and adjacent spans of the same kind with the same target). */
function push(out: Inline[], t: Inline['t'], v: string, href?: string): void {
  if (!v) return;
  const last = out[out.length - 1];
  if (last && last.t === t && last.href === href && (t === 'text' || t === 'bold' || t === 'italic')) last.v += v;
  else out.push(href === undefined ? { t, v } : { t, v, href });
}

/**
 * markdown-it's inline tokens → spans. Emphasis does not nest in a span: text inside **…** is bold, inside
 * *…* italic (the outer one wins), inside a link a link; code is code. Line breaks are spaces.
 */
function inlineSpans(children: Token[]): Inline[] {
  const out: Inline[] = [];
  let bold = 0;
  let italic = 0;
  let link: string | null | undefined; // undefined: not in a link; null: a link whose target is not shown
  for (const c of children) {
    switch (c.type) {
      case 'strong_open':
        bold++;
        break;
      case 'strong_close':
        bold--;
        break;
      case 'em_open':
        italic++;
        break;
      case 'em_close':
        italic--;
        break;
      case 'link_open': {
        const href = c.attrGet('href') ?? '';
        link = SAFE_HREF.test(href) ? href : null;
        break;
      }
      case 'link_close':
        link = undefined;
        break;
      case 'code_inline':
        push(out, 'code', c.content);
        break;
      case 'softbreak':
      case 'hardbreak':
        push(out, 'text', ' ');
        break;
      case 'image':
      case 'text':
      default: {
        const v = c.type === 'image' ? c.content || (c.children ?? []).map((x) => x.content).join('') : c.content;
        if (typeof link === 'string') push(out, 'link', v, link);
        else push(out, bold ? 'bold' : italic ? 'italic' : 'text', v);
      }
    }
  }
  return out;
}

/** The plain text of blocks (tests, accessibility labels). */
export function blocksText(blocks: readonly Block[]): string {
  const inl = (xs: readonly Inline[]) => xs.map((x) => x.v).join('');
  return blocks
    .map((b) => {
      switch (b.type) {
        case 'heading':
        case 'paragraph':
        case 'quote':
          return inl(b.inlines);
        case 'list':
          return b.items.map((it) => inl(it.inlines)).join('\n');
        case 'code':
          return b.text;
        case 'rule':
          return '';
        case 'table':
          return [b.header, ...b.rows].map((r) => r.map(inl).join(' | ')).join('\n');
      }
    })
    .join('\n');
}
