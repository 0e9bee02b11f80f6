/**
 * The agent hooks' fast entry: `rawr hooks <claude|codex> <Event>` as Claude Code and Codex run it, on
 * every prompt and (PostToolUse) after every tool call. Loads only node built-ins and the light state
 * helpers (core/hooks/shared/fastPath.ts, store.ts) until it knows there is something to do:
 *   1. Node's compile cache is turned on (Node ≥ 22.1), so what is loaded next is not compiled again;
 *   2. the hook input is read from stdin (size cap, time limit);
 *   3. the fast exit: a PostToolUse / UserPromptSubmit / SessionStart with nothing pending for the
 *      session (fastPath.ts nothingToDo) exits 0 with no output, as the full run would;
 *   4. otherwise the resident engine answers (./resident.ts), or the hook engine (./event.ts: zod, the
 *      prompts, the arbiter, the importers) is loaded and runs the hook here.
 * Used by ../main.ts (the compiled CLI: the engine is ./event.ts) and by entry.ts (dist/hook.js).
 */
import * as fs from 'node:fs';
import type * as NodeModule from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import type { HookEvent } from '../../core/hooks/shared/events';
import { mayExitFast, nothingToDo } from '../../core/hooks/shared/fastPath';
import type { DoorAddress, HookEngine, HookEventOutput } from './types';
import { connectResident } from './resident';
import { readStdin, stdinAbandoned, writeFd } from './stdio';
import { noteUntrustedCache, untrustedCacheNotes, untrustedTree } from '../../core/io/ownedCache';

/** Prints a hook's output; false when its stdout could not be written (nobody reads it: nothing delivered). */
export function writeHookOutput(out: HookEventOutput): boolean {
  writeFd(2, out.stderr.map((line) => `${line}\n`).join(''));
  return writeFd(1, out.stdout);
}

/**
 * rawr's per-user cache folder (a shared temp folder would let another user plant cached code or
 * settings): `$XDG_CACHE_HOME/rawr` or `~/.cache/rawr` (`%LOCALAPPDATA%\rawr` on Windows). Holds Node's
 * compile cache (`compile-cache/`) and the hooks' parsed prompt sets (`prompt-sets/`, core/prompts/cache.ts).
 */
export function rawrCacheDir(env: Record<string, string | undefined> = process.env): string {
  const { LOCALAPPDATA: local, XDG_CACHE_HOME: xdg } = env;
  if (process.platform === 'win32' && local && path.isAbsolute(local)) return path.join(local, 'rawr');
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache'), 'rawr');
}

/** A cache rawr ignores because another user could have written it, said on this hook's stderr (once per process). */
export function sayUntrusted(root: string, why: string): void {
  noteUntrustedCache(root, why);
  writeHookOutput({ stdout: '', stderr: untrustedCacheNotes() });
}

/** Turns on Node's module compile cache (Node ≥ 22.1); a no-op on older Node, never throws. */
export function enableCompileCache(): void {
  // Node < 22.1 has none: node:module is not loaded there just to find that out.
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (major < 22 || (major === 22 && minor < 1)) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const enable = (require('node:module') as typeof NodeModule & { enableCompileCache?: (dir?: string) => unknown }).enableCompileCache;
  if (typeof enable !== 'function' || process.env.NODE_DISABLE_COMPILE_CACHE) return;
  try {
    // Node runs what it finds there: only a cache no other user could have written (issue 30).
    const root = rawrCacheDir();
    fs.mkdirSync(root, { recursive: true, mode: 0o700 });
    const dir = path.join(root, 'compile-cache');
    const why = untrustedTree(root, dir);
    if (why !== null) return sayUntrusted(root, why);
    enable(dir);
  } catch {
    /* a cache is an optimisation only */
  }
}

/**
 * One hook run. With `resident` (the bundled hooks entry), a run the fast exit does not answer goes to the
 * resident engine; where none answers, it runs here and starts one. Always 0: a hook never blocks the agent.
 */
