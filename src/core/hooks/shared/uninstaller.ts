/**
 * `rawr hooks claude|codex uninstall` and the extension's "Rawr: Remove … hooks": takes back exactly what
 * install added (installState.ts) and nothing of the person's.
 *   - A file nobody but rawr changed since rawr's install gets its text from before, byte for byte (or is
 *     removed, with its folder, when rawr created them).
 *   - A file someone changed since keeps those changes: rawr's hook entries, the autoCompactWindow and
 *     env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE rawr set (the values steer.json recorded, and `env` when rawr
 *     created it and nothing else is in it; the person's own values are theirs) are removed from what
 *     is there, through the same text edit as install (comments kept); if rawr created the file and
 *     nothing else is left in it, it goes.
 *   - The ignore line rawr appended to `.git/info/exclude` goes; install's record, backups and
 *     `steer.json` go; `--purge` also removes the session state (`.rawr/<agent>/`), and `.rawr/` when
 *     nothing else is in it (a team's `.rawr/prompts/` stays).
 *   - All or nothing: a file it may not change, or a write the system refuses, puts back what it had
 *     already changed (undoLog.ts) and keeps the record, so the same uninstall can finish later.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { readConfigFile, removeFile, writeConfigFile, WriteRefused, type ConfigFile } from './configFile';
import { editJson, parseJsonc } from './jsonEdit';
import { removeRawrHooks } from './hooksConfig';
import { backupFile, forgetInstall, hashText, readRecord, removeIfEmpty, withInstallLock, type FileRecord, type InstallRecord } from './installState';
import { unignoreLocalSettings } from './gitignoreLocal';
import { CLAUDE_LOCAL_SETTINGS, CLAUDE_SHARED_SETTINGS, codexStateDir, dropOurPercent } from './installer';
import { readSteerConfig, steerConfigFile } from '../claude/steerConfig';
import { UndoLog } from './undoLog';

export interface UninstallResult {
  ok: boolean;
  lines: string[];
  /** Nothing of rawr's was there: nothing was removed. */
  nothing?: boolean;
}

