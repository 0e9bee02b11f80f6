/**
 * The facts a continuing agent needs that the engine's short tool tail forgets: which files it changed,
 * the latest failed tool calls, and the last shell command with its outcome. Kept in the trail
 * (engine/types.ts `Trail`) by the step function's tool events, read by the watcher packet
 * (watcherPacket.ts). Pure and bounded, like the rest of the trail.
 */
import type { Trail, TrailToolCall } from '../engine/types';
import { clip } from '../text/clip';
import { withTrail } from '../engine/state';
import { isEditTool, isShellTool } from '../signals/tools';

const MAX_EDITED = 80;
const MAX_ERRORS = 5;
const OUTPUT_CHARS = 4000;

/** File paths named by a patch (`*** Update File: x`, `*** Add File: x`, `*** Move to: y`). */
export function patchFiles(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^\*\*\* (?:Update File|Add File|Delete File|Move to): (.+?)\s*$/gm)) out.push(m[1]!);
  return out;
}

/** The files a tool call changes (empty for a tool that does not edit). */
export function editedFilesOf(name: string, input: unknown): string[] {
  const strings: string[] = [];
  if (typeof input === 'string') strings.push(input);
  else if (Array.isArray(input)) for (const x of input) if (typeof x === 'string') strings.push(x);
  const o = input && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : undefined;
  if (o) {
    for (const v of Object.values(o)) {
      if (typeof v === 'string') strings.push(v);
      else if (Array.isArray(v)) for (const x of v) if (typeof x === 'string') strings.push(x);
    }
  }
  // A patch can arrive through any tool (Codex 0.58 runs `apply_patch` as a shell argv).
  // (A loop, not filter and flatMap: this runs at every tool call.)
  const fromPatch: string[] = [];
  for (const s of strings) if (s.includes('*** Begin Patch')) for (const file of patchFiles(s)) fromPatch.push(file);
  if (fromPatch.length) return fromPatch;
  if (!isEditTool(name) || !o) return [];
  for (const k of ['file_path', 'filePath', 'path', 'notebook_path', 'target_file']) if (typeof o[k] === 'string' && o[k]) return [o[k] as string];
  return [];
}

function pushUnique(list: readonly string[], items: string[], max: number): string[] {
  // Most recently edited last: a file edited again moves to the end. Nothing to move when the items are
  // already the last ones (the same file edited again and again: the common case, so no copy).
  if (items.every((f, k) => list[list.length - items.length + k] === f)) return list as string[];
  const out = list.filter((f) => !items.includes(f)).concat(items);
  return out.length > max ? out.slice(out.length - max) : out;
}

export function noteToolCall(trail: Trail, call: { id: string; name: string; input: unknown }, described: string): Trail {
  const files = editedFilesOf(call.name, call.input);
  let next = trail;
  if (files.length) next = withTrail(next, { edited: pushUnique(trail.edited ?? [], files, MAX_EDITED) });
  if (isShellTool(call.name)) next = withTrail(next, { lastCommand: { id: call.id, name: call.name, input: clip(described, OUTPUT_CHARS) } });
  return next;
}

export function noteToolResult(
  trail: Trail,
  result: { id: string; output: string; isError: boolean; exitCode?: number },
  call: TrailToolCall | undefined,
): Trail {
  let next = trail;
  const failed = result.isError || (result.exitCode !== undefined && result.exitCode !== 0);
  if (failed && call) {
    const errors = (trail.errors ?? []).concat({
      id: call.id,
      name: call.name,
      input: clip(call.input, 600),
      output: clip(result.output, OUTPUT_CHARS),
      isError: true,
    });
    next = withTrail(next, { errors: errors.slice(-MAX_ERRORS) });
  }
  if (!failed && call && isShellTool(call.name) && /\bgit\b[^\n]*\bcommit\b/.test(call.input)) next = withCommitShas(next, result.output);
  if (trail.lastCommand?.id === result.id) {
    // Named keys, not a spread (slow on Node 20, see withState): the call, its outcome, the exit code if known.
    const { id, name, input, exitCode } = trail.lastCommand;
    const lastCommand: NonNullable<Trail['lastCommand']> = { id, name, input, output: clip(result.output, OUTPUT_CHARS), isError: failed };
    if (result.exitCode !== undefined) lastCommand.exitCode = result.exitCode;
    else if (exitCode !== undefined) lastCommand.exitCode = exitCode;
    next = withTrail(next, { lastCommand });
  }
  return next;
}

/**
 * A quiet commit (`git commit -q … && git log --oneline -1`) gives the commit boundary no sha (its detail
 * is `? subject`); the `git log --oneline` line after it does. Both git's `[branch sha] subject` and
 * `sha subject` lines are taken, once per sha.
 */
function withCommitShas(trail: Trail, output: string): Trail {
  const found: string[] = [];
  for (const m of output.matchAll(/^(?:\[[^\]\n]*?\b([0-9a-f]{7,40})\]|([0-9a-f]{7,40})) (.+)$/gm)) {
    const sha = (m[1] ?? m[2])!.slice(0, 7);
    if (!trail.commits.some((c) => c.startsWith(sha)) && !found.some((c) => c.startsWith(sha))) found.push(clip(`${sha} ${m[3]!.trim()}`, 120));
  }
  if (!found.length) return trail;
  const commits = trail.commits.concat(found);
  return withTrail(trail, { commits: commits.slice(-20) });
}
