/**
 * The resident hook engine (why: ./resident.ts): `node dist/hook.js --rawr-hook-server <client folder>`,
 * started by a hook. It loads the hook engine once and answers hook runs through its one door (./door.ts),
 * one at a time, each exactly as a hook process would run it (hookEventOutput, with the hook's environment
 * and working folder in place). It holds nothing between runs (each reads the session's state from disk,
 * as a process does) and exits after `RAWR_HOOK_SERVER_IDLE_MS` (default 5 minutes) without a run.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import * as z from 'zod';
import { HOOK_EVENTS } from '../../core/hooks/shared/events';
import { answer, requestReader } from './door';
import { DOOR_VERSION, ownDir, ownFile, tcpFile } from './resident';
import type { HookEngine, HookEventOutput, HookRun, ServeOptions } from './types';

const IDLE_MS = 5 * 60_000;
/** How often the engine checks its door file is still there (an exiting engine for the same folder, racing its rename, may have removed it). */
const REFRESH_MS = 2_000;
/** The longest a run waits for its turn: then its client runs it itself, well within the shortest installed timeout (10 s). */
const CLAIM_WAIT_MS = 1_500;
/** From a connection's start to its run (steps 1, 2), however its bytes trickle in: one restarted on every byte let a connection stay for ever. */
const HANDSHAKE_MS = 3_000;
/** From "go" to the input's end (step 3): the client sends it at once (at most 5 s of reading its own stdin). */
const INPUT_MS = 6_000;
/** Connections not yet proven with the client token: past this many, a new one is closed (its hook falls back), so nobody can use up the descriptors. */
const MAX_UNPROVEN = 16;

/**
 * Listens on a loopback port and writes the door's file (resident.ts tcpFile). Null, and `exit`, when
 * there is no door to open (a cache folder not the user's alone, a name too long for a file).
 */
export function serveHooks(engine: Pick<HookEngine, 'hookEventOutput'>, o: ServeOptions): net.Server | null {
  const exitWith = o.exit ?? (() => process.exit(0));
  const file = tcpFile(o.door.cacheDir, o.door.clientDir);
  if (!ownDir(o.door.cacheDir) || Buffer.byteLength(path.basename(file)) > 250) {
    exitWith(null);
    return null;
  }
  // A hook process parses a few inputs once and runs zod jitless (engine.ts); this process parses
  // every hook's input and transcript records for minutes, where zod's compiled parsers pay off.
  z.config({ jitless: false });
  const fromEnv = Number(process.env.RAWR_HOOK_SERVER_IDLE_MS);
  const idleMs = o.idleMs ?? (Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : IDLE_MS);
  let idle: NodeJS.Timeout | undefined;
  const armIdle = (on: boolean) => {
    if (idle) clearTimeout(idle);
    idle = on ? setTimeout(() => server.close(), idleMs) : undefined;
  };
  // One run at a time (each owns the process's environment and folder), waiting CLAIM_WAIT_MS at most: one
  // session's slow first read must not starve another session's handoff (issue 30). The idle timer runs
  // only when no run waits, has its input on the way or runs (idling out mid-run would lose its answer).
  const waiting: Array<() => void> = [];
  let running = false;
  const next = () => {
    if (running) return;
    const turn = waiting.shift();
    if (turn) turn();
    else armIdle(true);
  };
  /** `start(done)` once the slot is this run's (done() frees it), or `expire()` after CLAIM_WAIT_MS. */
  const claim = (start: (done: () => void) => void, expire: () => void) => {
    armIdle(false);
    const turn = () => {
      clearTimeout(timer);
      running = true;
      start(() => {
        running = false;
        next();
      });
    };
    const timer = setTimeout(() => {
      waiting.splice(waiting.indexOf(turn), 1);
      expire();
      next();
    }, CLAIM_WAIT_MS);
    waiting.push(turn);
    next();
  };
  // The answer is out before the writes that do not change it (the steering state and log), which still
  // come before the next run. `reply` is true once the hook said `printed`: only then is what it gave the
  // model recorded as given (issue 30).
  const runNow = async ({ agent, event, stdin, env, cwd }: HookRun, reply: (out: HookEventOutput) => Promise<boolean>, done: () => void) => {
    const after: Array<() => void> = [];
    const records: Array<() => void> = [];
    const saved = { env: { ...process.env }, cwd: process.cwd() };
    try {
      enter(env, cwd);
      const run = engine.hookEventOutput(agent, event, stdin, env, { later: (work) => after.push(work), delivered: (record) => records.push(record) });
      const out = await run.finally(() => enter(saved.env, saved.cwd));
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
    }
  };

  const clientToken = Buffer.from(crypto.randomBytes(16).toString('hex'));
  const engineToken = crypto.randomBytes(16).toString('hex');
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
    // The run that said "go", its slot held until its input arrives (or its client leaves: the slot is freed).
    let waiting: { request: Omit<HookRun, 'stdin'>; done: () => void } | null = null;
    conn.on('close', () => {
      prove();
      clearTimeout(deadline);
      waiting?.done();
      waiting = null;
    });
    const turnBack = (word: string) => {
      clearTimeout(deadline);
      conn.off('data', onData);
      if (!conn.destroyed) conn.end(word);
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
        case 'run': {
          clearTimeout(deadline);
          const { version, clientDir, run } = step;
          const known = RunKind.safeParse(run);
          if (version !== DOOR_VERSION || clientDir !== o.door.clientDir || !o.door.current() || !known.success) return turnBack('again\n');
          // Its turn, then "go" only while its client is still there (gone: nothing claimed), or "busy".
          claim(
            (done) => {
              if (conn.destroyed) return done();
              waiting = { request: { ...run, ...known.data }, done };
              deadline = setTimeout(() => conn.destroy(), INPUT_MS);
              conn.write('go\n');
            },
            () => turnBack('busy\n'),
          );
          return;
        }
        case 'input': {
          conn.off('data', onData);
          clearTimeout(deadline);
          const w = waiting;
          waiting = null;
          if (!w) return conn.destroy();
          void runNow({ ...w.request, stdin: step.stdin }, (out) => answer(conn, out), w.done);
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

  let content = '';
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
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (!address || typeof address === 'string') return server.close();
    content = `${address.port} ${clientToken.toString()} ${engineToken}\n`;
    write();
  });
  const refresh = setInterval(() => {
    if (content && !fs.existsSync(file)) write();
  }, REFRESH_MS).unref();
  server.once('close', () => {
    clearInterval(refresh);
    if (idle) clearTimeout(idle);
    // Only this door's: a newer engine for the same folder may have written its own since.
    if (content && ownFile(file) === content) fs.rmSync(file, { force: true });
    exitWith(server);
  });
  armIdle(true);
  return server;
}

/** The door reads strings: a run's agent and event must be ones rawr knows (its folder and environment are strings as they are). */
const RunKind = z.object({ agent: z.enum(['claude', 'codex']), event: z.enum(HOOK_EVENTS) });

/** Puts a run's environment and folder in place (a folder that is gone: the run works from absolute paths, its input names them). */
function enter(env: HookRun['env'], cwd: string): void {
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
  for (const [k, v] of Object.entries(env)) if (v !== undefined) process.env[k] = v;
  try {
    process.chdir(cwd);
  } catch {
    /* see above */
  }
}
