/**
 * Where the agent hooks keep their state, and how it is written.
 *
 *   <root>/.rawr/<agent>/.gitignore                          "*": the state never makes the repo dirty
 *   <root>/.rawr/<agent>/<session>/snapshot-<time>-<n>.json  one per PreCompact (history kept)
 *   …/snapshot-<time>-<n>.json.confirmed   the compaction happened (PostCompact, SessionStart(compact)
 *                                           or a compaction record in the transcript)
 *   …/snapshot-<time>-<n>.json.compact-summary  Claude Code's own `compact_summary` (PostCompact), kept
 *                                           with the snapshot; PostCompact can come after the injection
 *   …/snapshot-<time>-<n>.json.injected    claim: created exclusively by the one hook run that injects
 *   …/snapshot-<time>-<n>.json.repair      the repair of the agent's summary (PostCompact, repairHook.ts)
 *   …/snapshot-<time>-<n>.json.repair-injected  its claim, as `.injected` for the handoff
 *   <root>/.rawr/<agent>/<session>/hook-log.jsonl            receipts and what was given to the model (repairHook.ts)
 *   <root>/.rawr/claude/<session>/steer-log.jsonl, steer-state.json, golden.json, headsup-<n>.delivered
 *                                           the steering PreCompact (claude/steer.ts, steerState.ts, golden.ts)
 *   <root>/.rawr/<agent>/<session>/last-injection.json       which snapshot was last injected, when
 *
 * `<agent>` is `claude` or `codex`. `<time>` is the ISO time with `:` and `.` replaced by `-`, `<n>` the
 * first free number for that millisecond: names are taken by an exclusive create (a hard link of a
 * fully written temp file), so two snapshots in the same millisecond never overwrite each other and
 * sort in creation order. `<session>` is the session id reduced to [A-Za-z0-9_-] (plus a short hash
 * when that changed it, so two ids never share a folder).
 *
 * Nothing is written or read through a symlink: `.rawr`, `.rawr/<agent>` and the session folder must be
 * real folders (a repository could commit `.rawr/claude -> /somewhere/else`); see docs/ARCHITECTURE.md.
 *
 * Exactly-once injection: only a confirmed snapshot is injected, by the run that creates its
 * `.injected` claim with O_EXCL, so two hooks racing never inject twice.
 */
import type * as Crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_STATE_BYTES, safeReadTextIfExists } from '../../io/safeRead';

export type AgentId = 'claude' | 'codex';

/**
 * node:crypto, loaded when first needed: the hooks entry loads this file for its fast exit and, for a
 * steering PreCompact, only hands the input on (src/cli/hooks/resident.ts); loading crypto was ~5% of that.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const crypto = () => require('node:crypto') as typeof Crypto;
const SNAPSHOT_RE = /^snapshot-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z)(?:-(\d{1,6}))?\.json$/;
const MARKER = 'last-injection.json';

export const stateDirOf = (agent: AgentId) => path.join('.rawr', agent);

/** `[A-Za-z0-9_-]`, at most 100 characters; `-<8 hex>` of the original id appended when anything changed. */
export function sessionDirName(sessionId: string): string {
  const safe = sessionId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 100);
  if (safe === sessionId && safe !== '') return safe;
  return `${safe}-${crypto().createHash('sha256').update(sessionId).digest('hex').slice(0, 8)}`;
}

/**
 * Makes sure `dir` is a real folder (not a symlink, not a file), creating it when `create`. Returns
 * false when it does not exist and `create` is false.
 */
function realFolder(dir: string, create: boolean): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      if (!create) return false;
      try {
        fs.mkdirSync(dir);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      continue; // re-check what is there now (another hook may have raced us)
    }
    if (st.isSymbolicLink()) throw new Error(`${dir} is a symlink; rawr does not write or read its state through a symlink`);
    if (!st.isDirectory()) throw new Error(`${dir} is not a folder`);
    return true;
  }
  throw new Error(`${dir} could not be created`);
}

/**
 * The session's state folder (created with `.rawr/<agent>/.gitignore` if `create`), or null when it does
 * not exist. Throws when any of `.rawr`, `.rawr/<agent>`, the session folder is a symlink or not a folder.
 */
export function sessionDir(root: string, agent: AgentId, sessionId: string, create: boolean): string | null {
  const base = agentStateDir(root, agent, create);
  if (base === null) return null;
  const dir = path.join(base, sessionDirName(sessionId));
  return realFolder(dir, create) ? dir : null;
}

/** `.rawr/<agent>/` (created with its `.gitignore` if `create`), or null when it does not exist; the same symlink rules. */
export function agentStateDir(root: string, agent: AgentId, create: boolean): string | null {
  const top = path.join(root, '.rawr');
  const base = path.join(top, agent);
  if (!realFolder(top, create) || !realFolder(base, create)) return null;
  if (create) {
    const ignore = path.join(base, '.gitignore');
    if (!fs.existsSync(ignore)) writeFileAtomic(ignore, `# rawr hook state (${agent} compaction snapshots): never committed\n*\n`);
  }
  return base;
}

