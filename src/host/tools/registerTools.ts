/** Registers rawr's default tool set (catalog.ts) with VS Code; see docs/TOOLS.md. */
import * as vscode from 'vscode';
import { createFileTool, editFileTool, listFilesTool, readFileTool, searchTextTool } from './fileTools';
import { gitDiffTool, gitStatusTool } from './gitTools';
import { TerminalRunner } from './terminalRunner';
import { runInTerminalTool } from './terminalTool';
import { registerTool, type ToolContext } from './toolHost';
import { workspaceTrusted } from '../trust';

export function registerRawrTools(log: vscode.LogOutputChannel, trusted: () => boolean = workspaceTrusted): vscode.Disposable {
  const ctx: ToolContext = {
    roots: () => (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
    trusted,
    log,
  };
  const runner = new TerminalRunner(log);
  return vscode.Disposable.from(
    runner,
    registerTool(readFileTool, ctx),
    registerTool(listFilesTool, ctx),
    registerTool(searchTextTool, ctx),
    registerTool(createFileTool, ctx),
    registerTool(editFileTool, ctx),
    registerTool(gitStatusTool, ctx),
    registerTool(gitDiffTool, ctx),
    registerTool(runInTerminalTool(runner), ctx),
  );
}
