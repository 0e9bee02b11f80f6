/**
 * The resident hook engine's one door, for the bash hook client (./hook.sh, why there) and the Node hook
 * (./resident.ts connectResident) alike: loopback TCP, since bash has /dev/tcp and no Unix sockets. Another user on the machine can reach a loopback port, so the
 * door opens only to whoever can read the file it writes in rawr's per-user cache folder (mode 0600 in
 * a folder that is the user's alone): the client sends the file's first token; the engine then proves
 * itself with the second before the client sends anything else (a program that took the port of an
 * engine that has exited gets nothing but a dead token).
 *
 * Protocol, one run per connection, each step answered before the client sends the next:
 *   1. `<client token>\n` → `<engine token>\n`;
 *   2. the run: NUL-separated fields `rawr-hook 3`, the client's folder, agent, event, working folder,
 *      then `NAME=value` environment entries ended by an empty field → `go\n`, or `again\n` when this
 *      engine does not run it (another copy's folder, a rebuilt rawr, a run it cannot read): the client
 *      then runs the Node hook itself, its input still unread; or `busy\n` when the engine is busy with
 *      another run past CLAIM_WAIT_MS (server.ts): the Node hook then runs the event alone, beside it;
 *   3. the hook input ended by a NUL (the agents' JSON holds none) → `rawr-answer <stdout bytes>
 *      <stderr bytes>\n`, stdout and stderr;
 *   4. `printed\n` once the client printed them → the end of the connection. Only then does the engine
 *      record as given what the answer gave the model (the handoff's claim: server.ts runNow); a client
 *      killed before leaves it for the next hook (issue 30: no claim without delivery).
 * Before an answer, a `.` per chunk read (see onData).
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { DOOR_VERSION, PRINTED, tcpFile } from './resident';
import type { HookEventOutput, TcpDoor, TcpDoorOptions, TcpRun } from './types';

/**
 * From a connection's start to its run (steps 1 and 2), however its bytes trickle in: a deadline that
 * restarted on every byte let a connection sending one byte every 4 s stay for ever (issue 30).
 */
const HANDSHAKE_MS = 3_000;
/** From "go" to the input's end (step 3): the client sends it at once (at most 5 s of reading its own stdin). */
const INPUT_MS = 6_000;
/**
 * Connections that have not proven they know the client token: past this many, a new one is closed at
 * once (its hook falls back to the Node hook), so nobody can use up the engine's descriptors.
 */
const MAX_UNPROVEN = 16;
/** A request carries one hook input (the Node hook caps it at 16 MB) and its environment. */
const MAX_REQUEST_BYTES = 24 * 1024 * 1024;
/**
 * The longest the engine waits for a hook's word that it printed the answer (it comes at once: the hook
 * writes its stdout and says so; the Node hook too, resident.ts). A hook that does not say it in
 * time gave the model nothing as far as the engine knows: what it printed stays pending and the next
 * hook gives it (at least once, never lost).
 */
export const PRINTED_WAIT_MS = 3_000;
/** Version, folder, agent, event, working folder. */
const HEADER_FIELDS = 5;

/** How the engine takes a run the door read (server.ts). */
export interface DoorRuns {
  /**
   * Step 2 read: the engine answers through `ticket` — `go` once it runs this run now (its input is
   * then read and handed to `start`; `abandon` if the client leaves before it is complete), `again`
   * when it will not (the client then runs the Node hook with its input unread). `go` is false when the
   * client is gone already: nothing was claimed.
   */
  offer(run: TcpRun, ticket: DoorTicket): void;
}

export interface DoorTicket {
  go(start: (stdin: string, reply: (out: HookEventOutput) => Promise<boolean>) => void, abandon: () => void): boolean;
  again(): void;
  /** Busy with another run: the client runs the event itself, without asking this engine again. */
  busy(): void;
}

/**
 * Listens on a loopback port and writes the door's file; the runs that pass its checks go to `runs`.
 * Null when there is no door to open (a cache folder not the user's alone, a name too long for a file).
 */
