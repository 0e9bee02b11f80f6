/**
 * A chat request and response stream as the Chat view makes them, for driving the participant's handler
 * directly: in the unit tier (participantHarness.ts, with the vscode shim) and in the real extension host
 * (test/vscode/suite/support.js requires the compiled copy). No `vscode` import: it runs in both.
 */
import type * as vscode from 'vscode';

export interface RecordedPart {
  kind: 'markdown' | 'progress' | 'button' | 'anchor' | 'reference' | 'filetree' | 'push';
  value: unknown;
}

/** A ChatResponseStream that records what the participant streamed, in order (progress as markers). */
export function recordingStream() {
  const parts: RecordedPart[] = [];
  const rec = (kind: RecordedPart['kind']) => (value: unknown) => parts.push({ kind, value });
  const stream = {
    markdown: (v: string | vscode.MarkdownString) => parts.push({ kind: 'markdown', value: typeof v === 'string' ? v : v.value }),
    progress: rec('progress'),
    button: rec('button'),
    anchor: rec('anchor'),
    reference: rec('reference'),
    filetree: rec('filetree'),
    push: rec('push'),
  };
  const text = () => parts.map((p) => (p.kind === 'progress' ? `\n<progress:${String(p.value)}>\n` : p.kind === 'markdown' ? String(p.value) : '')).join('');
  return { stream: stream as unknown as vscode.ChatResponseStream, parts, text };
}

/** A ChatRequest as the Chat view builds it (no tool invocation token outside a real chat). */
export function chatRequest(model: vscode.LanguageModelChat, prompt: string, command?: string, idPrefix = 'test'): vscode.ChatRequest {
  return {
    prompt,
    command,
    references: [],
    toolReferences: [],
    toolInvocationToken: undefined,
    model,
    attempt: 0,
    enableCommandDetection: true,
    isParticipantDetected: false,
    id: `${idPrefix}-${Date.now()}`,
  } as unknown as vscode.ChatRequest;
}
