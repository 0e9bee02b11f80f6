/**
 * `.claude/settings.local.json` holds this machine's hook command paths: it must not be committed. When
 * `install --write` writes it in a git work tree where git does not ignore it yet, rawr adds
 * `/<path from the work tree's top>/.claude/settings.local.json` to the repository's own personal ignore
 * file, `.git/info/exclude` (git's place for "ignored here, not for everyone"): never the tracked
 * `.gitignore`, which an agent's `git add -A` would sweep into its next commit. The exact text appended
 * is returned, so uninstall takes back exactly that (unignoreLocalSettings). Outside a git work tree,
 * or when git is missing, nothing is done. When the rule is needed but cannot be added (the write is
 * refused, the file is not a regular file), install fails as a whole: its settings would be committed.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { safeReadBytesSync } from '../../io/safeRead';
import { removeFile, replaceFile, WriteRefused } from './configFile';
import type { UndoLog } from './undoLog';

/**
 * git's personal ignore file is a handful of lines; rawr reads it (bytes as they are: a BOM stays, so taking
 * the rule back gives every byte back) within this cap, as every file it did not write (safeRead).
 */
const MAX_EXCLUDE_BYTES = 1024 * 1024;

/** The exclude file's text, as its bytes decode (nothing dropped). Throws a SafeReadError over the cap or for what is not a regular file. */
const readExclude = (file: string) => safeReadBytesSync(file, { maxBytes: MAX_EXCLUDE_BYTES }).toString('utf8');

// core.fsmonitor off: no program the repository's config names runs on rawr's behalf (snapshot.ts gitState too).
const run = (cwd: string, args: string[]) =>
  spawnSync('git', ['-c', 'core.fsmonitor=false', ...args], { cwd, encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'pipe'] });

export interface IgnoreAdded {
  /** The exclude file. */
  file: string;
  /** The text appended to it (the rule, with a newline before it when the file did not end in one). */
  appended: string;
  rule: string;
  /** rawr created the file. */
  created?: boolean;
}

/**
 * Whether git tracks `rel` (relative to `projectDir`): then no ignore rule hides rawr's edits to it, and
 * they would show in `git status` and the next commit. False outside a work tree or without git.
 */
export function trackedByGit(projectDir: string, rel: string): boolean {
  const r = run(projectDir, ['ls-files', '--error-unmatch', '--', rel]);
  return !r.error && r.status === 0;
}

/**
 * The rule added (`line` for the person; null when nothing needed doing), or why it could not be: then
 * the settings rawr just wrote would show in `git status` and the next commit, so install takes them
 * back (the caller's `undo`, which also gets the step that takes this append back).
 */
export function ignoreLocalSettings(
  projectDir: string,
  rel: string,
  undo: UndoLog,
): { ok: true; line: string | null; added?: IgnoreAdded } | { ok: false; line: string } {
  const inside = run(projectDir, ['rev-parse', '--is-inside-work-tree']);
  if (inside.error || inside.status !== 0 || inside.stdout.trim() !== 'true') return { ok: true, line: null };
  // exit 0: ignored; 1: not ignored; anything else: git could not tell (leave it).
  const check = run(projectDir, ['check-ignore', '-q', '--no-index', rel]);
  if (check.status !== 1) return { ok: true, line: null };
  const prefix = run(projectDir, ['rev-parse', '--show-prefix']);
  const where = run(projectDir, ['rev-parse', '--git-path', 'info/exclude']);
  const yourself = (rule: string) => `add ${rule} to your ignore rules yourself (it holds this machine's paths), then install again`;
  if (prefix.status !== 0 || where.status !== 0 || !where.stdout.trim())
    return { ok: false, line: `rawr: git could not say where its exclude file is; nothing written: ${yourself(`/${rel}`)}` };
  const file = path.resolve(projectDir, where.stdout.trim());
  const rule = `/${prefix.stdout.trim()}${rel}`;
  let text: string | undefined;
  try {
    const st = fs.lstatSync(file);
    if (!st.isFile()) return { ok: false, line: `rawr: ${file} is not a regular file; nothing written: ${yourself(rule)}` };
    text = readExclude(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      return { ok: false, line: `rawr: cannot read ${file} (${(err as Error).message}); nothing written: ${yourself(rule)}` };
  }
  const appended = `${text && !text.endsWith('\n') ? '\n' : ''}${rule}\n`;
  try {
    const made = fs.mkdirSync(path.dirname(file), { recursive: true });
    if (made !== undefined) undo.add(() => fs.rmSync(made, { recursive: true, force: true }), made);
    replaceFile(file, (text ?? '') + appended, undo);
  } catch (err) {
    const why = err instanceof WriteRefused ? err.why : (err as Error).message;
    return {
      ok: false,
      line: `rawr: cannot write ${file}: ${why}; nothing written (without ${rule} there, this machine's paths in ${rel} would show in git status and your next commit)`,
    };
  }
  return {
    ok: true,
    line: `rawr: added ${rule} to ${file} (git's personal ignore file, not committed: the settings hold this machine's paths)`,
    added: { file, appended, rule, ...(text === undefined ? { created: true } : {}) },
  };
}

/**
 * Takes back what ignoreLocalSettings appended: that exact text at the end, else the rule's line; a file
 * rawr created and that is now empty goes. Throws (WriteRefused) when the system refuses; `undo` gets the step that puts it back.
 */
export function unignoreLocalSettings(a: IgnoreAdded, undo: UndoLog): string | null {
  let text: string;
  try {
    if (!fs.lstatSync(a.file).isFile()) return null;
    text = readExclude(a.file);
  } catch {
    return null;
  }
  let next: string;
  if (text.endsWith(a.appended)) next = text.slice(0, text.length - a.appended.length);
  else {
    const lines = text.split('\n');
    const at = lines.lastIndexOf(a.rule);
    if (at < 0) return null;
    lines.splice(at, 1);
    next = lines.join('\n');
  }
  if (next === '' && a.created) removeFile(a.file, undo);
  else replaceFile(a.file, next, undo);
  return `rawr: removed ${a.rule} from ${a.file}`;
}
