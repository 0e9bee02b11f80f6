/**
 * A tiny Markdown reader for continuation packets, producing data, not HTML (vscode-free, unit-tested).
 * The webview turns these blocks into DOM nodes whose text is set with textContent only, so a packet
 * holding `<script>` or `<img onerror=…>` shows those characters and nothing else. Supported: ATX
 * headings, paragraphs, `-`/`*`/`+` and numbered lists (with nesting by indent), fenced code blocks,
 * block quotes, horizontal rules; inline `code`, **bold** / __bold__ and *italic*. Links stay as their
 * literal text (a packet's links are the model's, not something to click from a trusted panel).
 */
import type { Block, Inline } from './messages';

const FENCE = /^\s{0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;

/** Longest text rendered: a packet is bounded by the packet deadline, but a log is untrusted input. */
const MAX_CHARS = 150_000;

export function parseMarkdown(source: string): Block[] {
  const src = source.length > MAX_CHARS ? `${source.slice(0, MAX_CHARS)}\n\n… [${source.length - MAX_CHARS} more characters]` : source;
  const lines = src.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length) blocks.push({ type: 'paragraph', inlines: parseInline(para.join(' ')) });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    if (fence) {
      flush();
      const marker = fence[1]!;
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trimStart().startsWith(marker)) body.push(lines[i++]!);
      blocks.push({ type: 'code', lang: (fence[2] ?? '').slice(0, 40), text: body.join('\n') });
      continue;
    }
    if (line.trim() === '') {
      flush();
      continue;
    }
    const h = HEADING.exec(line);
    if (h) {
      flush();
      blocks.push({ type: 'heading', level: h[1]!.length, inlines: parseInline(h[2] ?? '') });
      continue;
    }
    if (RULE.test(line)) {
      flush();
      blocks.push({ type: 'rule' });
      continue;
    }
    const q = QUOTE.exec(line);
    if (q) {
      flush();
      const body = [q[1] ?? ''];
      while (i + 1 < lines.length && QUOTE.test(lines[i + 1]!)) body.push(QUOTE.exec(lines[++i]!)![1] ?? '');
      blocks.push({ type: 'quote', inlines: parseInline(body.join(' ')) });
      continue;
    }
    const it = ITEM.exec(line);
    if (it && (para.length === 0 || /^\s*$/.test(it[1]!))) {
      flush();
      const ordered = /\d/.test(it[2]!);
      const start = ordered ? parseInt(it[2]!, 10) : 1;
      const baseIndent = it[1]!.length;
      const items: Array<{ level: number; inlines: Inline[] }> = [];
      let cur: { indent: number; text: string } = { indent: baseIndent, text: it[3] ?? '' };
      const indents: number[] = [baseIndent];
      const push = () => {
        while (indents.length > 1 && cur.indent < indents[indents.length - 1]!) indents.pop();
        if (cur.indent > indents[indents.length - 1]!) indents.push(cur.indent);
        items.push({ level: Math.min(indents.length - 1, 8), inlines: parseInline(cur.text) });
      };
      while (i + 1 < lines.length) {
        const next = lines[i + 1]!;
        const m = ITEM.exec(next);
        if ((m && m[1]!.length >= baseIndent && /\d/.test(m[2]!) === ordered) || (m && m[1]!.length > baseIndent)) {
          push();
          cur = { indent: m![1]!.length, text: m![3] ?? '' };
          i++;
        } else if (next.trim() !== '' && /^\s+/.test(next) && !FENCE.test(next)) {
          cur.text += ` ${next.trim()}`; // a continuation line of the item
          i++;
        } else break;
      }
      push();
      blocks.push({ type: 'list', ordered, start: Number.isFinite(start) ? Math.min(start, 1_000_000) : 1, items });
      continue;
    }
    para.push(line.trim());
  }
  flush();
  return blocks;
}

/** Inline spans: `code`, **bold**, __bold__, *italic*, _italic_ (at word edges); everything else is text. */
export function parseInline(s: string): Inline[] {
  const out: Inline[] = [];
  const push = (t: Inline['t'], v: string) => {
    if (!v) return;
    const last = out[out.length - 1];
    if (last && last.t === t && t === 'text') last.v += v;
    else out.push({ t, v });
  };
  let i = 0;
  let plain = '';
  const emit = (t: Inline['t'], v: string) => {
    push('text', plain);
    plain = '';
    push(t, v);
  };
  while (i < s.length) {
    const c = s[i]!;
    if (c === '\\' && i + 1 < s.length && /[\\`*_{}[\]()#+\-.!<>|~]/.test(s[i + 1]!)) {
      plain += s[i + 1];
      i += 2;
      continue;
    }
    if (c === '`') {
      let n = 1;
      while (s[i + n] === '`') n++;
      const ticks = '`'.repeat(n);
      const end = s.indexOf(ticks, i + n);
      if (end > i) {
        emit('code', s.slice(i + n, end).replace(/^ (.*) $/, '$1'));
        i = end + n;
        continue;
      }
      plain += ticks;
      i += n;
      continue;
    }
    if ((c === '*' || c === '_') && s[i + 1] === c) {
      const end = s.indexOf(c + c, i + 2);
      if (end > i + 2 && s[i + 2] !== ' ') {
        emit('bold', s.slice(i + 2, end));
        i = end + 2;
        continue;
      }
    } else if (c === '*' || (c === '_' && (i === 0 || /[\s(]/.test(s[i - 1]!)))) {
      const end = s.indexOf(c, i + 1);
      const after = s[end + 1];
      if (end > i + 1 && s[i + 1] !== ' ' && s[end - 1] !== ' ' && (c === '*' || after === undefined || /[\s.,;:!?)]/.test(after))) {
        emit('italic', s.slice(i + 1, end));
        i = end + 1;
        continue;
      }
    }
    plain += c;
    i++;
  }
  push('text', plain);
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
      }
    })
    .join('\n');
}
