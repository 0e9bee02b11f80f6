/**
 * `install` for both agents, used by the CLI (`rawr hooks <agent> install`) and by the extension's
 * "Rawr: Install … hooks" commands: merge rawr's hook entries into the agent's file (configFile.ts
 * rules: symlinks explicit, mode kept, read-only refused, atomic, backup; the JSON edited in place by
 * jsonEdit.ts, so untouched values keep their text), and for Codex the trust entries (codex/trust.ts).
 *
 * Claude Code: into the project's personal `.claude/settings.local.json` (hook commands name this
 * machine's paths; the shared `.claude/settings.json` is what teams commit), with `autoCompactWindow`
 * when rawr steers (claude/steerConfig.ts) and `.rawr/claude/steer.json` saying whether it does. Hooks an
 * earlier rawr wrote into the shared file keep working; `move` moves them.
 */
import * as path from 'node:path';
import * as fs from 'node:fs';
import { readConfigFile, writeConfigFile, type ConfigFile } from './configFile';
import { editJson, parseJsonc } from './jsonEdit';
import { backupFile, noteWrite, putBackLater, readRecord, removeIfEmpty, withInstallLock, writeRecord, type InstallRecord } from './installState';
import { safeReadTextIfExistsSync } from '../../io/safeRead';
import { CLAUDE_HOOKS, CODEX_HOOKS, hooksConfig, mergeHooks, rawrEventsIn, removeRawrHooks, type HooksConfig } from './hooksConfig';
import { agentStateDir } from './store';
import { UndoLog, inWords, type NotPutBack } from './undoLog';
import { ignoreLocalSettings, trackedByGit } from './gitignoreLocal';
import { applyTrust, rawrTrustEntries } from '../codex/trust';
import { askLineFor, askPercentOf, claudeAsksFrom, readSteerConfig, steerConfigFile, writeSteerConfig } from '../claude/steerConfig';
import { modelWindow } from '../../replay/windows';
import type { Settings } from '../../settings/schema';
import { loadPromptSet } from '../../prompts/promptSet';
import { dirReader, shippedPromptsDir } from '../../prompts/fs';

export interface InstallResult {
  ok: boolean;
  /** Human-readable lines (stdout when ok, stderr when not). */
  lines: string[];
  /** The hook configuration (what --write would merge). */
  config: HooksConfig;
}

