/**
 * Reading and replacing an agent's configuration file (`.claude/settings.json`, `$CODEX_HOME/hooks.json`,
 * `$CODEX_HOME/config.toml`) without harming it:
 *   - symlinks are refused unless the caller follows them explicitly (`--follow-symlinks`): then the
 *     link's target is updated and the link stays a link;
 *   - a folder on the way that leads outside `within` (a symlinked `.claude/`) is refused the same way;
 *   - only a regular file within a size cap is read (never a FIFO or a device);
 *   - the new text goes to a temp file in the same folder with the old file's mode, is flushed, then
 *     renamed over it (atomic: the agent never reads half a file);
 *   - the previous text is kept in a backup (same mode) before it is replaced: where the caller says
 *     (rawr's own state folder, so nothing new appears beside a project's settings), else
 *     `<file>.rawr-backup`;
 *   - a read-only file (no write permission bit, or not writable by this user) is not replaced: a rename
 *     would replace it even so (it needs only the folder's permission), and read-only is the owner's
 *     way of saying "leave this alone".
 * What the new text is, is the caller's: jsonEdit.ts and codex/trust.ts edit the old text through a real
 * parser and check the result before it gets here.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { bomEncoding, decodeUtf8, SafeReadError, safeReadBytes, safeReadBytesSync } from '../../io/safeRead';
import { inWords, UndoLog } from './undoLog';

/** The largest settings / config file (and its backup) rawr reads. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/**
 * The bytes of a file rawr is about to replace or remove, kept to put back (undo): through safeRead like
 * every file rawr did not write in this process. A backup folder and the exclude file can come with a
 * cloned repository (`<project>/.rawr/claude/backup/`, `.git/info/exclude`): a FIFO there must not hang
 * install, `/dev/zero` or a huge file must not fill memory. Not found: undefined; anything else not a
 * regular file within the cap throws (SafeReadError naming what it is), before anything is written.
 */
function bytesToKeep(file: string): Buffer | undefined {
  try {
    return safeReadBytesSync(file, { maxBytes: MAX_CONFIG_BYTES });
  } catch (err) {
    if (err instanceof SafeReadError && err.problem === 'not_found') return undefined;
    throw err;
  }
}

export interface ConfigFile {
  /** The file that is read and replaced (the symlink's target when one was followed). */
  target: string;
  /** Present when `target` was reached through a symlink. */
  followedFrom?: string;
  /**
   * Current text; undefined when the file does not exist yet. A UTF-8 byte-order mark stays in it (as
   * U+FEFF): the backup and what uninstall restores must be the file's bytes; parseJsonc and editJson
   * read past it.
   */
  text?: string;
  /** Permission bits to keep; undefined for a new file (the umask decides). */
  mode?: number;
}

const isInside = (child: string, parent: string) => child === parent || child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);

/** The nearest existing ancestor of `p`, resolved. */
function realAncestor(p: string): string {
  let cur = p;
  for (;;) {
    try {
      return fs.realpathSync(cur);
    } catch {
      /* not there yet */
    }
    const up = path.dirname(cur);
    if (up === cur) return cur;
    cur = up;
  }
}

/**
 * The symlink a write of `file` would go through, when there is one: a folder on the way that leads
 * outside `within`, or the file itself (to an existing target; a dangling link is refused either way).
 * The editor asks about it before it writes (a person there has no `--follow-symlinks` to pass).
 */
export function symlinkOnTheWay(file: string, within?: string): { link: string; to: string; folder: boolean } | undefined {
  const abs = path.resolve(file);
  if (within !== undefined) {
    const dir = realAncestor(path.dirname(abs));
    if (!isInside(dir, fs.realpathSync(within))) return { link: path.dirname(abs), to: dir, folder: true };
  }
  try {
    if (fs.lstatSync(abs).isSymbolicLink()) return { link: abs, to: fs.realpathSync(abs), folder: false };
  } catch {
    /* absent, or a dangling link: no target to write through */
  }
  return undefined;
}

