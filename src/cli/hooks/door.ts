/**
 * The resident hook engine's one door (./server.ts listens on it), for the bash hook client (./hook.sh)
 * and the Node hook (./resident.ts) alike: loopback TCP, since bash has /dev/tcp and no Unix sockets.
 * Another user can reach a loopback port, so the door opens only to whoever can read the file it writes
 * in rawr's per-user cache folder (0600 in a folder that is the user's alone): the client sends the
 * file's first token; the engine proves itself with the second before the client sends anything else
 * (a program that took the port of an engine that has exited gets nothing but a dead token).
 *
 * Protocol, one run per connection, each step answered before the client sends the next:
 *   1. `<client token>\n` → `<engine token>\n`;
 *   2. the run: NUL-separated fields `rawr-hook 3`, the client's folder, agent, event, working folder,
 *      `NAME=value` environment entries, an empty field → `go\n`; or `again\n` when this engine does
 *      not run it (another copy's folder, a rebuilt rawr, a run it cannot read: the client runs the Node
 *      hook, its input unread); or `busy\n` past CLAIM_WAIT_MS behind another run (server.ts: the Node
 *      hook runs the event alone, beside the engine);
 *   3. the hook input ended by a NUL (the agents' JSON holds none) → `rawr-answer <stdout bytes>
 *      <stderr bytes>\n`, stdout and stderr;
 *   4. `printed\n` once the client printed them → the end. Only then does the engine record what the
 *      answer gave the model (server.ts runNow); a client killed before leaves it for the next hook
 *      (issue 30: no claim without delivery).
 * Before an answer, a `.` per chunk read (server.ts).
 */
import * as crypto from 'node:crypto';
import type * as net from 'node:net';
import { PRINTED } from './resident';
import type { HookEventOutput } from './types';

/** A request carries one hook input (the Node hook caps it at 16 MB) and its environment. */
const MAX_REQUEST_BYTES = 24 * 1024 * 1024;
/** The longest the engine waits for `printed` (a client says it at once): silent, it gave the model nothing as far as the engine knows. */
const PRINTED_WAIT_MS = 3_000;
/** Version, folder, agent, event, working folder. */
const HEADER_FIELDS = 5;

/**
 * Writes the answer (step 3) and waits for the client's `printed` (step 4): true then; false when the
 * client is gone or silent for PRINTED_WAIT_MS (killed, stopped). The connection ends either way.
 */
export function answer(conn: net.Socket, out: HookEventOutput): Promise<boolean> {
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
  | { kind: 'run'; version: string; clientDir: string; run: { agent: string; event: string; cwd: string; env: Record<string, string> } }
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
