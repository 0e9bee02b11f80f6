/**
 * One Claude Code hook run: stdin text in, what to print out. The exit code is always 0: a problem
 * (bad input, a corrupt snapshot, a full disk) is one line on stderr and nothing on stdout, so the
 * hook never blocks the person's prompt or the compaction (exit 2 would block; it is never used).
 *
 * - PreCompact: writes `.rawr/claude/<session>/snapshot-<time>.json`; prints nothing.
 * - UserPromptSubmit, and SessionStart with source `compact`: if the session's latest snapshot is newer
 *   than its last-injection marker and this run wins the claim on it, prints
 *   `{"hookSpecificOutput":{"hookEventName":…,"additionalContext":<handoff>}}`; otherwise nothing.
 *   SessionStart with another source prints nothing (a pending snapshot waits for the next prompt).
 *
 * The project root is `$CLAUDE_PROJECT_DIR` when Claude Code sets it (an existing absolute folder),
 * else the input's `cwd`: the agent may have `cd`'d into a subfolder, and the snapshot written at
 * PreCompact must be found by the next prompt.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadPromptSet, PROMPT_FILES, type PromptReader } from '../../prompts/promptSet';
import { dirReader, shippedPromptsDir } from '../../prompts/fs';
import { parseHookInput, type HookEvent, type HookInput } from './input';
import { buildSnapshot, parseSnapshot } from './snapshot';
import { injectionText } from './inject';
import { claimSnapshot, latestSnapshotFile, readMarker, sessionDir, writeMarker, writeSnapshotFile } from './store';

/** Workspace prompt overrides, as in the VS Code extension (src/host/settings.ts WORKSPACE_PROMPTS_DIR). */
const WORKSPACE_PROMPTS_DIR = path.join('.rawr', 'prompts');

export interface HookRunOptions {
  env: Record<string, string | undefined>;
  now?: () => Date;
  gitTimeoutMs?: number;
  /** Prompt readers to use instead of `<root>/.rawr/prompts` + the shipped prompts (tests). */
  promptReaders?: PromptReader[];
}

export interface HookRunResult {
  /** What to print on stdout: '' or one JSON object + newline. */
  stdout: string;
  /** Lines for stderr (each a single line). */
  stderr: string[];
  /** What happened, for logs and tests. */
  outcome: 'snapshot' | 'injected' | 'nothing' | 'bad_input' | 'error';
  snapshotFile?: string;
}

const oneLine = (s: string) => s.replace(/\s*[\r\n]+\s*/g, ' ').trim();

export function runHook(event: HookEvent, stdinText: string, opts: HookRunOptions): HookRunResult {
  const tag = `rawr hooks claude ${event}`;
  const parsed = parseHookInput(event, stdinText);
  if (!parsed.ok) return { stdout: '', stderr: [`${tag}: ${oneLine(parsed.reason)}; nothing done`], outcome: 'bad_input' };
  const now = opts.now ?? (() => new Date());
  try {
    const root = projectRoot(parsed.input, opts.env);
    if (root === undefined) return { stdout: '', stderr: [`${tag}: cwd ${parsed.input.cwd} is not an existing folder; nothing done`], outcome: 'bad_input' };
    if (event === 'PreCompact') return preCompact(tag, parsed.input, root, now(), opts);
    if (event === 'SessionStart' && (parsed.input as { source?: string | null }).source !== 'compact') return { stdout: '', stderr: [], outcome: 'nothing' };
    return maybeInject(tag, event, parsed.input, root, now, opts);
  } catch (err) {
    return { stdout: '', stderr: [`${tag}: ${oneLine((err as Error).message)}; nothing injected`], outcome: 'error' };
  }
}

function projectRoot(input: HookInput, env: HookRunOptions['env']): string | undefined {
  const isDir = (p: string) => { try { return fs.statSync(p).isDirectory(); } catch { return false; } };
  const fromEnv = env.CLAUDE_PROJECT_DIR;
  if (fromEnv && path.isAbsolute(fromEnv) && isDir(fromEnv)) return path.resolve(fromEnv);
  return isDir(input.cwd) ? path.resolve(input.cwd) : undefined;
}

function preCompact(tag: string, input: HookInput, root: string, now: Date, opts: HookRunOptions): HookRunResult {
  const i = input as { trigger?: string | null; custom_instructions?: string | null };
  // The folder (and its .gitignore) first, so git status in the snapshot does not list rawr's own state.
  const dir = sessionDir(root, input.session_id, true);
  const { snapshot, warnings } = buildSnapshot({
    root,
    sessionId: input.session_id,
    transcriptPath: input.transcript_path,
    trigger: i.trigger,
    customInstructions: i.custom_instructions,
    now,
    ...(opts.gitTimeoutMs !== undefined ? { gitTimeoutMs: opts.gitTimeoutMs } : {}),
  });
  const file = writeSnapshotFile(dir, now, snapshot);
  return { stdout: '', stderr: warnings.map((w) => `${tag}: ${oneLine(w)}`), outcome: 'snapshot', snapshotFile: file };
}

function maybeInject(tag: string, event: HookEvent, input: HookInput, root: string, now: () => Date, opts: HookRunOptions): HookRunResult {
  const nothing: HookRunResult = { stdout: '', stderr: [], outcome: 'nothing' };
  const dir = sessionDir(root, input.session_id, false);
  const latest = latestSnapshotFile(dir);
  if (!latest) return nothing;
  const marker = readMarker(dir);
  if (marker && Date.parse(marker.snapshotTime) >= latest.time) return nothing;
  const rel = path.relative(root, latest.file).split(path.sep).join('/');
  const markIt = () => writeMarker(dir, { snapshot: path.basename(latest.file), snapshotTime: new Date(latest.time).toISOString(), injectedAt: now().toISOString(), event });

  const parsed = parseSnapshot(fs.readFileSync(latest.file, 'utf8'));
  const problem = !parsed.ok ? parsed.reason : parsed.snapshot.sessionId !== input.session_id ? 'it belongs to another session' : undefined;
  if (problem !== undefined || !parsed.ok) {
    // Consumed like an injected one, so the problem is reported once, not on every prompt.
    if (claimSnapshot(latest.file, event, now())) {
      markIt();
      return { stdout: '', stderr: [`${tag}: snapshot ${rel} is unusable (${oneLine(problem ?? 'invalid')}); nothing injected`], outcome: 'error' };
    }
    return nothing;
  }
  const readers = opts.promptReaders ?? [dirReader(path.join(root, WORKSPACE_PROMPTS_DIR)), dirReader(shippedPromptsDir())];
  const prompts = loadPromptSet(readers);
  const text = injectionText(prompts.prompts, parsed.snapshot, rel);
  // Claimed last: only the run that creates the claim prints, so the injection happens exactly once.
  if (!claimSnapshot(latest.file, event, now())) return nothing;
  markIt();
  const stderr = prompts.problems.filter((p) => p.severity === 'error' && p.file.endsWith(PROMPT_FILES.handoff)).map((p) => `${tag}: ${p.file}:${p.line}:${p.column}: ${oneLine(p.message)}`);
  const out = { hookSpecificOutput: { hookEventName: event, additionalContext: text } };
  return { stdout: `${JSON.stringify(out)}\n`, stderr, outcome: 'injected', snapshotFile: latest.file };
}
