/**
 * The effective policy for a workspace folder:
 *  1. prompt files from `<workspace>/.rawr/prompts/` (override, file by file), then the shipped
 *     `<extensionPath>/prompts/` (then the core's built-in fallbacks): loadPromptSet;
 *  2. VS Code settings override the policy file's knobs ONLY where the user set them explicitly (user,
 *     workspace or folder settings; the contribution's defaults never override the YAML, so a workspace
 *     policy file keeps working), each value validated on its own (settingsMerge.ts): a bad value in
 *     settings.json costs only that knob and is reported as a problem.
 * `onSettingsChanged` fires when either source changes, so changes apply without a reload.
 */
import * as vscode from 'vscode';
import { join } from 'node:path';
import { promises as fsp } from 'node:fs';
import { loadPromptDirs } from '../core/prompts/fs';
import type { Problem } from '../core/prompts/frontmatter';
import type { PromptSet } from '../core/prompts/promptSet';
import { CONFIG_SECTION, HOST_KEYS } from './configSchema';
import { EXPLICIT_NAMES, mergeExplicit, parseHostSettings, type HostSettings } from './settingsMerge';

export const WORKSPACE_PROMPTS_DIR = '.rawr/prompts';

/** Why a workspace's prompt overrides are not used (shown in the Rawr output channel and in /status). */
export const RESTRICTED_PROMPTS_MESSAGE =
  'Restricted Mode: this workspace is not trusted, so rawr ignores its prompt overrides in .rawr/prompts/ and uses the shipped prompts. Trust the workspace (Workspaces: Manage Workspace Trust) to use them.';

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await fsp.stat(path)).isDirectory();
  } catch {
    return false;
  }
}

type Origin = 'user' | 'workspace' | 'folder';

export interface LoadedSettings {
  /** Prompts + merged settings; `set.problems` holds every problem (prompt files and settings). */
  set: PromptSet;
  /** Same list as `set.problems`. */
  problems: Problem[];
  /** Host-only settings (`rawr.tools.allowed`, `rawr.judgment.model`). */
  host: HostSettings;
}

export async function loadSettings(workspaceFolder: vscode.Uri | undefined, extensionPath: string): Promise<LoadedSettings> {
  const dirs: string[] = [];
  const restricted: Problem[] = [];
  if (workspaceFolder && workspaceFolder.scheme === 'file') {
    const dir = join(workspaceFolder.fsPath, ...WORKSPACE_PROMPTS_DIR.split('/'));
    // Restricted Mode: a repository nobody trusted yet does not get to steer the agent with its own
    // prompt texts or policy. Not even read: the files are the repository's.
    if (vscode.workspace.isTrusted) dirs.push(dir);
    else if (await isFolder(dir)) restricted.push({ file: dir, line: 1, column: 1, message: RESTRICTED_PROMPTS_MESSAGE, severity: 'warning' });
  }
  dirs.push(join(extensionPath, 'prompts'));
  const fileSet = await loadPromptDirs(dirs);
  fileSet.problems.unshift(...restricted);

  const config = vscode.workspace.getConfiguration(CONFIG_SECTION, workspaceFolder);
  const explicit: Record<string, unknown> = {};
  const origins = new Map<string, Origin>();
  const read = (key: string): unknown => {
    const found = explicitValue(config, key);
    if (found) {
      explicit[key] = found.value;
      origins.set(`${CONFIG_SECTION}.${key}`, found.origin);
    }
    return found?.value;
  };
  for (const name of EXPLICIT_NAMES) read(name);
  const merged = mergeExplicit(fileSet.settings, explicit);
  const host = parseHostSettings({ toolsAllowed: read(HOST_KEYS.toolsAllowed), judgmentModel: read(HOST_KEYS.judgmentModel) });

  const problems: Problem[] = [...fileSet.problems];
  for (const issue of [...merged.issues, ...host.issues]) {
    problems.push({
      file: settingsFile(origins.get(issue.key), workspaceFolder),
      line: 1,
      column: 1,
      message: issue.message,
      severity: issue.message.startsWith('unknown') ? 'warning' : 'error',
    });
  }
  const set: PromptSet = { ...fileSet, settings: merged.settings, problems };
  return { set, problems, host: host.settings };
}