type Remove = (settings: Record<string, unknown>) => Record<string, unknown>;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A file install recorded, put back as it was before rawr when nothing but rawr changed it since (its
 * text hashes to what rawr wrote): removed if rawr created it, else its earlier text written back. The
 * line saying so; null when something else changed it, or its earlier text is unknown (the caller edits
 * out rawr's entries, or says what is left). `why` words the line for the caller's kind of change.
 */
function restoreRecorded(
  read: ConfigFile,
  rec: FileRecord,
  stateDir: string,
  undo: UndoLog,
  why: { created: string; before: string; folderToo?: boolean | undefined },
): string | null {
  if (read.text === undefined || rec.before === 'unknown' || hashText(read.text) !== rec.written) return null;
  if (rec.before === 'absent') {
    removeFile(read.target, undo, why.folderToo); // its folder only if empty
    return `rawr: removed ${read.target} (${why.created})`;
  }
  writeConfigFile(read, rec.before.text, backupFile(stateDir, read.target), undo);
  return `rawr: ${read.target} is back as it was ${why.before}`;
}

/**
 * One file back to what it was without rawr (see the file comment); null when there was nothing to do.
 * A write the system refuses throws (WriteRefused); `undo` gets the steps that put back what it changed.
 */
async function takeBack(
  file: string,
  record: InstallRecord,
  remove: Remove,
  o: { followSymlinks: boolean; within?: string; stateDir: string },
  undo: UndoLog,
): Promise<{ ok: boolean; line: string | null }> {
  const read = await readConfigFile(file, { followSymlinks: o.followSymlinks, ...(o.within !== undefined ? { within: o.within } : {}) });
  if (!read.ok) return { ok: false, line: `rawr: ${read.reason}` };
  const text = read.file.text;
  if (text === undefined) return { ok: true, line: null };
  const target = read.file.target;
  const rec = record.files[target];
  const restored =
    rec && restoreRecorded(read.file, rec, o.stateDir, undo, { created: 'rawr created it', before: "before rawr's install", folderToo: rec.dirCreated });
  if (restored) return { ok: true, line: restored };
  const parsed = parseJsonc(text);
  if (!parsed.ok || !isObject(parsed.value))
    return { ok: false, line: `rawr: ${target} is not a JSON object (${parsed.ok ? 'shape' : parsed.reason}): remove rawr's entries yourself` };
  const after = remove(parsed.value);
  if (rec && rec.before !== 'unknown' && rec.before !== 'absent') keepTheirEmptyLists(after, parsed.value, rec.before.text);
  if (isDeepStrictEqual(after, parsed.value)) return { ok: true, line: null };
  const edited = editJson(text, parsed.value, after);
  if (!edited.ok) return { ok: false, line: `rawr: ${target}: ${edited.reason}; remove rawr's entries yourself` };
  if (rec?.created && edited.text.replace(/\s/g, '') === '{}') {
    removeFile(target, undo, rec.dirCreated);
    return { ok: true, line: `rawr: removed ${target} (rawr created it; nothing else was in it)` };
  }
  // (the backup goes with install's record below: not named)
  writeConfigFile(read.file, edited.text, backupFile(o.stateDir, target), undo);
  return { ok: true, line: `rawr: ${target}: rawr's entries removed; the rest kept as it is` };
}

/** A refusal's line, saying that nothing was removed (its "nothing written" is that, in an uninstall). */
const nothingRemoved = (line: string) => (line.includes('nothing written') ? line.replace('nothing written', 'nothing removed') : `${line}; nothing removed`);

/**
 * Runs an uninstall's changes all or nothing: a file it may not change (not JSON, a symlink not
 * followed) or a write the system refuses (EACCES, EROFS, ENOSPC) puts back what it had already
 * changed, and the result is one line naming the file and why. `change` returns the lines of what it did.
 */
async function allOrNothing(change: (undo: UndoLog) => Promise<{ ok: true; lines: string[] } | { ok: false; line: string }>): Promise<UninstallResult> {
  const undo = new UndoLog();
  let refusal: string;
  try {
    const r = await change(undo);
    if (r.ok) return r;
    refusal = nothingRemoved(r.line);
  } catch (err) {
    refusal =
      err instanceof WriteRefused
        ? `rawr: cannot write ${err.target}: ${err.why}; nothing removed (rawr's hooks stay installed until it can be written)`
        : nothingRemoved(`rawr: ${(err as Error).message}`);
  }
  // the install record is kept (nothing was forgotten): a later Remove still knows what rawr wrote
  return { ok: false, lines: undo.refusal(refusal).lines };
}

/**
 * An empty `hooks` object or event list the person had before rawr's install (which rawr then filled),
 * put back where removing rawr's entries left nothing: removeRawrHooks cannot tell it from one rawr made.
 */
function keepTheirEmptyLists(after: Record<string, unknown>, now: Record<string, unknown>, beforeText: string): void {
  const before = parseJsonc(beforeText);
  if (!before.ok || !isObject(before.value) || !isObject(before.value.hooks) || !isObject(now.hooks)) return;
  const had = before.value.hooks;
  if (!isObject(after.hooks)) {
    if (!Object.values(had).every((l) => Array.isArray(l) && l.length === 0)) return; // they had hooks of their own, gone since
    after.hooks = {};
  }
  const hooks = after.hooks as Record<string, unknown>;
  for (const [event, list] of Object.entries(had))
    if (Array.isArray(list) && list.length === 0 && Object.hasOwn(now.hooks, event) && !Object.hasOwn(hooks, event)) hooks[event] = [];
}

/** `dir` when it is a real folder (never through a symlink), else undefined. */
function realDir(dir: string): string | undefined {
  try {
    return fs.lstatSync(dir).isDirectory() ? dir : undefined;
  } catch {
    return undefined;
  }
}

export async function uninstallClaude(o: {
  projectDir: string;
  purge: boolean;
  followSymlinks: boolean;
  /** How the person removes the session state too (default: the CLI's `--purge`). */
  purgeHint?: string;
}): Promise<UninstallResult> {
  const top = path.join(o.projectDir, '.rawr');
  const stateDir = realDir(top) && realDir(path.join(top, 'claude'));
  const record = stateDir ? readRecord(stateDir) : { files: {} };
  const steer = await readSteerConfig(o.projectDir);
  const rawrWrote = steer?.autoCompactWindow ?? null;
  const removeLocal: Remove = (s) => {
    const out = removeRawrHooks(s, 'claude');
    if (rawrWrote !== null && out.autoCompactWindow === rawrWrote) delete out.autoCompactWindow;
    dropOurPercent(out, steer?.askPercent ?? null, steer?.envCreated ?? false);
    return out;
  };
  const work = () =>
    allOrNothing(async (undo) => {
      const lines: string[] = [];
      const opts = { followSymlinks: o.followSymlinks, within: o.projectDir, stateDir: stateDir ?? top };
      for (const [file, remove] of [
        [CLAUDE_LOCAL_SETTINGS, removeLocal],
        // where an earlier rawr put its hooks; the team's own values there are never rawr's
        [CLAUDE_SHARED_SETTINGS, (s: Record<string, unknown>) => removeRawrHooks(s, 'claude')],
      ] as const) {
        const r = await takeBack(path.join(o.projectDir, file), record, remove, opts, undo);
        if (!r.ok) return { ok: false, line: r.line ?? `rawr: ${file}` };
        if (r.line) lines.push(r.line);
      }
      if (record.ignore) {
        const l = unignoreLocalSettings(record.ignore, undo);
        if (l) lines.push(l);
      }
      // only now that every file is back: the record and steer.json are what a second try needs
      if (stateDir) {
        forgetInstall(stateDir);
        fs.rmSync(steerConfigFile(o.projectDir), { force: true });
      }
      return { ok: true, lines };
    });
  const r = stateDir ? await withInstallLock(stateDir, work) : await work();
  if (stateDir && r.ok) {
    if (o.purge) {
      fs.rmSync(stateDir, { recursive: true, force: true });
      r.lines.push(`rawr: removed ${stateDir} (rawr's session state)`);
    } else if (removeIfEmpty(stateDir, ['.gitignore'])) r.lines.push(`rawr: removed ${stateDir} (nothing left in it)`);
    else r.lines.push(`rawr: session state kept in ${stateDir} (${o.purgeHint ?? 'uninstall --purge removes it'})`);
    removeIfEmpty(top);
  }
  if (r.lines.length === 0) return { ...r, nothing: true, lines: [`rawr: nothing of rawr's in ${o.projectDir}`] };
  return r;
}

/** A project's Codex session state (`<project>/.rawr/codex/`) when it is there as a real folder (never through a symlink). */
export const codexSessionState = (project: string): string | undefined => realDir(path.join(project, '.rawr')) && realDir(path.join(project, '.rawr', 'codex'));

/**
 * rawr's record of `$CODEX_HOME/config.toml`, kept when install trusted its hooks there (by the file a
 * write goes to, as install noted it: a symlink's target), and the path to read it by. Undefined when
 * rawr did not: then uninstall leaves config.toml unread. The one decision both uninstallCodex and the
 * editor's question before it (which files Remove writes) take.
 */
export function codexTrustRecord(codexHome: string, record: InstallRecord = readRecord(codexStateDir(codexHome))): (FileRecord & { file: string }) | undefined {
  const file = path.resolve(codexHome, 'config.toml');
  let target = file;
  try {
    if (fs.lstatSync(file).isSymbolicLink()) target = fs.realpathSync(file);
  } catch {
    return undefined; // no config.toml (or a dangling link): nothing of rawr's to take back
  }
  const rec = record.files[target];
  return rec && { ...rec, file };
}

/** `purgeProjects`: the projects whose Codex session state goes too (the CLI: the current folder; the editor: its folders). */
export async function uninstallCodex(o: { codexHome: string; followSymlinks: boolean; purgeProjects?: string[] }): Promise<UninstallResult> {
  const stateDir = realDir(codexStateDir(o.codexHome));
  const record = stateDir ? readRecord(stateDir) : { files: {} };
  const work = () =>
    allOrNothing(async (undo) => {
      const lines: string[] = [];
      const opts = { followSymlinks: o.followSymlinks, stateDir: stateDir ?? codexStateDir(o.codexHome) };
      const hooks = await takeBack(path.join(o.codexHome, 'hooks.json'), record, (s) => removeRawrHooks(s, 'codex'), opts, undo);
      if (!hooks.ok) return { ok: false, line: hooks.line ?? 'rawr: hooks.json' };
      if (hooks.line) lines.push(hooks.line);
      // config.toml: rawr's trust entries go with the file's earlier text when nothing else changed it.
      const rec = codexTrustRecord(o.codexHome, record);
      if (rec) {
        const read = await readConfigFile(rec.file, { followSymlinks: o.followSymlinks });
        if (!read.ok) return { ok: false, line: `rawr: ${read.reason}` };
        if (read.file.text !== undefined) {
          // Codex's home folder goes below, by its own record (codexHomeCreated), not with this file.
          const restored = restoreRecorded(read.file, rec, opts.stateDir, undo, {
            created: 'rawr created it to trust its hooks',
            before: 'before rawr trusted its hooks',
          });
          if (restored) lines.push(restored);
          else
            lines.push(
              `rawr: ${read.file.target} changed since rawr trusted its hooks: its [hooks.state] entries for the removed hooks are left (Codex ignores them); remove them yourself if you like`,
            );
        }
      }
      if (stateDir) forgetInstall(stateDir);
      return { ok: true, lines };
    });
  const r = stateDir ? await withInstallLock(stateDir, work) : await work();
  if (stateDir) removeIfEmpty(stateDir);
  if (record.codexHomeCreated && removeIfEmpty(o.codexHome)) r.lines.push(`rawr: removed ${o.codexHome} (rawr created it; nothing left in it)`);
  for (const project of o.purgeProjects ?? []) {
    const state = codexSessionState(project);
    if (state) {
      fs.rmSync(state, { recursive: true, force: true });
      r.lines.push(`rawr: removed ${state} (rawr's session state)`);
      removeIfEmpty(path.join(project, '.rawr'));
    }
  }
  if (r.lines.length === 0) return { ...r, nothing: true, lines: [`rawr: nothing of rawr's in ${o.codexHome}`] };
  return r;
}
