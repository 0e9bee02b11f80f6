/**
 * The command palette (category "Rawr"). Commands that act on a thread go through the Chat view
 * (`@rawr /compact`, `/undo`, `/status`) so their output lands in the conversation it concerns.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CoreApi } from '../core/protocol/coreProtocol';
import type { Participant } from './participant/participant';
import { openPromptFiles } from './promptFiles';

/** The walkthrough's id in package.json `contributes.walkthroughs` (opened as `<extension id>#<this>`). */
export const WALKTHROUGH_ID = 'rawr.getStarted';

async function openChat(query: string): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.chat.open', { query, isPartialQuery: false });
}

export function registerCommands(
  context: vscode.ExtensionContext,
  deps: { core: () => CoreApi; participant: Participant; log: vscode.LogOutputChannel; logDir: string },
): void {
  const reg = (id: string, fn: (...args: unknown[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(id, fn));

  reg('rawr.compactNow', async (arg?: unknown) => {
    // From the "Compact now" button the thread is known; from the palette, ask for optional instructions.
    let instructions = typeof arg === 'object' && arg && 'instructions' in arg ? String((arg as { instructions: unknown }).instructions ?? '') : '';
    if (arg === undefined) {
      const input = await vscode.window.showInputBox({
        title: 'Rawr: Compact Now',
        prompt: 'Optional instructions for the summary (Enter for none)',
        placeHolder: 'e.g. keep the API notes verbatim',
      });
      if (input === undefined) return;
      instructions = input;
    }
    await openChat(`@rawr /compact ${instructions}`.trim());
  });
  // The Getting Started walkthrough (package.json `contributes.walkthroughs`) and its step buttons.
  reg('rawr.getStarted', () => vscode.commands.executeCommand('workbench.action.openWalkthrough', `${context.extension.id}#${WALKTHROUGH_ID}`, false));
  reg('rawr.configureEndpoint', () => vscode.commands.executeCommand('workbench.action.openSettings', 'rawr.openai'));
  reg('rawr.askRawr', () => vscode.commands.executeCommand('workbench.action.chat.open', { query: '@rawr ', isPartialQuery: true }));
  reg('rawr.undoLastCompaction', () => openChat('@rawr /undo'));
  reg('rawr.showStatus', () => openChat('@rawr /status'));
  reg('rawr.showDecisionLog', () => deps.log.show(true));
  reg('rawr.exportDecisionLog', async (threadArg?: unknown) => {
    const core = deps.core();
    const threads = await core.listThreads();
    let threadId = typeof threadArg === 'string' ? threadArg : deps.participant.activeThreadId;
    if (!threadId || !threads.includes(threadId)) {
      if (threads.length === 0) return void vscode.window.showInformationMessage('Rawr: no @rawr thread has a log in this workspace yet.');
      threadId = await vscode.window.showQuickPick(threads, { title: 'Export the decision log of which @rawr thread?' });
      if (!threadId) return;
    }
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const target = await vscode.window.showSaveDialog({
      title: 'Export rawr event log (JSON Lines)',
      filters: { 'JSON Lines': ['jsonl'] },
      ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, `rawr-${threadId}.jsonl`) } : {}),
    });
    if (!target) return;
    // Copied file to file by VS Code, never held in memory: a long thread's log is hundreds of megabytes, and
    // through the core it would be read whole and sent over IPC as one string.
    const source = vscode.Uri.file(path.join(deps.logDir, `${threadId}.jsonl`));
    try {
      await vscode.workspace.fs.copy(source, target, { overwrite: true });
    } catch (err) {
      return void vscode.window.showErrorMessage(`Rawr: could not export the log of ${threadId} to ${target.fsPath}: ${(err as Error).message}`);
    }
    void vscode.window.showInformationMessage(`Rawr: exported the log of ${threadId} to ${target.fsPath}`);
  });
  reg('rawr.openPromptFiles', async () => {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    if (!folder) return void vscode.window.showWarningMessage('Rawr: open a folder first; prompt overrides live in <workspace>/.rawr/prompts/.');
    await openPromptFiles(folder, context.extensionUri, deps.log);
  });
}
