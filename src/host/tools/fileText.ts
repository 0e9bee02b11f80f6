/**
 * The text work behind the file tools, pure and vscode-free (unit-tested): reading a regular text file
 * within a size cap, numbering a line range within an output cap, and applying an exact-string edit.
 */
import { promises as fs } from 'node:fs';
import { ToolError } from './workspacePath';

/** Files larger than this are not read whole (a clear error suggests a search or a range tool instead). */
export const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** One read returns at most this many lines and characters. */
export const MAX_READ_LINES = 2000;
export const MAX_READ_CHARS = 60_000;

/** Reads a regular text file (no directory, device, fifo; no NUL bytes) within MAX_FILE_BYTES. */
export async function readTextFile(abs: string, rel: string, maxBytes = MAX_FILE_BYTES): Promise<string> {
  let st;
  try {
    st = await fs.stat(abs);
  } catch {
    throw new ToolError(`${rel} does not exist.`);
  }
  if (st.isDirectory()) throw new ToolError(`${rel} is a directory: use rawr_list_files to see what it holds.`);
  if (!st.isFile()) throw new ToolError(`${rel} is not a regular file.`);
  if (st.size > maxBytes) {
    throw new ToolError(
      `${rel} is ${(st.size / 1024 / 1024).toFixed(1)} MB, more than the ${(maxBytes / 1024 / 1024).toFixed(0)} MB rawr reads; use rawr_search_text to find the part you need.`,
    );
  }
  const buf = await fs.readFile(abs);
  if (buf.subarray(0, 8192).includes(0)) throw new ToolError(`${rel} looks binary (it contains NUL bytes); rawr reads text files only.`);
  return buf.toString('utf8');
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

/** Applies old→new exactly; ToolErrors say why not (no match, several matches, nothing changes). */
export function applyEdit(text: string, oldString: string, newString: string, replaceAll = false, rel = 'the file'): { text: string; count: number } {
  if (oldString === newString) throw new ToolError('old_string and new_string are the same: nothing to change.');
  // Files with Windows line endings: let an old_string written with \n match them.
  const crlf = text.includes('\r\n') && !oldString.includes('\r\n');
  const find = crlf ? oldString.replace(/\n/g, '\r\n') : oldString;
  const repl = crlf ? newString.replace(/\n/g, '\r\n') : newString;
  let count = 0;
  for (let at = text.indexOf(find); at >= 0; at = text.indexOf(find, at + find.length)) count++;
  if (count === 0) throw new ToolError(`old_string was not found in ${rel}; read the file again and copy the exact text (whitespace included).`);
  if (count > 1 && !replaceAll) throw new ToolError(`old_string occurs ${count} times in ${rel}; add surrounding lines to make it unique, or set replace_all.`);
  // split/join: no `$&` replacement patterns from the model's text.
  const out = replaceAll ? text.split(find).join(repl) : text.slice(0, text.indexOf(find)) + repl + text.slice(text.indexOf(find) + find.length);
  return { text: out, count };
}

/** Keeps the first and last part of a long output, saying how much was left out. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters not shown …]\n${text.slice(-half)}`;
}