export function openTcpDoor(o: TcpDoorOptions, runs: DoorRuns): TcpDoor | null {
  if (typeof process.getuid !== 'function') return null;
  const file = tcpFile(o.cacheDir, o.clientDir);
  if (Buffer.byteLength(path.basename(file)) > 250) return null;
  try {
    const dir = fs.lstatSync(o.cacheDir);
    if (!dir.isDirectory() || dir.uid !== process.getuid() || (dir.mode & 0o077) !== 0) return null;
  } catch {
    return null;
  }
  const clientToken = Buffer.from(crypto.randomBytes(16).toString('hex'));
  const engineToken = crypto.randomBytes(16).toString('hex');
  let content = '';
  let unproven = 0;
  const server = net.createServer((conn) => {
    conn.on('error', () => undefined);
    if (unproven >= MAX_UNPROVEN) return conn.destroy();
    unproven++;
    let proven = false;
    const prove = () => {
      if (!proven) unproven--;
      proven = true;
    };
    // Each step's answer must leave at once (Nagle's algorithm would hold it for an acknowledgement).
    conn.setNoDelay(true);
    let deadline = setTimeout(() => conn.destroy(), HANDSHAKE_MS);
    const read = requestReader(clientToken);
    let closed = false;
    let waiting: { start: (stdin: string, reply: (out: HookEventOutput) => Promise<boolean>) => void; abandon: () => void } | null = null;
    conn.on('close', () => {
      closed = true;
      prove();
      clearTimeout(deadline);
      const w = waiting;
      waiting = null;
      w?.abandon();
    });
    const turnBack = (word: string) => {
      clearTimeout(deadline);
      conn.off('data', onData);
      if (!closed) conn.end(word);
    };
    const ticket: DoorTicket = {
      go(start, abandon) {
        if (closed) return false;
        waiting = { start, abandon };
        clearTimeout(deadline);
        deadline = setTimeout(() => conn.destroy(), INPUT_MS);
        conn.write('go\n');
        return true;
      },
      again: () => turnBack('again\n'),
      busy: () => turnBack('busy\n'),
    };
    const onData = (chunk: Buffer) => {
      const step = read(chunk);
      switch (step.kind) {
        case 'more':
          // Bash writes a step in several writes and cannot turn Nagle's algorithm off: each write after
          // the first waits for the acknowledgement of the one before, which a receiver delays (~40 ms on
          // Linux) unless it sends data. A byte per chunk carries it at once; the client skips these.
          if (step.ack) conn.write('.');
          return;
        case 'prove':
          prove();
          conn.write(`${engineToken}\n`);
          return;
        case 'refuse':
          conn.destroy();
          return;
        case 'run':
          clearTimeout(deadline);
          // Waiting for the engine: CLAIM_WAIT_MS at most (server.ts), then "go" or "again".
          if (step.version === DOOR_VERSION && step.clientDir === o.clientDir && o.current()) runs.offer(step.run, ticket);
          else ticket.again();
          return;
        case 'input': {
          conn.off('data', onData);
          clearTimeout(deadline);
          const w = waiting;
          waiting = null;
          if (!w) return conn.destroy();
          w.start(step.stdin, (out) => answer(conn, out));
          return;
        }
        default: {
          const never: never = step;
          return never;
        }
      }
    };
    conn.on('data', onData);
  });
  server.on('error', () => server.close());
  const write = () => {
    const tmp = `${file}.${process.pid}.tmp`;
    try {
      fs.writeFileSync(tmp, content, { mode: 0o600 });
      fs.renameSync(tmp, file);
    } catch {
      fs.rmSync(tmp, { force: true });
      server.close();
    }
  };
  const mine = () => {
    try {
      return fs.readFileSync(file, 'utf8') === content;
    } catch {
      return false;
    }
  };
  let closed = false;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (!address || typeof address === 'string') return server.close();
    content = `${address.port} ${clientToken.toString()} ${engineToken}\n`;
    write();
  });
  return {
    server,
    close() {
      closed = true;
      server.close();
      // Only this door's: a newer engine for the same folder may have written its own since.
      if (content && mine()) fs.rmSync(file, { force: true });
    },
    refresh() {
      if (content && !closed && !fs.existsSync(file)) write();
    },
  };
}

