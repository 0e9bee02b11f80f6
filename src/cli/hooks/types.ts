/**
 * The hook transport's types, in one place: what a hook event prints, what a hook hands the resident
 * engine and what comes back (./resident.ts, ./server.ts), the engine's interface as the entries load
 * it (./entry.ts, ./main.ts) and its options. Types only: importing this loads nothing.
 */
import type { HookEvent } from '../../core/hooks/shared/events';

/** What one hook event prints: stdout for the agent, lines for stderr. */
export interface HookEventOutput {
  stdout: string;
  stderr: string[];
}

/** One hook run: its event, its input and the environment and folder it runs in (the door carries all of it). */
export interface HookRun {
  agent: 'claude' | 'codex';
  event: HookEvent;
  stdin: string;
  env: Record<string, string | undefined>;
  cwd: string;
}

/** `printed()`: the hook printed the answer; the engine then records what it gave the model (server.ts). */
export type ResidentAnswer = { kind: 'answer'; output: HookEventOutput; printed(): Promise<void> } | { kind: 'unavailable' } | { kind: 'lost'; why: string };

export interface HookEngine {
  runHookEvent(agent: HookRun['agent'], event: HookEvent, stdin: string): Promise<number>;
  /** The same run, its output returned (the resident engine answers with it: server.ts). */
  hookEventOutput(agent: HookRun['agent'], event: HookEvent, stdin: string, env: HookRun['env'], run?: RunHandoffs): Promise<HookEventOutput>;
}

/**
 * What a run hands its caller to do after its answer (core/hooks/shared/run.ts HookRunOptions): `later`,
 * writes that do not change the answer, once it is out; `delivered`, the records that what it printed
 * for the model was given, once the hook has printed it (never when it did not: issue 30).
 */
export interface RunHandoffs {
  later?: (work: () => void) => void;
  delivered?: (record: () => void) => void;
}

/** Where a hook finds the resident engine's door (resident.ts residentDoor): its file and the hook.sh folder it answers. */
export interface DoorAddress {
  file: string;
  clientDir: string;
}

export interface ServeOptions {
  idleMs?: number;
  /** What ends the process: exit (the resident engine); a test closes its server instead. */
  exit?: (server: import('node:net').Server | null) => void;
  door: {
    /** rawr's per-user cache folder (main.ts rawrCacheDir). */
    cacheDir: string;
    /** The folder of the hook.sh this engine answers, as the hook commands name it (the client sends it). */
    clientDir: string;
    /** False once this engine's code changed on disk (a rebuilt or upgraded rawr): it answers "again". */
    current(): boolean;
  };
}