/** writeConfigFile, its refusal (read-only) or failure as a reason. */
function tryWrite(f: ConfigFile, text: string, backupTo?: string, undo?: UndoLog): { ok: true; backup?: string } | { ok: false; reason: string } {
  try {
    return { ok: true, ...writeConfigFile(f, text, backupTo, undo) };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}

const summary = (m: { added: string[]; updated: string[]; unchanged: string[] }) =>
  [
    m.added.length ? `added ${m.added.join(', ')}` : '',
    m.updated.length ? `updated ${m.updated.join(', ')}` : '',
    m.unchanged.length ? `already present: ${m.unchanged.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ');

type Edit = (existing: Record<string, unknown>) => { ok: true; settings: Record<string, unknown>; summary: string } | { ok: false; reason: string };

/** Where install keeps its record and backups (installState.ts); absent: the backup beside the file, no record. */
export interface Tracking {
  stateDir: string;
  record: InstallRecord;
}

/**
 * Reads a JSON settings file (configFile.ts rules; JSONC as Claude Code reads it), applies `edit`, and
 * writes it back if it changed: its own text, edited where the merge changed something (comments,
 * numbers and layout kept as written). With `track`, the backup goes to rawr's state folder and the
 * write is noted for uninstall. With `undo`, the write can be taken back (a later refusal in the same command).
 */
export async function editJsonFile(
  file: string,
  edit: Edit,
  followSymlinks: boolean,
  within: string | undefined,
  byHand: () => unknown,
  track?: Tracking,
  undo?: UndoLog,
): Promise<{ ok: true; line: string; merged: Record<string, unknown>; target: string; changed: boolean } | { ok: false; line: string }> {
  const read = await readConfigFile(file, { followSymlinks, ...(within !== undefined ? { within } : {}) });
  if (!read.ok) return { ok: false, line: `${read.reason}` };
  const hand = () => `Merge this by hand:\n${JSON.stringify(byHand(), null, 2)}`;
  const parsed = parseJsonc(read.file.text ?? '');
  if (!parsed.ok) return { ok: false, line: `${read.file.target} is not valid JSON (${parsed.reason}); nothing written. Fix it, or ${hand()}` };
  const existing = parsed.value;
  if (!isObject(existing)) return { ok: false, line: `${read.file.target}: the file is not a JSON object; nothing written` };
  const changed = edit(existing);
  if (!changed.ok) return { ok: false, line: `${read.file.target}: ${changed.reason}; nothing written` };
  const edited = editJson(read.file.text ?? '', existing, changed.settings);
  if (!edited.ok) return { ok: false, line: `${read.file.target}: ${edited.reason}; nothing written. ${hand()}` };
  let backup: string | undefined;
  const differs = edited.text !== read.file.text;
  if (differs) {
    const dirExisted = fs.existsSync(path.dirname(read.file.target));
    const w = tryWrite(read.file, edited.text, track ? backupFile(track.stateDir, read.file.target) : undefined, undo);
    if (!w.ok) return { ok: false, line: w.reason };
    backup = w.backup;
    if (track) noteWrite(track.record, read.file.target, read.file.text, edited.text, dirExisted);
  }
  const via = read.file.followedFrom ? ` (through the symlink ${read.file.followedFrom})` : '';
  return {
    ok: true,
    merged: changed.settings,
    target: read.file.target,
    changed: differs,
    line: `${read.file.target}${via}: ${changed.summary}${backup ? `; previous version kept in ${backup}` : ''}`,
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function mergeInto(
  file: string,
  config: HooksConfig,
  agent: 'claude' | 'codex',
  followSymlinks: boolean,
  within: string | undefined,
  track: Tracking,
  undo: UndoLog,
) {
  return editJsonFile(
    file,
    (existing) => {
      const merged = mergeHooks(existing, config, agent);
      return merged.ok ? { ok: true, settings: merged.settings, summary: summary(merged) } : merged;
    },
    followSymlinks,
    within,
    () => config,
    track,
    undo,
  );
}

/** Claude Code's settings files in a project: the shared one teams commit, and the personal one. */
export const CLAUDE_SHARED_SETTINGS = path.join('.claude', 'settings.json');
export const CLAUDE_LOCAL_SETTINGS = path.join('.claude', 'settings.local.json');
/** Claude Code's default models (Opus 4.6+, Sonnet 4.6, the 5.x models) have a 1M window. */
export const CLAUDE_DEFAULT_WINDOW = 1_000_000;

export interface ClaudeInstallOptions {
  projectDir: string;
  commandPrefix: string;
  write: boolean;
  followSymlinks: boolean;
  /** Steer Claude Code's compaction (default true): its auto-compact threshold at rawr's early line, PreCompact answering. */
  steer?: boolean;
  /** Write rawr's hook entries (default true); false: only steering, for hooks that come from the Claude Code plugin. */
  hooks?: boolean;
  /** Move rawr's hooks that an earlier rawr wrote into the shared `.claude/settings.json` to the personal file. */
  move?: boolean;
  /** The model's context window (default: the window of the model the settings name, else 1M). */
  window?: number;
  /** Settings (early line) the threshold is computed from; default: the project's prompt files, as the hook reads them. */
  settings?: Pick<Settings, 'early_percent_remaining_lt'>;
  /** The user's home (their `~/.claude/settings.json` may name the model). */
  home?: string;
  /** The installing shell's environment: a `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` there is the person's choice, kept. */
  env?: Record<string, string | undefined>;
  /** How the person undoes or changes the install where they ran it (default: the rawr CLI's own commands). */
  hints?: ClaudeInstallHints;
}

/** What the person is told to run next: the CLI's commands, or the editor's (a VS Code user may have no `rawr` on PATH). */
export interface ClaudeInstallHints {
  /** After "steering …": how to turn steering off and remove everything. */
  undo: string;
  /** After "rawr's hooks are in the shared settings": how to move them. */
  move: string;
}

export const CLI_INSTALL_HINTS: ClaudeInstallHints = {
  undo: 'Turn it off: install --write --no-steer. Remove everything: rawr hooks claude uninstall.',
  move: `install --write --move moves them into ${CLAUDE_LOCAL_SETTINGS}.`,
};

export interface ClaudeInstallResult extends InstallResult {
  /** rawr's hooks are (still) in the shared `.claude/settings.json`, where an earlier rawr put them. */
  legacy: boolean;
}

/** A settings file's JSON, read as every file rawr did not write (regular file, size cap: never a FIFO); undefined when absent or not JSON. */
function readJsonQuietly(file: string): unknown {
  try {
    const text = safeReadTextIfExistsSync(file, { maxBytes: MAX_SETTINGS_BYTES });
    if (text === undefined) return undefined;
    const parsed = parseJsonc(text);
    return parsed.ok ? parsed.value : undefined;
  } catch {
    return undefined;
  }
}
const MAX_SETTINGS_BYTES = 4 * 1024 * 1024;

/** The model the Claude Code settings name (personal, shared, user), if any. */
function modelOf(files: Array<string | undefined>): string | undefined {
  for (const f of files) {
    if (f === undefined) continue;
    try {
      const o = readJsonQuietly(f);
      if (isObject(o) && typeof o.model === 'string' && o.model.trim()) return o.model.trim();
    } catch {
      /* absent or not JSON: says nothing */
    }
  }
  return undefined;
}

/** A number at `key` in a settings file, when it has one. */
function numberIn(file: string | undefined, key: string): number | undefined {
  if (file === undefined) return undefined;
  const o = readJsonQuietly(file);
  return isObject(o) && typeof o[key] === 'number' ? o[key] : undefined;
}

/** Claude Code's percentage override, which it also reads from a settings file's `env`. */
export const PCT_OVERRIDE = 'CLAUDE_AUTOCOMPACT_PCT_OVERRIDE';

/** A settings file's `env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`, when it sets one. */
function percentIn(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  const o = readJsonQuietly(file);
  const v = isObject(o) && isObject(o.env) ? o.env[PCT_OVERRIDE] : undefined;
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
}

export async function installClaude(o: ClaudeInstallOptions): Promise<ClaudeInstallResult> {
  const steer = o.steer ?? true;
  const hints = o.hints ?? CLI_INSTALL_HINTS;
  const settings = o.settings ?? loadPromptSet([dirReader(path.join(o.projectDir, '.rawr', 'prompts')), dirReader(shippedPromptsDir())]).settings;
  const shared = path.join(o.projectDir, CLAUDE_SHARED_SETTINGS);
  const local = path.join(o.projectDir, CLAUDE_LOCAL_SETTINGS);
  const userSettings = o.home ? path.join(o.home, '.claude', 'settings.json') : undefined;
  const model = modelOf([local, shared, userSettings]);
  const window = o.window ?? (model ? modelWindow(model)?.window : undefined) ?? CLAUDE_DEFAULT_WINDOW;
  const windowWhy = o.window ? `--window ${o.window}` : model ? `model ${model} in the Claude Code settings` : "Claude Code's default models: 1M";
  const line = askLineFor(window, settings);
  const wanted = line.autoCompactWindow;
  const asks = `Claude Code asks rawr from about ${100 - settings.early_percent_remaining_lt}% of a ${window.toLocaleString('en-US')}-token window (${windowWhy}), a little earlier in a smaller one`;
  // A value the team committed (or the person set for all projects) is their choice: the personal file
  // would silently win over it, so rawr leaves it and says so.
  const theirs = [
    { file: shared, value: numberIn(shared, 'autoCompactWindow'), whose: `your team's autoCompactWindow in ${CLAUDE_SHARED_SETTINGS}` },
    { file: userSettings, value: numberIn(userSettings, 'autoCompactWindow'), whose: 'your autoCompactWindow in ~/.claude/settings.json' },
  ].find((t) => t.value !== undefined);
  // The same for the percentage: in the team's or the person's settings `env`, or their shell's.
  const theirPercent = [
    { value: percentIn(shared), whose: `your team's ${PCT_OVERRIDE} in ${CLAUDE_SHARED_SETTINGS}` },
    { value: percentIn(userSettings), whose: `your ${PCT_OVERRIDE} in ~/.claude/settings.json` },
    // (run inside a Claude Code session, its environment holds the value rawr wrote: not the person's)
    { value: o.env?.[PCT_OVERRIDE], whose: `your ${PCT_OVERRIDE} in the environment`, shell: true },
  ].find((t) => t.value !== undefined);
  const config = hooksConfig('claude', o.commandPrefix, CLAUDE_HOOKS);
  // Absent, not a regular file, or not JSON: nothing of rawr's there (a write to it is refused later if it matters).
  const legacyEvents = rawrEventsIn(readJsonQuietly(shared), 'claude');
  const legacy = legacyEvents.length > 0;
  const shown = (): Record<string, unknown> =>
    steer && !theirs ? { autoCompactWindow: wanted, ...(theirPercent ? {} : { env: { [PCT_OVERRIDE]: line.percent } }), ...config } : { ...config };
  if (!o.write) {
    // Only the JSON (it can be merged by hand as it is): what --write adds is in the usage text.
    return { ok: true, legacy, config, lines: [JSON.stringify(shown(), null, 2)] };
  }
  // The personal file is personal only while git does not track it: a team that committed it would get
  // this machine's paths in its next commit, which no ignore rule can prevent. rawr writes nothing then.
  if (trackedByGit(o.projectDir, CLAUDE_LOCAL_SETTINGS))
    return {
      ok: false,
      legacy,
      config,
      lines: [
        `rawr: ${local} is tracked by git (committed), so rawr's changes there (this machine's paths) would show in git status and your next commit; nothing written. Untrack it first (git rm --cached ${CLAUDE_LOCAL_SETTINGS.split(path.sep).join('/')}, and commit that), then install again.`,
      ],
    };
  // A refused install leaves no trace: the state folder it made for its lock and record goes again.
  const top = path.join(o.projectDir, '.rawr');
  const topExisted = fs.existsSync(top);
  const stateExisted = fs.existsSync(path.join(top, 'claude'));
  const stateDir = agentStateDir(o.projectDir, 'claude', true)!;
  const result = await withInstallLock(stateDir, async (): Promise<ClaudeInstallResult> => {
    const track: Tracking = { stateDir, record: readRecord(stateDir) };
    const undo = new UndoLog();
    const before = await readSteerConfig(o.projectDir);
    const rawrWrote = before?.autoCompactWindow ?? null;
    let kept = false;
    let percentWritten: string | null = null;
    let envCreated = before?.envCreated ?? false;
    const withHooks = o.hooks !== false && (!legacy || o.move === true);
    const r = await editJsonFile(
      local,
      (existing) => {
        const merged = withHooks
          ? mergeHooks(existing, config, 'claude')
          : { ok: true as const, settings: structuredClone(existing), added: [], updated: [], unchanged: [] };
        if (!merged.ok) return merged;
        const next = merged.settings;
        const parts = withHooks ? [summary(merged)] : [];
        const current = next.autoCompactWindow;
        const ours = current === undefined || current === rawrWrote;
        // rawr's percentage goes and comes with rawr's window: first taken out (then put back when steering).
        const percent = dropOurPercent(next, before?.askPercent ?? null, envCreated);
        envCreated = percent.envCreated;
        const theirPercentHere =
          percent.theirs !== undefined ? { value: percent.theirs, whose: `your ${PCT_OVERRIDE} in ${CLAUDE_LOCAL_SETTINGS}` } : undefined;
        const keptPercent = theirPercentHere ?? (theirPercent?.shell && theirPercent.value === before?.askPercent ? undefined : theirPercent);
        if (steer && ours && theirs) {
          if (current !== undefined) delete next.autoCompactWindow;
          kept = true;
          const p = askPercentOf(keptPercent?.value);
          parts.push(
            `${theirs.whose} (${theirs.value}) is kept: Claude Code asks rawr from about ${claudeAsksFrom(Math.min(theirs.value!, window), p).toLocaleString('en-US')} tokens in a ${window.toLocaleString('en-US')}-token window (rawr's own line would be autoCompactWindow ${wanted} with ${PCT_OVERRIDE} ${line.percent}); set autoCompactWindow in ${CLAUDE_LOCAL_SETTINGS} to override it for yourself`,
          );
        } else if (steer) {
          if (ours) {
            if (current !== wanted) parts.push(`autoCompactWindow ${wanted} (${asks})`);
            next.autoCompactWindow = wanted;
            if (keptPercent)
              parts.push(
                `${keptPercent.whose} (${keptPercent.value}) is kept: Claude Code asks rawr from that share of the window instead of rawr's ${line.percent}`,
              );
            else {
              if (before?.askPercent !== line.percent) parts.push(`env.${PCT_OVERRIDE} ${line.percent}`);
              if (!isObject(next.env)) {
                next.env = {};
                envCreated = true;
              }
              (next.env as Record<string, unknown>)[PCT_OVERRIDE] = line.percent;
              percentWritten = line.percent;
            }
          } else {
            kept = true;
            parts.push(`your autoCompactWindow ${JSON.stringify(current)} is kept (Claude Code asks rawr from there)`);
          }
        } else if (ours && current !== undefined) {
          delete next.autoCompactWindow;
          parts.push("rawr's autoCompactWindow removed (Claude Code's own threshold again)");
        }
        if (percentWritten === null && before?.askPercent && percent.removed) parts.push(`rawr's env.${PCT_OVERRIDE} removed`);
        return { ok: true, settings: next, summary: parts.filter(Boolean).join('; ') || 'unchanged' };
      },
      o.followSymlinks,
      o.projectDir,
      shown,
      track,
      undo,
    );
    if (!r.ok) {
      if (stateExisted) writeRecord(stateDir, track.record); // else: nothing written, nothing to record
      return { ok: false, legacy, lines: [`rawr: Claude Code hooks: ${r.line}`], config };
    }
    // All or nothing: the settings without their ignore rule would go into the next commit, and a move
    // half done leaves the hooks in both files. A refusal takes back what this install wrote (the record
    // on disk stays the one from before it, unless a file could not be put back: then it records that file).
    const refused = (line: string): ClaudeInstallResult => {
      const { lines, left } = undo.refusal(line);
      // A file the system would not let rawr put back holds rawr's settings: recorded as installed, so that
      // Remove (once the system lets it) gives every byte back and takes rawr's window and percentage too.
      if (left.length) {
        try {
          keepRecord();
        } catch (err) {
          lines.push(unrecorded(left, err));
        }
      }
      return { ok: false, legacy, lines, config };
    };
    /**
     * What Remove reads to take this install back: rawr's window and percentage, and each file's earlier
     * bytes. With `into`, the state files' earlier bytes go back too if a later write (the record) is refused.
     */
    function keepRecord(into?: UndoLog): void {
      if (into) putBackLater(steerConfigFile(o.projectDir), into);
      writeSteerConfig(o.projectDir, {
        steer,
        window,
        autoCompactWindow: steer && !kept ? wanted : null,
        askPercent: percentWritten,
        ...(percentWritten !== null && envCreated ? { envCreated: true } : {}),
        settingsFile: CLAUDE_LOCAL_SETTINGS,
      });
      writeRecord(stateDir, track.record, into);
    }
    const lines = [`rawr: Claude Code hooks in ${r.line}`];
    const ignored = ignoreLocalSettings(o.projectDir, CLAUDE_LOCAL_SETTINGS.split(path.sep).join('/'), undo);
    if (!ignored.ok) return refused(ignored.line);
    if (ignored.line) lines.push(ignored.line);
    if (ignored.added) track.record.ignore = ignored.added;
    lines.push(
      steer
        ? `rawr: steering Claude Code's automatic compaction to phase boundaries (PreCompact refuses until a boundary; never a manual /compact, a failed request, or past rawr's emergency line). ${hints.undo}`
        : "rawr: not steering: Claude Code compacts at its own threshold; rawr's hooks snapshot and hand off.",
    );
    if (legacy && o.move) {
      const m = await editJsonFile(
        shared,
        (existing) => ({ ok: true, settings: removeRawrHooks(existing, 'claude'), summary: `rawr's hooks removed (${legacyEvents.join(', ')})` }),
        o.followSymlinks,
        o.projectDir,
        () => ({}),
        { stateDir, record: { files: {} } }, // the backup in rawr's folder; not rawr's to restore on uninstall
        undo,
      );
      if (!m.ok) return refused(`rawr: moving the hooks out of the shared settings: ${m.line}`);
      lines.push(`rawr: moved out of ${m.line}`);
    } else if (legacy) {
      lines.push(
        `rawr: rawr's hooks (${legacyEvents.join(', ')}) are in ${shared}, where an earlier rawr wrote them: teams commit that file, and a collaborator's Claude Code would run this machine's paths. They keep working there; ${hints.move}`,
      );
    }
    try {
      keepRecord(undo);
    } catch (err) {
      return refused(recordRefused(stateDir, err));
    }
    return { ok: true, legacy: legacy && !o.move, lines, config };
  });
  if (!result.ok && !stateExisted && removeIfEmpty(stateDir, ['.gitignore']) && !topExisted) removeIfEmpty(top);
  return result;
}

