/**
 * Finding the session an external agent is writing for a workspace folder, and reading the follow's
 * inputs safely (vscode-free, unit-tested):
 * - Claude Code: `<CLAUDE_CONFIG_DIR or ~/.claude>/projects/<encoded folder>/<session>.jsonl`, where the
 *   folder path is encoded by replacing every character outside [A-Za-z0-9] with `-`
 *   (`/home/user/repo` → `-home-user-repo`); Claude Code cuts names over 200 characters and appends a
 *   hash, so those are matched by their first 200 characters;
 * - Codex: `<CODEX_HOME or ~/.codex>/sessions/YYYY/MM/DD/rollout-*.jsonl` whose first record
 *   (`session_meta`) has `payload.cwd` equal to the folder (only the newest few days are looked at,
 *   and only each file's first line, bounded);
 * - the hooks' store (`<folder>/.rawr/claude|codex/<session>/`): what PreCompact snapshotted, whether the
 *   compaction was confirmed and what was injected, from the file names.
 * Every file read here is a regular file read with a size bound, asynchronously.
 */
import { open, readdir, stat } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import * as z from 'zod';
import { jsonLinesTail } from '../../core/hooks/shared/readFrom';
import { SAFE_READ_FLAGS } from '../../core/io/safeRead';
import { sessionDirName } from '../../core/hooks/shared/store';
import { codexHome as codexHomeOf } from '../../core/hooks/codex/home';

export type AgentKind = 'claude' | 'codex';

export function claudeHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAUDE_CONFIG_DIR || path.join(os.homedir(), '.claude');
}
export function codexHome(env: NodeJS.ProcessEnv = process.env): string {
  return codexHomeOf({ ...env, HOME: os.homedir() })!; // the same folder rawr's Codex hooks are installed in
}

/** Claude Code's project folder name for a working directory. */
export function encodeClaudeProject(folder: string): string {
  return folder.replace(/[^a-zA-Z0-9]/g, '-');
}

interface Found {
  file: string;
  mtimeMs: number;
}

async function newest(files: string[]): Promise<Found | null> {
  let best: Found | null = null;
  for (const file of files) {
    try {
      const st = await stat(file);
      if (st.isFile() && (!best || st.mtimeMs > best.mtimeMs)) best = { file, mtimeMs: st.mtimeMs };
    } catch {
      // vanished meanwhile
    }
  }
  return best;
}

