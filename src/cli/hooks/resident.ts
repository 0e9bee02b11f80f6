/**
 * The hook's side of the resident hook engine (./server.ts). Claude Code runs the steering PreCompact hook
 * before every model request once over its threshold, each a new process; loading the hook engine (zod,
 * the importers, the arbiter) in every one misses the target (p95 < 100 ms). The first run that needs it
 * runs it itself and starts one resident engine for this build of rawr; later runs hand it their input
 * through its door (./door.ts, as ./hook.sh does) and print its answer.
 *
 * Never a change of behaviour, only of where the work runs: no door, or an engine that does not prove
 * itself or say `go` in time (stopped, hung, busy) → the hook runs itself as before. A connection lost
 * after the input was sent is not run again (the engine may have acted on it): the hook says so on stderr
 * and prints nothing, which Claude Code reads as "go on" (an automatic Claude PreCompact gets the verdict
 * from the transcript's tail instead: main.ts lostAnswer).
 */
import * as fs from 'node:fs';
import type * as Net from 'node:net';
import * as path from 'node:path';
import { RESIDENT_FLAG } from './command';
import type { DoorAddress, HookEventOutput, HookRun, ResidentAnswer } from './types';

/**
 * The longest a hook waits for the engine, from the hook process's start: below the timeouts rawr installs
 * (hooksConfig.ts: PreCompact 30 s, the others 10 s), so a hook is never killed mid-run by Claude Code.
 */
export function answerWaitMs(event: string, uptimeMs = process.uptime() * 1000): number {
  return Math.max(500, (event === 'PreCompact' ? 25_000 : 8_000) - uptimeMs);
}
/** The longest a hook waits for the engine's token, as hook.sh (`read -t 2`): a stopped engine's kernel still accepts. */
const PROOF_WAIT_MS = 2_000;
/** The longest a hook waits for the engine to start its run (it says `go`): longer than CLAIM_WAIT_MS (server.ts), under the shortest installed timeout. */
const GO_WAIT_MS = 3_000;
/** An answer is a hook's output: small. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** The door protocol's version (door.ts: step 2's first field). */
export const DOOR_VERSION = 'rawr-hook 3';
/** Step 4: the client printed the answer. */
export const PRINTED = 'printed\n';

/** The file naming the door of the engine for the hook.sh in `clientDir` (hook.sh computes the same name). */
export function tcpFile(cacheDir: string, clientDir: string): string {
  // Byte by byte, as bash in the C locale replaces them: one `_` per byte of a non-ASCII character.
  const name = Buffer.from(clientDir, 'utf8')
    .toString('latin1')
    .replace(/[^A-Za-z0-9._-]/g, '_');
  return path.join(cacheDir, `hooks-${name}.tcp`);
}

/** The build key of the engine file as it is now (a rebuilt or upgraded rawr gets a new one): one engine per key (server.ts). */
export function buildKey(engineFile: string, clientDir: string): string | null {
  try {
    const st = fs.statSync(engineFile);
    return fnv1a(`${process.version}\0${engineFile}\0${st.size}\0${st.mtimeMs}\0${clientDir}`);
  } catch {
    return null;
  }
}

/** The door of the resident engine for the hook.sh in `clientDir`, or null where none may be used: off, Windows, or not ownDir. */
export function residentDoor(cacheDir: string, clientDir: string, env: Record<string, string | undefined> = process.env): DoorAddress | null {
  if (env.RAWR_HOOK_SERVER === '0' || process.platform === 'win32') return null;
  try {
    fs.mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  } catch {
    return null;
  }
  return ownDir(cacheDir) ? { file: tcpFile(cacheDir, clientDir), clientDir } : null;
}

/**
 * Whether `dir` is this user's alone (whoever can enter it could read the door's tokens, or plant a door file):
 * the hook and the engine both ask; only the hook creates it (an engine must not bring back a removed folder).
 */
