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
 * Arguments for scripted use (tests): `{ folder?: string, trust?: boolean, move?: boolean, steer?: boolean }`
 * skip the questions.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { shellQuote } from '../../core/hooks/shared/hooksConfig';
import { CODEX_TRUST_NOTE, installClaude, installCodex, type InstallResult } from '../../core/hooks/shared/installer';
import { ensureLauncher } from './launcher';

export const INSTALL_CLAUDE_HOOKS = 'rawr.installClaudeHooks';
export const INSTALL_CODEX_HOOKS = 'rawr.installCodexHooks';
export const RESTRICTED_MESSAGE =
  'Rawr installs no agent hooks in Restricted Mode: a hook runs a command on every prompt of the agent. Trust this workspace first (Manage Workspace Trust), then run the command again.';

interface Args {
  folder?: string;
  trust?: boolean;
  move?: boolean;
  steer?: boolean;
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

  const report = (r: InstallResult, what: string) => {
    for (const l of r.lines) (r.ok ? log.info : log.warn).call(log, l);
    const text = r.lines.map((l) => l.replace(/^rawr: /, '')).join(' ');
    if (r.ok) void vscode.window.showInformationMessage(`Rawr: ${what} installed. ${text}`);
    else void vscode.window.showErrorMessage(`Rawr: ${what} not installed: ${text}`);
    return r;
  };
  const precondition = (): string | undefined => {
    if (!vscode.workspace.isTrusted) return RESTRICTED_MESSAGE;
    if (process.platform === 'win32')
      return 'Rawr: installing agent hooks from VS Code is not supported on Windows yet; use the rawr CLI (rawr hooks … install).';
    return undefined;
  };

  context.subscriptions.push(
    vscode.commands.registerCommand(INSTALL_CLAUDE_HOOKS, async (raw?: unknown) => {
      const refused = precondition();
      if (refused) {
        void vscode.window.showWarningMessage(refused);
        return { ok: false, lines: [refused] };
      }
      const a = argsOf(raw);
      const folder =
        a.folder ??
        (vscode.workspace.workspaceFolders?.length === 1
          ? vscode.workspace.workspaceFolders[0]!.uri.fsPath
          : (await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Install Claude Code hooks for which folder?' }))?.uri.fsPath);
      if (!folder) {
        void vscode.window.showWarningMessage('Rawr: open a folder first; Claude Code hooks are installed per project (.claude/settings.local.json).');
        return { ok: false, lines: ['no folder'] };
      }
      const base = {
        projectDir: folder,
        commandPrefix: shellQuote(launcherPath()),
        followSymlinks: false,
        steer: a.steer ?? true,
        home: os.homedir(),
      };
      let move = a.move;
      if (move === undefined && (await installClaude({ ...base, write: false })).legacy) {
        const pick = await vscode.window.showWarningMessage(
          "An earlier rawr put its Claude Code hooks into this folder's shared .claude/settings.json, which teams commit: a collaborator's Claude Code would run this machine's paths. Move them into the personal .claude/settings.local.json?",
          { modal: true },
          'Move',
          'Leave them',
        );
        if (!pick) return { ok: false, lines: ['cancelled'] };
        move = pick === 'Move';
      }
      const r = await installClaude({ ...base, write: true, ...(move !== undefined ? { move } : {}) });
      return report(r, 'Claude Code hooks');
    }),
  );

  context.subscriptions.push(
    vscode.commands.registerCommand(INSTALL_CODEX_HOOKS, async (raw?: unknown) => {
      const refused = precondition();
      if (refused) {
        void vscode.window.showWarningMessage(refused);
        return { ok: false, lines: [refused] };
      }
      const a = argsOf(raw);
      const codexHome = process.env.CODEX_HOME ? path.resolve(process.env.CODEX_HOME) : path.join(os.homedir(), '.codex');
      let trust = a.trust;
      if (trust === undefined) {
        const pick = await vscode.window.showWarningMessage(
          `Install rawr's Codex hooks into ${path.join(codexHome, 'hooks.json')}? Codex reads hooks only there, so they run for all Codex sessions. ${CODEX_TRUST_NOTE}`,
          { modal: true },
          'Install and trust',
          'Install only',
        );
        if (!pick) return { ok: false, lines: ['cancelled'] };
        trust = pick === 'Install and trust';
      }
      const r = await installCodex({ codexHome, commandPrefix: shellQuote(launcherPath()), write: true, trust, followSymlinks: false });
      return report(r, 'Codex hooks');
    }),
  );
}
