/**
 * Markdown with YAML frontmatter: `---\n<yaml>\n---\n<body>`. Parsing never throws; problems come back
 * with the 1-based line and column in the original file so an editor can underline them.
 */
import type * as YamlModule from 'yaml';
import type { Document } from 'yaml';

let yamlModule: typeof YamlModule | undefined;
/**
 * The YAML parser, loaded on the first parse: the hooks' process answers from its prompt cache
 * (prompts/cache.ts) on most runs and then never needs it (its load was ~10% of a steering hook's time).
 */
function yaml(): typeof YamlModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (yamlModule ??= require('yaml') as typeof YamlModule);
}

export interface Problem {
  file: string;
  line: number;
  column: number;
  message: string;
  severity: 'error' | 'warning';
}

export interface ParsedMarkdown {
  /** Plain JS value of the frontmatter (undefined when absent or unparsable). */
  data: Record<string, unknown> | undefined;
  body: string;
  /** Where each top-level key's value sits, for located messages. */
  locate(key: string): { line: number; column: number };
  problems: Problem[];
}

/** Aliases a frontmatter may expand (yaml's own default): real prompt files use none. */
const MAX_ALIAS_COUNT = 100;

// The empty alternative first, so `---\n---` is an empty frontmatter rather than the start of a longer match.
const FENCE = /^---[ \t]*\r?\n(?:|([\s\S]*?)\r?\n)---[ \t]*(?:\r?\n|$)/;

export function parseFrontmatter(text: string, file: string): ParsedMarkdown {
  const problems: Problem[] = [];
  // A byte-order mark (editors on Windows) would hide the opening fence; it is not part of any line.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const match = FENCE.exec(text);
  if (!match) {
    return { data: undefined, body: text, locate: () => ({ line: 1, column: 1 }), problems };
  }
  const yamlText = match[1] ?? '';
  const body = text.slice(match[0].length);
  const { isMap, isScalar, LineCounter, parseDocument, visit } = yaml();
  const lineCounter = new LineCounter();
  const doc: Document = parseDocument(yamlText, { lineCounter, prettyErrors: false, uniqueKeys: true, logLevel: 'error' });
  // The YAML starts on line 2 of the file (after the opening fence).
  const at = (offset: number) => {
    const pos = lineCounter.linePos(offset);
    return { line: pos.line + 1, column: pos.col };
  };
  // yaml reports an unclosed `[`, `{` or quote where it gave up (often the start of the next key's line);
  // the offending text is the opening bracket or quote, so point there.
  const openerOf = (err: { message: string; pos: [number, number] }): number => {
    const flow = /^Flow (sequence|map)\b/.test(err.message);
    const quote = /^Missing closing .?quote/.test(err.message);
    if (!flow && !quote) return err.pos[0];
    const end = err.pos[0];
    let start: number | undefined;
    const unclosed = (range: [number, number, number] | null | undefined) => !!range && range[1] === end && range[0] < end;
    visit(doc, {
      Collection(_, node) {
        if (flow && node.flow && unclosed(node.range)) start = node.range![0];
      },
      Scalar(_, node) {
        if (quote && (node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE') && unclosed(node.range)) start = node.range![0];
      },
    });
    return start ?? end;
  };
  for (const err of doc.errors) {
    problems.push({ file, ...at(openerOf(err)), message: `YAML: ${err.message.split('\n')[0]}`, severity: 'error' });
  }
  let data: Record<string, unknown> | undefined;
  if (doc.errors.length === 0) {
    let value: unknown;
    try {
      // yaml refuses to expand an alias bomb ("billion laughs") past maxAliasCount and throws: a
      // committed prompt file must not take the loader down, so that is a problem like any other.
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (err) {
      problems.push({ file, line: 2, column: 1, message: `YAML: ${(err as Error).message.split('\n')[0]} — the frontmatter is ignored`, severity: 'error' });
      return { data: undefined, body, locate: () => ({ line: 2, column: 1 }), problems };
    }
    if (value === null || value === undefined) data = {};
    else if (typeof value === 'object' && !Array.isArray(value)) data = value as Record<string, unknown>;
    else problems.push({ file, line: 2, column: 1, message: 'frontmatter must be a mapping of key: value', severity: 'error' });
  }
  const locate = (key: string) => {
    if (isMap(doc.contents)) {
      for (const pair of doc.contents.items) {
        if (isScalar(pair.key) && pair.key.value === key) {
          const node = (pair.value ?? pair.key) as { range?: [number, number, number] };
          if (node.range) return at(node.range[0]);
        }
      }
    }
    return { line: 2, column: 1 };
  };
  return { data, body, locate, problems };
}
