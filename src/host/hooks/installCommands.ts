/**
 * "Rawr: Install Claude Code Hooks" and "Rawr: Install Codex Hooks": rawr's compaction detection for
 * the agents people run beside VS Code, without a clone of rawr. The hook entries run the stable
 * launcher (launcher.ts), which runs the CLI bundled in the extension.
 *
 * Only in a trusted workspace: hooks run a command on every prompt of the agent, so Restricted Mode
 * installs nothing and says why. Claude Code's hooks go into the workspace folder's personal
 * `.claude/settings.local.json`, steering Claude Code's compaction (src/core/hooks/claude/steer.ts);
 * hooks an earlier rawr wrote into the shared `.claude/settings.json` are offered a move. Codex reads
 * hooks only from `$CODEX_HOME/hooks.json` (all its sessions), so that command asks first, and offers
 * to trust the hooks (Codex skips untrusted hooks silently).
 * "Rawr: Remove Claude Code Hooks" / "Rawr: Remove Codex Hooks" take back exactly what install added
 * (uninstaller.ts), and ask whether rawr's session state goes too.
 * A symlinked settings file (a dotfiles repository's) is written through only when the person says so
 * (symlinkQuestion.ts: the editor has no `--follow-symlinks`).
 * Arguments for scripted use (tests): `{ folder?: string, trust?: boolean, move?: boolean, steer?: boolean,
 * purge?: boolean, followSymlinks?: boolean }` skip the questions.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { shellQuote } from '../../core/hooks/shared/hooksConfig';
import {
  CLAUDE_LOCAL_SETTINGS,
  CLAUDE_SHARED_SETTINGS,
  type ClaudeInstallHints,
  CODEX_TRUST_NOTE,
  installClaude,
  installCodex,
} from '../../core/hooks/shared/installer';
import { askOrFollow, inEditorWords, type Written } from './symlinkQuestion';
import { codexSessionState, codexTrustRecord, type UninstallResult, uninstallClaude, uninstallCodex } from '../../core/hooks/shared/uninstaller';
import { ensureLauncher } from './launcher';
import { codexHome as codexHomeDir } from '../follow/discover';

export const INSTALL_CLAUDE_HOOKS = 'rawr.installClaudeHooks';
export const INSTALL_CODEX_HOOKS = 'rawr.installCodexHooks';
export const UNINSTALL_CLAUDE_HOOKS = 'rawr.uninstallClaudeHooks';
export const UNINSTALL_CODEX_HOOKS = 'rawr.uninstallCodexHooks';
/** The next steps in the editor's own words: the notification must not send a VS Code user to a `rawr` CLI they may not have. */
const EDITOR_HINTS: ClaudeInstallHints = {
  undo: 'Start a new Claude Code session in this folder to use them. Remove them: run Rawr: Remove Claude Code Hooks.',
  move: 'run Rawr: Install Claude Code Hooks again and choose Move to move them into .claude/settings.local.json.',
};
const EDITOR_PURGE_HINT = 'Rawr: Remove Claude Code Hooks, "Remove hooks and state", removes it';
export const RESTRICTED_MESSAGE =
  'Rawr installs no agent hooks in Restricted Mode: a hook runs a command on every prompt of the agent. Trust this workspace first (Manage Workspace Trust), then run the command again.';

interface Args {
  folder?: string;
  /** uninstall: also remove rawr's session state (.rawr/<agent>/). */
  purge?: boolean;
  trust?: boolean;
  move?: boolean;
  steer?: boolean;
  /** Write through a symlinked settings file (or folder) without asking (symlinkQuestion.ts). */
  followSymlinks?: boolean;
}
const argsOf = (a: unknown): Args => (typeof a === 'object' && a !== null ? (a as Args) : {});

