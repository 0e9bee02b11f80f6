/**
 * The PreCompact snapshot: what the agent needs to find its way back after Claude Code or Codex
 * compacts.
 *
 * Built from (each part optional, a missing source just leaves it out):
 * - the transcript (`transcript_path`): the last person prompts, the latest TodoWrite / update_plan
 *   list, the files touched by Read/Edit/MultiEdit/Write/NotebookEdit or apply_patch (the in-scope
 *   files), and its size at the snapshot (where to look for the compaction record that confirms it);
 * - git (`git` subprocesses with a timeout, no index lock): branch, HEAD, dirty + changed paths;
 * - the plan, by this convention, first match wins:
 *     1. `<root>/.rawr/plan.json` = `{"planFile": "docs/PLAN.md", "objective": "…"}` (both optional);
 *     2. the most recent plan-looking path in the transcript: a file a tool touched, or a path named in
 *        the latest TodoWrite list (Claude Code's plan mode writes `~/.claude/plans/<slug>.md`);
 *     3. the first plan-looking path named in `<root>/CLAUDE.md` (Codex: `<root>/AGENTS.md`);
 *     4. `<root>/PLAN.md`, `<root>/plan.md`.
 *   "Plan-looking" = a `.md` path whose file name has the word "plan" (PLAN.md, IMPLEMENTATION_PLAN.md,
 *   migrationPlan.md; not explanation.md) or that sits in a `plans/` folder.
 *   The objective, unless plan.json gives one: an `Objective:` line (or the line under an
 *   `## Objective` heading) of the plan file, else its first `# ` heading. The plan file is read from
 *   disk, else from the text the transcript's last Write gave it.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import type { TranscriptFacts } from './facts';
import { SafeReadError, safeReadText, safeReadTextIfExists } from '../../io/safeRead';
import { regularFileSize } from './readFrom';
import { clip as clipText } from '../../text/clip';

export const SNAPSHOT_VERSION = 1;
/** The most of the agent's continuation packet a snapshot keeps. */
export const MAX_PACKET_CHARS = 16_000;
export const LIMITS = { userRequests: 5, requestChars: 2000, files: 50, todos: 50, gitChanged: 50, objectiveChars: 300 };
/** Transcripts larger than this are read from their tail (a line cut in half is skipped). */
const MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024;
const MAX_PLAN_BYTES = 256 * 1024;

const Status = z.enum(['pending', 'in_progress', 'completed']);
export const Snapshot = z.object({
  version: z.literal(SNAPSHOT_VERSION),
  /** Which agent's hook wrote it; absent in snapshots written before Codex was supported (Claude Code). */
  agent: z.enum(['claude', 'codex']).optional(),
  sessionId: z.string(),
  takenAt: z.string(),
  trigger: z.string().optional(),
  customInstructions: z.string().optional(),
  cwd: z.string(),
  plan: z.object({ file: z.string().optional(), objective: z.string().optional(), source: z.string() }).optional(),
  git: z
    .object({
      branch: z.string().optional(),
      head: z.string().optional(),
      dirty: z.boolean(),
      changed: z.array(z.string()),
      changedTotal: z.number().int().nonnegative(),
    })
    .optional(),
  transcript: z.object({
    path: z.string().optional(),
    /** Why the transcript gave nothing (missing, unreadable, no path); absent when it was read. */
    error: z.string().optional(),
    lines: z.number().int().nonnegative().optional(),
    problems: z.number().int().nonnegative().optional(),
    /** Its size in bytes at the snapshot: a compaction record after this offset confirms the compaction. */
    size: z.number().int().nonnegative().optional(),
  }),
  userRequests: z.array(z.string()),
  todos: z.array(z.object({ text: z.string(), status: Status })).nullable(),
  files: z.array(z.string()),
  filesTotal: z.number().int().nonnegative(),
  /** The continuation packet the agent wrote after rawr's heads-up (claude/golden.ts): model-written, quoted when handed back. */
  packet: z
    .object({
      file: z.string().max(300),
      text: z.string().max(16_000),
      /** Claude Code carries it over by itself (claude/packetCarried.ts): the handoff points at it instead of quoting it. */
      carried: z.boolean().optional(),
    })
    .optional(),
});
export type Snapshot = z.infer<typeof Snapshot>;

export interface BuildInput {
  agent: 'claude' | 'codex';
  /** The agent's transcript format → facts (facts.ts). */
  readFacts: (text: string) => TranscriptFacts;
  root: string;
  sessionId: string;
  transcriptPath?: string | null;
  trigger?: string | null;
  customInstructions?: string | null;
  now: Date;
  gitTimeoutMs?: number;
}

