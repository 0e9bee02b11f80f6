/**
 * What `install` changed, so that `uninstall` takes back exactly that and nothing of the person's, and
 * the lock every install and uninstall of one agent takes. All in rawr's own state folder (Claude Code:
 * `<project>/.rawr/claude/`, git-ignored; Codex: `$CODEX_HOME/.rawr/`):
 *   install.json    per file rawr wrote: its text before rawr first touched it (or that it was absent,
 *                   or "unknown" once someone else changed it after rawr), a hash of what rawr last
 *                   wrote, whether rawr created it (and its folder); the ignore line rawr appended.
 *   install.lock    the pid of the install holding it (concurrent installs would read each other's
 *                   half-done values as the person's: issue 30, an orphaned autoCompactWindow).
 *   backup/<name>   the previous version of each file install replaced (never beside the settings).
 * Uninstall restores a file's first text byte for byte when nothing but rawr changed it since; otherwise
 * it removes rawr's entries from what is there now.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { SafeReadError, safeReadBytesSync, safeReadTextSync } from '../../io/safeRead';
import { writeWithMode } from './configFile';
import { writeFileAtomic } from './store';
import type { UndoLog } from './undoLog';

/**
 * Claude Code's state folder is in the project, so a cloned repository can bring its own `install.json`
 * and `install.lock` (a FIFO, a link to /dev/zero, a folder, a huge file): both are read through safeRead
 * within these caps. The record holds the earlier text of the few files install wrote (each within
 * configFile.ts's 4 MiB); the lock holds a pid.
 */
const MAX_RECORD_BYTES = 16 * 1024 * 1024;
const MAX_LOCK_BYTES = 1024;

const FileRecord = z.object({
  before: z.union([z.object({ text: z.string() }), z.literal('absent'), z.literal('unknown')]),
  written: z.string(),
  created: z.boolean(),
  dirCreated: z.boolean().optional(),
});
export type FileRecord = z.infer<typeof FileRecord>;
export const InstallRecord = z.object({
  files: z.record(z.string(), FileRecord),
  ignore: z.object({ file: z.string(), appended: z.string(), rule: z.string() }).optional(),
  /** Codex: `$CODEX_HOME` did not exist before rawr's first install (uninstall removes it if it is empty then). */
  codexHomeCreated: z.boolean().optional(),
});
export type InstallRecord = z.infer<typeof InstallRecord>;

export const hashText = (text: string) => createHash('sha256').update(text).digest('hex');
const recordFile = (stateDir: string) => path.join(stateDir, 'install.json');
export const backupFile = (stateDir: string, target: string) => path.join(stateDir, 'backup', `${path.basename(target)}.rawr-backup`);

/**
 * The record (empty when absent or unreadable, e.g. not a regular file within its cap: then uninstall
 * removes rawr's entries by what they are, and install's rename replaces it).
 */
export function readRecord(stateDir: string): InstallRecord {
  try {
    const parsed = InstallRecord.safeParse(JSON.parse(safeReadTextSync(recordFile(stateDir), { maxBytes: MAX_RECORD_BYTES })));
    if (parsed.success) return parsed.data;
  } catch {
    /* absent or not JSON */
  }
  return { files: {} };
}

/** Writes the record; with `undo`, the step that puts the record file back as it was is added first (see putBackLater). */
export function writeRecord(stateDir: string, r: InstallRecord, undo?: UndoLog): void {
  if (undo) putBackLater(recordFile(stateDir), undo);
  writeFileAtomic(recordFile(stateDir), `${JSON.stringify(r, null, 2)}\n`);
  fs.chmodSync(recordFile(stateDir), 0o600); // it may hold the text of a settings file
}

const unchanged = (file: string, bytes: Buffer): boolean => {
  try {
    return safeReadBytesSync(file, { maxBytes: MAX_RECORD_BYTES }).equals(bytes);
  } catch {
    return false;
  }
};

