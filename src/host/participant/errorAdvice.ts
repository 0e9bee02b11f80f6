/**
 * The next step for a failed model request, from the LanguageModelError kind VS Code reports (or none)
 * and the message (rawr's OpenAI-compatible provider names the HTTP status in it). Pure: unit-tested.
 */
export type ModelErrorKind = 'NoPermissions' | 'Blocked' | 'NotFound' | 'Unknown';

export function modelErrorAdvice(kind: ModelErrorKind | undefined, message: string): string | undefined {
  if (kind === 'NoPermissions') {
    return /HTTP 401|API key/i.test(message)
      ? 'Set the key with "Rawr: Set OpenAI-Compatible API Key", then send the message again.'
      : 'Allow @rawr to use this model (the model picker\'s "Manage Models…", or accept the access prompt), then send the message again.';
  }
  if (kind === 'Blocked')
    return 'The provider refused the request (quota, rate limit or policy): wait a moment and send the message again, or pick another model.';
  if (kind === 'NotFound') return "Pick another model in the Chat view's model picker (or check rawr.openai.models).";
  const http = Number(/HTTP (\d{3})/.exec(message)?.[1]);
  if (http === 429) return 'The server is rate limiting: wait a moment, then send the message again.';
  if (http >= 500) return "The model server had an internal error: try again; check the server's log if it persists.";
  if (http === 400)
    return 'The server rejected the request: the thread may be too long for the model (try /compact) or the model may not support tools (toolCalling: false).';
  if (http >= 400) return 'Check the server address and model settings (rawr.openai.*), then send the message again.';
  if (/ECONNREFUSED|ENOTFOUND|fetch failed|connection|socket hang up/i.test(message))
    return 'Check that the model server is running and reachable (rawr.openai.baseUrl), then send the message again.';
  if (kind === 'Unknown') return 'Send the message again; if it keeps failing, pick another model.';
  return undefined;
}