export async function buildSnapshot(b: BuildInput): Promise<{ snapshot: Snapshot; warnings: string[] }> {
  const warnings: string[] = [];
  let facts: TranscriptFacts | null = null;
  const transcript: Snapshot['transcript'] = b.transcriptPath ? { path: b.transcriptPath } : { error: 'no transcript_path in the hook input' };
  if (b.transcriptPath) {
    try {
      const file = path.resolve(b.root, b.transcriptPath);
      // The size first: the agent waits for PreCompact before it compacts, so the compaction record
      // that confirms this snapshot is written after this offset (confirm.ts).
      const size = await regularFileSize(file);
      facts = b.readFacts(await safeReadText(file, { maxBytes: MAX_TRANSCRIPT_BYTES, tail: true }));
      transcript.lines = facts.lines;
      transcript.problems = facts.problems;
      transcript.size = size;
    } catch (err) {
      const notFound = (err instanceof SafeReadError && err.problem === 'not_found') || (err as NodeJS.ErrnoException).code === 'ENOENT';
      transcript.error = notFound ? 'transcript not found' : `transcript unreadable: ${(err as Error).message}`;
      warnings.push(`${transcript.error} (${b.transcriptPath}); snapshot written without transcript data`);
    }
  }
  const rel = (p: string) => relativeIfInside(b.root, p);
  const files = facts ? facts.files.map(rel) : [];
  const plan = await findPlan(b.root, facts, warnings);
  const git = gitState(b.root, b.gitTimeoutMs ?? 3000);
  const snapshot: Snapshot = {
    version: SNAPSHOT_VERSION,
    agent: b.agent,
    sessionId: b.sessionId,
    takenAt: b.now.toISOString(),
    ...(b.trigger ? { trigger: b.trigger } : {}),
    ...(b.customInstructions ? { customInstructions: b.customInstructions.slice(0, LIMITS.requestChars) } : {}),
    cwd: b.root,
    ...(plan ? { plan } : {}),
    ...(git ? { git } : {}),
    transcript,
    userRequests: facts ? facts.userRequests.slice(-LIMITS.userRequests).map((r) => clip(r.text, LIMITS.requestChars)) : [],
    todos: facts?.todos ? facts.todos.slice(0, LIMITS.todos) : null,
    files: files.slice(-LIMITS.files),
    filesTotal: files.length,
  };
  return { snapshot, warnings };
}

/** Parses a snapshot file's text; an error message (not an exception) when it is not one. */
export function parseSnapshot(text: string): { ok: true; snapshot: Snapshot } | { ok: false; reason: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: `not JSON (${(err as Error).message})` };
  }
  const r = Snapshot.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    return { ok: false, reason: `not a rawr snapshot: ${issue && issue.path.length ? issue.path.join('.') : '(file)'}: ${issue?.message ?? 'invalid'}` };
  }
  return { ok: true, snapshot: r.data };
}

// ---------------------------------------------------------------- parts

function clip(s: string, n: number): string {
  return clipText(s.trim(), n, { total: true });
}

export function relativeIfInside(root: string, p: string): string {
  const abs = path.resolve(root, p);
  const r = path.relative(root, abs);
  return r && !r.startsWith('..') && !path.isAbsolute(r) ? r.split(path.sep).join('/') : p;
}

/** A small text file (the tail of a bigger one); undefined when it is missing, not a regular file or unreadable. */
async function readSmall(file: string): Promise<string | undefined> {
  try {
    return await safeReadTextIfExists(file, { maxBytes: MAX_PLAN_BYTES, tail: true });
  } catch {
    return undefined;
  }
}

const PLAN_PATH_RE = /(?:[~A-Za-z0-9_./\\-]*[\\/])?[A-Za-z0-9_.-]+\.md\b/g;
export function isPlanPath(p: string): boolean {
  const norm = p.replace(/\\/g, '/');
  if (!/\.md$/i.test(norm)) return false;
  const stem = norm.slice(norm.lastIndexOf('/') + 1).replace(/\.md$/i, '');
  // words of the name (separators and camelCase): PLAN, IMPLEMENTATION_PLAN, migrationPlan, plan-v2; not "explanation"
  const words = stem
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.toLowerCase());
  return words.includes('plan') || words.includes('plans') || /(^|\/)plans\//i.test(norm);
}
const planPathsIn = (text: string) => (text.match(PLAN_PATH_RE) ?? []).filter(isPlanPath);

const PlanJson = z.object({ planFile: z.string().min(1).optional(), objective: z.string().min(1).optional() });