const tempName = (file: string) => path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${crypto().randomBytes(4).toString('hex')}.tmp`);

/** Temp file in the same folder + rename: readers see the old file or the new one, never a torn one. */
export function writeFileAtomic(file: string, text: string): void {
  const tmp = tempName(file);
  try {
    fs.writeFileSync(tmp, text, { flag: 'wx' });
    fs.renameSync(tmp, file);
  } catch (err) {
    try {
      fs.unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw err;
  }
}

/**
 * How a run records that a text it prints for the model was given (the handoff, the repair, the
 * heads-up): `claim` makes the record, true for the one caller that made it. `claimNow` records first
 * and only the run that made the record prints it (exactly once among racing runs; a run that dies
 * before its output is read loses it). `claimOnDelivery` prints first and records once the output is
 * delivered (`delivered` runs the record then; issue 30: a hook killed before it printed claims
 * nothing, and the next hook gives the text) — at least once, never lost.
 */
export type Delivery = (claim: () => boolean) => boolean;
export const claimNow: Delivery = (claim) => claim();
export const claimOnDelivery =
  (delivered: (record: () => void) => void): Delivery =>
  (claim) => {
    delivered(() => void claim());
    return true;
  };

/**
 * Creates `file` with `text` only if no such name exists (false then), atomically: readers never see it
 * half written. A hard link of a complete temp file is both exclusive and atomic; where hard links are
 * not supported, an O_EXCL create is used (exclusive, not atomic).
 */
export function createExclusive(file: string, text: string): boolean {
  const tmp = tempName(file);
  fs.writeFileSync(tmp, text, { flag: 'wx' });
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV' && code !== 'ENOSYS') throw err;
    try {
      fs.writeFileSync(file, text, { flag: 'wx' });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
  } finally {
    try {
      fs.unlinkSync(tmp);
    } catch {
      /* already gone */
    }
  }
}

export const snapshotFileName = (time: Date, n = 0) => `snapshot-${time.toISOString().replace(/[:.]/g, '-')}-${n}.json`;

/** Time and sequence number encoded in a snapshot file name, or null when the name is not one of ours. */
export function snapshotKeyOf(fileName: string): { time: number; n: number } | null {
  const m = SNAPSHOT_RE.exec(fileName);
  if (!m) return null;
  const s = m[1]!;
  const t = Date.parse(`${s.slice(0, 10)}T${s.slice(11, 13)}:${s.slice(14, 16)}:${s.slice(17, 19)}.${s.slice(20, 23)}Z`);
  return Number.isNaN(t) ? null : { time: t, n: m[2] !== undefined ? Number(m[2]) : -1 };
}

/** Writes `data` as a new snapshot of the session (never replacing one). Returns the file's path. */
export function writeSnapshotFile(dir: string, time: Date, data: unknown): string {
  const text = JSON.stringify(data, null, 2) + '\n';
  for (let n = 0; n < 100_000; n++) {
    const file = path.join(dir, snapshotFileName(time, n));
    if (createExclusive(file, text)) return file;
  }
  throw new Error(`no free snapshot name in ${dir} for ${time.toISOString()}`);
}

export interface SnapshotRef {
  file: string;
  time: number;
  n: number;
}

/** The newest snapshot file of the session (by the time and number in its name), or null. */
export function latestSnapshotFile(dir: string): SnapshotRef | null {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  let best: SnapshotRef | null = null;
  for (const name of names) {
    const k = snapshotKeyOf(name);
    if (k && (best === null || k.time > best.time || (k.time === best.time && k.n > best.n))) best = { file: path.join(dir, name), ...k };
  }
  return best;
}

/** Reads one of rawr's own small state files (regular file, size cap); null when it is absent. */
export async function readStateFile(file: string): Promise<string | null> {
  return (await safeReadTextIfExists(file, { maxBytes: MAX_STATE_BYTES })) ?? null;
}

export interface Marker {
  snapshot: string;
  snapshotTime: string;
  injectedAt: string;
  event: string;
}

/** The last-injection marker; null if absent or unreadable (the claim files still prevent repeats). */
export async function readMarker(dir: string): Promise<Marker | null> {
  try {
    const text = await readStateFile(path.join(dir, MARKER));
    const m = text === null ? null : (JSON.parse(text) as Partial<Marker>);
    return m && typeof m.snapshotTime === 'string' && typeof m.snapshot === 'string' ? (m as Marker) : null;
  } catch {
    return null;
  }
}

export function writeMarker(dir: string, m: Marker): void {
  writeFileAtomic(path.join(dir, MARKER), JSON.stringify(m, null, 2) + '\n');
}

export interface Confirmation {
  /** What confirmed it: PostCompact, SessionStart, or `transcript` (a compaction record after the snapshot). */
  by: string;
  at: string;
  trigger?: string;
}
/** Claude Code's summaries are a few KB; a bigger one is cut, not refused. */
const MAX_SUMMARY_CHARS = 200_000;

export const isConfirmed = (snapshotFile: string) => fs.existsSync(`${snapshotFile}.confirmed`);
export const isClaimed = (snapshotFile: string) => fs.existsSync(`${snapshotFile}.injected`);

/** Records that the snapshot's compaction happened; the first confirmation wins (false: already confirmed). */
export function confirmSnapshot(snapshotFile: string, c: Confirmation): boolean {
  return createExclusive(`${snapshotFile}.confirmed`, `${JSON.stringify(c, null, 2)}\n`);
}

/** Keeps the agent's own compaction summary beside the snapshot (the first one wins). */
export function saveCompactSummary(snapshotFile: string, s: { at: string; trigger?: string; compactSummary: string }): boolean {
  return createExclusive(
    `${snapshotFile}.compact-summary`,
    `${JSON.stringify({ ...s, compactSummary: s.compactSummary.slice(0, MAX_SUMMARY_CHARS) }, null, 2)}\n`,
  );
}

/**
 * Claims a snapshot for injection. True for exactly one caller per snapshot file, however many hook
 * runs race (O_CREAT|O_EXCL); false when it was already claimed.
 */
export function claimSnapshot(snapshotFile: string, event: string, now: Date): boolean {
  let fd: number;
  try {
    fd = fs.openSync(`${snapshotFile}.injected`, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    fs.writeSync(fd, `${JSON.stringify({ event, at: now.toISOString(), pid: process.pid })}\n`);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}
