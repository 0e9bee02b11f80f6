/**
 * Hook input (the JSON object Claude Code or Codex writes to the hook command's stdin). Both agents
 * send the same shape (Codex copied Claude Code's hooks), as recorded from the real CLIs: every event
 * sends `session_id`, `transcript_path`, `cwd` and `hook_event_name`; PreCompact adds `trigger`
 * (manual | auto) and, from Claude Code, `custom_instructions`; PostCompact adds `trigger` and, from
 * Claude Code, `compact_summary`; SessionStart adds `source` (startup | resume | clear | compact);
 * UserPromptSubmit adds `prompt`. Unknown extra fields are allowed (a newer Claude Code may send
 * more, e.g. `permission_mode`), and the event-specific fields are optional so a variation in them
 * never makes rawr drop a hook. Pure: no I/O.
 */
import * as z from 'zod';
import { isAbsolutePath, type HookEvent } from './events';

export { HOOK_EVENTS, isHookEvent, type HookEvent } from './events';

const Common = {
  session_id: z.string().min(1).max(1000),
  transcript_path: z.string().nullish(),
  cwd: z.string().min(1),
  hook_event_name: z.string().optional(),
};

export const PreCompactInput = z.looseObject({
  ...Common,
  trigger: z.string().nullish(),
  custom_instructions: z.string().nullish(),
});
export const PostCompactInput = z.looseObject({
  ...Common,
  trigger: z.string().nullish(),
  compact_summary: z.string().nullish(),
});
export const UserPromptSubmitInput = z.looseObject({ ...Common, prompt: z.string().nullish() });
export const SessionStartInput = z.looseObject({ ...Common, source: z.string().nullish() });
/**
 * PostToolUse also sends `tool_input`, `tool_response`, `tool_use_id`: the steering hook reads a Bash
 * call's command and output to see a boundary in the tool's own result (claude/steer.ts steerAtTool);
 * their shapes are checked there, where they are used.
 */
export const PostToolUseInput = z.looseObject({
  ...Common,
  tool_name: z.string().nullish(),
  tool_use_id: z.string().max(200).nullish(),
  tool_input: z.unknown().optional(),
  tool_response: z.unknown().optional(),
});

export type PreCompactInput = z.infer<typeof PreCompactInput>;
export type PostCompactInput = z.infer<typeof PostCompactInput>;
export type UserPromptSubmitInput = z.infer<typeof UserPromptSubmitInput>;
export type SessionStartInput = z.infer<typeof SessionStartInput>;
export type PostToolUseInput = z.infer<typeof PostToolUseInput>;
export type HookInput = PreCompactInput | PostCompactInput | UserPromptSubmitInput | SessionStartInput | PostToolUseInput;

const SCHEMAS: Record<HookEvent, z.ZodType<HookInput>> = {
  PreCompact: PreCompactInput,
  PostCompact: PostCompactInput,
  UserPromptSubmit: UserPromptSubmitInput,
  SessionStart: SessionStartInput,
  PostToolUse: PostToolUseInput,
};

export type ParsedInput = { ok: true; input: HookInput } | { ok: false; reason: string };

/**
 * Parses stdin for `event`. Never throws. Rejects: empty input, non-JSON, a non-object, missing or
 * mistyped common fields, a relative `cwd`, and a `hook_event_name` naming another event (the hook
 * was wired to the wrong command).
 */
export function parseHookInput(event: HookEvent, text: string): ParsedInput {
  if (text.trim() === '') return { ok: false, reason: 'no hook input on stdin' };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: `hook input is not JSON (${(err as Error).message})` };
  }
  const r = SCHEMAS[event].safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue && issue.path.length ? issue.path.join('.') : '(input)';
    return { ok: false, reason: `hook input does not match the ${event} contract: ${where}: ${issue ? issue.message : 'invalid'}` };
  }
  const input = r.data;
  if (input.hook_event_name !== undefined && input.hook_event_name !== event) {
    return { ok: false, reason: `hook input is for ${input.hook_event_name}, but this command handles ${event}` };
  }
  if (!isAbsolutePath(input.cwd)) return { ok: false, reason: `hook input cwd is not an absolute path: ${JSON.stringify(input.cwd.slice(0, 200))}` };
  return { ok: true, input };
}
