/**
 * VS Code language-model request shapes → OpenAI chat-completions shapes.
 *
 * - User messages: text parts become one `user` message; each LanguageModelToolResultPart becomes a
 *   `role: 'tool'` message (in content order) placed *before* that user text, because the API requires
 *   tool results to follow the assistant message that made the calls.
 * - Assistant messages: text parts become `content`, LanguageModelToolCallPart become `tool_calls`
 *   (input serialised as JSON).
 * - LanguageModelDataPart (binary/JSON payloads, images, cache-control markers): text-like MIME types
 *   (`text/*`, JSON) are decoded as text; anything else is skipped and reported in `notes` — the
 *   chat-completions text API has nowhere to put it.
 * - Unknown parts (e.g. thinking parts of newer VS Code versions) are skipped with a note.
 */
import * as vscode from 'vscode';
import type { OpenAIChatMessage, OpenAITool, OpenAIToolCall, OpenAIToolChoice } from './openaiChat';

export interface ConvertedMessages {
  messages: OpenAIChatMessage[];
  /** Human-readable notes about parts that were skipped or approximated (for the log). */
  notes: string[];
}

/** LanguageModelChatMessageRole.System exists only as a proposed API (value 3); accept it when it shows up. */
const ROLE_SYSTEM = 3;

type AnyPart = Record<string, unknown>;

/** A class of the vscode module by name, if this VS Code has it (some part classes are newer than others). */
const ctor = (name: string): unknown => Reflect.get(vscode, name);
const isA = (p: unknown, name: string): boolean => {
  const C = ctor(name);
  return typeof C === 'function' && p instanceof C;
};

function isTextPart(p: unknown): p is vscode.LanguageModelTextPart {
  if (isA(p, 'LanguageModelTextPart')) return true;
  // Duck typing for parts revived without the class; thinking parts also have `value`, so exclude those.
  return (
    !!p &&
    typeof p === 'object' &&
    typeof (p as AnyPart).value === 'string' &&
    !isA(p, 'LanguageModelThinkingPart') &&
    Object.keys(p).every((k) => k === 'value' || k === 'audience')
  );
}
function isToolCallPart(p: unknown): p is vscode.LanguageModelToolCallPart {
  if (isA(p, 'LanguageModelToolCallPart')) return true;
  const o = p as AnyPart;
  return !!p && typeof p === 'object' && typeof o.callId === 'string' && typeof o.name === 'string' && 'input' in o;
}
function isToolResultPart(p: unknown): p is vscode.LanguageModelToolResultPart {
  if (isA(p, 'LanguageModelToolResultPart') || isA(p, 'LanguageModelToolResultPart2')) return true;
  const o = p as AnyPart;
  return !!p && typeof p === 'object' && typeof o.callId === 'string' && Array.isArray(o.content);
}
interface DataPartLike {
  mimeType: string;
  data: Uint8Array;
}
function isDataPart(p: unknown): p is DataPartLike {
  if (isA(p, 'LanguageModelDataPart')) return true;
  const o = p as AnyPart;
  return !!p && typeof p === 'object' && typeof o.mimeType === 'string' && o.data instanceof Uint8Array;
}
function isPromptTsxPart(p: unknown): p is vscode.LanguageModelPromptTsxPart {
  return isA(p, 'LanguageModelPromptTsxPart');
}

const TEXTUAL_MIME = /^(text\/|application\/(json|[\w.+-]*\+json)\b)/i;

function partKind(p: unknown): string {
  const n = (p as { constructor?: { name?: string } } | null)?.constructor?.name;
  return n && n !== 'Object' ? n : typeof p;
}

/** Text of a data part when its MIME type is textual, else undefined (and a note). */
function dataPartText(p: DataPartLike, where: string, notes: string[]): string | undefined {
  if (TEXTUAL_MIME.test(p.mimeType)) return new TextDecoder().decode(p.data);
  notes.push(`${where}: skipped a LanguageModelDataPart (${p.mimeType}, ${p.data.byteLength} bytes): the OpenAI-compatible chat API only carries text here.`);
  return undefined;
}

