/**
 * The PreCompact hook's memory of a session, so a call reads only what the transcript gained since the
 * previous one (Claude Code asks before every model request once over its threshold):
 * `<root>/.rawr/claude/<session>/steer-state.json` holds the live follower (importer, arbiter run,
 * engine state: SessionFollower.save) and the byte offset it has read up to, and what the previous
 * PreCompact saw. Only whole lines are consumed: the offset always sits after a newline, so a line
 * still being written (or a UTF-8 character cut by the read) is read whole next time.
 *
 * A state that is missing, damaged, of another transcript, or whose transcript shrank (replaced) is
 * started again from the beginning of the file: slower once, never wrong.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { MAX_LINE_CHARS, SessionFollower, type SavedFollower } from '../../follow/sessionFollower';
import type { ReplayOptions } from '../../replay/driver';
import { safeReadTextIfExists } from '../../io/safeRead';
import { readTextFromBytes } from '../shared/readFrom';
import { writeFileAtomic } from '../shared/store';

export const STEER_STATE = 'steer-state.json';
/** The saved follower is bounded (its id caches, trail and lists are capped); this only refuses a file that is not ours. */
const MAX_STATE_BYTES = 32 * 1024 * 1024;
/**
 * The most one call reads of the transcript: bytes, and lines (the follower's work grows with the records
 * as much as with the bytes: 64 MB of one-line tool results took 6.3 s, of 80-line ones 0.8 s, at load
 * 6.5 on the project's 2-core machine). A longer backlog is read over the next calls, and until it is,
 * the hook decides from the transcript's tail (steer.ts catchingUp): every call answers in bounded time,
 * however long the session (a 600 MB first read once took 15-25 s a call, past the hook client's wait).
 */
export interface ReadBound {
  bytes: number;
  lines: number;
}
export const READ_BOUND: ReadBound = { bytes: 32 * 1024 * 1024, lines: 40_000 };
const VERSION = 1;

const Previous = z.object({
  modelCalls: z.number().int(),
  allowed: z.boolean(),
  at: z.string(),
  /** The transcript line the follower had read to (absent in states written before it was kept). */
  line: z.number().int().optional(),
  /** The newest model response's id in the transcript's tail, when the call decided from it (steer.ts catchingUpVerdict). */
  tail: z.string().max(200).optional(),
});
export type PreviousPreCompact = z.infer<typeof Previous>;

const Saved = z.object({
  version: z.literal(VERSION),
  transcript: z.string(),
  offset: z.number().int().nonnegative(),
  previous: Previous.nullable(),
  // The follower's own shape is checked by its use: it is rawr's own file, written by this code.
  // rawr's own saved follower: its outline is checked here; a file that does not restore (restore throws)
  // makes the hook allow and start over (steer.ts), never crash or refuse on bad state.
  follower: z.custom<SavedFollower>((v) => typeof v === 'object' && v !== null && typeof (v as { lineNo?: unknown }).lineNo === 'number'),
});

export interface SteerSession {
  follower: SessionFollower;
  transcript: string;
  offset: number;
  previous: PreviousPreCompact | null;
  /** Bytes read by this call (the bench and the log). */
  readBytes: number;
  /** Why the state was started again, if it was. */
  restarted?: string;
  /** Whole lines are still unread after this call's bounded read: where the follower is and the file's size. */
  behind?: { offset: number; size: number };
}

type FollowerOptions = Omit<ReplayOptions, 'live' | 'needJudgments' | 'judgments'>;

/** The session's state with the transcript's new whole lines read into it, at most `bound` of them (readMore). */
export async function loadSession(dir: string, transcript: string, opts: FollowerOptions, bound?: ReadBound): Promise<SteerSession> {
  let restarted: string | undefined;
  let s: SteerSession | null = takeRecent(path.join(dir, STEER_STATE), transcript, optionsKey(opts));
  try {
    // Read from disk unless this process just saved the session (takeRecent).
    const text = s ? null : await safeReadTextIfExists(path.join(dir, STEER_STATE), { maxBytes: MAX_STATE_BYTES });
    if (text === undefined) restarted = 'first call';
    else if (text !== null) {
      const parsed = Saved.safeParse(JSON.parse(text));
      if (!parsed.success) restarted = 'state unreadable';
      else if (parsed.data.transcript !== transcript) restarted = 'another transcript';
      else
        s = {
          follower: SessionFollower.restore(parsed.data.follower, { ...opts, format: 'claude' }),
          transcript,
          offset: parsed.data.offset,
          previous: parsed.data.previous,
          readBytes: 0,
        };
    }
  } catch (err) {
    restarted = `state unreadable (${(err as Error).message})`;
  }
  const fresh = (): SteerSession => ({
    follower: new SessionFollower({ ...opts, format: 'claude' }),
    transcript,
    offset: 0,
    previous: null,
    readBytes: 0,
  });
  s ??= fresh();
  if ((await readMore(s, bound)) === 'shrank') {
    restarted = 'the transcript shrank (replaced)';
    s = fresh();
    await readMore(s, bound);
  }
  return restarted !== undefined ? { ...s, restarted } : s;
}

