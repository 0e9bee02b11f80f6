/**
 * The agent's own compaction summary, read from a transcript (Claude Code's compact_boundary and
 * isCompactSummary, Codex's compacted record), for the repair of it (sequence/repair.ts: the fact check,
 * which the engine's receipt uses too). Pure: no I/O.
 */
/**
 * The agent's own summary of the compaction recorded at `line` (1-based) of a transcript: Claude Code's
 * `compact_boundary` there and the `isCompactSummary` record right after it, or Codex's `compacted`
 * record (its message and replacement history). Null when the line is not a compaction. Reads at most
 * a few lines past `line`.
 */
export function nativeSummaryAt(lines: Iterable<{ line: number; text?: string | undefined }>, line: number): { trigger: string; summary: string } | null {
  const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const textOf = (content: unknown): string =>
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content
            .map((b) => str(obj(b).text))
            .filter(Boolean)
            .join('\n')
        : '';
  let boundary: { trigger: string } | null = null;
  for (const l of lines) {
    if (l.line < line || l.text === undefined) continue;
    if (l.line > line + 6) break;
    let r: Record<string, unknown>;
    try {
      r = obj(JSON.parse(l.text));
    } catch {
      continue;
    }
    if (l.line === line) {
      if (r.type === 'system' && r.subtype === 'compact_boundary') boundary = { trigger: str(obj(r.compactMetadata).trigger) || 'unknown' };
      else if (r.type === 'compacted') {
        const p = obj(r.payload);
        const history = Array.isArray(p.replacement_history) ? p.replacement_history : [];
        return { trigger: 'auto', summary: [str(p.message), ...history.map((h) => textOf(obj(h).content))].filter(Boolean).join('\n\n') };
      } else return null;
    } else if (boundary && r.isCompactSummary) return { trigger: boundary.trigger, summary: textOf(obj(r.message).content) };
  }
  return boundary ? { trigger: boundary.trigger, summary: '' } : null;
}
