/**
 * Codex rollout (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl) → Recording.
 * Pure: no I/O, no vscode. One pass over the lines (plus one sort only in the fallback case).
 */
import type { RecordImporter, Recording, RecordingItem } from '../recording';
import { countModel, modelList } from './models';
import {
  CodexCompacted,
  CodexCustomToolCall,
  CodexEnvelope,
  CodexFunctionCall,
  CodexItemCompleted,
  CodexMessage,
  CodexShellOutputJson,
  CodexTokenCount,
  CodexToolOutput,
  CodexTurnContext,
  CodexUserMessage,
  LineSource,
  PayloadType,
  Problem,
  UpdatePlanArgs,
  describeIssue,
  normalizeStatus,
  readJsonLines,
  timeOf,
} from './schemas';
import type * as z from 'zod';

/** User-role texts Codex injects itself (environment, AGENTS.md / user instructions, shell escapes). */
const INJECTED_PREFIXES = [
  '<environment_context>',
  '<user_instructions>',
  '# AGENTS.md instructions',
  '<INSTRUCTIONS>',
  '<user_shell_command>',
  '<turn_aborted>',
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
    try {
      json = JSON.parse(raw);
    } catch {
      json = undefined;
    }
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
  const imp = codexImporter();
  return imp.finish(readJsonLines(text, imp.problems, (rec, line) => imp.onRecord(rec, line)));
}

/**
 * The Codex rollout record interpreter, fed record by record (see RecordImporter).
 *
 * Compactions, by version: 0.58/0.104 write a top-level `compacted` record then `event_msg`
 * `context_compacted`; 0.171 writes `compacted` then `event_msg` `item_completed` with a
 * `ContextCompaction` item (no `context_compacted`). One compaction is counted once: at `compacted`,
 * or at the ContextCompaction item when no `compacted` came before it.
 */
export interface CodexImporter extends RecordImporter {
  /** Whether the person's prompts come from response_item user messages: the file so far has no user_message event. */
  promptsFromItems(): boolean;
}

/**
 * `fallbackPrompts`: what becomes of the prompts of response_item user messages, which count only if the
 * whole file has no user_message event: 'collect' (whole file: merged by `finish` if so), 'inline' (a
 * first pass found none: items like the others), 'drop' (a first pass found some, or only counting).
 */
