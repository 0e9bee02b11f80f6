/**
 * The hook's side of the resident hook engine (./server.ts). Claude Code runs the steering
 * PreCompact hook before every model request once its context is over the threshold, each time a new
 * process; Node's own start is most of the budget on a slow machine (~100 ms measured here), so loading
 * the hook engine (zod, the importers, the arbiter) again in every one misses the target (p95 < 150 ms).
 * The first hook run that needs the engine runs it itself, then starts one resident engine for this
 * build of rawr; later runs hand their input to it over a Unix socket in rawr's per-user cache folder and
 * print its answer. The resident engine runs each event exactly as a hook process would (the same
 * function, the hook's environment and folder), one at a time, and exits after a few idle minutes.
 *
 * Never a change of behaviour, only of where the work runs: no socket, a refused connection, a folder
 * other users can enter, Windows (no Unix sockets), or RAWR_HOOK_SERVER=0 → the hook runs itself as
 * before. A connection lost after the input was sent is not run again (the resident engine may have
 * acted on it): the hook prints nothing, which Claude Code reads as "go on", and says so on stderr.
 */
import * as fs from 'node:fs';
import type * as Net from 'node:net';
import * as path from 'node:path';
import { RESIDENT_FLAG } from './command';
import type { HookEventOutput, ResidentAnswer, ResidentRequest } from './types';

/** Linux and macOS cap a socket path near 104-108 bytes. */
const MAX_SOCKET_PATH = 100;
/** The engine's answer to a run it will not run (busy with another): the hook runs it itself. */
export const AGAIN = '{"again":true}';

/**
 * The longest a hook waits for the engine, counted from the hook process's start: below the timeout
 * rawr installs (core/hooks/shared/hooksConfig.ts: PreCompact 30 s, the others 10 s), so the hook
 * always ends on its own, never killed by Claude Code in the middle of a run the engine then finishes.
 */
export function answerWaitMs(event: string, uptimeMs = process.uptime() * 1000): number {
  return Math.max(500, (event === 'PreCompact' ? 25_000 : 8_000) - uptimeMs);
}
/** The longest a hook waits for the engine to start its run (it says `go`): longer than CLAIM_WAIT_MS (server.ts), under the shortest installed timeout. */
const GO_WAIT_MS = 3_000;
/** An answer is a hook's output: small. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/**
 * The socket of the resident engine for `engineFile` as it is now (a rebuilt or upgraded rawr gets a
 * new one; the old engine idles out), or null where there is none: off, Windows, a path too long, or a
 * cache folder that is not this user's alone.
 */
export function residentSocket(cacheDir: string, engineFile: string, env: Record<string, string | undefined> = process.env): string | null {
  if (env.RAWR_HOOK_SERVER === '0' || process.platform === 'win32' || typeof process.getuid !== 'function') return null;
  try {
    const st = fs.statSync(engineFile);
    const socket = path.join(cacheDir, `hooks-${fnv1a(`${process.version}\0${engineFile}\0${st.size}\0${st.mtimeMs}`)}.sock`);
    if (Buffer.byteLength(socket) > MAX_SOCKET_PATH) return null;
    fs.mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    const dir = fs.lstatSync(cacheDir);
    // Whoever can enter the folder can talk to the engine, which acts as this user: the folder must be ours alone.
    if (!dir.isDirectory() || dir.uid !== process.getuid() || (dir.mode & 0o077) !== 0) return null;
    return socket;
  } catch {
    return null;
  }
}

/** Hands one hook run to the resident engine at `socket`. Never rejects. */
export function askResident(socket: string, request: ResidentRequest, timeoutMs = answerWaitMs(request.event)): Promise<ResidentAnswer> {
  return connectResident(socket, timeoutMs).ask(request);
}

/** A connection to the resident engine, opened before the hook's input is read (main.ts). */
export interface ResidentConnection {
  /** Sends the run (once) and waits for its answer. Never rejects. */
  ask(request: ResidentRequest): Promise<ResidentAnswer>;
}

/**
 * Opens a connection to the resident engine at `socket` at once, so that loading node:net and
 * connecting (~6 ms) overlap the read of the hook's input. Nothing is sent before `ask`: a connection
 * that is never asked holds nothing open and runs nothing.
 */
