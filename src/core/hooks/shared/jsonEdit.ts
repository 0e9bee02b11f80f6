/**
 * Changing a JSON configuration file (`.claude/settings.json`, `$CODEX_HOME/hooks.json`) by editing its
 * text, not by writing `JSON.stringify` of a parse: the values rawr does not change keep their text as
 * written (a number above 2^53 such as 12345678901234567890 would otherwise become 12345678901234567000,
 * and a person's layout would be lost). The edits are the differences between the parsed file and what
 * it should become, made with jsonc-parser's `modify` (the library VS Code edits settings.json with);
 * the result is parsed again and must equal what was intended, or nothing is written. Claude Code reads
 * its settings as JSONC (comments, trailing commas): such a file is parsed and edited the same way, its
 * comments kept where they are. Pure: no I/O.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  applyEdits,
  findNodeAtLocation,
  format,
  modify,
  parse,
  parseTree,
  printParseErrorCode,
  type Edit,
  type FormattingOptions,
  type JSONPath,
  type ParseError,
} from 'jsonc-parser';

/** A UTF-8 byte-order mark as a string holds it (configFile.ts keeps it, so that a restore gives back every byte). */
const BOM = '\uFEFF';
const withoutBom = (text: string) => (text.startsWith(BOM) ? text.slice(BOM.length) : text);

/** A settings file's text as JSONC (comments and trailing commas allowed, as Claude Code reads it); a leading byte-order mark is skipped. */
export function parseJsonc(withMark: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  const text = withoutBom(withMark);
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  if (errors.length) {
    const e = errors[0]!;
    const line = text.slice(0, e.offset).split('\n').length;
    return { ok: false, reason: `${printParseErrorCode(e.error)} at line ${line}` };
  }
  return { ok: true, value: value ?? {} };
}

export type JsonEditResult = { ok: true; text: string } | { ok: false; reason: string };

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const isObject = (v: unknown): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Indentation as the file has it (its first indented line), two spaces if none is. A file on one line
 * stays on one line: what rawr adds to it is added on that line.
 */
function formattingOf(text: string): FormattingOptions | undefined {
  if (!text.trim().includes('\n')) return undefined;
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  return indent.startsWith('\t') ? { insertSpaces: false, tabSize: 1, eol } : { insertSpaces: true, tabSize: indent.length, eol };
}

/** Arrays longer than this are replaced whole rather than aligned element by element (quadratic). */
const MAX_ALIGN = 500;

/**
 * `text` (which parses to `before`) changed so that it parses to `after`, touching only what differs:
 * object keys added, removed or changed; array elements aligned on the longest common run of equal
 * elements, the rest changed in place, inserted or removed.
 */
export function editJson(text: string, before: unknown, after: unknown): JsonEditResult {
  if (text.startsWith(BOM)) {
    // edited past the mark, which stays where it was
    const inner = editJson(text.slice(BOM.length), before, after);
    return inner.ok ? { ok: true, text: BOM + inner.text } : inner;
  }
  if (text.trim() === '') return { ok: true, text: `${JSON.stringify(after, null, 2)}\n` };
  const fine = editWith(text, before, after, true);
  // jsonc-parser's element removal can leave a stray comma (seen: the last element of an inner array of a
  // one-line file); then each changed array is written whole — its other values are re-serialised, the
  // rest of the file still keeps its text.
  return fine.ok ? fine : editWith(text, before, after, false);
}

