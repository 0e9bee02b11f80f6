/**
 * The core client's lifecycle as an object with states (issue 32): it owns the connection to the rawr
 * core process, moves through the states of coreLifecycle.ts (starting → running → restarting → running
 * …, or in_process, or disposed) on what the connection reports, and routes every CoreApi request by
 * the state it finds:
 *
 *   starting, restarting  the request waits (up to READY_TIMEOUT_MS) for a process to run;
 *   running               it is sent; if the connection is lost under it (the process died with the
 *                         request in flight) it waits for the next process and is sent once more, with
 *                         the same request id, so a write the dead process had already logged is answered
 *                         from the log rather than applied twice;
 *   in_process            it is answered by the arbiter in the extension host (localCore) on the same
 *                         logs, for good (the process could not start, kept exiting, or its connection
 *                         kept failing);
 *   disposed              it fails (the window is closing), and so do the requests still waiting.
 *
 * A restarted process rebuilds each thread from its log on first use and gets the last configure()d
 * settings in its initializationOptions, so a crash loses nothing. What the connection is — a
 * vscode-languageclient LanguageClient in the extension (coreClient.ts), the same server forked over
 * vscode-jsonrpc in the unit tier — is the CoreConnection port below; this file does not load either.
 */
import { loadPromptSet, type PromptSet } from '../../core/prompts/promptSet';
import { CORE_METHODS, type CoreApi } from '../../core/protocol/coreProtocol';
import { clientApi } from './clientApi';
import { initialLifecycle, routeOf, transition, type CoreLifecycle, type CoreLifecycleEvent, type CoreTransition } from './coreLifecycle';
import { localCore } from './localCore';

/** How long a request waits for the core process to (re)start before failing. */
export const READY_TIMEOUT_MS = 30_000;

/** What the connection reports: a process starting, running, stopped, or one that could not be started. */
export type ConnectionState = 'starting' | 'running' | 'stopped' | 'start_failed';

/** A connection to the core process, restarting it when the supervisor says so (ConnectionPolicy). */
export interface CoreConnection {
  readonly state: ConnectionState;
  onDidChangeState(listener: (state: ConnectionState) => void): { dispose(): void };
  /** Starts the first process; resolves once it runs and is initialized. */
  start(): Promise<void>;
  sendRequest<R>(method: string, params: object): Promise<R>;
  /** Stops the process for good (one starting is stopped once it runs: no orphan left serving). */
  stop(): Promise<void>;
}

/** What the connection asks the supervisor: the answers come from the lifecycle's transitions. */
export interface ConnectionPolicy {
  /** The process exited (or its connection closed): restart it? */
  closed(): 'restart' | 'do_not_restart';
  /** An error on the connection: go on, or shut the process down? */
  error(error: Error): 'continue' | 'shutdown';
  /** The process answered initialize with an error. */
  initializationFailed(error: unknown): void;
  /** What a (re)started process gets in its initialize request: evaluated at every start. */
  initializationOptions(): object;
}

/** Where the supervisor's own lines go. Logging must never change what the core does: a line that cannot be written is dropped. */
export interface CoreLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface CoreHandle extends CoreApi {
  /** 'process' while the core process serves requests; 'in-process' after a fallback to localCore. */
  readonly mode: 'process' | 'in-process';
  dispose(): unknown;
}

/** Errors that mean "the connection went away", not "the server answered with an error". */
export function isConnectionLoss(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  const code = e?.code;
  // PendingResponseRejected, ConnectionInactive (JSON-RPC); ConnectionErrors.Closed / Disposed.
  if (code === -32097 || code === -32096) return true;
  const message = typeof e?.message === 'string' ? e.message : '';
  if ((code === 1 || code === 2) && /connection/i.test(message)) return true;
  return /connection (is|got) (closed|disposed)|client is not running|pending response rejected|starting server failed/i.test(message);
}