/** Tool-result content → the `content` string of a role:'tool' message. */
function toolResultText(part: vscode.LanguageModelToolResultPart, where: string, notes: string[]): string {
  const out: string[] = [];
  for (const c of part.content) {
    if (isTextPart(c)) out.push(c.value);
    else if (isDataPart(c)) {
      const t = dataPartText(c, where, notes);
      if (t !== undefined) out.push(t);
    } else if (isPromptTsxPart(c)) {
      out.push(JSON.stringify(c.value));
      notes.push(`${where}: a prompt-tsx tool-result part was sent as JSON.`);
    } else if (typeof c === 'string') out.push(c);
    else notes.push(`${where}: skipped a tool-result part of unknown kind (${partKind(c)}).`);
  }
  return out.join('');
}

export function toOpenAIMessages(messages: readonly vscode.LanguageModelChatRequestMessage[]): ConvertedMessages {
  const out: OpenAIChatMessage[] = [];
  const notes: string[] = [];
  messages.forEach((m, i) => {
    const where = `message ${i + 1}`;
    if (m.role === vscode.LanguageModelChatMessageRole.Assistant) {
      let text = '';
      const calls: OpenAIToolCall[] = [];
      for (const p of m.content) {
        if (isToolCallPart(p)) calls.push({ id: p.callId, type: 'function', function: { name: p.name, arguments: JSON.stringify(p.input ?? {}) } });
        else if (isTextPart(p)) text += p.value;
        else if (isDataPart(p)) text += dataPartText(p, where, notes) ?? '';
        else if (isToolResultPart(p)) notes.push(`${where}: skipped a tool result inside an assistant message (tool results belong in user messages).`);
        else notes.push(`${where}: skipped an assistant part of unknown kind (${partKind(p)}).`);
      }
      if (calls.length > 0) out.push({ role: 'assistant', content: text === '' ? null : text, tool_calls: calls });
      else out.push({ role: 'assistant', content: text });
      return;
    }
    // User (and the proposed System role)
    let text = '';
    for (const p of m.content) {
      if (isToolResultPart(p)) out.push({ role: 'tool', tool_call_id: p.callId, content: toolResultText(p, where, notes) });
      else if (isTextPart(p)) text += p.value;
      else if (isDataPart(p)) text += dataPartText(p, where, notes) ?? '';
      else if (isToolCallPart(p)) notes.push(`${where}: skipped a tool call inside a user message (tool calls belong in assistant messages).`);
      else notes.push(`${where}: skipped a part of unknown kind (${partKind(p)}).`);
    }
    const hadToolResults = m.content.some(isToolResultPart);
    if (text !== '' || !hadToolResults) out.push({ role: (m.role as number) === ROLE_SYSTEM ? 'system' : 'user', content: text });
  });
  return { messages: out, notes };
}

/** VS Code tool declarations → OpenAI function tools (an object schema with no properties when none given). */
export function toOpenAITools(tools: readonly vscode.LanguageModelChatTool[] | undefined): OpenAITool[] | undefined {
  if (!tools || tools.length === 0) return undefined;
  return tools.map((t) => ({
    type: 'function',
    function: {
      name: t.name,
      description: t.description,
      parameters: (t.inputSchema as Record<string, unknown> | undefined) ?? { type: 'object', properties: {} },
    },
  }));
}

/** LanguageModelChatToolMode → tool_choice. Auto is the server default, so it is left out. */
export function toToolChoice(mode: vscode.LanguageModelChatToolMode | undefined, hasTools: boolean): OpenAIToolChoice | undefined {
  if (!hasTools) return undefined;
  return mode === vscode.LanguageModelChatToolMode.Required ? 'required' : undefined;
}
