/**
 * Codex rollout (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl) → Recording.
 * Pure: no I/O, no vscode. One pass over the lines (plus one sort only in the fallback case).
 */
import type { Recording, RecordingItem } from '../recording';
import {
  CodexCompacted, CodexCustomToolCall, CodexEnvelope, CodexFunctionCall, CodexMessage, CodexShellOutputJson,
  CodexTokenCount, CodexToolOutput, CodexUserMessage, LineSource, PayloadType, Problem, UpdatePlanArgs, describeIssue,
  normalizeStatus, readJsonLines, timeOf,
} from './schemas';
import type { z } from 'zod';

/** User-role texts Codex injects itself (environment, AGENTS.md / user instructions, shell escapes). */
const INJECTED_PREFIXES = [
  '<environment_context>', '<user_instructions>', '# AGENTS.md instructions', '<INSTRUCTIONS>',
  '<user_shell_command>', '<turn_aborted>',
];
const isInjected = (text: string) => {
  const t = text.trimStart();
  return t === '' || INJECTED_PREFIXES.some((p) => t.startsWith(p));
};

/** Redacted recordings (localpush) replace free text by `[REDACTED_… len=N sha=…]`: expected, not a problem. */
const isRedacted = (s: string) => s.startsWith('[REDACTED_');

/**
 * Output text and exit code of a tool output. Shapes seen:
 * - 0.58 shell: a JSON string `{"output": "...", "metadata": {"exit_code": N, "duration_seconds": …}}`;
 * - 0.104 exec_command: plain text with a header "Process exited with code N" before "Output:"
 *   (older plain-text shells: "Exit code: N"); only the header is searched so that program output
 *   mentioning such a phrase is not mistaken for the status;
 * - anything else ("Plan updated", apply_patch text, redacted): no exit code.
 */
function toolOutput(raw: z.infer<typeof CodexToolOutput>['output']): { output: string; exitCode?: number } {
  if (typeof raw !== 'string') return { output: raw.flatMap((c) => (c.text !== undefined ? [c.text] : [])).join('\n') };
  if (raw.startsWith('{')) {
    let json: unknown;
    try { json = JSON.parse(raw); } catch { json = undefined; }
    const shell = CodexShellOutputJson.safeParse(json);
    if (shell.success) {
      const code = shell.data.metadata?.exit_code;
      return code !== undefined ? { output: shell.data.output, exitCode: code } : { output: shell.data.output };
    }
  }
  const body = raw.startsWith('Output:') ? 0 : raw.indexOf('\nOutput:');
  const header = raw.slice(0, body >= 0 ? body : 400);
  const m = /^(?:Process exited with code|Exit code:) (-?\d+)/m.exec(header);
  return m ? { output: raw, exitCode: Number(m[1]) } : { output: raw };
}