export async function hookProcess(
  argv: ['claude' | 'codex', HookEvent, ...string[]],
  engine: () => HookEngine,
  resident?: () => { door: DoorAddress; start(): void } | null,
): Promise<number> {
  enableCompileCache();
  const [agent, event] = argv;
  const lost = process.env[LOST_ANSWER_ENV];
  if (lost) {
    // hook.sh's lost answer (LOST_ANSWER_ENV): the verdict only; the engine is not asked, nothing is run.
    writeHookOutput(await lostAnswer(agent, event, await readStdin(), lost, engine));
    return 0;
  }
  const input = readStdin();
  // An event the fast exit never answers (PreCompact: before every model request while rawr defers)
  // connects to the resident engine while its input is being read (in libuv's worker thread).
  const early = resident && !mayExitFast(event) ? resident() : null;
  const opened = early && connectResident(early.door);
  const stdin = await input;
  if (nothingToDo(agent, event, stdin, process.env)) return 0;
  const there = early ?? resident?.() ?? null;
  if (there) {
    const answer = await (opened || connectResident(there.door)).ask({ agent, event, stdin, env: process.env, cwd: process.cwd() });
    switch (answer.kind) {
      case 'answer':
        // Said only once printed: the engine records what it gave the model then (never if not: issue 30).
        if (writeHookOutput(answer.output)) await answer.printed();
        answered = true;
        return 0;
      case 'lost':
        // Not run again here: the resident engine may have acted on it (resident.ts).
        writeHookOutput(await lostAnswer(agent, event, stdin, answer.why, engine));
        return 0;
      case 'unavailable':
        break;
    }
  }
  try {
    return await engine().runHookEvent(agent, event, stdin);
  } catch (err) {
    writeFd(2, `rawr hooks ${agent} ${event}: ${(err as Error).message.replace(/\s+/g, ' ')}; nothing done\n`);
    return 0;
  } finally {
    there?.start();
  }
}

/**
 * Set by hook.sh when the engine took an automatic PreCompact and never answered: this process only
 * gives the verdict for a lost answer (lostAnswer), with the reason as its value; it never asks the engine.
 */
export const LOST_ANSWER_ENV = 'RAWR_HOOK_LOST_ANSWER';

/**
 * What a hook prints when the resident engine took its input and no answer came (`why`). Not run again
 * (the engine may have acted on it): nothing, and a line on stderr — except Claude Code's PreCompact, where
 * nothing reads as "allow" and would compact at rawr's early ask line without rawr's decision: there the
 * verdict from the transcript's tail decides (event.ts lostPreCompactOutput: a refusal only where rawr's
 * own steering may refuse, never at the emergency line, Claude Code's blocking level or a reactive compaction).
 */
export async function lostAnswer(agent: 'claude' | 'codex', event: HookEvent, stdin: string, why: string, engine: () => HookEngine): Promise<HookEventOutput> {
  if (agent === 'claude' && event === 'PreCompact') return engine().lostPreCompactOutput(stdin, why, process.env);
  return { stdout: '', stderr: [`rawr hooks ${agent} ${event}: the resident hook engine did not answer (${why}); nothing done`] };
}

/**
 * Ends a hook process with `code` once its output is written. A stdin read given up at its time limit is
 * still blocked in a libuv worker thread, which Node's exit waits for: that process ends by SIGKILL (only
 * an agent that never closes the hook's stdin gets there; it reads a failed hook and goes on).
 */
export function finishHook(code: number): void {
  process.exitCode = code;
  if (stdinAbandoned()) process.kill(process.pid, 'SIGKILL');
  // The engine's answer is written: exiting now skips the environment's teardown (~2 ms of a hook run before every model request).
  else if (answered) process.exit(code);
}

/** The resident engine's answer was written (hookProcess): the process has nothing else to finish. */
let answered = false;
