/**
 * The resident hook engine (why: ./resident.ts): `node dist/hook.js --rawr-hook-server <socket>`,
 * started by a hook. It loads the hook engine once and answers hook runs on a Unix socket, one at a
 * time, each exactly as a hook process would run it: the same function (hookEventOutput), with the
 * hook's environment and working folder in place while it runs. It holds nothing between runs (every
 * run reads the session's state from disk, as a process does) and exits after `RAWR_HOOK_SERVER_IDLE_MS`
 * (default 5 minutes) without a run, on a bad socket, or when another engine already answers there.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as z from 'zod';
import { HOOK_EVENTS } from '../../core/hooks/shared/events';
import type { HookEngine, HookEventOutput, RunHandoffs, TcpDoor, TcpDoorOptions } from './types';
import { openTcpDoor, PRINTED_WAIT_MS } from './door';
import { AGAIN } from './resident';

const IDLE_MS = 5 * 60_000;
/**
 * The longest a run waits for the run before it: then its client runs it itself (the Node hook, beside
 * this engine), with time to spare before the shortest installed hook timeout (10 s).
 */
export const CLAIM_WAIT_MS = 1_500;

/** A request carries one hook input (capped at 16 MB by the hook) and its environment. */
const MAX_REQUEST_BYTES = 24 * 1024 * 1024;

const Request = z.object({
  v: z.literal(1),
  agent: z.enum(['claude', 'codex']),
  event: z.enum(HOOK_EVENTS),
  stdin: z.string(),
  env: z.record(z.string(), z.string()),
  cwd: z.string(),
});

export interface ServeOptions {
  idleMs?: number;
  /** What ends the process: exit (the resident engine); a test closes its server instead. */
  exit?: (server: net.Server) => void;
  /** Also answer the bash hook client (./door.ts) for the hook.sh in `tcp.clientDir`. */
  tcp?: TcpDoorOptions;
}

type Request = z.infer<typeof Request>;

export function serveHooks(socket: string, engine: Pick<HookEngine, 'hookEventOutput'>, o: ServeOptions = {}): net.Server {
  // A hook process parses a few inputs once and runs zod jitless (engine.ts); this process parses
  // every hook's input and transcript records for minutes, where zod's compiled parsers pay off.
  z.config({ jitless: false });
  const idleMs = o.idleMs ?? idleFromEnv();
  const exitWith = o.exit ?? (() => process.exit(0));
  const exit = (s: net.Server) => {
    door?.close();
    exitWith(s);
  };
  let door: TcpDoor | null = null;
  let idle: NodeJS.Timeout | undefined;
  // What keeps the engine up: connections with a run on its way and runs queued or running. The idle
  // timer runs only when there is none (an engine that idled out mid-run would lose that run's answer).
  let busy = 0;
  const hold = () => {
    busy++;
    armIdle(false);
  };
  const release = () => {
    busy = Math.max(0, busy - 1);
    if (busy === 0) armIdle(true);
  };
  // One run at a time, from either door: each owns the process's environment and folder while it runs.
  // A run waits for its turn CLAIM_WAIT_MS at most; then its client runs it itself, beside this engine
  // (one session's slow first read must not starve another session's handoff: issue 30). A run is
  // claimed only when it starts, and only while its client is still there to print its answer.
  const waiting: Array<() => void> = [];
  let running = false;
  const next = () => {
    if (!running) waiting.shift()?.();
  };
  /** `start(done)` once the slot is this run's (done() frees it), or `expire()` after `waitMs`. */
  const claim = (waitMs: number, start: (done: () => void) => void, expire: () => void) => {
    const turn = () => {
      clearTimeout(timer);
      running = true;
      start(() => {
        running = false;
        next();
      });
    };
    const timer = setTimeout(() => {
      const at = waiting.indexOf(turn);
      if (at >= 0) waiting.splice(at, 1);
      expire();
    }, waitMs);
    waiting.push(turn);
    next();
  };
  // The answer is out before the writes that do not change it (the steering state and log), which still
  // come before the next run. `reply` is true once the hook said it printed the answer: only then is
  // what it gave the model recorded as given (a hook killed before that claims nothing: issue 30).
  const runNow = async (request: Request | null, reply: (out: HookEventOutput) => Promise<boolean>, done: () => void) => {
    const after: Array<() => void> = [];
    const records: Array<() => void> = [];
    try {
      const out = await runOne(engine, request, { later: (work) => after.push(work), delivered: (record) => records.push(record) });
      const delivered = await reply(out);
      for (const work of delivered ? [...records, ...after] : after) {
        try {
          work();
        } catch {
          /* as a hook process that failed there: the next run reads the state it finds (steerState.ts) */
        }
      }
    } finally {
      done();
      release();
    }
  };
  const server = net.createServer({ allowHalfOpen: true }, (conn) => {
    hold();
    // The request ends with a newline, and the hook keeps its side open while it waits: its end (the
    // hook exited, or was killed at its timeout) is seen here, and a run it no longer waits for is not run.
    let gone = false;
    let taken = false;
    conn.once('end', () => {
      gone = true;
      // An incomplete request: nothing to run.
      if (!taken) conn.destroy();
    });
    conn.once('close', () => {
      gone = true;
      release();
    });
    const chunks: Buffer[] = [];
    let size = 0;
    conn.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_REQUEST_BYTES) return conn.destroy();
      // After the request: the hook's word that it printed the answer (a line).
      if (taken) return void (c.includes(0x0a) && conn.emit(PRINTED));
      chunks.push(c);
      if (c.includes(0x0a)) {
        taken = true;
        take(conn, Buffer.concat(chunks).toString('utf8'), () => gone);
      }
    });
    conn.on('error', () => undefined);
  });
  const take = (conn: net.Socket, text: string, gone: () => boolean) => {
    // A hook came the Node way: the bash clients' door may have lost its file (door.ts refresh).
    door?.refresh();
    const request = parseRequest(text);
    hold();
    claim(
      CLAIM_WAIT_MS,
      (done) => {
        // Its hook is gone (killed at its timeout): not run, so nothing of it is claimed.
        if (!gone()) {
          // Its turn, said at once: a hook that hears nothing from a stopped engine runs the event itself (resident.ts).
          conn.write('go\n');
          return void runNow(request, (out) => answerAndWait(conn, `${JSON.stringify(out)}\n`, gone), done);
        }
        conn.destroy();
        done();
        release();
      },
      // The hook runs it itself (resident.ts: "again" is "unavailable").
      () => {
        conn.end(AGAIN);
        release();
      },
    );
  };
  const armIdle = (on: boolean) => {
    if (idle) clearTimeout(idle);
    idle = on ? setTimeout(() => server.close(() => exit(server)), idleMs) : undefined;
  };
  server.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EADDRINUSE') return exit(server);
    // Another engine answers there, or one that exited left its socket file: only the second is replaced.
    const probe = net.createConnection(socket);
    probe.on('connect', () => {
      probe.destroy();
      exit(server);
    });
    probe.on('error', () => {
      try {
        if (fs.lstatSync(socket).isSocket()) fs.rmSync(socket, { force: true });
        server.listen(socket);
      } catch {
        exit(server);
      }
    });
  });
  server.on('close', () => door?.close());
  server.listen(socket, () => {
    try {
      fs.chmodSync(socket, 0o600);
    } catch {
      /* the folder is the user's alone (resident.ts residentSocket) */
    }
    // Only the engine that holds the socket opens the bash client's door (its file names one engine).
    if (o.tcp) {
      door = openTcpDoor(o.tcp, {
        offer(run, ticket) {
          const request = checked({ ...run, stdin: '' });
          if (!request) return ticket.again();
          // Waiting, then said "go": the engine must not idle out while the input is on its way.
          hold();
          claim(
            CLAIM_WAIT_MS,
            (done) => {
              const freed = () => {
                done();
                release();
              };
              if (!ticket.go((stdin, reply) => void runNow({ ...request, stdin }, reply, done), freed)) freed();
            },
            () => {
              ticket.busy();
              release();
            },
          );
        },
      });
    }
    if (busy === 0) armIdle(true);
  });
  return server;
}