/** The explicitly set value of `rawr.<key>`, most specific scope first; undefined when only the default applies. */
function explicitValue(config: vscode.WorkspaceConfiguration, key: string): { value: unknown; origin: Origin } | undefined {
  const i = config.inspect(key);
  if (!i) return undefined;
  if (i.workspaceFolderValue !== undefined) return { value: i.workspaceFolderValue, origin: 'folder' };
  if (i.workspaceValue !== undefined) return { value: i.workspaceValue, origin: 'workspace' };
  if (i.globalValue !== undefined) return { value: i.globalValue, origin: 'user' };
  return undefined;
}

function settingsFile(origin: Origin | undefined, folder: vscode.Uri | undefined): string {
  const folderFile = folder && folder.scheme === 'file' ? join(folder.fsPath, '.vscode', 'settings.json') : undefined;
  switch (origin) {
    case 'folder':
      return folderFile ?? 'Folder settings';
    case 'workspace': {
      const ws = vscode.workspace.workspaceFile;
      if (ws && ws.scheme === 'file') return ws.fsPath;
      return folderFile ?? 'Workspace settings';
    }
    case 'user':
      return 'User settings';
    case undefined:
      return 'Settings';
  }
}

export type SettingsChange = 'configuration' | 'prompts';
/** Called with what changed during the burst (each reason once, 'configuration' first). */
export type SettingsChangeListener = (reasons: SettingsChange[]) => void;

/**
 * Calls `cb` when a `rawr.*` setting changes or a workspace prompt file (`.rawr/prompts/*.md`, or the
 * `.rawr` / `.rawr/prompts` folder itself) is created, changed or deleted; bursts within 150 ms are
 * coalesced into one call. Reload with loadSettings. With a folder, only that folder's prompt files are
 * watched; without, every workspace folder's (kept up to date when folders are added or removed).
 */
export function onSettingsChanged(cb: SettingsChangeListener): vscode.Disposable;
export function onSettingsChanged(folder: vscode.Uri | undefined, cb: SettingsChangeListener): vscode.Disposable;
export function onSettingsChanged(a: SettingsChangeListener | vscode.Uri | undefined, b?: SettingsChangeListener): vscode.Disposable {
  const debounceMs = 150;
  const onlyFolder = typeof a === 'function' ? undefined : a;
  const cb = typeof a === 'function' ? a : b;
  if (!cb) throw new TypeError('onSettingsChanged: a callback is required');
  let timer: NodeJS.Timeout | undefined;
  const pending = new Set<SettingsChange>();
  const fire = (why: SettingsChange): void => {
    pending.add(why);
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      const reasons = (['configuration', 'prompts'] as const).filter((r) => pending.has(r));
      pending.clear();
      try {
        cb(reasons);
      } catch {
        // a failing listener must not break the watcher
      }
    }, debounceMs);
  };

  let watchers: vscode.Disposable[] = [];
  const watch = (): void => {
    for (const w of watchers) w.dispose();
    watchers = [];
    const folders: Array<vscode.Uri | vscode.WorkspaceFolder> = onlyFolder ? [onlyFolder] : [...(vscode.workspace.workspaceFolders ?? [])];
    for (const folder of folders) {
      // The files, and the folders themselves (deleting `.rawr/` reports only the folder).
      for (const glob of [`${WORKSPACE_PROMPTS_DIR}/*.md`, `{.rawr,${WORKSPACE_PROMPTS_DIR}}`]) {
        const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, glob));
        watchers.push(
          w,
          w.onDidCreate(() => fire('prompts')),
          w.onDidChange(() => fire('prompts')),
          w.onDidDelete(() => fire('prompts')),
        );
      }
    }
  };
  watch();

  const subs = [
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(CONFIG_SECTION)) fire('configuration');
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      watch();
      fire('prompts');
    }),
  ];
  return new vscode.Disposable(() => {
    if (timer) clearTimeout(timer);
    for (const d of [...subs, ...watchers]) d.dispose();
    watchers = [];
  });
}