/**
 * Takes the percentage rawr wrote (`ours`, recorded in steer.json) out of a settings object, and the `env`
 * object with it when rawr created that and nothing else is in it. Says what is left there that is not
 * rawr's (the person's own value). Used by install (before putting rawr's back) and uninstall.
 */
export function dropOurPercent(
  settings: Record<string, unknown>,
  ours: string | null,
  envCreated: boolean,
): { removed: boolean; theirs: string | undefined; envCreated: boolean } {
  const env = settings.env;
  let removed = false;
  let theirs: string | undefined;
  if (isObject(env) && Object.hasOwn(env, PCT_OVERRIDE)) {
    if (ours !== null && env[PCT_OVERRIDE] === ours) {
      delete env[PCT_OVERRIDE];
      removed = true;
      if (envCreated && Object.keys(env).length === 0) delete settings.env;
    } else theirs = String(env[PCT_OVERRIDE]);
  }
  return { removed, theirs, envCreated: envCreated && isObject(settings.env) };
}

export const CODEX_TRUST_NOTE = 'Codex runs only hooks it trusts and skips the others without a word.';

/** Codex's hooks are per user (`$CODEX_HOME`): rawr's install record, lock and backups sit beside them. */
export const codexStateDir = (codexHome: string) => path.join(codexHome, '.rawr');