/**
 * Adds to `undo` the step that puts rawr's own state file `file` back as it is now (its bytes and mode, or
 * absent). Install writes its record last; when the system refuses that write, the install is taken back
 * whole, and the state files it had written just before (steer.json) go back with it: an install whose
 * record could not be kept is one Remove could not take back exactly.
 */
export function putBackLater(file: string, undo: UndoLog): void {
  let before: { bytes: Buffer; mode: number } | undefined;
  try {
    before = { bytes: safeReadBytesSync(file, { maxBytes: MAX_RECORD_BYTES }), mode: fs.statSync(file).mode & 0o7777 };
  } catch {
    // absent, or not a file rawr could have written (a FIFO or a huge file a cloned repository brought: the
    // write's rename replaces it anyway): taking the install back removes what it wrote there
  }
  undo.add(() => {
    if (before === undefined) return fs.rmSync(file, { force: true });
    if (unchanged(file, before.bytes)) return; // the refused write was atomic: nothing to put back, and the disk may still be full
    writeWithMode(file, before.bytes, before.mode);
  }, file);
}

/** Notes that rawr replaced `previous` (undefined: the file was absent) of `file` with `text`. */
export function noteWrite(r: InstallRecord, file: string, previous: string | undefined, text: string, dirExisted: boolean): void {
  const had = r.files[file];
  const untouchedSince = had !== undefined && previous !== undefined && hashText(previous) === had.written;
  r.files[file] = {
    before: untouchedSince ? had.before : had === undefined ? (previous === undefined ? 'absent' : { text: previous }) : 'unknown',
    written: hashText(text),
    created: previous === undefined || (had?.created ?? false),
    ...((had?.dirCreated ?? !dirExisted) ? { dirCreated: true } : {}),
  };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Runs `fn` holding `<stateDir>/install.lock` (an exclusive create; a lock whose process is gone is taken
 * over). Waits up to `timeoutMs` for another install, then fails with who holds it.
 */
export async function withInstallLock<T>(stateDir: string, fn: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  const lock = path.join(stateDir, 'install.lock');
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const fd = fs.openSync(lock, 'wx', 0o600);
      fs.writeSync(fd, `${process.pid}\n`);
      fs.closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let holder: string;
    try {
      holder = safeReadTextSync(lock, { maxBytes: MAX_LOCK_BYTES }).trim();
    } catch (err) {
      if (err instanceof SafeReadError && err.problem === 'not_found') continue; // released meanwhile
      // No install holds it and none ever will let it go (waiting would spin for ever): say what it is.
      throw new Error(`${(err as Error).message}: not an install's lock; remove it, then try again`, { cause: err });
    }
    const pid = Number(holder);
    // A lock left by a process that is gone (killed mid-install): taken over, if it is still that one.
    if (Number.isInteger(pid) && pid > 0 && !alive(pid)) {
      try {
        if (safeReadTextSync(lock, { maxBytes: MAX_LOCK_BYTES }).trim() === holder) fs.unlinkSync(lock);
      } catch {
        /* someone else took it over first */
      }
      continue;
    }
    if (Date.now() > until) throw new Error(`another rawr install (pid ${holder || '?'}) holds ${lock}; try again when it is done`);
    await new Promise((r) => setTimeout(r, 20 + Math.random() * 30));
  }
  try {
    return await fn();
  } finally {
    try {
      fs.unlinkSync(lock);
    } catch {
      /* already gone */
    }
  }
}

/** Removes `dir` if it holds nothing (or only the entries `ignorable`); says whether it did. */
export function removeIfEmpty(dir: string, ignorable: string[] = []): boolean {
  try {
    if (fs.readdirSync(dir).every((e) => ignorable.includes(e))) {
      fs.rmSync(dir, { recursive: true, force: true });
      return true;
    }
  } catch {
    /* absent */
  }
  return false;
}

/** Removes what install leaves only for uninstall (record, backups, lock) from `stateDir`. */
export function forgetInstall(stateDir: string): void {
  fs.rmSync(recordFile(stateDir), { force: true });
  fs.rmSync(path.join(stateDir, 'backup'), { recursive: true, force: true });
}