/** The edit, aligning arrays element by element (`align`) or replacing each changed array whole. */
function editWith(text: string, before: unknown, after: unknown, align: boolean): JsonEditResult {
  const formattingOptions = formattingOf(text);
  let out = text;
  // jsonc-parser's own formatting of an edit re-lays the whole lines it touches: a person's one-line hook
  // entry beside an inserted one would be spread over ten lines. So the edit is made bare and then only
  // its own new text is laid out like the file; every character around it stays as written.
  const set = (path: JSONPath, value: unknown, isArrayInsertion = false) => {
    if (value === undefined) return void (out = applyEdits(out, removal(out, path)));
    for (const edit of modify(out, path, value, isArrayInsertion ? { isArrayInsertion } : {}).reverse()) {
      out = applyEdits(out, [edit]);
      if (formattingOptions && edit.content)
        out = applyEdits(out, format(out, { offset: edit.offset, length: edit.content.length }, { ...formattingOptions, keepLines: false }));
    }
  };
  const walk = (path: JSONPath, a: unknown, b: unknown): void => {
    if (isDeepStrictEqual(a, b)) return;
    if (isObject(a) && isObject(b)) {
      for (const k of Object.keys(a)) if (!Object.hasOwn(b, k)) set([...path, k], undefined);
      for (const k of Object.keys(b)) {
        if (Object.hasOwn(a, k)) walk([...path, k], a[k], b[k]);
        else set([...path, k], b[k]);
      }
      return;
    }
    if (align && Array.isArray(a) && Array.isArray(b) && a.length <= MAX_ALIGN && b.length <= MAX_ALIGN) return walkArray(path, a, b);
    set(path, b); // a value changed, or its type did
  };
  // From the end to the start, so the indices of what is still to be edited stay valid.
  const walkArray = (path: JSONPath, a: unknown[], b: unknown[]): void => {
    const anchors = commonRun(a, b);
    let [nextA, nextB] = [a.length, b.length];
    for (let k = anchors.length; k >= 0; k--) {
      const [i, j] = k > 0 ? anchors[k - 1]! : [-1, -1];
      const [fromA, fromB] = [i + 1, j + 1];
      const paired = Math.min(nextA - fromA, nextB - fromB);
      for (let x = nextA - 1; x >= fromA + paired; x--) set([...path, x], undefined);
      for (let y = fromB + paired; y < nextB; y++) set([...path, fromA + (y - fromB)], b[y], true);
      for (let p = paired - 1; p >= 0; p--) walk([...path, fromA + p], a[fromA + p], b[fromB + p]);
      [nextA, nextB] = [i, j];
    }
  };
  walk([], before, after);
  const reparsed = parseJsonc(out);
  if (!reparsed.ok) return { ok: false, reason: `the edited file would not be valid JSON (${reparsed.reason})` };
  if (!isDeepStrictEqual(reparsed.value, after)) return { ok: false, reason: 'the edited file would not hold what was intended' };
  return { ok: true, text: out };
}

/**
 * The edit that removes the value at `path` (an object's property or an array's element) with the comma
 * that joins it to a neighbour, and nothing around that: the text before it and after it stays as
 * written. (jsonc-parser's own removal of an array's last element stops one character short of the
 * bracket and relies on re-laying the lines after it.)
 */
function removal(text: string, path: JSONPath): Edit[] {
  const tree = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  const found = tree && findNodeAtLocation(tree, path);
  if (!found) return [];
  const node = found.parent?.type === 'property' ? found.parent : found; // an object's entry is its property
  const siblings = node.parent?.children ?? [];
  const i = siblings.indexOf(node);
  const [prev, next] = [siblings[i - 1], siblings[i + 1]];
  const end = (n: { offset: number; length: number }) => n.offset + n.length;
  if (next) return [{ offset: node.offset, length: next.offset - node.offset, content: '' }];
  if (prev) return [{ offset: end(prev), length: end(node) - end(prev), content: '' }];
  const parent = node.parent!;
  return [{ offset: parent.offset + 1, length: parent.length - 2, content: '' }];
}

/** Index pairs of the longest common subsequence of equal elements. */
function commonRun(a: unknown[], b: unknown[]): Array<[number, number]> {
  const n = a.length;
  const m = b.length;
  const len: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) len[i]![j] = isDeepStrictEqual(a[i], b[j]) ? len[i + 1]![j + 1]! + 1 : Math.max(len[i + 1]![j]!, len[i]![j + 1]!);
  const pairs: Array<[number, number]> = [];
  for (let i = 0, j = 0; i < n && j < m;) {
    if (isDeepStrictEqual(a[i], b[j])) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if (len[i + 1]![j]! >= len[i]![j + 1]!) i++;
    else j++;
  }
  return pairs;
}
