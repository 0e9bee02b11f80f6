/**
 * Where the Claude Code hooks keep their state, and how it is written.
 *
 *   <root>/.rawr/claude/.gitignore                          "*": the state never makes the repo dirty
 *   <root>/.rawr/claude/<session>/snapshot-<time>.json      one per PreCompact (history kept)
 *   <root>/.rawr/claude/<session>/snapshot-<time>.json.injected   claim: created exclusively by the one
 *                                                           hook run that injects this snapshot
 *   <root>/.rawr/claude/<session>/last-injection.json       marker: which snapshot was last injected, when
 *
 * `<time>` is the ISO time with `:` and `.` replaced by `-` (valid on every file system, and it sorts
 * in time order). `<session>` is the session id reduced to [A-Za-z0-9_-] (plus a short hash when that
 * changed it, so two ids never share a folder); the resolved folder is checked to stay under
 * `<root>/.rawr/claude/` (also through symlinks). Every file is written to a temp file in the same
 * folder and renamed over the target, so a reader never sees a half-written file.
 *
 * Exactly-once injection: the detector compares the latest snapshot's time with the marker; if the
 * snapshot is newer, it claims the snapshot by creating its `.injected` file with O_EXCL. Only the
 * run that created the claim injects, so two hooks racing (SessionStart and UserPromptSubmit, or two
 * prompts) never inject twice; the marker is then updated atomically.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const STATE_DIR = path.join('.rawr', 'claude');
const SNAPSHOT_RE = /^snapshot-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z)\.json$/;
const MARKER = 'last-injection.json';

/** `[A-Za-z0-9_-]`, at most 100 characters; `-<8 hex>` of the original id appended when anything changed. */
export function sessionDirName(sessionId: string): string {
  const safe = sessionId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 100);
  if (safe === sessionId && safe !== '') return safe;
  return `${safe}-${createHash('sha256').update(sessionId).digest('hex').slice(0, 8)}`;
}

const isInside = (child: string, parent: string) => child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);

/**
 * The session's state folder, created if `create`. Throws if it would resolve outside
 * `<root>/.rawr/claude/` (a symlinked session folder, or a bug in the sanitiser).
 */
export function sessionDir(root: string, sessionId: string, create: boolean): string {
  const base = path.resolve(root, STATE_DIR);
  const dir = path.resolve(base, sessionDirName(sessionId));
  if (!isInside(dir, base)) throw new Error(`session folder escapes ${base}`);
  if (create) {
    fs.mkdirSync(dir, { recursive: true });
    const ignore = path.join(base, '.gitignore');
    if (!fs.existsSync(ignore)) writeFileAtomic(ignore, '# rawr hook state (Claude Code compaction snapshots): never committed\n*\n');
  }
  if (fs.existsSync(dir) && !isInside(fs.realpathSync(dir), fs.realpathSync(base))) {
    throw new Error(`session folder ${dir} resolves outside ${base}`);
  }
  return dir;
}

/** Temp file in the same folder + rename: readers see the old file or the new one, never a torn one. */
export function writeFileAtomic(file: string, text: string): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    fs.writeFileSync(tmp, text, { flag: 'wx' });
    fs.renameSync(tmp, file);
  } catch (err) {
    try { fs.unlinkSync(tmp); } catch { /* already gone */ }
    throw err;
  }
}

export const snapshotFileName = (time: Date) => `snapshot-${time.toISOString().replace(/[:.]/g, '-')}.json`;

/** Time encoded in a snapshot file name, or null when the name is not one of ours. */
export function snapshotTimeOf(fileName: string): number | null {
  const m = SNAPSHOT_RE.exec(fileName);
  if (!m) return null;
  const [d, h, mi, s, ms] = [m[1]!.slice(0, 10), m[1]!.slice(11, 13), m[1]!.slice(14, 16), m[1]!.slice(17, 19), m[1]!.slice(20, 23)];
  const t = Date.parse(`${d}T${h}:${mi}:${s}.${ms}Z`);
  return Number.isNaN(t) ? null : t;
}

/**
 * Writes `data` as the session's snapshot at `time` (bumped by 1 ms while that name is taken).
 * Returns the file's path.
 */
export function writeSnapshotFile(dir: string, time: Date, data: unknown): string {
  let t = time.getTime();
  while (fs.existsSync(path.join(dir, snapshotFileName(new Date(t))))) t++;
  const file = path.join(dir, snapshotFileName(new Date(t)));
  writeFileAtomic(file, JSON.stringify(data, null, 2) + '\n');
  return file;
}

/** The newest snapshot file of the session (by the time in its name), or null. */
export function latestSnapshotFile(dir: string): { file: string; time: number } | null {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  let best: { file: string; time: number } | null = null;
  for (const n of names) {
    const t = snapshotTimeOf(n);
    if (t !== null && (best === null || t > best.time)) best = { file: path.join(dir, n), time: t };
  }
  return best;
}

export interface Marker {
  snapshot: string;
  snapshotTime: string;
  injectedAt: string;
  event: string;
}

/** The last-injection marker; null if absent or unreadable (the claim files still prevent repeats). */
export function readMarker(dir: string): Marker | null {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(dir, MARKER), 'utf8')) as Partial<Marker>;
    return typeof m.snapshotTime === 'string' && typeof m.snapshot === 'string' ? (m as Marker) : null;
  } catch {
    return null;
  }
}

export function writeMarker(dir: string, m: Marker): void {
  writeFileAtomic(path.join(dir, MARKER), JSON.stringify(m, null, 2) + '\n');
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
