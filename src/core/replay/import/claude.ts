/**
 * Claude Code session transcript (~/.claude/projects/<project>/<session>.jsonl) → Recording.
 * Pure: no I/O, no vscode. One pass over the lines; all lookups are Set/Map.
 */
import type { RecordImporter, Recording, RecordingItem } from '../recording';
import {
  ClaudeAssistant,
  ClaudeBashResult,
  ClaudeBlock,
  ClaudeSystem,
  ClaudeText,
  ClaudeToolResult,
  ClaudeToolUse,
  ClaudeUser,
  contextTokensOf,
  Envelope,
  LineSource,
  Problem,
  describeIssue,
  readJsonLines,
  timeOf,
} from './schemas';
import { ClaudePlanTracker, type PlanChange, type SavedPlanTracker } from './claudePlan';
import { countModel, modelList } from './models';
import { ID_MEMORY, trimOldest } from '../bounded';
import type * as z from 'zod';

/**
 * Texts that Claude Code itself writes as `user` records without an isMeta flag. None is typed by
 * the person as a prompt to the model:
 * - `<command-name>`/`<command-message>`: a slash command (e.g. /compact; its effect is recorded elsewhere)
 * - `<local-command-stdout|stderr|caveat>`: output of local commands
 * - `<bash-input>`/`<bash-stdout>`/`<bash-stderr>`: the person's `!cmd` shell escapes and their output
 * - `<task-notification>`: a background task finished (seen in spotter-258c7280 and -8463c716)
 * - `<system-reminder>`: harness reminders
 * - `[Request interrupted by user…]`: the interruption marker (string or text block)
 */
const INJECTED_PREFIXES = [
  '<command-name>',
  '<command-message>',
  '<command-args>',
  '<local-command-stdout>',
  '<local-command-stderr>',
  '<local-command-caveat>',
  '<bash-input>',
  '<bash-stdout>',
  '<bash-stderr>',
  '<task-notification>',
  '<system-reminder>',
  '[Request interrupted by user',
];

/**
 * A `user` record is a person's prompt when it is none of:
 * - isMeta (skill bodies, caveats), isCompactSummary / isVisibleInTranscriptOnly (the post-compaction
 *   summary), isSidechain (a subagent's prompt is written by the parent agent, e.g. the acompact file);
 * - a tool_result carrier (handled as tool results);
 * - a text starting with one of INJECTED_PREFIXES, or blank.
 * Text may be a string or text blocks (a prompt with pasted images is an array of text + image).
 */
function personPrompt(rec: z.infer<typeof ClaudeUser>, blocks: ClaudeBlock[] | null): string | null {
  if (rec.isMeta || rec.isCompactSummary || rec.isVisibleInTranscriptOnly || rec.isSidechain) return null;
  let text: string;
  if (blocks === null) {
    text = rec.message.content as string;
  } else {
    if (blocks.some((b) => b.type === 'tool_result')) return null;
    text = blocks
      .flatMap((b) => {
        const t = ClaudeText.safeParse(b);
        return t.success ? [t.data.text] : [];
      })
      .join('\n');
  }
  const trimmed = text.trimStart();
  if (trimmed === '' || INJECTED_PREFIXES.some((p) => trimmed.startsWith(p))) return null;
  return text;
}

/**
 * Exit code of a tool result, only when the recording states or implies one:
 * - failures: `toolUseResult` "Error: Exit code N…" (content "Exit code N…") → N;
 * - a Bash result object (stdout/stderr) that is not an error → 0, because Claude Code reports every
 *   non-zero exit as an error, except when it sets `returnCodeInterpretation` (e.g. grep's
 *   "No matches found": non-zero but not an error, number not stated → undefined);
 * - interrupted or backgrounded commands have no exit code yet → undefined; other tools → undefined.
 */
function exitCodeOf(toolUseResult: unknown, output: string, isError: boolean): number | undefined {
  const failure = typeof toolUseResult === 'string' ? /^Error: Exit code (\d+)/.exec(toolUseResult) : isError ? /^Exit code (\d+)/.exec(output) : null;
  if (failure) return Number(failure[1]);
  const bash = ClaudeBashResult.safeParse(toolUseResult);
  if (!bash.success || isError) return undefined;
  const r = bash.data;
  if (r.interrupted || r.backgroundTaskId !== undefined || r.returnCodeInterpretation !== undefined) return undefined;
  return 0;
}

function resultText(content: z.infer<typeof ClaudeToolResult>['content']): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.flatMap((b) => (b.text !== undefined ? [b.text] : [])).join('\n');
}

