/**
 * A failed model request in words a person can act on: what happened and the next step (errorAdvice.ts).
 * Covers VS Code's LanguageModelError kinds (NoPermissions, Blocked, NotFound) and the HTTP errors rawr's
 * OpenAI-compatible provider reports in their messages.
 */
import * as vscode from 'vscode';
import { modelErrorAdvice, type ModelErrorKind } from './errorAdvice';

const KINDS: readonly string[] = ['NoPermissions', 'Blocked', 'NotFound'];

export function describeModelError(err: unknown): string {
  if (err instanceof vscode.CancellationError) return 'Cancelled.';
  const message = err instanceof Error ? err.message : String(err);
  const lmError = err instanceof vscode.LanguageModelError;
  const kind: ModelErrorKind | undefined = lmError ? ((KINDS.includes(err.code) ? err.code : 'Unknown') as ModelErrorKind) : undefined;
  const next = modelErrorAdvice(kind, message);
  const what = lmError
    ? `The language model request failed (${err.code || 'Unknown'}): ${message}`
    : next
      ? `The language model request failed: ${message}`
      : message;
  return next ? `${what}\n\nNext step: ${next}` : what;
}
