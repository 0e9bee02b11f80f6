/**
 * Where rawr's tools may read and write: inside a workspace folder, after resolving symlinks (a link
 * inside the workspace that points outside it is outside), never inside a `.git` folder at any depth (the
 * root repository's or a nested one's: `vendor/lib/.git/hooks/post-checkout` runs on the next checkout).
 * A path that does not exist yet (a file to create) is checked through its nearest existing ancestor.
 *
 * This is the ONE check every file a tool touches goes through — a path the model gave (read, create,
 * edit, git diff) and a file a listing or a search found (which may be a link) alike — and it is made
 * again on the open descriptor (`openInWorkspace`), so a link swapped in between the check and the read
 * or write is caught too.
 *
 * vscode-free (node:fs only): unit-tested with real temporary folders and symlinks.
 */
import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

import { ToolError } from './toolError';

export { ToolError };

export interface ResolvedPath {
  /** Absolute path with symlinks resolved (the target that is read or written). */
  abs: string;
  /** Relative to its workspace folder, with forward slashes (what the chat and the model are shown). */
  rel: string;
  /** The workspace folder it is in (symlinks resolved). */
  root: string;
  exists: boolean;
}

const inside = (root: string, p: string) => p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);

/**
 * Whether a path segment names a `.git` folder. Case-insensitive and without trailing dots or spaces:
 * on macOS and Windows `.GIT` and `.git.` are the same folder as `.git`.
 */
export const isGitSegment = (segment: string) => segment.replace(/[. ]+$/, '').toLowerCase() === '.git';

async function realRoots(roots: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const r of roots) out.push(await fs.realpath(r).catch(() => path.resolve(r)));
  return out;
}

/** The nearest existing ancestor of `p` (or p), with symlinks resolved, plus the part that does not exist. */
async function realPrefix(p: string): Promise<{ real: string; rest: string[] }> {
  const rest: string[] = [];
  let cur = p;
  for (;;) {
    try {
      return { real: await fs.realpath(cur), rest };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // A link that points at itself (or a cycle of links) resolves nowhere: refused, with the reason.
      if (code === 'ELOOP') throw new ToolError(`${p} goes through a loop of symbolic links; it cannot be used.`);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
      const parent = path.dirname(cur);
      if (parent === cur) return { real: cur, rest };
      rest.unshift(path.basename(cur));
      cur = parent;
    }
  }
}

/**
 * The check itself, on a path whose links are already resolved: the workspace folder it is in and its
 * relative path, or a ToolError saying why not (`shown` is how the message names it).
 */
export function checkResolved(
  realRootPaths: readonly string[],
  abs: string,
  shown: string,
  roots: readonly string[] = realRootPaths,
): { root: string; rel: string } {
  const root = realRootPaths.find((r) => inside(r, abs));
  if (!root) throw new ToolError(`"${shown}" is outside the workspace (${roots.join(', ')}); rawr's tools only work inside it.`);
  const rel = path.relative(root, abs).split(path.sep).join('/') || '.';
  if (rel.split('/').some(isGitSegment)) throw new ToolError(`"${shown}" is inside a .git folder: use git commands (rawr_run_in_terminal) instead.`);
  return { root, rel };
}

/**
 * Resolves a path the model gave (relative to the first workspace folder, or absolute) to a place inside a
 * workspace folder; throws a ToolError naming the folder otherwise. The path is taken as given: no
 * trimming (`" x.txt"` is a file whose name starts with a space, not `x.txt`).
 */
export async function resolveInWorkspace(roots: readonly string[], input: string): Promise<ResolvedPath> {
  if (roots.length === 0) throw new ToolError('No workspace folder is open: open a folder first (File > Open Folder).');
  if (input.includes('\0')) throw new ToolError('The path contains a NUL character.');
  const real = await realRoots(roots);
  let given = input;
  if (/^file:\/\//i.test(input)) {
    try {
      given = fileURLToPath(input);
    } catch (err) {
      throw new ToolError(`"${input}" is not a valid file URL: ${(err as Error).message}`);
    }
  }
  const candidate = path.isAbsolute(given) ? path.resolve(given) : path.resolve(roots[0]!, given);
  const { real: prefix, rest } = await realPrefix(candidate);
  const abs = path.join(prefix, ...rest);
  const { root, rel } = checkResolved(real, abs, input, roots);
  return { abs, rel, root, exists: rest.length === 0 };
}

/**
 * A file a listing or a search found (absolute, maybe a link): where it really is, or undefined when the
 * check refuses it (a link out of the workspace or into a `.git` folder, or gone since it was found).
 */
export async function foundInWorkspace(roots: readonly string[], found: string): Promise<ResolvedPath | undefined> {
  try {
    const r = await resolveInWorkspace(roots, found);
    return r.exists ? r : undefined;
  } catch (err) {
    if (err instanceof ToolError) return undefined;
    throw err;
  }
}

/** The path an open descriptor really points at (Linux: /proc/self/fd), or undefined where that cannot be known. */
async function descriptorPath(fd: number): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  try {
    return await fs.readlink(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/**
 * Opens a checked path and checks again what was opened: a link swapped in after `resolveInWorkspace`
 * (a folder of the path replaced by a link out of the workspace) is refused before a byte is read or
 * written. `flags` as for fs.open; the last component is never followed (O_NOFOLLOW: `p.abs` has its
 * links resolved already, so a link there now is a swap).
 */
export async function openInWorkspace(roots: readonly string[], p: ResolvedPath, flags: number, mode?: number): Promise<fs.FileHandle> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(p.abs, flags | (constants.O_NOFOLLOW ?? 0), mode);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new ToolError(`${p.rel} became a symbolic link while rawr was opening it; not touched.`);
    throw err;
  }
  try {
    const real = (await descriptorPath(handle.fd)) ?? (await fs.realpath(p.abs));
    if (real !== p.abs) checkResolved(await realRoots(roots), real, p.rel, roots);
    return handle;
  } catch (err) {
    await handle.close().catch(() => undefined);
    throw err;
  }
}

/** Relative display path of an absolute one (for files found by globbing). */
export function relativeTo(roots: readonly string[], abs: string): string {
  const root = roots.find((r) => inside(path.resolve(r), abs));
  return root ? path.relative(root, abs).split(path.sep).join('/') : abs;
}