export async function installCodex(o: {
  codexHome: string;
  commandPrefix: string;
  write: boolean;
  trust: boolean;
  followSymlinks: boolean;
}): Promise<InstallResult> {
  const config = hooksConfig('codex', o.commandPrefix, CODEX_HOOKS);
  const hooksPath = path.join(o.codexHome, 'hooks.json');
  if (!o.write) {
    return {
      ok: true,
      config,
      lines: [
        JSON.stringify(config, null, 2),
        `# ${CODEX_TRUST_NOTE} --write merges this into ${hooksPath}; --write --trust also trusts rawr's hooks in ${path.join(o.codexHome, 'config.toml')}.`,
      ],
    };
  }
  const stateDir = codexStateDir(o.codexHome);
  const homeExisted = fs.existsSync(o.codexHome);
  const stateExisted = fs.existsSync(stateDir);
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const result = await withInstallLock(stateDir, async () => {
    const track: Tracking = { stateDir, record: readRecord(stateDir) };
    // rawr's state folder is made first, so the hooks file's own record cannot tell that $CODEX_HOME was new
    if (!homeExisted) track.record.codexHomeCreated = true;
    const before = structuredClone(track.record);
    const undo = new UndoLog();
    let r = await codexWrites(o, config, hooksPath, track, undo);
    if (r.ok) {
      try {
        writeRecord(stateDir, track.record, undo);
        return r;
      } catch (err) {
        r = { ok: false, lines: [recordRefused(stateDir, err)], config };
      }
    }
    // All or nothing: hooks.json is not left with hooks that config.toml does not trust (Codex would skip them
    // without a word), nor with hooks whose record Remove would not find.
    const { lines, left } = undo.refusal(r.lines.join(' '));
    // what the system would not let rawr put back stays recorded: Remove gives its bytes back later
    if (left.length === 0) track.record = before;
    // a record only where there is something to take back (a refused first install wrote nothing)
    if (stateExisted || Object.keys(track.record.files).length > 0) {
      try {
        writeRecord(stateDir, track.record);
      } catch (err) {
        if (left.length) lines.push(unrecorded(left, err));
      }
    }
    return { ...r, lines };
  });
  // A refused install leaves no trace: the state folder it made for its lock (and $CODEX_HOME, if it made that) goes again.
  if (!result.ok && !stateExisted && removeIfEmpty(stateDir, ['backup']) && !homeExisted) removeIfEmpty(o.codexHome);
  return result;
}

