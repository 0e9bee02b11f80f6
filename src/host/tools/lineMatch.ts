/**
 * The matching half of rawr_search_text, pure and dependency-free: it runs inside the search worker
 * (searchWorker.ts), never on the extension host's thread, because a regular expression from the model can
 * take exponential time (`(a+)+$`) and JavaScript cannot interrupt a running match — only the worker can
 * be terminated.
 *
 * A line longer than MATCH_WINDOW characters (a minified bundle is one 2 MB line) is matched in
 * overlapping pieces of MATCH_WINDOW characters: the pattern never sees more than that at once, which
 * bounds what one match can cost, and the overlap (longer than the longest query) keeps every plain-text
 * match. A hit in such a line is shown as an excerpt around the match, with its column.
 */

/** The longest piece of a line one match sees. */
export const MATCH_WINDOW = 4000;
/** Pieces of a long line overlap by this much (the query schema allows 500 characters). */
export const MATCH_OVERLAP = 1000;
/** Characters of a matching line shown to the model. */
export const MAX_HIT_CHARS = 300;

export interface LineHit {
  /** 1-based. */
  line: number;
  /** 1-based column of the match, for a long line only (its text is then an excerpt around the match). */
  column?: number;
  text: string;
}

/**
 * The first match of `re` in `line`, pieces of a long line in order; -1 when none. A match that touches
 * a piece's cut (not the line's own start or end) may exist only because of the cut (`$`, `^`, `\b`,
 * lookarounds see the piece's edge): it counts only if the pattern matches at that place of the whole line.
 */
function firstMatch(re: RegExp, line: string): number {
  if (line.length <= MATCH_WINDOW) {
    re.lastIndex = 0;
    const m = re.exec(line);
    return m ? m.index : -1;
  }
  const flags = re.flags.replace(/[gy]/g, '');
  const all = new RegExp(re.source, `${flags}g`);
  const here = new RegExp(re.source, `${flags}y`);
  for (let start = 0; ; start += MATCH_WINDOW - MATCH_OVERLAP) {
    const piece = line.slice(start, start + MATCH_WINDOW);
    const last = start + MATCH_WINDOW >= line.length;
    all.lastIndex = 0;
    for (let m = all.exec(piece); m; m = all.exec(piece)) {
      if (m[0].length === 0) all.lastIndex++;
      const atCut = (m.index === 0 && start > 0) || (!last && m.index + m[0].length === piece.length);
      if (!atCut) return start + m.index;
      here.lastIndex = start + m.index;
      if (here.test(line)) return start + m.index;
    }
    if (last) return -1;
  }
}

/** Every line of `text` that `re` (not global) matches, at most `max` of them. */
export function matchLines(re: RegExp, text: string, max: number): LineHit[] {
  const hits: LineHit[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length && hits.length < max; i++) {
    const line = lines[i]!;
    const at = firstMatch(re, line);
    if (at < 0) continue;
    if (line.length <= MATCH_WINDOW) hits.push({ line: i + 1, text: line.trim().slice(0, MAX_HIT_CHARS) });
    else {
      const from = Math.max(0, at - 100);
      hits.push({ line: i + 1, column: at + 1, text: `${from > 0 ? '…' : ''}${line.slice(from, from + MAX_HIT_CHARS)}…` });
    }
  }
  return hits;
}
