/**
 * The hook transport's types, in one place: what a hook event prints, what a hook hands the resident
 * engine and what comes back (./resident.ts, ./door.ts), the engine's interface as the entries load it
 * (./entry.ts, ./main.ts) and the door's options (./door.ts). Types only: importing this loads nothing.
 */
import type { HookEvent } from '../../core/hooks/shared/events';

/** What one hook event prints: stdout for the agent, lines for stderr. */
export interface HookEventOutput {
  stdout: string;
  stderr: string[];
}

/** What a hook sends: its event, its input and the environment and folder it runs in. */
export interface ResidentRequest {
  agent: 'claude' | 'codex';
  event: HookEvent;
  stdin: string;
  env: Record<string, string | undefined>;
  cwd: string;
}

/** `printed()`: the hook printed the answer; the engine then records what it gave the model (server.ts). */
export type ResidentAnswer = { kind: 'answer'; output: HookEventOutput; printed(): Promise<void> } | { kind: 'unavailable' } | { kind: 'lost'; why: string };

export interface HookEngine {
  runHookEvent(agent: 'claude' | 'codex', event: HookEvent, stdin: string): Promise<number>;
  /** The same run, its output returned (the resident engine answers with it: server.ts). */
  hookEventOutput(
    agent: 'claude' | 'codex',
    event: HookEvent,
    stdin: string,
    env: Record<string, string | undefined>,
    run?: RunHandoffs,
  ): Promise<HookEventOutput>;
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

/** Where the resident hook engine answers (resident.ts), and how to start it there. */
export interface Resident {
  door: DoorAddress;
  start(): void;
}

export interface TcpDoorOptions {
  /** rawr's per-user cache folder (main.ts rawrCacheDir). */
  cacheDir: string;
  /** The folder of the hook.sh this engine answers, as the hook commands name it (the client sends it). */
  clientDir: string;
  /** False once this engine's code changed on disk (a rebuilt or upgraded rawr): it answers "again". */
  current(): boolean;
}

/** A run as the client sent it (step 2), before the engine checks it (server.ts Request). */
export interface TcpRun {
  agent: string;
  event: string;
  env: Record<string, string>;
  cwd: string;
}

export interface TcpDoor {
  /** The door's listening server: its close ends the engine (server.ts). */
  server: import('node:net').Server;
  /** Stops listening and removes the door's file (when it is still this door's). */
  close(): void;
  /**
   * Writes the door's file again where it is not this door's any more (an engine for the same folder
   * that exited removed it, racing this one's rename): bash clients would otherwise miss this engine.
   */
  refresh(): void;
}