/**
 * A write to a process whose end of the IPC channel is already gone (it died; its exit has not been seen
 * yet): the connection is lost, not failing. Node reports it as EPIPE (a write in flight) or
 * ERR_IPC_CHANNEL_CLOSED (a send after the disconnect).
 */
export function isClosedPipe(error: Error): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EPIPE' || code === 'ERR_IPC_CHANNEL_CLOSED' || /\bEPIPE\b|channel closed/i.test(error.message);
}

const messageOf = (err: unknown): string => (err as Error)?.message ?? String(err);

export class CoreSupervisor implements CoreHandle {
  private life: CoreLifecycle = initialLifecycle();
  private connection: CoreConnection | undefined;
  private stateSub: { dispose(): void } | undefined;
  private local: CoreApi | undefined;
  private lastConfig: PromptSet | undefined;
  /** Requests waiting for a process (or a fallback, or disposal): woken at every change of state. */
  private readonly waiters = new Set<() => void>();
  private readonly sent: CoreApi;

  readonly apply: CoreApi['apply'];
  readonly undo: CoreApi['undo'];
  readonly snapshot: CoreApi['snapshot'];
  readonly listThreads: CoreApi['listThreads'];
  readonly exportLog: CoreApi['exportLog'];
  readonly pid: CoreApi['pid'];

  constructor(
    private readonly logDir: string,
    private readonly promptDirs: readonly string[],
    private readonly log: CoreLog,
  ) {
    this.sent = clientApi((name, params, viaLocal) => this.request(name, params, viaLocal));
    ({ apply: this.apply, undo: this.undo, snapshot: this.snapshot, listThreads: this.listThreads, exportLog: this.exportLog, pid: this.pid } = this.sent);
  }

  /** The lifecycle's state now (starting, running, restarting, in_process, disposed). */
  get phase(): CoreLifecycle['phase'] {
    return this.life.phase;
  }

  /** How many processes have come up (1 the first, 2 after one restart…). */
  get generation(): number {
    return this.life.generation;
  }

  get mode(): 'process' | 'in-process' {
    return this.local ? 'in-process' : 'process';
  }

  /** The configuration is remembered for a restarted process's initializationOptions (and the fallback). */
  configure(config: PromptSet): Promise<void> {
    this.lastConfig = config;
    return this.sent.configure(config);
  }

  /**
   * Starts the first process on a connection made with this supervisor's policy; if it does not run
   * within `timeoutMs`, or fails, everything runs in-process from then on.
   */
  async start(connect: (policy: ConnectionPolicy) => CoreConnection, opts: { timeoutMs: number; server: string }): Promise<void> {
    const connection = connect(this.policy());
    this.connection = connection;
    this.stateSub = connection.onDidChangeState((state) => this.onConnectionState(state));
    try {
      await withTimeout(connection.start(), opts.timeoutMs, 'starting the rawr core process');
      const pid = await connection.sendRequest<number>(CORE_METHODS.pid, {});
      this.log.info(`rawr core process running (pid ${pid}, ${opts.server})`);
    } catch (err) {
      this.stateSub.dispose();
      this.stateSub = undefined;
      this.startInProcess(messageOf(err));
      void connection.stop();
    }
  }

  /** No process at all (it cannot be started, or failed to): the arbiter runs in the extension host. */
  startInProcess(why: string): void {
    this.move({ type: 'start_failed', why }, 'quiet'); // inProcess says it, once
    this.inProcess(why);
    this.wake();
  }

  dispose(): Promise<void> | undefined {
    if (this.life.phase === 'disposed') return undefined;
    this.move({ type: 'dispose' });
    this.wake();
    this.stateSub?.dispose();
    return this.connection?.stop();
  }

  // ---- transitions ---------------------------------------------------------------------------------

  private move(e: CoreLifecycleEvent, quiet?: 'quiet'): CoreTransition {
    const t = transition(this.life, e);
    this.life = t.state;
    if (t.log && !quiet) this.log[t.log.level](t.log.text);
    return t;
  }