/**
 * Writes the answer (step 3) and waits for the client's `printed` (step 4): true then; false when the
 * client is gone or silent for PRINTED_WAIT_MS (killed, stopped). The connection ends either way.
 */
function answer(conn: net.Socket, out: HookEventOutput): Promise<boolean> {
  return new Promise((resolve) => {
    if (conn.destroyed) return resolve(false);
    let said = '';
    const settle = (printed: boolean) => {
      clearTimeout(timer);
      conn.off('data', onData).off('close', onGone);
      conn.end();
      resolve(printed);
    };
    const onData = (chunk: Buffer) => {
      said += chunk.toString('latin1');
      if (said.includes('\n')) settle(said === PRINTED);
    };
    const onGone = () => settle(false);
    const timer = setTimeout(onGone, PRINTED_WAIT_MS);
    conn.on('data', onData).once('close', onGone);
    // Bash cannot hold a NUL byte: the byte count must be of what it will print.
    const stdout = out.stdout.replace(/\0/g, '');
    const stderr = out.stderr.map((line) => `${line.replace(/\0/g, '')}\n`).join('');
    conn.write(`rawr-answer ${Buffer.byteLength(stdout)} ${Buffer.byteLength(stderr)}\n${stdout}${stderr}`);
  });
}

type ReadStep =
  | { kind: 'more'; ack: boolean }
  | { kind: 'prove' }
  | { kind: 'refuse' }
  | { kind: 'run'; version: string; clientDir: string; run: TcpRun }
  | { kind: 'input'; stdin: string };

/**
 * The steps of one connection, read as its chunks arrive (see the file comment). A client sends each
 * step only once the one before was answered: bytes past the end of a step are a protocol error.
 */
export function requestReader(clientToken: Buffer): (chunk: Buffer) => ReadStep {
  let phase: 'token' | 'run' | 'input' | 'done' = 'token';
  let pending: Buffer[] = [];
  let size = 0;
  const fields: string[] = [];
  return (chunk) => {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES || phase === 'done') return { kind: 'refuse' };
    switch (phase) {
      case 'token': {
        const nl = chunk.indexOf(0x0a);
        const head = Buffer.concat([...pending, nl < 0 ? chunk : chunk.subarray(0, nl)]);
        if (head.length > clientToken.length) return { kind: 'refuse' };
        if (nl < 0) {
          pending.push(chunk);
          return { kind: 'more', ack: false };
        }
        if (nl + 1 < chunk.length || head.length !== clientToken.length || !crypto.timingSafeEqual(head, clientToken)) return { kind: 'refuse' };
        pending = [];
        phase = 'run';
        return { kind: 'prove' };
      }
      case 'run': {
        let start = 0;
        for (let nul = chunk.indexOf(0); nul >= 0; start = nul + 1, nul = chunk.indexOf(0, start)) {
          const field = Buffer.concat([...pending, chunk.subarray(start, nul)]).toString('utf8');
          pending = [];
          fields.push(field);
          if (fields.length > HEADER_FIELDS && field === '') {
            if (nul + 1 < chunk.length) return { kind: 'refuse' };
            phase = 'input';
            return runOf(fields);
          }
        }
        pending.push(chunk.subarray(start));
        return { kind: 'more', ack: true };
      }
      case 'input': {
        const nul = chunk.indexOf(0);
        if (nul < 0) {
          pending.push(chunk);
          return { kind: 'more', ack: true };
        }
        phase = 'done';
        return { kind: 'input', stdin: Buffer.concat([...pending, chunk.subarray(0, nul)]).toString('utf8') };
      }
      default: {
        const never: never = phase;
        return never;
      }
    }
  };
}

function runOf(fields: string[]): ReadStep {
  const [version, clientDir, agent, event, cwd] = fields as [string, string, string, string, string];
  const env: Record<string, string> = {};
  for (const entry of fields.slice(HEADER_FIELDS, -1)) {
    const eq = entry.indexOf('=');
    if (eq <= 0) return { kind: 'refuse' };
    env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return { kind: 'run', version, clientDir, run: { agent, event, cwd, env } };
}