export function ownDir(dir: string): boolean {
  try {
    const st = fs.lstatSync(dir);
    return st.isDirectory() && st.uid === process.getuid?.() && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** The text of a door or lock file, from this user's own small regular file only (a link could point the hook elsewhere), or null. */
export function ownFile(file: string): string | null {
  try {
    const st = fs.lstatSync(file);
    return st.isFile() && st.uid === process.getuid?.() && st.size <= 200 ? fs.readFileSync(file, 'latin1') : null;
  } catch {
    return null;
  }
}

const UNAVAILABLE: ResidentAnswer = { kind: 'unavailable' };

/**
 * Opens a connection to the engine's door at once and sends the client token (step 1), so that connecting
 * and the engine's proof overlap the read of the hook's input. Nothing of the run is sent before `ask`.
 */
export function connectResident(door: DoorAddress, timeoutMs?: number): { ask(run: HookRun): Promise<ResidentAnswer> } {
  const words = ownFile(door.file)?.trim().split(' ') ?? [];
  const [port = '', clientToken = '', engineToken = ''] = words;
  if (words.length !== 3 || !/^\d{1,5}$/.test(port) || clientToken.length !== 32 || engineToken.length !== 32)
    return { ask: () => Promise.resolve(UNAVAILABLE) };
  const started = Date.now();
  // Loaded here, not with the hooks entry: a hook the fast exit answers never needs it (~5 ms).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const conn = (require('node:net') as typeof Net).createConnection({ port: Number(port), host: '127.0.0.1', noDelay: true });
  // Until asked, the connection does not hold the process open (a hook that ends without asking exits).
  conn.unref();
  let buf = Buffer.alloc(0);
  let ended = false;
  let wake: () => void = () => undefined;
  conn.on('data', (c: Buffer) => {
    buf = Buffer.concat([buf, c]);
    if (buf.length > MAX_ANSWER_BYTES) conn.destroy();
    wake();
  });
  conn.on('close', () => {
    ended = true;
    wake();
  });
  conn.on('error', () => undefined);
  /** The next line (the engine's `.` acknowledgements skipped) or, with `n`, the next `n` bytes; null at the deadline or the end. */
  const take = (deadline: number, n?: number) =>
    new Promise<Buffer | null>((resolve) => {
      const done = (v: Buffer | null) => {
        clearTimeout(timer);
        wake = () => undefined;
        resolve(v);
      };
      const check = () => {
        if (n === undefined) while (buf[0] === 0x2e) buf = buf.subarray(1);
        const end = n ?? buf.indexOf(0x0a);
        const skip = n === undefined ? 1 : 0;
        if (end >= 0 && buf.length >= end + skip) {
          done(buf.subarray(0, end));
          buf = buf.subarray(end + skip);
        } else if (ended) done(null);
      };
      const timer = setTimeout(() => done(null), Math.max(0, deadline - Date.now()));
      wake = check;
      check();
    });
  conn.write(`${clientToken}\n`);
  // 1. The engine proves itself before anything of the run is sent.
  const proven = take(started + PROOF_WAIT_MS).then((line) => line?.toString('latin1') === engineToken);
  let answer: Promise<ResidentAnswer> | undefined;
  const run = async (r: HookRun): Promise<ResidentAnswer> => {
    const limit = started + (timeoutMs ?? answerWaitMs(r.event));
    // The input ends with a NUL: one inside (the agents' JSON holds none) is the hook's to run.
    if (r.stdin.includes('\0') || !(await proven)) return UNAVAILABLE;
    // 2. The run, as hook.sh sends it; the engine says `go`, or `again`/`busy`/nothing: the hook runs it itself.
    const env = Object.entries(r.env).flatMap(([k, v]) => (v === undefined || k.includes('=') || k === '' ? [] : [`${k}=${v}`]));
    conn.write([DOOR_VERSION, door.clientDir, r.agent, r.event, r.cwd, ...env, ''].map((f) => `${f}\0`).join(''));
    const go = await take(Math.min(limit, Date.now() + GO_WAIT_MS));
    if (go?.toString('latin1') !== 'go') return UNAVAILABLE;
    // 3. The input: from here on the engine may act on it, never run here again.
    conn.write(`${r.stdin}\0`);
    const head = (await take(limit))?.toString('latin1') ?? '';
    const counts = /^rawr-answer (\d+) (\d+)$/.exec(head);
    if (!counts) return { kind: 'lost', why: head || (ended ? 'the connection closed without an answer' : `no answer in ${limit - started} ms`) };
    const out = Number(counts[1]);
    const body = await take(limit, out + Number(counts[2]));
    if (!body) return { kind: 'lost', why: 'an answer cut short' };
    const stderr = body.subarray(out).toString('utf8');
    const output: HookEventOutput = { stdout: body.subarray(0, out).toString('utf8'), stderr: stderr ? stderr.replace(/\n$/, '').split('\n') : [] };
    // 4. Said once printed: only then does the engine record what it gave the model.
    const printed = () => new Promise<void>((resolve) => conn.end(PRINTED, () => resolve()).once('error', () => resolve()));
    return { kind: 'answer', output, printed };
  };
  return {
    ask(r) {
      conn.ref();
      answer ??= run(r).then((a) => {
        if (a.kind !== 'answer') conn.destroy();
        return a;
      });
      return answer;
    },
  };
}

/**
 * Takes `lockFile` for this process (one engine per build: a second one started by a racing hook exits),
 * created exclusively with this pid and the build key; a lock whose pid is gone (SIGKILL) is replaced.
 */
export function engineLock(lockFile: string, key: string): (() => void) | null {
  const mine = `${process.pid} ${key}\n`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockFile, mine, { flag: 'wx', mode: 0o600 });
      return () => {
        if (ownFile(lockFile) === mine) fs.rmSync(lockFile, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || alive(lockFile)) return null;
      fs.rmSync(lockFile, { force: true });
    }
  }
  return null;
}

/** Whether the lock's pid is a live process (a lock that cannot be read counts as held: never two engines). */
function alive(lockFile: string): boolean {
  try {
    const pid = Number(fs.readFileSync(lockFile, 'utf8').split(' ')[0]);
    return Number.isInteger(pid) && pid > 0 && process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Starts the resident engine for the hook.sh in `clientDir`, in its own session, holding none of the hook's
 * stdio (Claude Code waits for the hook's output to close); it exits where one already runs (engineLock).
 */
export function startResident(entry: string, clientDir: string, cacheDir: string): void {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { spawn } = require('node:child_process') as typeof import('node:child_process');
    const child = spawn(process.execPath, [entry, RESIDENT_FLAG, clientDir], { detached: true, stdio: 'ignore', cwd: cacheDir });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    /* the next hook runs the engine itself again */
  }
}

/** A short file-name key (FNV-1a, 2 × 32 bits): a name, not a secret (the folder is the user's own). */
export function fnv1a(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x01000197) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}
