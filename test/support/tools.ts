/**
 * Runs one of rawr's default tools the way VS Code's invoke does (toolHost.ts: zod-parsed input, a
 * ToolError is the model's answer), against real folders through the unit tier's vscode shim.
 */
import * as vscode from 'vscode';
import type * as z from 'zod';
import { parseInput, type ToolContext, type ToolImpl } from '../../src/host/tools/toolHost';
import { ToolError } from '../../src/host/tools/workspacePath';

export function toolContext(roots: string[]): ToolContext {
  return { roots: () => roots, trusted: () => true, log: vscode.window.createOutputChannel('rawr tools (test)') as unknown as vscode.LogOutputChannel };
}

/** The tool's answer: its text, or the ToolError's message (`ok: false`). Any other error is a bug and is thrown. */
export async function runTool<S extends z.ZodType>(
  impl: ToolImpl<S>,
  input: unknown,
  roots: string[],
  token: vscode.CancellationToken = new vscode.CancellationTokenSource().token,
): Promise<{ ok: boolean; text: string }> {
  try {
    return { ok: true, text: await impl.run(parseInput(impl.spec, input), toolContext(roots), token) };
  } catch (err) {
    if (err instanceof ToolError) return { ok: false, text: err.message };
    throw err;
  }
}
