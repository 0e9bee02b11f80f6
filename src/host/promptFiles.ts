/**
 * "Rawr: Open Prompt Files": copies the shipped prompts into `<workspace>/.rawr/prompts/` (the overrides
 * folder, docs/prompts.md) where they are not there yet, and opens the packet request. A cloned
 * repository may bring its own `.rawr` or `.rawr/prompts` as a symlink out of the workspace (to a
 * folder of the person's, say): nothing is written through it, and a file name that is already taken,
 * even by a dangling link, is left alone (a copy to it would write wherever the link points).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { symlinkOnTheWay } from '../core/hooks/shared/configFile';
import { PROMPT_FILES } from '../core/prompts/promptSet';

/** The overrides folder of `folder` with the shipped prompts it lacks; false (and said) when writing there would leave the workspace. */
export async function openPromptFiles(folder: vscode.Uri, extensionUri: vscode.Uri, log: { info(m: string): void }): Promise<boolean> {
  const dir = vscode.Uri.joinPath(folder, '.rawr', 'prompts');
  const local = folder.scheme === 'file';
  if (local) {
    const outside = symlinkOnTheWay(path.join(dir.fsPath, PROMPT_FILES.packetRequest), folder.fsPath);
    if (outside?.folder) {
      void vscode.window.showWarningMessage(
        `Rawr: ${outside.link} leads outside the workspace (to ${outside.to}) through a symlink; no prompt files copied. Replace the link with a folder to keep rawr's prompts in this workspace.`,
      );
      return false;
    }
  }
  await vscode.workspace.fs.createDirectory(dir);
  let copied = 0;
  for (const name of Object.values(PROMPT_FILES)) {
    const target = vscode.Uri.joinPath(dir, name);
    if (await taken(target, local)) continue; // never overwrite the user's edits, nor write through a link
    await vscode.workspace.fs.copy(vscode.Uri.joinPath(extensionUri, 'prompts', name), target);
    copied++;
  }
  log.info(`copied ${copied} prompt file(s) to ${dir.fsPath}`);
  await vscode.window.showTextDocument(vscode.Uri.joinPath(dir, PROMPT_FILES.packetRequest));
  return true;
}

/** Whether a name is in use: on disk by anything at all (lstat: a link counts, dangling or not); elsewhere by what the file system reports. */
async function taken(target: vscode.Uri, local: boolean): Promise<boolean> {
  try {
    if (local) await fs.promises.lstat(target.fsPath);
    else await vscode.workspace.fs.stat(target);
    return true;
  } catch {
    return false;
  }
}
