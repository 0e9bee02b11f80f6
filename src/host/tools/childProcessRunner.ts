/**
 * The terminal tool's fallback (terminalRunner.ts): a command in `sh -c` in a child process, for a shell
 * that never activates shell integration (unit-tested with real processes).
 *
 * Bounded like the terminal: the answer comes when the shell exits — not when its output pipes close,
 * which a background process that inherited them (`setsid sleep 40 & echo started`) can keep open for as
 * long as it lives — plus a short grace for the last output. At the timeout or on cancel, and whenever
 * something still holds the output open after that grace, the command's process group is killed (it is
 * spawned as its own group) and so, on Linux, is every process that still holds its output pipes (a
 * `setsid` one has left the group): nothing the command started keeps running unseen, and the next
 * command never waits on it.
 */
import * as cp from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { stripAnsi } from '../signals/terminalSource';
import { capText } from './fileText';

/** Output characters returned to the model (head + tail). */
export const MAX_OUTPUT_CHARS = 30_000;
/** After the shell exits, how long its output may still arrive before whatever holds it open is stopped. */
export const EXIT_GRACE_MS = 500;
/** After a kill, how long to wait for the shell's exit before answering anyway. */
export const KILL_GRACE_MS = 2_000;

/** Environment for the agent's commands: no pager, no editor, no credential prompts that would wait forever. */
export const AGENT_ENV: Record<string, string> = { GIT_PAGER: 'cat', PAGER: 'cat', GIT_EDITOR: 'true', GIT_TERMINAL_PROMPT: '0', CI: '1' };

export interface CommandResult {
  exitCode: number | undefined;
  output: string;
  /** 'timeout' | 'cancelled' when rawr interrupted the command. */
  interrupted?: 'timeout' | 'cancelled';
  via: 'terminal' | 'process';
}

/** What the runner needs of a cancellation token (vscode's, structurally). */
export interface Cancellable {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => unknown): { dispose(): unknown };
}

/** The variable that marks every process a command starts (inherited by all it starts in turn). */
export const RUN_MARKER = 'RAWR_AGENT_RUN';

/**
 * The processes (other than this one) whose environment carries `RAWR_AGENT_RUN=<id>`: everything one
 * command started, even after a `setsid` or a double fork took it out of the process group (the way
 * Jenkins finds a build's leftovers). Linux only (/proc); an empty list elsewhere. Only our own user's
 * processes are readable, and only they can have been started by the command.
 */
export async function markedProcesses(id: string): Promise<number[]> {
  if (process.platform !== 'linux') return [];
  const mark = Buffer.from(`${RUN_MARKER}=${id}\0`);
  const pids = (await fs.readdir('/proc').catch(() => [] as string[])).filter((d) => /^\d+$/.test(d) && Number(d) !== process.pid);
  const found: number[] = [];
  await Promise.all(
    pids.map(async (pid) => {
      const env = await fs.readFile(`/proc/${pid}/environ`).catch(() => undefined);
      // The mark may be the first variable (no NUL before it).
      if (env && (env.includes(Buffer.concat([Buffer.from([0]), mark])) || env.subarray(0, mark.length).equals(mark))) found.push(Number(pid));
    }),
  );
  return found;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone, or not ours
  }
}

/** Runs `command` with `sh -c` (cmd.exe on Windows) in `cwd`; never rejects for the command's own failure. */
export function runInChildProcess(command: string, cwd: string, timeoutMs: number, token: Cancellable): Promise<CommandResult> {
  return new Promise((resolve) => {
    const posix = process.platform !== 'win32';
    const shell = posix ? '/bin/sh' : (process.env.ComSpec ?? 'cmd.exe');
    const args = posix ? ['-c', command] : ['/d', '/s', '/c', command];
    const id = randomUUID();
    const env = { ...process.env, ...AGENT_ENV, [RUN_MARKER]: id };
    const child = cp.spawn(shell, args, { cwd, env, detached: posix, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const add = (d: Buffer) => {
      out += d.toString('utf8');
      if (out.length > 4 * MAX_OUTPUT_CHARS) out = out.slice(0, MAX_OUTPUT_CHARS) + out.slice(-MAX_OUTPUT_CHARS);
    };
    child.stdout.on('data', add);
    child.stderr.on('data', add);

    let interrupted: CommandResult['interrupted'];
    let exitCode: number | undefined;
    let settled = false;
    let leftovers = 0;
    const timers: NodeJS.Timeout[] = [];

    /** The command's process group, then every process it started that left the group (setsid, double fork). */
    const stopEverything = async () => {
      if (child.pid && posix) killQuietly(-child.pid);
      else child.kill('SIGKILL');
      // Again until none is left: one may have forked between the look and the kill.
      for (let round = 0; round < 3; round++) {
        const marked = await markedProcesses(id);
        if (marked.length === 0) break;
        for (const pid of marked) killQuietly(pid);
        leftovers += marked.length;
      }
    };
    const settle = () => {
      if (settled) return;
      settled = true;
      timers.forEach(clearTimeout);
      sub.dispose();
      child.stdout.destroy();
      child.stderr.destroy();
      const note = leftovers
        ? `\n[rawr stopped ${leftovers} process${leftovers === 1 ? '' : 'es'} the command left running in the background (a command's background processes end with it)]`
        : '';
      resolve({
        exitCode: interrupted ? undefined : exitCode,
        output: capText(stripAnsi(out), MAX_OUTPUT_CHARS) + note,
        ...(interrupted ? { interrupted } : {}),
        via: 'process',
      });
    };
    const interrupt = (why: 'timeout' | 'cancelled') => {
      if (settled || interrupted) return;
      interrupted = why;
      void stopEverything().finally(() => timers.push(setTimeout(settle, KILL_GRACE_MS)));
    };

    timers.push(setTimeout(() => interrupt('timeout'), timeoutMs));
    const sub = token.onCancellationRequested(() => interrupt('cancelled'));
    if (token.isCancellationRequested) interrupt('cancelled');
    child.on('error', (err) => {
      out += `\n${err.message}`;
      exitCode = 127;
      settle();
    });
    // Every stdio stream closed: nothing more can arrive.
    child.on('close', settle);
    child.on('exit', (code) => {
      exitCode = code ?? undefined;
      if (interrupted) return; // the kill's own grace settles it
      timers.push(
        setTimeout(() => {
          if (settled) return;
          // The shell is gone but its output is still open: a background process holds it.
          void stopEverything().finally(settle);
        }, EXIT_GRACE_MS),
      );
    });
  });
}