export async function readConfigFile(
  file: string,
  opts: { followSymlinks: boolean; within?: string },
): Promise<{ ok: true; file: ConfigFile } | { ok: false; reason: string }> {
  const abs = path.resolve(file);
  const outside = opts.within !== undefined ? symlinkOnTheWay(abs, opts.within) : undefined;
  if (outside?.folder && !opts.followSymlinks)
    return {
      ok: false,
      reason: `${outside.link} leads outside ${opts.within} (to ${outside.to}) through a symlink; nothing written (--follow-symlinks writes there)`,
    };
  let target = abs;
  let followedFrom: string | undefined;
  let lst: fs.Stats | undefined;
  try {
    lst = fs.lstatSync(abs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return { ok: false, reason: `cannot read ${abs}: ${(err as Error).message}` };
  }
  if (lst?.isSymbolicLink()) {
    let real: string;
    try {
      real = fs.realpathSync(abs);
    } catch {
      return { ok: false, reason: `${abs} is a symlink whose target does not exist; nothing written` };
    }
    if (!opts.followSymlinks)
      return { ok: false, reason: `${abs} is a symlink to ${real}; not replaced (--follow-symlinks updates ${real} and keeps the link)` };
    target = real;
    followedFrom = abs;
  }
  if (lst === undefined) return { ok: true, file: { target } };
  try {
    const bytes = await safeReadBytes(target, { maxBytes: MAX_CONFIG_BYTES });
    const text = bomEncoding(bytes) === 'UTF-8' ? bytes.toString('utf8') : decodeUtf8(target, bytes);
    const mode = fs.statSync(target).mode & 0o7777;
    return { ok: true, file: { target, text, mode, ...(followedFrom ? { followedFrom } : {}) } };
  } catch (err) {
    return { ok: false, reason: `cannot read ${target}: ${(err as Error).message}` };
  }
}

/** Writes `file` atomically (a temp file beside it, renamed over it) with `mode` (the umask's default when undefined). */
export function writeWithMode(file: string, text: string | Buffer, mode: number | undefined): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const fd = fs.openSync(tmp, 'wx', mode ?? 0o666);
    try {
      fs.writeFileSync(fd, text); // all of it (a bare writeSync may write part)
      if (mode !== undefined) fs.fchmodSync(fd, mode); // the umask must not widen or narrow the old mode
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (err) {
    try {
      fs.unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw err;
  }
}

/** Why `f` must not be replaced, if it must not (see the file comment). */
export function readOnlyReason(f: ConfigFile): string | undefined {
  if (f.mode === undefined) return undefined; // a new file
  const how = `mode ${(f.mode & 0o777).toString(8).padStart(4, '0')}`;
  if ((f.mode & 0o222) === 0) return `${f.target} is read-only (${how}); nothing written (make it writable, e.g. chmod u+w, to let rawr change it)`;
  try {
    fs.accessSync(f.target, fs.constants.W_OK);
  } catch {
    return `${f.target} is not writable by this user (${how}); nothing written`;
  }
  return undefined;
}

/**
 * Replaces `f.target` with `text` (see the file comment). Returns the backup's path when one was written.
 * Throws a WriteRefused, having written nothing, when the file is read-only (readOnlyReason) or the
 * system refuses the write. With `undo`, the steps that put back the file, its backup and the folders
 * made for them are added to it (a later refusal in the same command takes this write back too).
 */
export function writeConfigFile(f: ConfigFile, text: string, backupTo?: string, undo?: UndoLog): { backup?: string } {
  const readOnly = readOnlyReason(f);
  if (readOnly !== undefined) throw new Error(readOnly);
  // A write the system refuses (a folder not writable, a read-only file system, a full disk) leaves
  // nothing behind: the folders made for it and the backup written for it go again (an earlier backup is put back).
  const mine = new UndoLog();
  try {
    mine.add(madeFolders(path.dirname(f.target), fs.mkdirSync(path.dirname(f.target), { recursive: true })), path.dirname(f.target));
    let backup: string | undefined;
    if (f.text !== undefined) {
      const to = backupTo ?? `${f.target}.rawr-backup`;
      mine.add(madeFolders(path.dirname(to), fs.mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 })), path.dirname(to));
      const earlier = bytesToKeep(to);
      mine.add(() => (earlier === undefined ? fs.rmSync(to, { force: true }) : writeWithMode(to, earlier, f.mode)), to);
      writeWithMode(to, f.text, f.mode);
      backup = to;
    }
    writeWithMode(f.target, text, f.mode);
    mine.add(() => (f.text === undefined ? fs.rmSync(f.target, { force: true }) : writeWithMode(f.target, f.text, f.mode)), f.target);
    undo?.add(() => {
      const failed = mine.rollback();
      if (failed.length) throw new Error(failed.map((n) => (n.file === f.target ? n.why : `${n.file}: ${n.why}`)).join('; '));
    }, f.target);
    return backup !== undefined ? { backup } : {};
  } catch (err) {
    mine.rollback(); // as much as the system lets rawr take back
    throw new WriteRefused(f.target, err as NodeJS.ErrnoException);
  }
}