export function connectResident(socket: string, timeoutMs?: number): ResidentConnection {
  const chunks: Buffer[] = [];
  let size = 0;
  let connected = false;
  let sent = false;
  let settled: ResidentAnswer | undefined;
  let resolveAnswer: ((a: ResidentAnswer) => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let request: ResidentRequest | undefined;
  let answer: Promise<ResidentAnswer> | undefined;
  let goTimer: NodeJS.Timeout | undefined;
  // Loaded here, not with the hooks entry: a hook the fast exit answers never needs it (~5 ms).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const conn = (require('node:net') as typeof Net).createConnection(socket);
  // Until asked, the connection does not hold the process open (a hook that ends without asking exits).
  conn.unref();
  const finish = (a: ResidentAnswer) => {
    if (settled) return;
    settled = a;
    clearTimeout(timer);
    clearTimeout(goTimer);
    // An answer keeps the connection for printed(); anything else ends it.
    if (a.kind !== 'answer') conn.destroy();
    resolveAnswer?.(a);
  };
  const send = () => {
    if (!connected || !request || sent || settled) return;
    sent = true;
    // Ended by a newline (JSON text holds none), the connection kept open: the engine sees this hook
    // leave (its timeout) and then does not run what it no longer waits for (server.ts).
    conn.write(`${JSON.stringify(request)}\n`);
  };
  conn.on('connect', () => {
    connected = true;
    send();
  });
  // The answer is a line; the connection stays open for the hook's word that it printed it.
  const printed = () =>
    new Promise<void>((resolve) => {
      conn.once('error', () => resolve());
      conn.end('printed\n', () => resolve());
    });
  // `go\n` when the run starts, then the answer's line.
  let going = false;
  conn.on('data', (c: Buffer) => {
    size += c.length;
    if (size > MAX_ANSWER_BYTES) return finish({ kind: 'lost', why: 'an answer larger than a hook prints' });
    chunks.push(c);
    if (!c.includes(0x0a) || !sent) return;
    const text = Buffer.concat(chunks).toString('utf8');
    if (!going && text.startsWith('go\n')) {
      going = true;
      clearTimeout(goTimer);
    }
    const line = going ? text.slice(3) : text;
    if (!line.includes('\n')) return;
    const output = parseAnswer(line);
    finish(output ? { kind: 'answer', output, printed } : { kind: 'lost', why: 'an answer it does not read' });
  });
  conn.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    // Closed before anything was sent (an engine on its way out), or not taken (busy): the hook runs itself.
    finish(!sent || text === AGAIN ? { kind: 'unavailable' } : { kind: 'lost', why: 'the connection closed without an answer' });
  });
  // Before the request is sent: no engine there (ENOENT, ECONNREFUSED: a stale socket of one that exited).
  conn.on('error', (err) => finish(sent ? { kind: 'lost', why: err.message } : { kind: 'unavailable' }));
  return {
    ask(r) {
      if (answer) return answer;
      if (settled) return (answer = Promise.resolve(settled));
      request = r;
      conn.ref();
      answer = new Promise((resolve) => {
        resolveAnswer = resolve;
        const wait = timeoutMs ?? answerWaitMs(r.event);
        timer = setTimeout(() => finish(sent ? { kind: 'lost', why: `no answer in ${Math.round(wait)} ms` } : { kind: 'unavailable' }), wait);
        send();
        // No word of the run starting (a stopped or hung engine; a busy one says so in 1.5 s): the hook
        // runs the event itself, and the engine, which sees this connection closed, never runs it.
        goTimer = setTimeout(() => !going && finish({ kind: 'unavailable' }), Math.min(GO_WAIT_MS, wait));
      });
      return answer;
    },
  };
}

/** The resident engine's answer, checked by hand (the hook's side loads no zod: it must stay light). */
function parseAnswer(text: string): HookEventOutput | null {
  try {
    const v = JSON.parse(text) as { stdout?: unknown; stderr?: unknown };
    if (typeof v.stdout !== 'string' || !Array.isArray(v.stderr) || !v.stderr.every((l) => typeof l === 'string')) return null;
    return { stdout: v.stdout, stderr: v.stderr as string[] };
  } catch {
    return null;
  }
}

/**
 * Starts the resident engine for `socket`: `node <entry> --rawr-hook-server <socket> [<clientDir>]`
 * (clientDir: the folder of the bash client it also answers, door.ts), in its own
 * session, holding none of the hook's stdio (Claude Code waits for the hook's output to close).
 */
export function startResident(entry: string, socket: string, clientDir?: string): void {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { spawn } = require('node:child_process') as typeof import('node:child_process');
    const child = spawn(process.execPath, [entry, RESIDENT_FLAG, socket, ...(clientDir ? [clientDir] : [])], {
      detached: true,
      stdio: 'ignore',
      cwd: path.dirname(socket),
    });
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