async function codexWrites(
  o: { codexHome: string; trust: boolean; followSymlinks: boolean },
  config: HooksConfig,
  hooksPath: string,
  track: Tracking,
  undo: UndoLog,
): Promise<InstallResult> {
  const r = await mergeInto(hooksPath, config, 'codex', o.followSymlinks, undefined, track, undo);
  if (!r.ok) return { ok: false, lines: [`rawr: Codex hooks: ${r.line}`], config };
  // A refusal from here on says only why: the caller takes the hooks write back (all or nothing), so its line would not be true.
  const lines = [`rawr: Codex hooks in ${r.line}`];
  const entries = rawrTrustEntries(hooksPath, r.merged);
  if (!o.trust) {
    lines.push(
      `rawr: ${CODEX_TRUST_NOTE} Trust rawr's ${entries.length} hooks: run again with --trust (writes their [hooks.state] entries into ${path.join(o.codexHome, 'config.toml')}), or choose "Trust all" when Codex asks at its next start.`,
    );
    return { ok: true, lines, config };
  }
  const tomlPath = path.join(o.codexHome, 'config.toml');
  const read = await readConfigFile(tomlPath, { followSymlinks: o.followSymlinks });
  if (!read.ok) return { ok: false, lines: [`rawr: Codex trust: ${read.reason}`], config };
  const applied = applyTrust(read.file.text ?? '', entries);
  if (!applied.ok) return { ok: false, lines: [`rawr: Codex trust in ${read.file.target}: ${applied.reason}`], config };
  let backup: string | undefined;
  if (applied.changed > 0) {
    const w = tryWrite(read.file, applied.text, backupFile(track.stateDir, read.file.target), undo);
    if (!w.ok) return { ok: false, lines: [`rawr: Codex trust: ${w.reason}`], config };
    backup = w.backup;
    noteWrite(track.record, read.file.target, read.file.text, applied.text, true);
  }
  lines.push(
    `rawr: Codex trust in ${read.file.target}: ${applied.changed ? `${applied.changed} of rawr's ${entries.length} hooks newly trusted` : `rawr's ${entries.length} hooks already trusted`}${backup ? `; previous version kept in ${backup}` : ''}`,
  );
  return { ok: true, lines, config };
}

/** The refusal of an install whose record could not be written: taken back whole, since Remove reads that record. */
function recordRefused(stateDir: string, err: unknown): string {
  return `rawr: cannot write rawr's record of this install in ${stateDir}: ${inWords(err)}; nothing written (Remove needs that record to give every byte back)`;
}

/** Said when the files left changed by a refused rollback could not be recorded either (the disk still full). */
function unrecorded(left: NotPutBack[], err: unknown): string {
  const files = left.map((f) => f.file).join(', ');
  return `rawr: could not record that either (${inWords(err)}): Remove may not give every byte of ${files} back; check it by hand`;
}