export function importClaude(text: LineSource): Recording {
  const imp = claudeImporter();
  return imp.finish(readJsonLines(text, imp.problems, (rec, line) => imp.onRecord(rec, line)));
}

/**
 * How many API responses (message ids) stay open for more text blocks. Claude Code writes a response's
 * records one after the other (no other message id in between in any recording we have); four leaves
 * room for interleaved subagents. A text block of a response closed since becomes an item of its own.
 */
const OPEN_RESPONSES = 4;
/** Items held back behind an open response at most; beyond it the open responses are closed. */
const MAX_HELD_ITEMS = 10_000;

/**
 * What claudeImporter holds, as plain JSON (RecordImporter.save). An open response's merged text item
 * is one of `items` (the same object, still growing): it is saved as its position, `hasItem`.
 */
export interface SavedClaudeImporter {
  items: RecordingItem[];
  problems: Problem[];
  usageSeen: string[];
  open: Array<{ id: string; pos: number; hasItem: boolean }>;
  toolUseSeen: string[];
  plan: SavedPlanTracker;
  models: Array<[string, number]>;
  at: number;
  pushed: number;
  taken: number;
}

/** Problems a saved importer keeps (only the newest: the hooks never report them, the count is not needed). */
const SAVED_PROBLEMS = 20;

