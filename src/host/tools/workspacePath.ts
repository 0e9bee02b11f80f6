/**
 * Where rawr's tools may read and write: inside a workspace folder, after resolving symlinks (a link
 * inside the workspace that points outside it is outside), never inside `.git/`. A path that does not
 * exist yet (a file to create) is checked through its nearest existing ancestor.
 *
 * vscode-free (node:fs only): unit-tested with real temporary folders and symlinks.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** A failure the model should see as the tool's answer (clear, actionable), not a crash. */
export class ToolError extends Error {}

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
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && (err as NodeJS.ErrnoException).code !== 'ENOTDIR') throw err;
      const parent = path.dirname(cur);
      if (parent === cur) return { real: cur, rest };
      rest.unshift(path.basename(cur));
      cur = parent;
    }
  }
}

/**
 * Resolves a path the model gave (relative to the first workspace folder, or absolute) to a place inside a
 * workspace folder; throws a ToolError naming the folder otherwise.
 */
export async function resolveInWorkspace(roots: readonly string[], input: string): Promise<ResolvedPath> {
  if (roots.length === 0) throw new ToolError('No workspace folder is open: open a folder first (File > Open Folder).');
  if (input.includes('\0')) throw new ToolError('The path contains a NUL character.');
  const real = await realRoots(roots);
  const trimmed = input.trim().replace(/^file:\/\//, '');
  const candidate = path.isAbsolute(trimmed) ? path.resolve(trimmed) : path.resolve(roots[0]!, trimmed);
  const { real: prefix, rest } = await realPrefix(candidate);
  const abs = path.join(prefix, ...rest);
  const root = real.find((r) => inside(r, abs));
  if (!root) throw new ToolError(`"${input}" is outside the workspace (${roots.join(', ')}); rawr's tools only work inside it.`);
  const rel = path.relative(root, abs).split(path.sep).join('/') || '.';
  if (rel === '.git' || rel.startsWith('.git/')) throw new ToolError(`"${input}" is inside .git/: use git commands (rawr_run_in_terminal) instead.`);
  return { abs, rel, root, exists: rest.length === 0 };
}

/** Relative display path of an absolute one (for files found by globbing). */
export function relativeTo(roots: readonly string[], abs: string): string {
  const root = roots.find((r) => inside(path.resolve(r), abs));
  return root ? path.relative(root, abs).split(path.sep).join('/') : abs;
}