async function list(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

/** The most recently written Claude Code transcript of `folder`, or null. */
export async function newestClaudeTranscript(folder: string, home = claudeHome()): Promise<Found | null> {
  const projects = path.join(home, 'projects');
  const encoded = encodeClaudeProject(folder);
  const dirs = encoded.length <= 200 ? [encoded] : (await list(projects)).filter((d) => d.startsWith(`${encoded.slice(0, 200)}-`));
  const files: string[] = [];
  for (const d of dirs) for (const f of await list(path.join(projects, d))) if (f.endsWith('.jsonl')) files.push(path.join(projects, d, f));
  return newest(files);
}

/** How many day folders back to look for a Codex rollout (a session older than that is not "live"). */
const CODEX_DAYS = 14;

/** The most recently written Codex rollout whose session_meta cwd is `folder`, or null. */
export async function newestCodexRollout(folder: string, home = codexHome()): Promise<Found | null> {
  const sessions = path.join(home, 'sessions');
  const days: string[] = [];
  for (const y of (await list(sessions))
    .filter((x) => /^\d{4}$/.test(x))
    .sort()
    .reverse()) {
    for (const m of (await list(path.join(sessions, y)))
      .filter((x) => /^\d{2}$/.test(x))
      .sort()
      .reverse()) {
      for (const d of (await list(path.join(sessions, y, m)))
        .filter((x) => /^\d{2}$/.test(x))
        .sort()
        .reverse()) {
        days.push(path.join(sessions, y, m, d));
        if (days.length >= CODEX_DAYS) break;
      }
      if (days.length >= CODEX_DAYS) break;
    }
    if (days.length >= CODEX_DAYS) break;
  }
  const mine: string[] = [];
  const want = path.resolve(folder);
  for (const day of days) {
    for (const f of await list(day)) {
      if (!/^rollout-.*\.jsonl$/.test(f)) continue;
      const file = path.join(day, f);
      const cwd = codexCwd(await readHead(file, 256 * 1024));
      if (cwd !== null && path.resolve(cwd) === want) mine.push(file);
    }
  }
  return newest(mine);
}

/** The cwd of a rollout's first record (`session_meta`), or null. */
export function codexCwd(head: string): string | null {
  const first = head.slice(0, head.indexOf('\n') < 0 ? head.length : head.indexOf('\n'));
  try {
    const rec = JSON.parse(first) as { type?: unknown; payload?: { cwd?: unknown } };
    return rec.type === 'session_meta' && typeof rec.payload?.cwd === 'string' ? rec.payload.cwd : null;
  } catch {
    return null;
  }
}

/**
 * The first `max` bytes of a regular file as text ('' if it is not one). Opened non-blocking: a file the
 * person picks to follow may be a FIFO a cloned repository holds, whose open would wait for ever.
 */
export async function readHead(file: string, max: number): Promise<string> {
  let fh;
  try {
    fh = await open(file, SAFE_READ_FLAGS);
    if (!(await fh.stat()).isFile()) return '';
    const buf = Buffer.alloc(max);
    const { bytesRead } = await fh.read(buf, 0, max, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } catch {
    return '';
  } finally {
    await fh?.close();
  }
}

/** The session id a transcript belongs to: Claude's file name, Codex's session_meta id. */
export function sessionIdOf(kind: AgentKind, file: string, head: string): string | null {
  if (kind === 'claude') return path.basename(file, '.jsonl');
  try {
    const rec = JSON.parse(head.slice(0, head.indexOf('\n') < 0 ? head.length : head.indexOf('\n'))) as { payload?: { id?: unknown } };
    return typeof rec.payload?.id === 'string' ? rec.payload.id : null;
  } catch {
    return null;
  }
}

export const HOOK_EVENT_KINDS = ['snapshot', 'confirmed', 'compact-summary', 'injected', 'other'] as const;
export interface HookEvent {
  at: string;
  kind: (typeof HOOK_EVENT_KINDS)[number];
  file: string;
}

const STAMP = /(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z/;

/**
 * What rawr's hooks recorded for a session: snapshots (PreCompact) and their injection claims, newest
 * last, from the file names of `<root>/.rawr/<agent>/<session>/` (a file whose name has no time is
 * listed as "other" with the folder's order).
 */
export async function hookEvents(root: string, kind: AgentKind, sessionId: string): Promise<HookEvent[]> {
  const dir = path.join(root, '.rawr', kind, sessionDirName(sessionId));
  const out: HookEvent[] = [];
  for (const f of (await list(dir)).sort()) {
    if (f.startsWith('.')) continue; // temp files of an atomic write
    const m = STAMP.exec(f);
    const at = m ? `${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z` : '';
    // <snapshot>.json (PreCompact), .confirmed (the compaction happened), .compact-summary (Claude Code's
    // own summary), .injected (the handoff was injected): see core/hooks/shared/store.ts.
    const k: HookEvent['kind'] = /\.injected$/.test(f)
      ? 'injected'
      : /\.confirmed$/.test(f)
        ? 'confirmed'
        : /\.compact-summary$/.test(f)
          ? 'compact-summary'
          : /^snapshot-.*\.json$/.test(f)
            ? 'snapshot'
            : 'other';
    out.push({ at, kind: k, file: f });
  }
  return out.slice(-20);
}

/** One answer of rawr's PreCompact hook, as `steer.ts` logs it (unknown fields kept out; a bad line is skipped). */
export const SteerEntrySchema = z.object({
  at: z.string().max(40),
  trigger: z.string().max(20).nullable(),
  allow: z.boolean(),
  why: z.string().max(40),
  text: z.string().max(1_000),
  usedTokens: z.number().finite().nonnegative(),
  window: z.number().finite().nonnegative(),
  line: z.number().finite().nonnegative().optional(),
});
export type SteerEntry = z.infer<typeof SteerEntrySchema>;

/** The log's tail read per refresh: the newest answers are all a panel shows. */
const LOG_TAIL_BYTES = 64 * 1024;

const factCount = z.object({ facts: z.number().int().nonnegative(), kept: z.number().int().nonnegative(), added: z.number().int().nonnegative() });

/**
 * The receipt the hooks log after each compaction of the agent (core/hooks/shared/repairHook.ts): tokens
 * before (the agent's own count) and after (the agent's own where it records one, else estimated), and per fact class of rawr's trail how many facts
 * there were, how many the agent's summary kept and how many rawr re-injects.
 */
export const ReceiptSchema = z.object({
  kind: z.literal('receipt'),
  at: z.string().max(40),
  trigger: z.string().max(20).nullable(),
  tokensBefore: z.number().finite().nonnegative().nullable(),
  tokensAfter: z.number().finite().nonnegative(),
  tokensAfterMeasured: z.boolean().optional(),
  summaryTokens: z.number().finite().nonnegative(),
  repairTokens: z.number().finite().nonnegative(),
  facts: z.record(z.string().max(40), factCount),
});
export type Receipt = z.infer<typeof ReceiptSchema>;

/** The newest receipts (up to 10, newest last) in `<root>/.rawr/<agent>/<session>/hook-log.jsonl`. */
export async function hookReceipts(root: string, kind: AgentKind, sessionId: string): Promise<Receipt[]> {
  return jsonLinesTail(path.join(root, '.rawr', kind, sessionDirName(sessionId), 'hook-log.jsonl'), ReceiptSchema, LOG_TAIL_BYTES, 10);
}

/**
 * The newest answers (up to 20, newest last) of rawr's PreCompact hook for a Claude Code session, from
 * `<root>/.rawr/claude/<session>/steer-log.jsonl`: only the log's tail is read (a bounded read of a regular
 * file), the first line of the tail is dropped when the read starts mid-line, and lines that do not parse
 * are skipped. Claude Code shows a refusal nowhere: this is where the person sees it.
 */
export async function steerLog(root: string, sessionId: string): Promise<SteerEntry[]> {
  return jsonLinesTail(path.join(root, '.rawr', 'claude', sessionDirName(sessionId), 'steer-log.jsonl'), SteerEntrySchema, LOG_TAIL_BYTES, 20);
}
