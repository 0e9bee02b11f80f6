/**
 * The resident hook engine (why: ./resident.ts): `node dist/hook.js --rawr-hook-server <client folder>`,
 * started by a hook. It loads the hook engine once and answers hook runs through its one door (./door.ts:
 * the bash client and the Node hook speak the same protocol), one at a time, each exactly as a hook
 * process would run it: the same function (hookEventOutput), with the hook's environment and working
 * folder in place while it runs. It holds nothing between runs (every run reads the session's state from
 * disk, as a process does) and exits after `RAWR_HOOK_SERVER_IDLE_MS` (default 5 minutes) without a run,
 * or when its door cannot open (one engine per build: resident.ts engineLock).
 */
import type * as net from 'node:net';
import * as z from 'zod';
import { HOOK_EVENTS } from '../../core/hooks/shared/events';
import type { HookEngine, HookEventOutput, RunHandoffs, TcpDoor, TcpDoorOptions } from './types';
import { openTcpDoor } from './door';

const IDLE_MS = 5 * 60_000;
/** How often the engine checks its door file is still there (a newer engine for the same folder that exited may have removed it). */
const REFRESH_MS = 2_000;
/**
 * The longest a run waits for the run before it: then its client runs it itself (the Node hook, beside
 * this engine), with time to spare before the shortest installed hook timeout (10 s).
 */
export const CLAIM_WAIT_MS = 1_500;

const Request = z.object({
  agent: z.enum(['claude', 'codex']),
  event: z.enum(HOOK_EVENTS),
  stdin: z.string(),
  env: z.record(z.string(), z.string()),
  cwd: z.string(),
});
type Request = z.infer<typeof Request>;

export interface ServeOptions {
  idleMs?: number;
  /** What ends the process: exit (the resident engine); a test closes its server instead. */
  exit?: (server: net.Server | null) => void;
  /** The door (its folder, the hook.sh folder it answers, whether this engine's code is still current). */
  door: TcpDoorOptions;
}

export function serveHooks(engine: Pick<HookEngine, 'hookEventOutput'>, o: ServeOptions): net.Server | null {
  // A hook process parses a few inputs once and runs zod jitless (engine.ts); this process parses
  // every hook's input and transcript records for minutes, where zod's compiled parsers pay off.
  z.config({ jitless: false });
  const idleMs = o.idleMs ?? idleFromEnv();
  const exitWith = o.exit ?? (() => process.exit(0));
  let idle: NodeJS.Timeout | undefined;
  // What keeps the engine up: runs waiting, their input on its way, or running. The idle timer runs
  // only when there is none (an engine that idled out mid-run would lose that run's answer).
  let busy = 0;
  const hold = () => {
    busy++;
    armIdle(false);
  };
  const release = () => {
    busy = Math.max(0, busy - 1);
    if (busy === 0) armIdle(true);
  };
  // One run at a time: each owns the process's environment and folder while it runs. A run waits for
  // its turn CLAIM_WAIT_MS at most; then its client runs it itself, beside this engine (one session's
  // slow first read must not starve another session's handoff: issue 30). A run is claimed only when it
  // starts, and only while its client is still there to print its answer.
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
  const runNow = async (request: Request, reply: (out: HookEventOutput) => Promise<boolean>, done: () => void) => {
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
  const door: TcpDoor | null = openTcpDoor(o.door, {
    offer(run, ticket) {
      const checked = Request.safeParse({ ...run, stdin: '' });
      if (!checked.success) return ticket.again();
      const request = checked.data;
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
  if (!door) {
    exitWith(null);
    return null;
  }
  const server = door.server;
  const armIdle = (on: boolean) => {
    if (idle) clearTimeout(idle);
    idle = on ? setTimeout(() => server.close(), idleMs) : undefined;
  };
  const refresh = setInterval(() => door.refresh(), REFRESH_MS).unref();
  server.once('close', () => {
    clearInterval(refresh);
    if (idle) clearTimeout(idle);
    door.close();
    exitWith(server);
  });
  armIdle(true);
  return server;
}

async function runOne(engine: Pick<HookEngine, 'hookEventOutput'>, request: Request, run: RunHandoffs): Promise<HookEventOutput> {
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
      /* ours is the cache folder */
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