/** Replaces (or creates) a plain file rawr edits in place (`.git/info/exclude`) with `text`, atomically and keeping its mode; `undo` gets the step that puts its bytes back. */
export function replaceFile(file: string, text: string, undo: UndoLog): void {
  let before: { bytes: Buffer; mode: number } | undefined;
  try {
    const bytes = bytesToKeep(file);
    if (bytes !== undefined) before = { bytes, mode: fs.statSync(file).mode & 0o7777 };
  } catch (err) {
    throw new WriteRefused(file, err as NodeJS.ErrnoException);
  }
  try {
    writeWithMode(file, text, before?.mode);
  } catch (err) {
    throw new WriteRefused(file, err as NodeJS.ErrnoException);
  }
  undo.add(() => (before === undefined ? fs.rmSync(file, { force: true }) : writeWithMode(file, before.bytes, before.mode)), file);
}

/** Removes `file` (and its folder, when `folderToo` and then empty); `undo` gets the steps that put them back, byte for byte and mode for mode. */
export function removeFile(file: string, undo: UndoLog, folderToo = false): void {
  try {
    const bytes = safeReadBytesSync(file, { maxBytes: MAX_CONFIG_BYTES });
    const mode = fs.statSync(file).mode & 0o7777;
    fs.unlinkSync(file);
    undo.add(() => writeWithMode(file, bytes, mode), file);
  } catch (err) {
    throw new WriteRefused(file, err as NodeJS.ErrnoException);
  }
  if (!folderToo) return;
  const dir = path.dirname(file);
  try {
    const mode = fs.statSync(dir).mode & 0o7777;
    fs.rmdirSync(dir);
    undo.add(() => fs.mkdirSync(dir, { mode }), dir);
  } catch {
    /* not empty (someone else's files) or gone: it stays */
  }
}

/** Undoes `mkdirSync(dir, { recursive: true })`, which returned `first` (the top folder it made, if any): each made folder, if still empty. */
function madeFolders(dir: string, first: string | undefined): () => void {
  return () => {
    if (first === undefined) return;
    for (let d = dir; isInside(d, first); d = path.dirname(d)) fs.rmdirSync(d);
  };
}

/** A refused write in a sentence: the file the person knows (not rawr's temp file) and what the system said. */
export class WriteRefused extends Error {
  /** What the system said, in words ("the file system is read-only"). */
  readonly why: string;

  constructor(
    readonly target: string,
    err: NodeJS.ErrnoException,
  ) {
    const why = err instanceof WriteRefused ? err.why : inWords(err);
    super(`cannot write ${target}: ${why}; nothing written`, { cause: err });
    this.why = why;
  }
}