/** The Claude Code record interpreter, fed record by record (see RecordImporter); `saved` resumes a saved one. */
export function claudeImporter(saved?: SavedClaudeImporter): RecordImporter {
  const items: RecordingItem[] = saved ? saved.items : [];
  const problems: Problem[] = saved ? saved.problems : [];
  // One API response is split over several records sharing message.id: usage once per id, its text
  // blocks merged into one assistant_text item (the first block's line), tool_use deduped by id.
  // All three forget their oldest ids beyond a cap (bounded.ts): memory does not grow with the file.
  const usageSeen = new Set<string>(saved?.usageSeen);
  /** The most recent responses, by message id, with their merged text item (`pos`: its index among all items). */
  const open = new Map<string, { item?: { text: string }; pos: number }>();
  const toolUseSeen = new Set<string>(saved?.toolUseSeen);
  const plan = saved ? ClaudePlanTracker.restore(saved.plan) : new ClaudePlanTracker();
  /** Model calls per model name (one per message.id), for the context window (replay/windows.ts). */
  const models = new Map<string, number>(saved?.models);
  let at = saved?.at ?? 0;
  /** Items ever pushed, and ever taken: `items` holds the ones in between. */
  let pushed = saved?.pushed ?? 0;
  let taken = saved?.taken ?? 0;
  for (const o of saved?.open ?? []) {
    const item = o.hasItem ? (items[o.pos - taken] as { text: string } | undefined) : undefined;
    open.set(o.id, item ? { item, pos: o.pos } : { pos: o.pos });
  }
  const save = (): SavedClaudeImporter => ({
    items: structuredClone(items),
    problems: problems.slice(-SAVED_PROBLEMS),
    usageSeen: [...usageSeen],
    open: [...open].map(([id, r]) => ({ id, pos: r.pos, hasItem: r.item !== undefined && items[r.pos - taken] === r.item })),
    toolUseSeen: [...toolUseSeen],
    plan: plan.save(),
    models: [...models],
    at,
    pushed,
    taken,
  });
  const emit = (item: RecordingItem): void => {
    items.push(item);
    pushed++;
  };
  const take = (final = false): RecordingItem[] => {
    if (final || items.length > MAX_HELD_ITEMS) for (const r of open.values()) delete r.item;
    let until = pushed;
    for (const r of open.values()) if (r.item && r.pos < until) until = r.pos;
    const out = items.splice(0, until - taken);
    taken = until;
    return out;
  };

  const bad = (line: number, kind: string, error: z.ZodError): void => {
    problems.push({ line, message: describeIssue(kind, error) });
  };
  const planItem = (change: PlanChange, line: number): void => {
    if (change === null) return;
    if ('problem' in change) bad(line, change.problem, change.error);
    else emit({ type: 'plan', line, at, steps: change.steps });
  };

  const onAssistant = (rec: unknown, line: number) => {
    const r = ClaudeAssistant.safeParse(rec);
    if (!r.success) return bad(line, 'assistant', r.error);
    const msg = r.data.message;
    let response = open.get(msg.id);
    if (!response) {
      response = { pos: pushed };
      open.set(msg.id, response);
      trimOldest(open, OPEN_RESPONSES);
    }
    if (!usageSeen.has(msg.id) && msg.usage) {
      usageSeen.add(msg.id);
      trimOldest(usageSeen, ID_MEMORY);
      const u = msg.usage;
      const contextTokens = contextTokensOf(u);
      // 0 = synthetic records (API error notices), not a model call: no reading
      if (contextTokens > 0) {
        emit({ type: 'usage', line, at, contextTokens });
        if (!r.data.isSidechain) countModel(models, msg.model);
      }
    }
    for (const block of msg.content) {
      if (block.type === 'text') {
        const t = ClaudeText.safeParse(block);
        if (!t.success) {
          bad(line, 'assistant text block', t.error);
          continue;
        }
        if (t.data.text.trim() === '') continue; // "\n\n" separators before thinking blocks
        const existing = response.item;
        if (existing) existing.text += '\n\n' + t.data.text;
        else {
          const item = { type: 'assistant_text' as const, line, at, text: t.data.text };
          response.item = item;
          response.pos = pushed;
          emit(item);
        }
      } else if (block.type === 'tool_use') {
        const t = ClaudeToolUse.safeParse(block);
        if (!t.success) {
          bad(line, 'tool_use block', t.error);
          continue;
        }
        if (toolUseSeen.has(t.data.id)) continue;
        toolUseSeen.add(t.data.id);
        trimOldest(toolUseSeen, ID_MEMORY);
        emit({ type: 'tool_call', line, at, id: t.data.id, name: t.data.name, input: t.data.input });
        planItem(plan.onToolUse(t.data.id, t.data.name, t.data.input), line);
      }
    }
  };

  const onUser = (rec: unknown, line: number) => {
    const r = ClaudeUser.safeParse(rec);
    if (!r.success) return bad(line, 'user', r.error);
    const content = r.data.message.content;
    const blocks = typeof content === 'string' ? null : content;
    const results = blocks ? blocks.filter((b) => b.type === 'tool_result') : [];
    for (const block of results) {
      const t = ClaudeToolResult.safeParse(block);
      if (!t.success) {
        bad(line, 'tool_result block', t.error);
        continue;
      }
      const output = resultText(t.data.content);
      const isError = t.data.is_error === true;
      // toolUseResult belongs to the record; it describes the block only if the block is alone
      const toolUseResult = results.length === 1 ? r.data.toolUseResult : undefined;
      const exitCode = exitCodeOf(toolUseResult, output, isError);
      // A Task tool's change lands before its result, so the replay sees the new plan at this
      // tool-loop boundary (as TodoWrite's, which is known at the call).
      planItem(plan.onToolResult(t.data.tool_use_id, output, isError, toolUseResult), line);
      emit({ type: 'tool_result', line, at, id: t.data.tool_use_id, output, isError, ...(exitCode !== undefined ? { exitCode } : {}) });
    }
    const prompt = personPrompt(r.data, blocks);
    if (prompt !== null) emit({ type: 'user_prompt', line, at, text: prompt });
  };

  const onSystem = (rec: unknown, line: number) => {
    const r = ClaudeSystem.safeParse(rec);
    if (!r.success) return bad(line, 'system', r.error);
    if (r.data.subtype !== 'compact_boundary') return; // stop_hook_summary, turn_duration: not replay events
    const meta = r.data.compactMetadata;
    const trigger = meta?.trigger === 'auto' || meta?.trigger === 'manual' ? meta.trigger : 'unknown';
    emit({
      type: 'native_compaction',
      line,
      at,
      trigger,
      ...(meta?.preTokens !== undefined ? { preTokens: meta.preTokens } : {}),
      ...(meta?.postTokens !== undefined ? { postTokens: meta.postTokens } : {}),
    });
  };

  const onRecord = (rec: unknown, line: number): void => {
    const env = Envelope.safeParse(rec);
    if (!env.success) return bad(line, 'Claude Code', env.error);
    const type = env.data.type;
    // progress (≈70% of lines), file-history-snapshot, queue-operation, summary, unknown: skipped
    if (type !== 'assistant' && type !== 'user' && type !== 'system') return;
    at = timeOf(env.data.timestamp, at);
    if (type === 'assistant') onAssistant(rec, line);
    else if (type === 'user') onUser(rec, line);
    else onSystem(rec, line);
  };

  const meta = () => (models.size ? { models: modelList(models) } : {});
  return {
    format: 'claude',
    items,
    problems,
    onRecord,
    take,
    meta,
    finish: (lines: number): Recording => ({ format: 'claude', lines, items, problems, ...meta() }),
    save,
  };
}
