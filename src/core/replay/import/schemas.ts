/**
 * Zod schemas for the transcript records the importers read, plus the shared line reader.
 *
 * Schemas describe only the fields we use; other fields are ignored (z.object strips them), so a
 * newer tool version that adds fields still parses. Record types we do not read get no schema:
 * the importers skip them before validation.
 */
import * as z from 'zod';
import { linesOfText, type RawLine } from '../../io/lines';

// ---------------------------------------------------------------- shared line reader

export interface Problem {
  line: number;
  message: string;
}

/** What an importer reads: a whole text, or lines streamed from a file (src/core/io/lines.ts). */
export type LineSource = string | Iterable<RawLine>;

/**
 * Calls `onRecord` for every non-blank line that is valid JSON, with its 1-based line number.
 * Non-JSON lines (including a truncated last line) and lines over the reader's length cap become
 * problems; never throws for a bad line. Returns the number of lines (a trailing newline does not
 * start a new line). The source is a whole text or a stream of lines (openLines: a file of any size,
 * read with bounded memory); a UTF-8 byte-order mark before line 1 is not part of it.
 */
export function readJsonLines(source: LineSource, problems: { push(p: Problem): unknown }, onRecord: (record: unknown, line: number) => void): number {
  let lines = 0;
  for (const raw of typeof source === 'string' ? linesOfText(source) : source) {
    lines = raw.line;
    if (raw.text === undefined) {
      problems.push({ line: raw.line, message: `line of ${raw.tooLong} bytes is over the line length limit — skipped` });
      continue;
    }
    if (raw.text.trim() === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(raw.text);
    } catch (e) {
      problems.push({ line: raw.line, message: `not JSON (${(e as Error).message})${raw.unterminated ? '; truncated last line?' : ''}` });
      continue;
    }
    onRecord(record, raw.line);
  }
  return lines;
}

/** One-line summary of a zod failure for `problems`: "path: message" of the first issue. */
export function describeIssue(kind: string, error: z.ZodError): string {
  const issue = error.issues[0];
  const where = issue && issue.path.length ? issue.path.join('.') : '(record)';
  return `${kind} record does not match schema: ${where}: ${issue ? issue.message : 'invalid'}`;
}

/** Every record of either format is an object with a string `type`. */
export const Envelope = z.object({ type: z.string(), timestamp: z.string().optional() });

// ---------------------------------------------------------------- Claude Code

export const ClaudeText = z.object({ type: z.literal('text'), text: z.string() });
export const ClaudeToolUse = z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() });
export const ClaudeToolResult = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  // string, or blocks (text/image); absent for empty results
  content: z.union([z.string(), z.array(z.object({ type: z.string(), text: z.string().optional() }))]).optional(),
  is_error: z.boolean().nullish(),
});
/**
 * A content block is only required to have a `type` here; text/tool_use/tool_result blocks are then
 * validated one by one with the schemas above, so one bad block is reported without losing the rest,
 * and thinking/image/… blocks pass untouched.
 */
export const ClaudeBlock = z.looseObject({ type: z.string() });
export type ClaudeBlock = z.infer<typeof ClaudeBlock>;

const Usage = z.object({
  input_tokens: z.number(),
  cache_read_input_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
});

/** The context a response was sent with: its input, cache-read and cache-creation tokens (0: a synthetic notice, not a model call). */
export const contextTokensOf = (u: { input_tokens: number; cache_read_input_tokens?: number | null; cache_creation_input_tokens?: number | null }): number =>
  u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);

export const ClaudeAssistant = z.object({
  type: z.literal('assistant'),
  timestamp: z.string().optional(),
  isSidechain: z.boolean().optional(),
  message: z.object({
    id: z.string(),
    /** e.g. "claude-opus-4-6"; "<synthetic>" on Claude Code's own notices. Not the window (windows.ts). */
    model: z.string().optional(),
    content: z.array(ClaudeBlock),
    usage: Usage.optional(),
  }),
});

export const ClaudeUser = z.object({
  type: z.literal('user'),
  timestamp: z.string().optional(),
  isMeta: z.boolean().optional(),
  isCompactSummary: z.boolean().optional(),
  isVisibleInTranscriptOnly: z.boolean().optional(),
  isSidechain: z.boolean().optional(),
  message: z.object({ content: z.union([z.string(), z.array(ClaudeBlock)]) }),
  /** stdout/stderr object for Bash, an "Error: …" string for failures, other shapes per tool. */
  toolUseResult: z.unknown().optional(),
});