export function registerHookInstallCommands(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  // Re-pointed on every activation, so installed hook commands survive extension updates.
  let launcher: string | undefined;
  const launcherPath = () => {
    launcher ??= ensureLauncher({
      storageDir: context.globalStorageUri.fsPath,
      extensionPath: context.extensionPath,
      extensionId: context.extension.id,
      runtime: process.execPath,
    });
    return launcher;
  };
  if (process.platform !== 'win32') {
    try {
      launcherPath();
    } catch (err) {
      log.warn(`agent-hook launcher not written: ${(err as Error).message}`);
    }
  }

  const report = <R extends { ok: boolean; lines: string[] }>(r: R, what: string, done = 'installed', notDone = 'not installed') => {
    for (const l of r.lines) (r.ok ? log.info : log.warn).call(log, l);
    // A notification holds sentences, not the JSON to merge by hand: a line's first line, and where the rest is.
    const long = r.lines.some((l) => l.includes('\n'));
    const text = r.lines
      .map((l) =>
        inEditorWords(l)
          .replace(/^rawr: /, '')
          .split('\n')[0]!
          .replace(/:$/, ''),
      )
      .map((l) => (/[.!?]$/.test(l) ? l : `${l}.`))
      .concat(long ? ['The full text is in the Rawr output (Output: Rawr).'] : [])
      .join(' ');
    if (r.ok) void vscode.window.showInformationMessage(`Rawr: ${what} ${done}. ${text}`);
    else void vscode.window.showErrorMessage(`Rawr: ${what} ${notDone}: ${text}`);
    return r;
  };
  const folderOf = async (a: Args, placeHolder: string) =>
    a.folder ??
    (vscode.workspace.workspaceFolders?.length === 1
      ? vscode.workspace.workspaceFolders[0]!.uri.fsPath
      : (await vscode.window.showWorkspaceFolderPick({ placeHolder }))?.uri.fsPath);
  /**
   * Remove's one question: whether rawr's session state (`state`, the folders that have some) goes too,
   * and, when a symlink is on the way to what it writes, that it writes through it; both are said in
   * the same question (a multi-root window already asked which folder). Undefined: dismissed, nothing removed.
   */
  const removeQuestion = async (
    a: Args,
    o: { what: string; from: string; state: string[]; noState: string; written: Written[] },
  ): Promise<{ purge: boolean; followSymlinks: boolean } | undefined> => {
    const asked = `Remove rawr's ${o.what} and settings from ${o.from}?`;
    const got = await askOrFollow(
      a.purge !== undefined
        ? undefined
        : o.state.length
          ? {
              question: `${asked} rawr's session state (${o.state.join(', ')}: snapshots, steering state) can go too.`,
              answers: ['Remove hooks', 'Remove hooks and state'],
            }
          : { question: `${asked} (${o.noState})`, answers: ['Remove hooks'] },
      o.written,
      'remove',
      a.followSymlinks,
    );
    return got && { purge: got.answer !== undefined ? got.answer === 'Remove hooks and state' : a.purge === true, followSymlinks: got.followSymlinks };
  };
  /** A command's body; what it throws (a `.rawr` that is a file, a folder rawr may not write) is said, not a stack in VS Code's own popup. */
  const guarded = (what: string, notDone: string, fn: (raw?: unknown) => Promise<{ ok: boolean; lines: string[] }>) => async (raw?: unknown) => {
    try {
      return await fn(raw);
    } catch (err) {
      return report({ ok: false, lines: [(err as Error).message] }, what, '', notDone);
    }
  };
  const removed = (r: UninstallResult, what: string) => report(r, what, r.nothing ? 'not found: nothing removed' : 'removed', 'not removed');
  /** The folder picker: undefined when none is open (said here) or the person dismissed the pick (nothing to say). */
  const pickFolder = async (a: Args, placeHolder: string, noFolder: string) => {
    if (!a.folder && !vscode.workspace.workspaceFolders?.length) {
      void vscode.window.showWarningMessage(noFolder);
      return undefined;
    }
    return folderOf(a, placeHolder);
  };
  const precondition = (): string | undefined => {
    if (!vscode.workspace.isTrusted) return RESTRICTED_MESSAGE;
    if (process.platform === 'win32')
      return 'Rawr: installing agent hooks from VS Code is not supported on Windows yet; use the rawr CLI (rawr hooks … install).';
    return undefined;
  };

  /** An install command: refused (and said) in Restricted Mode and where it is not supported. */
  const install = (what: string, fn: (raw?: unknown) => Promise<{ ok: boolean; lines: string[] }>) =>
    guarded(what, 'not installed', async (raw?: unknown) => {
      const refused = precondition();
      if (!refused) return fn(raw);
      void vscode.window.showWarningMessage(refused);
      return { ok: false, lines: [refused] };
    });

  context.subscriptions.push(
    vscode.commands.registerCommand(
      INSTALL_CLAUDE_HOOKS,
      install('Claude Code hooks', async (raw?: unknown) => {
        const a = argsOf(raw);
        const folder = await pickFolder(
          a,
          'Install Claude Code hooks for which folder?',
          'Rawr: open a folder first; Claude Code hooks are installed per project (.claude/settings.local.json).',
        );
        if (!folder) return { ok: false, lines: ['no folder'] };
        const base = {
          projectDir: folder,
          commandPrefix: shellQuote(launcherPath()),
          steer: a.steer ?? true,
          home: os.homedir(),
          hints: EDITOR_HINTS,
        };
        const writes = (move: boolean | undefined) =>
          [CLAUDE_LOCAL_SETTINGS, ...(move ? [CLAUDE_SHARED_SETTINGS] : [])].map((f) => ({ file: path.join(folder, f), within: folder }));
        const askMove = a.move === undefined && (await installClaude({ ...base, followSymlinks: false, write: false })).legacy;
        // One question: the move (when an earlier rawr's hooks are in the shared settings), and the symlinks on
        // the way to what either answer writes.
        const got = await askOrFollow(
          askMove
            ? {
                question:
                  "An earlier rawr put its Claude Code hooks into this folder's shared .claude/settings.json, which teams commit: a collaborator's Claude Code would run this machine's paths. Move them into the personal .claude/settings.local.json?",
                answers: ['Move', 'Leave them'],
              }
            : undefined,
          writes(askMove || a.move),
          'install',
          a.followSymlinks,
        );
        if (!got) return { ok: false, lines: ['cancelled'] };
        const move = got.answer !== undefined ? got.answer === 'Move' : a.move;
        const r = await installClaude({ ...base, followSymlinks: got.followSymlinks, write: true, ...(move !== undefined ? { move } : {}) });
        return report(r, 'Claude Code hooks');
      }),
    ),
  );

  context.subscriptions.push(
    vscode.commands.registerCommand(
      INSTALL_CODEX_HOOKS,
      install('Codex hooks', async (raw?: unknown) => {
        const a = argsOf(raw);
        const codexHome = codexHomeDir();
        const writes = (trust: boolean) => ['hooks.json', ...(trust ? ['config.toml'] : [])].map((f) => ({ file: path.join(codexHome, f) }));
        // One question: where the hooks go, whether to trust them, and the symlinks on the way to what either answer writes.
        const got = await askOrFollow(
          a.trust === undefined
            ? {
                question: `Install rawr's Codex hooks into ${path.join(codexHome, 'hooks.json')}? Codex reads hooks only there, so they run for all Codex sessions. ${CODEX_TRUST_NOTE}`,
                answers: ['Install and trust', 'Install only'],
              }
            : undefined,
          writes(a.trust ?? true),
          'install',
          a.followSymlinks,
        );
        if (!got) return { ok: false, lines: ['cancelled'] };
        const trust = got.answer !== undefined ? got.answer === 'Install and trust' : a.trust === true;
        const r = await installCodex({ codexHome, commandPrefix: shellQuote(launcherPath()), write: true, trust, followSymlinks: got.followSymlinks });
        if (r.ok) r.lines.push('Start a new Codex session to use them. Remove them: run Rawr: Remove Codex Hooks.');
        return report(r, 'Codex hooks');
      }),
    ),
  );

  // Removing needs no trust: it only takes rawr's own entries out (uninstaller.ts).
  context.subscriptions.push(
    vscode.commands.registerCommand(
      UNINSTALL_CLAUDE_HOOKS,
      guarded('Claude Code hooks', 'not removed', async (raw?: unknown) => {
        const a = argsOf(raw);
        const folder = await pickFolder(
          a,
          'Remove Claude Code hooks from which folder?',
          'Rawr: open the project folder first; Claude Code hooks are removed per project (.claude/settings.local.json).',
        );
        if (!folder) return { ok: false, lines: ['no folder'] };
        const state = path.join(folder, '.rawr', 'claude');
        const asked = await removeQuestion(a, {
          what: 'Claude Code hooks',
          from: folder,
          state: fs.existsSync(state) ? [state] : [],
          noState: `No session state of rawr's in ${folder}.`,
          written: [CLAUDE_LOCAL_SETTINGS, CLAUDE_SHARED_SETTINGS].map((f) => ({ file: path.join(folder, f), within: folder })),
        });
        if (asked === undefined) return { ok: false, lines: ['cancelled'] };
        const { purge, followSymlinks } = asked;
        return removed(await uninstallClaude({ projectDir: folder, purge, followSymlinks, purgeHint: EDITOR_PURGE_HINT }), 'Claude Code hooks');
      }),
    ),
    vscode.commands.registerCommand(
      UNINSTALL_CODEX_HOOKS,
      guarded('Codex hooks', 'not removed', async (raw?: unknown) => {
        const a = argsOf(raw);
        const codexHome = codexHomeDir();
        // Codex's hooks serve every folder, so its session state goes from every folder of the window that has some.
        const withState = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath).filter((f) => codexSessionState(f) !== undefined);
        const asked = await removeQuestion(a, {
          what: 'Codex hooks',
          from: codexHome,
          state: withState.map((f) => path.join(f, '.rawr', 'codex')),
          noState: "No session state of rawr's in this window's folders.",
          written: codexRemoveWrites(codexHome),
        });
        if (asked === undefined) return { ok: false, lines: ['cancelled'] };
        const { purge, followSymlinks } = asked;
        return removed(await uninstallCodex({ codexHome, followSymlinks, ...(purge ? { purgeProjects: withState } : {}) }), 'Codex hooks');
      }),
    ),
  );
}

/** What Remove Codex Hooks may write: hooks.json, and config.toml only where rawr trusted its hooks (else it is left unread). */
function codexRemoveWrites(codexHome: string): Written[] {
  const trusted = codexTrustRecord(codexHome);
  return [{ file: path.join(codexHome, 'hooks.json') }, ...(trusted ? [{ file: trusted.file }] : [])];
}