/**
 * Feeds the follower the transcript's complete lines after `s.offset`, at most `bound` of them (in
 * place: offset and readBytes grow; `behind` says whether whole lines are left unread). 'shrank': the
 * file is shorter than the offset (replaced), nothing read.
 */
export async function readMore(s: SteerSession, bound: ReadBound = READ_BOUND): Promise<'read' | 'shrank'> {
  const tail = await readTextFromBytes(s.transcript, s.offset, Math.max(0, bound.bytes));
  if (tail.shrank) return 'shrank';
  // The end of the last whole line within the line bound.
  let end = 0;
  let lines = 0;
  for (; lines < bound.lines; lines++) {
    const nl = tail.bytes.indexOf(0x0a, end);
    if (nl < 0) break;
    end = nl + 1;
  }
  // No newline in a whole bound's worth of bytes, and too many for one line the follower keeps (a UTF-16
  // unit is at most 3 bytes of UTF-8): fed as it is, the follower skips the line, instead of stopping here.
  if (end === 0 && tail.bytes.length >= bound.bytes && tail.bytes.length >= 3 * MAX_LINE_CHARS) end = tail.bytes.length;
  if (end > 0) {
    s.follower.append(tail.bytes.subarray(0, end).toString('utf8'));
    s.offset += end;
    s.readBytes += end;
  }
  // Left unread: a whole line after what was read, or bytes past what the bound let this call read.
  const cut = s.offset - end + tail.bytes.length < tail.size;
  if (cut || tail.bytes.indexOf(0x0a, end) >= 0) s.behind = { offset: s.offset, size: tail.size };
  else delete s.behind;
  return 'read';
}

/** The head of the state file that holds `previous` (saveSession writes it before the follower). */
const PREVIOUS_HEAD_BYTES = 64 * 1024;

/**
 * What the previous PreCompact saw, from the head of the session's state alone (a bounded read, no
 * follower restored: steer.ts lostAnswerVerdict); null when there is none, it is of another transcript
 * or unreadable. saveSession writes `previous` before `follower`, and `,"follower":` cannot occur inside
 * a JSON string (its quote would be escaped), so the text before its first occurrence is the rest.
 */
export async function readPrevious(dir: string, transcript: string): Promise<PreviousPreCompact | null> {
  try {
    const { bytes } = await readTextFromBytes(path.join(dir, STEER_STATE), 0, PREVIOUS_HEAD_BYTES);
    const head = bytes.toString('utf8');
    const cut = head.indexOf(',"follower":');
    if (cut < 0) return null;
    const parsed = Saved.omit({ follower: true }).safeParse(JSON.parse(`${head.slice(0, cut)}}`));
    return parsed.success && parsed.data.transcript === transcript ? parsed.data.previous : null;
  } catch {
    return null;
  }
}

export function saveSession(dir: string, s: SteerSession, opts?: FollowerOptions): void {
  const saved = { version: VERSION, transcript: s.transcript, offset: s.offset, previous: s.previous, follower: s.follower.save() };
  const file = path.join(dir, STEER_STATE);
  writeFileAtomic(file, JSON.stringify(saved));
  if (opts) remember(file, s, optionsKey(opts));
}

/**
 * The sessions this process saved last (a few), with their state file's identity then: the resident
 * hook engine (src/cli/hookServer.ts) answers a session's calls one after another and would otherwise
 * read, parse and restore what it has just written. Restoring a saved follower gives the follower that
 * was saved (the chunking property in test/unit/hooks.steer.test.ts: saved and restored at every cut, the
 * answers are a fresh read's), so the live one is kept instead, taken out while a run uses it (a run that
 * fails before saving leaves none) and kept only with the same options (settings, prompts). A state file
 * another process wrote since (a new inode: every write is a rename) is read from disk.
 */
const recent = new Map<string, { id: string; session: SteerSession; options: string }>();
const MAX_RECENT = 8;
const identity = (file: string): string | null => {
  try {
    const st = fs.lstatSync(file);
    return st.isFile() ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}` : null;
  } catch {
    return null;
  }
};
const optionsKey = (opts: FollowerOptions): string => JSON.stringify(opts);
function remember(file: string, session: SteerSession, options: string): void {
  const id = identity(file);
  recent.delete(file);
  if (id === null) return;
  recent.set(file, { id, session: { ...session, readBytes: 0 }, options });
  if (recent.size > MAX_RECENT) recent.delete(recent.keys().next().value!);
}
function takeRecent(file: string, transcript: string, options: string): SteerSession | null {
  const r = recent.get(file);
  recent.delete(file);
  if (!r || r.options !== options || r.session.transcript !== transcript || identity(file) !== r.id) return null;
  const { restarted: _restarted, ...session } = r.session;
  return session;
}