export const ClaudeSystem = z.object({
  type: z.literal('system'),
  timestamp: z.string().optional(),
  subtype: z.string().optional(),
  compactMetadata: z.object({ trigger: z.string().optional(), preTokens: z.number().optional(), postTokens: z.number().nonnegative().optional() }).optional(),
});

/** The Bash tool's `toolUseResult` object (other tools have other shapes; they simply fail this). */
export const ClaudeBashResult = z.object({
  stdout: z.string(),
  stderr: z.string().optional(),
  interrupted: z.boolean().optional(),
  returnCodeInterpretation: z.string().optional(),
  backgroundTaskId: z.string().optional(),
});

export const TodoWriteInput = z.object({
  todos: z.array(z.object({ content: z.string(), status: z.string() })),
});

// ---------------------------------------------------------------- Codex rollout

export const CodexEnvelope = z.object({
  type: z.string(),
  timestamp: z.string().optional(),
  payload: z.unknown(),
  /** 0.171 response items: `compaction_output: true` marks the compaction's summary, not the agent's words. */
  metadata: z.object({ compaction_output: z.boolean().optional() }).nullish(),
});

/** 0.171 `event_msg` `item_completed`: the item kinds read here (others pass untouched). */
export const CodexItemCompleted = z.object({
  type: z.literal('item_completed'),
  item: z.looseObject({
    type: z.string(),
    content: z.array(z.object({ type: z.string(), text: z.string().optional() })).optional(),
  }),
});

/** `turn_context` (one per model request): the model it asked. */
export const CodexTurnContext = z.object({ model: z.string().optional() });

export const CodexTokenCount = z.object({
  type: z.literal('token_count'),
  info: z
    .object({
      last_token_usage: z.object({ input_tokens: z.number() }),
      total_token_usage: z.object({ total_tokens: z.number().optional() }).optional(),
      model_context_window: z.number().nullish(),
    })
    .nullable()
    .optional(),
});

export const CodexUserMessage = z.object({ type: z.literal('user_message'), message: z.string() });

const CodexContentItem = z.object({ type: z.string(), text: z.string().optional() });

export const CodexMessage = z.object({
  type: z.literal('message'),
  role: z.string(),
  content: z.array(CodexContentItem),
});

export const CodexFunctionCall = z.object({
  type: z.literal('function_call'),
  name: z.string(),
  arguments: z.string(),
  call_id: z.string(),
});

export const CodexCustomToolCall = z.object({
  type: z.literal('custom_tool_call'),
  name: z.string(),
  input: z.string(),
  call_id: z.string(),
});

export const CodexToolOutput = z.object({
  type: z.enum(['function_call_output', 'custom_tool_call_output']),
  call_id: z.string(),
  // a string (plain, or JSON {output, metadata}); newer versions may send content items
  output: z.union([z.string(), z.array(CodexContentItem)]),
});

/** Codex 0.58 shell output, JSON-encoded inside `output`. */
export const CodexShellOutputJson = z.object({
  output: z.string(),
  metadata: z.object({ exit_code: z.number().optional() }).optional(),
});

export const UpdatePlanArgs = z.object({
  plan: z.array(z.object({ step: z.string(), status: z.string() })),
});

export const CodexCompacted = z.object({ message: z.string().optional() });

// ---------------------------------------------------------------- shared normalisation

export type StepStatus = 'pending' | 'in_progress' | 'completed';

/** TodoWrite and update_plan both use pending/in_progress/completed; tolerate spelling variants. */
export function normalizeStatus(status: string): StepStatus {
  const s = status.toLowerCase().replace(/[\s-]/g, '_');
  if (s === 'completed' || s === 'done' || s === 'complete') return 'completed';
  if (s === 'in_progress' || s === 'inprogress' || s === 'active') return 'in_progress';
  return 'pending';
}

/** `at` of a record: its timestamp, else the previous item's (records without one, e.g. snapshots). */
export function timeOf(timestamp: string | undefined, previous: number): number {
  if (timestamp === undefined) return previous;
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? previous : t;
}

/** Just the discriminator of a Codex payload, to route it before the detailed schema. */
export const PayloadType = z.object({ type: z.string() });