  private policy(): ConnectionPolicy {
    return {
      // The client's own error count is not used: the IPC writer adds two per failed write and resets it on a good one.
      error: (error) =>
        this.move({ type: 'connection_error', closedPipe: isClosedPipe(error), message: error.message }).action === 'shutdown' ? 'shutdown' : 'continue',
      closed: () => (this.move({ type: 'exited', at: Date.now() }).action === 'restart' ? 'restart' : 'do_not_restart'),
      initializationFailed: (err) => this.log.error(`rawr core process failed to initialize: ${messageOf(err)}`),
      initializationOptions: () => ({ logDir: this.logDir, promptDirs: this.promptDirs, ...(this.lastConfig ? { config: this.lastConfig } : {}) }),
    };
  }

  private onConnectionState(state: ConnectionState): void {
    switch (state) {
      case 'running':
        this.move({ type: 'started' });
        if (this.life.generation > 1 && this.connection) {
          this.connection.sendRequest<number>(CORE_METHODS.pid, {}).then(
            (pid) => this.log.info(`rawr core process restarted (pid ${pid})`),
            () => undefined,
          );
        }
        break;
      case 'start_failed':
        this.move({ type: 'start_failed', why: 'it could not be restarted' });
        break;
      case 'starting':
      case 'stopped':
        // Seen through the policy (closed, error): the connection reports them before or after it asks.
        break;
      default: {
        const unknown: never = state;
        throw new Error(`unknown connection state ${String(unknown)}`);
      }
    }
    this.wake();
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  // ---- requests ------------------------------------------------------------------------------------

  private inProcess(why: string): CoreApi {
    if (!this.local) {
      this.log.error(`rawr core process unavailable (${why}); running the arbiter in-process on the same logs`);
      // Before the first configure() (which activation sends right after starting the core) the built-in
      // texts serve: the extension host reads no prompt file synchronously.
      this.local = localCore(this.logDir, this.lastConfig ?? loadPromptSet([]));
    }
    return this.local;
  }

  /** Resolves when a process newer than generation `after` runs (or the fallback serves). */
  private ready(after: number): Promise<'process' | 'in-process'> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const route = routeOf(this.life, after);
        switch (route) {
          case 'disposed':
            reject(new Error('rawr core client disposed'));
            return true;
          case 'process':
          case 'in-process':
            resolve(route);
            return true;
          case 'wait':
            return false;
          default: {
            const unknown: never = route;
            throw new Error(`unknown route ${String(unknown)}`);
          }
        }
      };
      if (check()) return;
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`the rawr core process did not (re)start within ${READY_TIMEOUT_MS / 1000}s`));
      }, READY_TIMEOUT_MS);
      const waiter = () => {
        if (check()) {
          clearTimeout(timer);
          this.waiters.delete(waiter);
        }
      };
      this.waiters.add(waiter);
    });
  }

  /** Sends a request on the current process; a request lost with a dying process is retried once. */
  private async request<R>(name: keyof typeof CORE_METHODS, params: object, viaLocal: (core: CoreApi) => Promise<R>): Promise<R> {
    const method = CORE_METHODS[name];
    let after = this.life.generation - 1; // the current process will do
    for (let attempt = 0; ; attempt++) {
      if (this.local) return viaLocal(this.local);
      const mode = await this.ready(after);
      if (mode === 'in-process') return viaLocal(this.inProcess(this.life.phase === 'in_process' ? this.life.why : 'it could not be restarted'));
      const sentOn = this.life.generation;
      try {
        return await this.connection!.sendRequest<R>(method, params);
      } catch (err) {
        if (attempt >= 1 || !isConnectionLoss(err)) throw err;
        this.log.warn(`${method}: the connection to the rawr core process was lost; retrying once on the restarted process`);
        after = sentOn; // wait for the next process, not the one that just died
      }
    }
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${what} timed out after ${ms / 1000}s`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}
