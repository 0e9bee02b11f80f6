/**
 * Registers rawr's default tools with VS Code (`vscode.lm.registerTool`; declared in package.json's
 * `languageModelTools`, generated from catalog.ts). Every tool: validates its input with its zod schema,
 * answers a failure with a clear error the agent gets as the tool result, and — when it writes or
 * executes — asks through VS Code's confirmation (`prepareInvocation`), showing what it will do, and is
 * refused in Restricted Mode (an untrusted workspace) with the reason and how to trust.
 */
import * as vscode from 'vscode';
import type * as z from 'zod';
import { allowedInRestrictedMode, type ToolSpec } from './catalog';
import { ToolError } from './workspacePath';

export interface ToolContext {
  /** Workspace folder paths (file scheme), first = where relative paths point. */
  roots(): string[];
  /** vscode.workspace.isTrusted (injectable for tests). */
  trusted(): boolean;
  log: vscode.LogOutputChannel;
}

export interface ToolImpl<S extends z.ZodType> {
  spec: ToolSpec<S>;
  /** The progress line while it runs ("Reading src/a.ts"). */
  message(input: z.infer<S>): string;
  /** What the confirmation shows (write/execute tools only). */
  confirm?(input: z.infer<S>, ctx: ToolContext): Promise<{ title: string; message: string }>;
  run(input: z.infer<S>, ctx: ToolContext, token: vscode.CancellationToken): Promise<string>;
}

export const RESTRICTED_HINT = 'Trust the workspace to allow it: run "Workspaces: Manage Workspace Trust" and choose "Trust".';

export function restrictedError(spec: ToolSpec): ToolError {
  const what = spec.kind === 'write' ? 'write files' : spec.kind === 'execute' ? 'run commands' : "run git (it executes the repository's own configuration)";
  return new ToolError(`Restricted Mode: this workspace is not trusted, so @rawr does not ${what}. ${RESTRICTED_HINT}`);
}

export function parseInput<S extends z.ZodType>(spec: ToolSpec<S>, input: unknown): z.infer<S> {
  const r = spec.schema.safeParse(input ?? {});
  if (!r.success)
    throw new ToolError(`invalid input for ${spec.name}: ${r.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ')}`);
  return r.data;
}

export function registerTool<S extends z.ZodType>(impl: ToolImpl<S>, ctx: ToolContext): vscode.Disposable {
  const { spec } = impl;
  return vscode.lm.registerTool<z.infer<S>>(spec.name, {
    async prepareInvocation(options) {
      let input: z.infer<S>;
      try {
        input = parseInput(spec, options.input);
      } catch {
        return { invocationMessage: `${spec.displayName} (invalid input)` };
      }
      const invocationMessage = impl.message(input);
      // No confirmation where the tool will refuse anyway (invalid input above, Restricted Mode here).
      if (!impl.confirm || (!allowedInRestrictedMode(spec) && !ctx.trusted())) return { invocationMessage };
      try {
        const c = await impl.confirm(input, ctx);
        return { invocationMessage, confirmationMessages: { title: c.title, message: new vscode.MarkdownString(c.message) } };
      } catch (err) {
        // e.g. the path is outside the workspace: invoke() reports it; nothing to confirm.
        if (err instanceof ToolError) return { invocationMessage };
        throw err;
      }
    },
    async invoke(options, token) {
      const input = parseInput(spec, options.input);
      if (!allowedInRestrictedMode(spec) && !ctx.trusted()) throw restrictedError(spec);
      try {
        const text = await impl.run(input, ctx, token);
        return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
      } catch (err) {
        if (!(err instanceof ToolError)) ctx.log.warn(`${spec.name} failed: ${(err as Error)?.stack ?? err}`);
        throw err instanceof ToolError ? err : new ToolError(`${spec.name} failed: ${(err as Error)?.message ?? err}`);
      }
    },
  });
}

/** A Markdown code fence that the content cannot close early. */
export function fence(text: string, lang = ''): string {
  const ticks = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

/** At most `n` lines of a preview, with a note of what was left out. */
export function previewLines(text: string, n = 40): string {
  const lines = text.split('\n');
  return lines.length <= n ? text : `${lines.slice(0, n).join('\n')}\n… (${lines.length - n} more lines)`;
}
