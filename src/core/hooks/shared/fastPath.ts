/**
 * The hooks' fast exit (issue 20, item 4): most hook runs have nothing to do — PostToolUse runs after
 * every tool call and only prints when a heads-up or a repair is pending, UserPromptSubmit only when a
 * handoff, a heads-up or a repair is pending, SessionStart only after a compaction. `nothingToDo` tells
 * that from the session's state files alone (a directory listing and a few stats), before the engine,
 * the prompt files, the transcript importers or zod are loaded (src/cli/hooks/main.ts).
 *
 * It answers true only when the full hook run (run.ts) would print nothing and write nothing: the input
 * passes the same checks as input.ts's zod contract (checked by hand here: loading zod alone costs
 * ~100 ms on a loaded machine), the project folder exists, and no state file says something is pending.
 * Anything else — a malformed payload, a symlinked state folder, an unreadable file, a golden.json it
 * cannot read — answers false, and the full run decides (and reports) exactly as before. Light imports
 * only: node built-ins and store.ts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isAbsolutePath, type HookEvent } from './events';
import { isClaimed, latestSnapshotFile, sessionDir, type AgentId } from './store';
import { safeReadBytesSync } from '../../io/safeRead';

/** The fields the fast exit needs, when the payload is one input.ts's contract accepts for `event`; else null. */
export function quickInput(event: HookEvent, text: string): { session_id: string; cwd: string; source?: string | null; mayCommit?: boolean } | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const o = raw as Record<string, unknown>;
  const optString = (v: unknown) => v === undefined || v === null || typeof v === 'string';
  const { session_id, cwd } = o;
  if (typeof session_id !== 'string' || session_id.length < 1 || session_id.length > 1000) return null;
  if (typeof cwd !== 'string' || cwd.length < 1 || !isAbsolutePath(cwd)) return null;
  if (!optString(o.transcript_path)) return null;
  if (o.hook_event_name !== undefined && o.hook_event_name !== event) return null;
  const extra = {
    PreCompact: ['trigger', 'custom_instructions'],
    PostCompact: ['trigger', 'compact_summary'],
    UserPromptSubmit: ['prompt'],
    SessionStart: ['source'],
    PostToolUse: ['tool_name'],
  }[event];
  if (!extra.every((k) => optString(o[k]))) return null;
  // A Bash call whose command names a commit may be the boundary steering acts at (claude/steer.ts steerAtTool).
  const input = o.tool_input as { command?: unknown } | null | undefined;
  const mayCommit = event === 'PostToolUse' && o.tool_name === 'Bash' && typeof input?.command === 'string' && /\bcommit\b/.test(input.command);
  return { session_id, cwd, ...(event === 'SessionStart' ? { source: o.source as string | null | undefined } : {}), ...(mayCommit ? { mayCommit } : {}) };
}

const isDir = (p: string) => {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** Claude Code: `$CLAUDE_PROJECT_DIR` when it is an existing absolute folder, else the input's `cwd`. */
export function claudeProjectRoot(input: { cwd: string }, env: Record<string, string | undefined>): string | undefined {
  const fromEnv = env.CLAUDE_PROJECT_DIR;
  if (fromEnv && path.isAbsolute(fromEnv) && isDir(fromEnv)) return path.resolve(fromEnv);
  return isDir(input.cwd) ? path.resolve(input.cwd) : undefined;
}

/** Codex: the input's `cwd` when it is an existing folder. */
export function codexProjectRoot(input: { cwd: string }): string | undefined {
  return isDir(input.cwd) ? path.resolve(input.cwd) : undefined;
}

/** Whether a heads-up may be pending (claude/golden.ts claimHeadsUp): true unless golden.json is absent or its heads-up was delivered. */
function headsUpMayBePending(dir: string): boolean {
  const file = path.join(dir, 'golden.json');
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ENOENT';
  }
  if (!st.isFile() || st.size > 64 * 1024) return true;
  try {
    // through safeRead (regular file, non-blocking, capped on the descriptor): a swap after the lstat cannot hang the hook
    const n = (JSON.parse(safeReadBytesSync(file, { maxBytes: 64 * 1024 }).toString('utf8')) as { askedAtCalls?: unknown }).askedAtCalls;
    return !(typeof n === 'number' && Number.isInteger(n) && n >= 0 && fs.existsSync(path.join(dir, `headsup-${n}.delivered`)));
  } catch {
    return true;
  }
}

/** The events the fast exit may answer; PreCompact and PostCompact always run in full. */
export function mayExitFast(event: HookEvent): boolean {
  return event === 'PostToolUse' || event === 'UserPromptSubmit' || event === 'SessionStart';
}

/**
 * True when the hook run for `event` would have nothing to do (see the file comment); false when the
 * full run must decide.
 */
export function nothingToDo(agent: AgentId, event: HookEvent, stdinText: string, env: Record<string, string | undefined>): boolean {
  if (!mayExitFast(event)) return false;
  const input = quickInput(event, stdinText);
  if (!input) return false;
  try {
    const root = agent === 'claude' ? claudeProjectRoot(input, env) : codexProjectRoot(input);
    if (root === undefined) return false;
    if (event === 'SessionStart') return input.source !== 'compact';
    if (agent === 'claude' && input.mayCommit && fs.existsSync(path.join(root, '.rawr', 'claude', 'steer.json'))) return false;
    const dir = sessionDir(root, agent, input.session_id, false);
    if (dir === null) return true;
    const latest = latestSnapshotFile(dir);
    // UserPromptSubmit: an unclaimed snapshot may be injected (or its compaction confirmed from the transcript).
    if (event === 'UserPromptSubmit' && latest && !isClaimed(latest.file)) return false;
    // A repair (repairHook.ts claimRepair) not given to the model yet.
    if (latest && fs.existsSync(`${latest.file}.repair`) && !fs.existsSync(`${latest.file}.repair-injected`)) return false;
    return !headsUpMayBePending(dir);
  } catch {
    return false;
  }
}
