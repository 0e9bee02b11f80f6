/**
 * Whether a cache rawr reads code or text from may be trusted: every folder from rawr's cache folder
 * down to it, and the file itself, this user's own and writable by nobody else, checked on every read.
 * A V8 code cache (src/cli/hooks/codeCache.ts) or Node's compile cache runs as code; a parsed prompt
 * set (../prompts/cache.ts) becomes the text injected into the agent. With `XDG_CACHE_HOME` on a folder
 * another user can write, they could plant either: such a cache is ignored (rawr works without it, only
 * slower) and the reason is said once per process (untrustedCacheNotes).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Group and others' write bits. */
const WRITABLE_BY_OTHERS = 0o022;

/**
 * Null when `target` (a file or a folder, which must exist) and every folder from `root` down to it are
 * this user's own and not writable by others, else why not. `root` must contain `target`. Windows (no
 * owners or mode bits here): the per-user %LOCALAPPDATA% is trusted as it is.
 */
export function untrustedCache(root: string, target: string): string | null {
  if (typeof process.getuid !== 'function') return null;
  const uid = process.getuid();
  const rel = path.relative(root, target);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return `${target} is outside ${root}`;
  let at = root;
  for (const part of ['', ...rel.split(path.sep).filter(Boolean)]) {
    at = part ? path.join(at, part) : at;
    let st: fs.Stats;
    try {
      st = fs.lstatSync(at);
    } catch (err) {
      return `${at}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`;
    }
    const why = notOwn(at, st, uid);
    if (why !== null) return why;
  }
  return null;
}

/** Why one entry (its lstat) is not this user's own and private: a symlink, another owner, or writable by others. */
function notOwn(at: string, st: fs.Stats, uid: number): string | null {
  if (st.isSymbolicLink()) return `${at} is a symbolic link`;
  if (st.uid !== uid) return `${at} belongs to another user (uid ${st.uid})`;
  if ((st.mode & WRITABLE_BY_OTHERS) !== 0) return `${at} is writable by other users (mode ${(st.mode & 0o777).toString(8)})`;
  return null;
}

/** The most entries untrustedTree looks at: Node's compile cache holds a folder per Node build and a file per module loaded. */
const MAX_TREE_ENTRIES = 256;

/**
 * untrustedCache for a folder and everything in it, two levels deep (Node's compile cache: a folder per
 * Node build, a file per module). A folder that does not exist yet is trusted (what is written there
 * is this process's). More than MAX_TREE_ENTRIES entries: not looked through, so not trusted.
 */
export function untrustedTree(root: string, dir: string): string | null {
  if (typeof process.getuid !== 'function' || !fs.existsSync(dir)) return null;
  const why = untrustedCache(root, dir);
  if (why !== null) return why;
  const uid = process.getuid();
  let seen = 0;
  const walk = (at: string, depth: number): string | null => {
    for (const name of fs.readdirSync(at)) {
      if (++seen > MAX_TREE_ENTRIES) return `${dir} holds more than ${MAX_TREE_ENTRIES} entries`;
      const full = path.join(at, name);
      const st = fs.lstatSync(full);
      const why = notOwn(full, st, uid);
      if (why !== null) return why;
      if (st.isDirectory()) {
        if (depth >= 2) return `${full} is deeper than a cache keeps`;
        const below = walk(full, depth + 1);
        if (below !== null) return below;
      }
    }
    return null;
  };
  try {
    return walk(dir, 1);
  } catch (err) {
    return `${dir}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`;
  }
}

const said = new Set<string>();
const pending: string[] = [];

/** Records that a cache was ignored (`why`: untrustedCache's answer), once per process and root. */
export function noteUntrustedCache(root: string, why: string): void {
  if (said.has(root)) return;
  said.add(root);
  pending.push(`rawr: a cache in ${root} is not used (${why}); rawr runs without it`);
}

/** The notes not yet said (each once): the hook prints them on stderr. */
export function untrustedCacheNotes(): string[] {
  return pending.splice(0);
}