/** What the socket's connection emits when its hook says it printed the answer. */
const PRINTED = 'rawr-printed';

/**
 * Writes a Node hook's answer (a line) and waits for its word that it printed it: true then; false when
 * it is gone or silent for PRINTED_WAIT_MS (killed, stopped). The connection ends either way.
 */
function answerAndWait(conn: net.Socket, answer: string, gone: () => boolean): Promise<boolean> {
  return new Promise((resolve) => {
    const settle = (printed: boolean) => {
      clearTimeout(timer);
      conn.off(PRINTED, onPrinted).off('close', onGone);
      conn.end();
      resolve(printed);
    };
    const onPrinted = () => settle(true);
    const onGone = () => settle(false);
    const timer = setTimeout(onGone, PRINTED_WAIT_MS);
    if (gone()) return onGone();
    conn.on(PRINTED, onPrinted).once('close', onGone);
    conn.write(answer);
  });
}

function parseRequest(text: string): Request | null {
  try {
    return Request.parse(JSON.parse(text));
  } catch {
    return null;
  }
}

/** The bash client's request, checked as the socket's is. */
function checked(request: Omit<Request, 'v' | 'agent' | 'event'> & { agent: string; event: string }): Request | null {
  const r = Request.safeParse({ v: 1, ...request });
  return r.success ? r.data : null;
}

async function runOne(engine: Pick<HookEngine, 'hookEventOutput'>, request: Request | null, run: RunHandoffs): Promise<HookEventOutput> {
  if (!request) {
    return { stdout: '', stderr: ['rawr hooks: the resident hook engine got a request it does not read (a different rawr?); nothing done'] };
  }
  const { agent, event, stdin, env, cwd } = request;
  const savedEnv = { ...process.env };
  const savedCwd = process.cwd();
  try {
    replaceEnv(env);
    try {
      process.chdir(cwd);
    } catch {
      /* a hook's folder that is gone: the run works from absolute paths (its input names them) */
    }
    return await engine.hookEventOutput(agent, event, stdin, env, run);
  } finally {
    replaceEnv(savedEnv);
    try {
      process.chdir(savedCwd);
    } catch {
      /* ours is the socket's folder */
    }
  }
}

function replaceEnv(env: Record<string, string | undefined>): void {
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
  for (const [k, v] of Object.entries(env)) if (v !== undefined) process.env[k] = v;
}

function idleFromEnv(): number {
  const v = Number(process.env.RAWR_HOOK_SERVER_IDLE_MS);
  return Number.isFinite(v) && v > 0 ? v : IDLE_MS;
}