type Plan = NonNullable<Snapshot['plan']>;
async function findPlan(root: string, facts: TranscriptFacts | null, warnings: string[]): Promise<Plan | undefined> {
  let plan: Plan | undefined;
  const planJsonPath = path.join(root, '.rawr', 'plan.json');
  const planJsonText = await readSmall(planJsonPath);
  let objective: string | undefined;
  if (planJsonText !== undefined) {
    let parsed: z.infer<typeof PlanJson> | undefined;
    try {
      const r = PlanJson.safeParse(JSON.parse(planJsonText));
      if (r.success) parsed = r.data;
      else warnings.push(`.rawr/plan.json ignored: ${r.error.issues[0]?.path.join('.') || '(file)'}: ${r.error.issues[0]?.message}`);
    } catch (err) {
      warnings.push(`.rawr/plan.json ignored: not JSON (${(err as Error).message})`);
    }
    if (parsed?.planFile) plan = { file: parsed.planFile, source: '.rawr/plan.json' };
    objective = parsed?.objective;
  }
  if (!plan && facts) {
    // The most recent of: a plan-looking file touched by a tool, a plan-looking path in the latest todos.
    const touched = [...facts.fileTouches].reverse().find((t) => isPlanPath(t.path));
    const inTodos = facts.todos ? facts.todos.flatMap((s) => planPathsIn(s.text)).pop() : undefined;
    if (touched) plan = { file: touched.path, source: 'transcript (file touched by a tool)' };
    else if (inTodos) plan = { file: inTodos, source: 'transcript (latest todo list)' };
  }
  if (!plan) {
    for (const name of ['CLAUDE.md', 'AGENTS.md']) {
      const text = await readSmall(path.join(root, name));
      const named = text !== undefined ? planPathsIn(text)[0] : undefined;
      if (named) {
        plan = { file: named, source: name };
        break;
      }
    }
  }
  if (!plan) {
    for (const name of ['PLAN.md', 'plan.md']) {
      if (fs.existsSync(path.join(root, name))) {
        plan = { file: name, source: `${name} in the project root` };
        break;
      }
    }
  }
  if (!objective && plan?.file) {
    const abs = path.resolve(root, plan.file.replace(/^~(?=[\\/])/, process.env.HOME ?? '~'));
    const text = (await readSmall(abs)) ?? [...(facts?.fileTouches ?? [])].reverse().find((t) => t.path === plan!.file && t.written !== undefined)?.written;
    if (text !== undefined) objective = objectiveOf(text);
  }
  if (!plan && !objective) return undefined;
  const out: Plan = plan ?? { source: '.rawr/plan.json' };
  if (out.file) out.file = relativeIfInside(root, out.file);
  if (objective) out.objective = clip(objective, LIMITS.objectiveChars);
  return out;
}

/** `Objective: …` (bold and list markers allowed), the line under `## Objective`, else the first `# ` heading. */
export function objectiveOf(text: string): string | undefined {
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!.trim();
    const inline = /^(?:[-*]\s*)?\**objective\**\s*:\**\s*(.+)$/i.exec(l);
    if (inline && inline[1]!.replace(/\*+/g, '').trim()) return inline[1]!.replace(/\*+/g, '').trim();
    if (/^#{1,6}\s*objective\s*$/i.test(l)) {
      const next = lines.slice(i + 1).find((x) => x.trim() !== '');
      if (next && !next.trim().startsWith('#')) return next.trim();
    }
  }
  const heading = lines.find((l) => /^#\s+\S/.test(l));
  return heading ? heading.replace(/^#\s+/, '').trim() : undefined;
}

/** Branch / HEAD / dirty via git, each call bounded by `timeoutMs`. Undefined without git or a repo. */
export function gitState(cwd: string, timeoutMs: number): Snapshot['git'] | undefined {
  const git = (...args: string[]) => {
    // The repository's config may name a program for git to run (core.fsmonitor): a hook runs without
    // asking, so none of it runs (status runs no hooks, diff drivers or textconv without being asked).
    const r = spawnSync('git', ['-c', 'core.fsmonitor=false', ...args], {
      cwd,
      encoding: 'utf8',
      timeout: timeoutMs,
      maxBuffer: 16 * 1024 * 1024,
      // status must not take the index lock: the agent may be running git at the same moment
      env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return r.error || r.status !== 0 ? undefined : r.stdout;
  };
  const status = git('status', '--porcelain=v1', '--untracked-files=normal');
  if (status === undefined) return undefined; // no git, not a repo, or timed out
  const changed = status.split('\n').filter((l) => l.trim() !== '');
  const branch = git('symbolic-ref', '--short', '-q', 'HEAD')?.trim();
  const head = git('rev-parse', '--verify', '-q', 'HEAD')?.trim();
  return {
    ...(branch ? { branch } : {}),
    ...(head ? { head } : {}),
    dirty: changed.length > 0,
    changed: changed.slice(0, LIMITS.gitChanged),
    changedTotal: changed.length,
  };
}