export function codexImporter(o: { fallbackPrompts?: 'collect' | 'inline' | 'drop' } = {}): CodexImporter {
  const fallbackMode = o.fallbackPrompts ?? 'collect';
  let fallbackSeen = 0;
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
  const models = new Map<string, number>();
  /**
   * A turn has started (task_started) and has had no prompt or tool call yet. Rollouts without
   * task_started events never set it, so their compactions stay 'auto', as Codex's own.
   */
  let turnIdle = false;
  /** A `compacted` record was counted and its ContextCompaction item has not come yet. */
  let compactedUnconfirmed = false;

  const nativeCompaction = (line: number): void => {
    // Codex does not record why it compacted. In the middle of a turn's work it is its automatic
    // compaction; a turn that does nothing but compact is a manual /compact (thread/compact/start)
    // or a pre-turn automatic one, which the rollout does not tell apart.
    const trigger = turnIdle ? 'unknown' : 'auto';
    items.push({ type: 'native_compaction', line, at, trigger, ...(lastContext !== undefined ? { preTokens: lastContext } : {}) });
  };

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
      turnIdle = false;
      if (!isInjected(r.data.message)) items.push({ type: 'user_prompt', line, at, text: r.data.message });
    } else if (kind === 'task_started') {
      turnIdle = true;
    } else if (kind === 'item_completed') {
      const r = CodexItemCompleted.safeParse(payload);
      if (!r.success) return bad(line, 'item_completed', r.error);
      const item = r.data.item;
      if (item.type === 'ContextCompaction') {
        if (compactedUnconfirmed) compactedUnconfirmed = false;
        else nativeCompaction(line);
      } else if (item.type === 'UserMessage') {
        // 0.171 writes no user_message event; its UserMessage item is the person's text as typed.
        const text = (item.content ?? []).flatMap((c) => (c.text !== undefined ? [c.text] : [])).join('\n');
        eventPrompts++;
        turnIdle = false;
        if (!isInjected(text)) items.push({ type: 'user_prompt', line, at, text });
      }
    }
    // agent_message duplicates the assistant response_item message one for one (255/255, 52/52 in
    // localpush) and is absent from some versions: assistant text is taken from response_item only.
  };

  const onItem = (payload: unknown, kind: string, line: number, compactionOutput: boolean) => {
    switch (kind) {
      case 'message': {
        const r = CodexMessage.safeParse(payload);
        if (!r.success) return bad(line, 'message', r.error);
        if (compactionOutput) return; // the compaction's summary (0.171), not the agent talking
        const texts = r.data.content.flatMap((c) => (c.text !== undefined && (c.type === 'output_text' || c.type === 'input_text') ? [c.text] : []));
        const joined = texts.join('\n');
        if (r.data.role === 'assistant' && joined.trim() !== '') items.push({ type: 'assistant_text', line, at, text: joined });
        else if (r.data.role === 'user' && !isInjected(joined)) {
          fallbackSeen++;
          const prompt = { type: 'user_prompt' as const, line, at, text: joined };
          if (fallbackMode === 'collect') fallbackPrompts.push(prompt);
          else if (fallbackMode === 'inline') items.push(prompt);
        }
        return;
      }
      case 'function_call': {
        const r = CodexFunctionCall.safeParse(payload);
        if (!r.success) return bad(line, 'function_call', r.error);
        let input: unknown = r.data.arguments;
        let parsed = false;
        try {
          input = JSON.parse(r.data.arguments);
          parsed = true;
        } catch {
          if (!isRedacted(r.data.arguments)) problems.push({ line, message: `function_call ${r.data.name}: arguments are not JSON; kept as a string` });
        }
        items.push({ type: 'tool_call', line, at, id: r.data.call_id, name: r.data.name, input });
        turnIdle = false;
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
        turnIdle = false;
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
      default:
        // reasoning, web_search_call (no call id, no result), ghost_snapshot, …: not replay events
        return;
    }
  };

  const onRecord = (rec: unknown, line: number): void => {
    const env = CodexEnvelope.safeParse(rec);
    if (!env.success) return bad(line, 'Codex', env.error);
    const type = env.data.type;
    if (type === 'turn_context') {
      const r = CodexTurnContext.safeParse(env.data.payload);
      if (r.success) countModel(models, r.data.model);
      return;
    }
    // session_meta, world_state, token_usage_record, unknown: skipped
    if (type !== 'event_msg' && type !== 'response_item' && type !== 'compacted') return;
    at = timeOf(env.data.timestamp, at);
    if (type === 'compacted') {
      const r = CodexCompacted.safeParse(env.data.payload);
      if (!r.success) return bad(line, 'compacted', r.error);
      nativeCompaction(line);
      compactedUnconfirmed = true;
      return;
    }
    const p = PayloadType.safeParse(env.data.payload);
    if (!p.success) return bad(line, type, p.error);
    if (type === 'event_msg') onEvent(env.data.payload, p.data.type, line);
    else onItem(env.data.payload, p.data.type, line, env.data.metadata?.compaction_output === true);
  };

  const meta = () => ({ ...(window !== undefined ? { window } : {}), ...(models.size ? { models: modelList(models) } : {}) });
  const finish = (lines: number): Recording => {
    let all = items;
    if (eventPrompts === 0 && fallbackPrompts.length > 0) {
      all = items.slice();
      for (const p of fallbackPrompts) all.push(p); // no spread: huge arrays overflow the call stack
      all.sort((a, b) => a.line - b.line); // stable: same-line items keep their order
    }
    return { format: 'codex', lines, items: all, problems, ...meta() };
  };
  return {
    format: 'codex',
    items,
    problems,
    onRecord,
    take: () => items.splice(0), // a Codex record's items are final at once
    meta,
    finish,
    promptsFromItems: () => eventPrompts === 0 && fallbackSeen > 0,
  };
}
