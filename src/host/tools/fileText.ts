/**
 * The text work behind the file tools, vscode-free (unit-tested): reading a regular text file within a
 * size cap in an encoding it round-trips through, numbering a line range within an output cap, and
 * applying an exact-string edit.
 */
import { SafeReadError, SAFE_READ_FLAGS, readOpenFile, safeReadBytes } from '../../core/io/safeRead';
import { decodeText, type DecodedText } from './textEncoding';
import { ToolError } from './toolError';
import { openInWorkspace, type ResolvedPath } from './workspacePath';

/** Files larger than this are not read whole (a clear error suggests a search or a range tool instead). */
export const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** One read returns at most this many lines and characters. */
export const MAX_READ_LINES = 2000;
export const MAX_READ_CHARS = 60_000;

function readError(err: unknown, rel: string, maxBytes: number): unknown {
  if (!(err instanceof SafeReadError)) return err;
  switch (err.problem) {
    case 'not_found':
      return new ToolError(`${rel} does not exist.`);
    case 'not_regular':
      return /a directory/.test(err.message)
        ? new ToolError(`${rel} is a directory: use rawr_list_files to see what it holds.`)
        : new ToolError(`${rel} is not a regular file.`);
    case 'too_large':
      return new ToolError(
        `${rel} is more than the ${(maxBytes / 1024 / 1024).toFixed(0)} MB rawr reads (${err.message}); use rawr_search_text to find the part you need.`,
      );
    case 'encoding':
    case 'io':
      return new ToolError(`${rel}: ${err.message}`);
  }
}

/**
 * Reads a regular text file (no directory, device, fifo; no NUL bytes) within MAX_FILE_BYTES, in an
 * encoding it round-trips through (decodeText).
 */
export async function readTextFile(abs: string, rel: string, maxBytes = MAX_FILE_BYTES): Promise<string> {
  let buf: Buffer;
  try {
    buf = await safeReadBytes(abs, { maxBytes });
  } catch (err) {
    throw readError(err, rel, maxBytes);
  }
  return decodeText(buf, rel).text;
}

/**
 * A workspace file's bytes, for a tool: opened, checked again on the open descriptor (workspacePath.ts),
 * then read as readTextFile does (regular file, within the cap, a FIFO cannot hang it).
 */
export async function readWorkspaceBytes(roots: readonly string[], p: ResolvedPath, maxBytes = MAX_FILE_BYTES): Promise<Buffer> {
  let handle;
  try {
    handle = await openInWorkspace(roots, p, SAFE_READ_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ToolError(`${p.rel} does not exist.`);
    if (code === 'EISDIR') throw new ToolError(`${p.rel} is a directory: use rawr_list_files to see what it holds.`);
    throw err;
  }
  try {
    return await readOpenFile(handle, p.rel, { maxBytes });
  } catch (err) {
    throw readError(err, p.rel, maxBytes);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** readWorkspaceBytes, decoded in the encoding the file round-trips through (textEncoding.ts). */
export async function readWorkspaceText(roots: readonly string[], p: ResolvedPath, maxBytes = MAX_FILE_BYTES): Promise<DecodedText> {
  return decodeText(await readWorkspaceBytes(roots, p, maxBytes), p.rel);
}

/** Lines `start..end` (1-based, inclusive) numbered as `  12| text`, cut at the caps with a note where to continue. */
export function numberedRange(text: string, rel: string, start = 1, end?: number): string {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  const total = lines.length;
  if (start > total && !(total === 0 && start === 1)) throw new ToolError(`${rel} has ${total} lines; startLine ${start} is past the end.`);
  const last = Math.min(end ?? total, total, start + MAX_READ_LINES - 1);
  if (end !== undefined && end < start) throw new ToolError(`endLine ${end} is before startLine ${start}.`);
  const width = String(last).length;
  const out: string[] = [];
  let chars = 0;
  let shown = start - 1;
  for (let i = start; i <= last; i++) {
    const line = `${String(i).padStart(width)}| ${lines[i - 1]}`;
    if (chars + line.length > MAX_READ_CHARS && out.length > 0) break;
    out.push(line.length > MAX_READ_CHARS ? line.slice(0, MAX_READ_CHARS) + ' [line cut]' : line);
    chars += line.length + 1;
    shown = i;
  }
  const head = `${rel} (lines ${total === 0 ? 0 : start}-${shown} of ${total})`;
  const more = shown < (end === undefined ? total : Math.min(end, total)) ? `\n[… output cap reached: continue with startLine ${shown + 1}]` : '';
  return `${head}\n${out.join('\n')}${more}`;
}

/**
 * The forms of old/new to look for, in order: verbatim first (a file with mixed line endings holds the
 * text exactly as the model copied it), then with the file's Windows line endings (the model wrote \n
 * where the file has \r\n), then with \n (the model wrote \r\n where the file has \n).
 */
function editForms(text: string, oldString: string, newString: string): Array<[string, string]> {
  const forms: Array<[string, string]> = [[oldString, newString]];
  const toLf = (s: string) => s.replace(/\r\n/g, '\n');
  if (text.includes('\r\n') && oldString.includes('\n')) forms.push([toLf(oldString).replace(/\n/g, '\r\n'), toLf(newString).replace(/\n/g, '\r\n')]);
  if (oldString.includes('\r\n')) forms.push([toLf(oldString), toLf(newString)]);
  return forms.filter(([o], i) => forms.findIndex(([p]) => p === o) === i);
}

/** Applies old→new exactly; ToolErrors say why not (no match, several matches, nothing changes). */
export function applyEdit(text: string, oldString: string, newString: string, replaceAll = false, rel = 'the file'): { text: string; count: number } {
  if (oldString === newString) throw new ToolError('old_string and new_string are the same: nothing to change.');
  for (const [find, repl] of editForms(text, oldString, newString)) {
    let count = 0;
    for (let at = text.indexOf(find); at >= 0; at = text.indexOf(find, at + find.length)) count++;
    if (count === 0) continue;
    if (count > 1 && !replaceAll)
      throw new ToolError(`old_string occurs ${count} times in ${rel}; add surrounding lines to make it unique, or set replace_all.`);
    if (find === repl) throw new ToolError(`old_string and new_string differ only in line endings, which ${rel} keeps as they are: nothing to change.`);
    // split/join: no `$&` replacement patterns from the model's text.
    const at = text.indexOf(find);
    const out = replaceAll ? text.split(find).join(repl) : text.slice(0, at) + repl + text.slice(at + find.length);
    return { text: out, count };
  }
  throw new ToolError(`old_string was not found in ${rel}; read the file again and copy the exact text (whitespace included).`);
}

/** Keeps the first and last part of a long output, saying how much was left out. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters not shown …]\n${text.slice(-half)}`;
}