export function importCodex(text: LineSource): Recording {
  const items: RecordingItem[] = [];
  const problems: Problem[] = [];
  let at = 0;
  let window: number | undefined;
  /** Key of the previous usage report, to drop the duplicate token_count events Codex writes. */
  let lastUsageKey = '';
  /** Latest live context, the preTokens of a following compaction. */
  let lastContext: number | undefined;
  let eventPrompts = 0;
  /** Prompts from response_item user messages: used only if the file has no user_message events. */
  const fallbackPrompts: RecordingItem[] = [];

  const bad = (line: number, kind: string, error: z.ZodError): void => {
    problems.push({ line, message: describeIssue(kind, error) });
  };

  const onEvent = (payload: unknown, kind: string, line: number) => {
    if (kind === 'token_count') {
      const r = CodexTokenCount.safeParse(payload);
      if (!r.success) return bad(line, 'token_count', r.error);
      const info = r.data.info;
      if (!info) return; // the first token_count of a session often has info: null
      const contextTokens = info.last_token_usage.input_tokens;
      // A 0 reading is not a model call: Codex writes it when a compaction resets last_token_usage
      // (localpush-compacted, just before the `compacted` record). Keeping it would make preTokens 0.
      if (contextTokens === 0) return;
      const w = info.model_context_window ?? undefined;
      const key = `${contextTokens}/${info.total_token_usage?.total_tokens}/${w}`;
      if (key === lastUsageKey) return; // the same report written twice (common)
      lastUsageKey = key;
      lastContext = contextTokens;
      if (w !== undefined) window = w;
      items.push(w !== undefined ? { type: 'usage', line, at, contextTokens, window: w } : { type: 'usage', line, at, contextTokens });
    } else if (kind === 'user_message') {
      // The person's text as typed (no injected context), so preferred over response_item user messages.
      const r = CodexUserMessage.safeParse(payload);
      if (!r.success) return bad(line, 'user_message', r.error);
      eventPrompts++;
      if (!isInjected(r.data.message)) items.push({ type: 'user_prompt', line, at, text: r.data.message });
    }
    // agent_message duplicates the assistant response_item message one for one (255/255, 52/52 in
    // localpush) and is absent from some versions: assistant text is taken from response_item only.
  };

  const onItem = (payload: unknown, kind: string, line: number) => {
    switch (kind) {
      case 'message': {
        const r = CodexMessage.safeParse(payload);
        if (!r.success) return bad(line, 'message', r.error);
        const texts = r.data.content.flatMap((c) => (c.text !== undefined && (c.type === 'output_text' || c.type === 'input_text') ? [c.text] : []));
        const joined = texts.join('\n');
        if (r.data.role === 'assistant' && joined.trim() !== '') items.push({ type: 'assistant_text', line, at, text: joined });
        else if (r.data.role === 'user' && !isInjected(joined)) fallbackPrompts.push({ type: 'user_prompt', line, at, text: joined });
        return;
      }
      case 'function_call': {
        const r = CodexFunctionCall.safeParse(payload);
        if (!r.success) return bad(line, 'function_call', r.error);
        let input: unknown = r.data.arguments;
        let parsed = false;
        try { input = JSON.parse(r.data.arguments); parsed = true; } catch {
          if (!isRedacted(r.data.arguments)) problems.push({ line, message: `function_call ${r.data.name}: arguments are not JSON; kept as a string` });
        }
        items.push({ type: 'tool_call', line, at, id: r.data.call_id, name: r.data.name, input });
        if (r.data.name === 'update_plan' && parsed) {
          const plan = UpdatePlanArgs.safeParse(input);
          if (!plan.success) bad(line, 'update_plan arguments', plan.error);
          else items.push({ type: 'plan', line, at, steps: plan.data.plan.map((s) => ({ text: s.step, status: normalizeStatus(s.status) })) });
        }
        return;
      }
      case 'custom_tool_call': {
        // apply_patch: `input` is the patch text itself, not JSON
        const r = CodexCustomToolCall.safeParse(payload);
        if (!r.success) return bad(line, 'custom_tool_call', r.error);
        items.push({ type: 'tool_call', line, at, id: r.data.call_id, name: r.data.name, input: r.data.input });
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const r = CodexToolOutput.safeParse(payload);
        if (!r.success) return bad(line, kind, r.error);
        const { output, exitCode } = toolOutput(r.data.output);
        // Codex records no error flag: an error is a stated non-zero exit code.
        const isError = exitCode !== undefined && exitCode !== 0;
        items.push({ type: 'tool_result', line, at, id: r.data.call_id, output, isError, ...(exitCode !== undefined ? { exitCode } : {}) });
        return;
      }
      // reasoning, web_search_call (no call id, no result), ghost_snapshot, …: not replay events
    }
  };

  const lines = readJsonLines(text, problems, (rec, line) => {
    const env = CodexEnvelope.safeParse(rec);
    if (!env.success) return bad(line, 'Codex', env.error);
    const type = env.data.type;
    // session_meta, turn_context, unknown: skipped
    if (type !== 'event_msg' && type !== 'response_item' && type !== 'compacted') return;
    at = timeOf(env.data.timestamp, at);
    if (type === 'compacted') {
      // Codex does not say why it compacted; a rollout `compacted` record is its automatic one.
      const r = CodexCompacted.safeParse(env.data.payload);
      if (!r.success) return bad(line, 'compacted', r.error);
      items.push({ type: 'native_compaction', line, at, trigger: 'auto', ...(lastContext !== undefined ? { preTokens: lastContext } : {}) });
      return;
    }
    const p = PayloadType.safeParse(env.data.payload);
    if (!p.success) return bad(line, type, p.error);
    if (type === 'event_msg') onEvent(env.data.payload, p.data.type, line);
    else onItem(env.data.payload, p.data.type, line);
  });

  if (eventPrompts === 0 && fallbackPrompts.length > 0) {
    for (const p of fallbackPrompts) items.push(p); // no spread: huge arrays overflow the call stack
    items.sort((a, b) => a.line - b.line); // stable: same-line items keep their order
  }
  return { format: 'codex', window, lines, items, problems };
}
