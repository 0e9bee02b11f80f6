/**
 * A failed model request in words a person can act on: what happened and the next step. Covers VS Code's
 * LanguageModelError kinds (NoPermissions, Blocked, NotFound) and the HTTP errors rawr's OpenAI-compatible
 * provider reports in their messages.
 */
import * as vscode from 'vscode';

export function describeModelError(err: unknown): string {
  if (err instanceof vscode.CancellationError) return 'Cancelled.';
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof vscode.LanguageModelError) {
    const code = err.code || 'Unknown';
    const next =
      code === vscode.LanguageModelError.NoPermissions.name
        ? /HTTP 401|API key/i.test(message)
          ? 'Set the key with "Rawr: Set OpenAI-compatible API Key", then send the message again.'
          : 'Allow @rawr to use this model (the model picker\'s "Manage Models…", or accept the access prompt), then send the message again.'
        : code === vscode.LanguageModelError.Blocked.name
          ? 'The provider refused the request (quota, rate limit or policy): wait a moment and send the message again, or pick another model.'
          : code === vscode.LanguageModelError.NotFound.name
            ? 'Pick another model in the Chat view\'s model picker (or check rawr.openai.models).'
            : 'Send the message again; if it keeps failing, pick another model.';
    return `The language model request failed (${code}): ${message}\n\nNext step: ${next}`;
  }
  const http = /HTTP (\d{3})/.exec(message)?.[1];
  if (http) {
    const n = Number(http);
    const next =
      n === 429
        ? 'The server is rate limiting: wait a moment, then send the message again.'
        : n >= 500
          ? 'The model server had an internal error: try again; check the server\'s log if it persists.'
          : n === 400
            ? 'The server rejected the request: the thread may be too long for the model (try /compact) or the model may not support tools (toolCalling: false).'
            : 'Check the server address and model settings (rawr.openai.*), then send the message again.';
    return `The language model request failed: ${message}\n\nNext step: ${next}`;
  }
  if (/ECONNREFUSED|ENOTFOUND|fetch failed|connection|socket hang up/i.test(message)) {
    return `The language model request failed: ${message}\n\nNext step: check that the model server is running and reachable (rawr.openai.baseUrl), then send the message again.`;
  }
  return message;
}
