/**
 * The hook transport's types, in one place: what a hook event prints, what a hook hands the resident
 * engine and what comes back, the engine as the entries load it and its options. Loads nothing.
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
  /** Claude Code's PreCompact whose answer the resident engine never gave (`why`): the verdict from the transcript's tail only (event.ts). */
  lostPreCompactOutput(stdin: string, why: string, env: HookRun['env']): Promise<HookEventOutput>;
}

/**
 * What a run hands its caller to do after its answer (core/hooks/shared/run.ts HookRunOptions): `later`, writes
 * that do not change the answer; `delivered`, the records that what it printed was given (only once it was: issue 30).
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
  /**
   * The door: in rawr's per-user cache folder (main.ts rawrCacheDir), for the hook.sh folder as the hook commands name
   * it; `current()` false once this engine's code changed on disk (a rebuilt or upgraded rawr): it answers "again".
   */
  door: { cacheDir: string; clientDir: string; current(): boolean };
}
