/**
 * The client of the rawr core process (src/server/main.ts): starts it with vscode-languageclient over
 * IPC, serves the prompt files' language features through it (rawr-*.md), and implements CoreApi by
 * sending CORE_METHODS requests.
 *
 * Recovery: when the process dies the client restarts it (up to MAX_RESTARTS in RESTART_WINDOW_MS, each
 * restart logged; the lifecycle is the state machine in coreLifecycle.ts). Requests wait until the client is running; a request lost with the connection is
 * retried once on the new process. The new process rebuilds each thread from its log on first use and
 * gets the last configure()d settings in its initializationOptions, so nothing is lost. If the process
 * cannot start at all, or keeps dying, the arbiter runs in-process (localCore) on the same logs.
 */
import { access } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import * as lc from 'vscode-languageclient/node';
import { loadPromptSet, type PromptSet } from '../../core/prompts/promptSet';
import { CORE_METHODS, type CoreApi } from '../../core/protocol/coreProtocol';
import { clientApi } from './clientApi';
import { initialLifecycle, routeOf, transition, type CoreLifecycleEvent, type CoreTransition } from './coreLifecycle';
import { localCore } from './localCore';

/** The prompt files the core process serves diagnostics, hover and completion for. */
export const PROMPT_DOCUMENT_SELECTOR = [{ scheme: 'file', language: 'markdown', pattern: '**/rawr-*.md' }];

const START_TIMEOUT_MS = 20_000;
/** How long a request waits for the core process to (re)start before failing. */
const READY_TIMEOUT_MS = 30_000;

export interface StartCoreOptions {
  logDir: string;
  promptDirs: string[];
  log: vscode.LogOutputChannel;
  /** Overrides the server module (tests); default: dist/server.js, or out/src/server/main.js when unbundled. */
  serverModule?: string;
}

export type CoreHandle = CoreApi &
  vscode.Disposable & {
    /** 'process' while the core process serves requests; 'in-process' after a fallback to localCore. */
    readonly mode: 'process' | 'in-process';
  };

/** Whether a file exists; async, because it runs during activation (no synchronous file system calls there). */
const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/** The server next to the running extension: bundled (dist/) or compiled by tsc (out/src/). */
async function defaultServerModule(context: vscode.ExtensionContext): Promise<string> {
  const bundled = context.asAbsolutePath(path.join('dist', 'server.js'));
  const compiled = context.asAbsolutePath(path.join('out', 'src', 'server', 'main.js'));
  // This file runs from dist/extension.js when bundled, from out/src/host/core/ when compiled by tsc:
  // use the server built the same way, so the two halves are always from the same build.
  const runningBundled = path.basename(path.dirname(__filename)) === 'dist';
  if (runningBundled) return (await exists(bundled)) ? bundled : compiled;
  return (await exists(compiled)) ? compiled : bundled;
}

/** Errors that mean "the connection went away", not "the server answered with an error". */
function isConnectionLoss(err: unknown): boolean {
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
function isClosedPipe(error: Error): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EPIPE' || code === 'ERR_IPC_CHANNEL_CLOSED' || /\bEPIPE\b|channel closed/i.test(error.message);
}

/** The channel for the LanguageClient's own lines, which it writes from process-exit handlers: a write to a
 * channel already disposed (the window closing) must not become an uncaught exception there. */
function safeChannel(channel: vscode.LogOutputChannel): vscode.LogOutputChannel {
  return new Proxy(channel, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function' || prop === 'dispose') return value;
      return (...args: unknown[]) => {
        try {
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        } catch {
          return undefined;
        }
      };
    },
  });
}

function safely(f: () => void): void {
  try {
    f();
  } catch {
    // the channel is gone (window closing): nothing to report to
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

export async function startCore(context: vscode.ExtensionContext, opts: StartCoreOptions): Promise<CoreHandle> {
  // Logging must never change what the core does (a closed channel throws): our own lines go through this.
  const log = {
    info: (m: string) => safely(() => opts.log.info(m)),
    warn: (m: string) => safely(() => opts.log.warn(m)),
    error: (m: string) => safely(() => opts.log.error(m)),
  };
  let lastConfig: PromptSet | undefined;
  let local: CoreApi | undefined;
  const inProcess = (why: string): CoreApi => {
    if (!local) {
      log.error(`rawr core process unavailable (${why}); running the arbiter in-process on the same logs`);
      // Before the first configure() (which activation sends right after starting the core) the built-in
      // texts serve: the extension host reads no prompt file synchronously.
      local = localCore(opts.logDir, lastConfig ?? loadPromptSet([]));
    }
    return local;
  };

  const serverModule = opts.serverModule ?? (await defaultServerModule(context));
  if (!(await exists(serverModule))) return fallbackHandle(inProcess(`server module ${serverModule} not found`), (c) => (lastConfig = c));

  // ---- the lifecycle: an explicit state machine (coreLifecycle.ts) -------------------------------
  let life = initialLifecycle();
  const apply = (e: CoreLifecycleEvent): CoreTransition => {
    const t = transition(life, e);
    life = t.state;
    if (t.log) log[t.log.level](t.log.text);
    return t;
  };
  const errorHandler: lc.ErrorHandler = {
    // The `count` argument is not used: the IPC writer adds two per failed write and resets it on a good one.
    error: (error) => {
      const t = apply({ type: 'connection_error', closedPipe: isClosedPipe(error), message: error.message });
      return { action: t.action === 'shutdown' ? lc.ErrorAction.Shutdown : lc.ErrorAction.Continue, handled: true };
    },
    closed: () => {
      const t = apply({ type: 'exited', at: Date.now() });
      return { action: t.action === 'restart' ? lc.CloseAction.Restart : lc.CloseAction.DoNotRestart, handled: true };
    },
  };

  const transport = { module: serverModule, transport: lc.TransportKind.ipc };
  const client = new lc.LanguageClient(
    'rawr.core',
    'Rawr core',
    // The debug variant is used when the extension host runs under --inspect: same process, no inspector
    // port of its own (a fixed port would collide between windows).
    { run: transport, debug: { ...transport, options: { execArgv: ['--nolazy'] } } },
    {
      documentSelector: PROMPT_DOCUMENT_SELECTOR,
      // A function: evaluated at every (re)start, so a restarted process gets the current settings.
      initializationOptions: () => ({ logDir: opts.logDir, promptDirs: opts.promptDirs, ...(lastConfig ? { config: lastConfig } : {}) }),
      outputChannel: safeChannel(opts.log),
      revealOutputChannelOn: lc.RevealOutputChannelOn.Never,
      errorHandler,
      initializationFailedHandler: (err: unknown) => {
        log.error(`rawr core process failed to initialize: ${(err as Error)?.message ?? String(err)}`);
        return false;
      },
    },
  );

  // ---- readiness: a generation per (re)start -----------------------------------------------------
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of [...waiters]) w();
  };
  const stateSub = client.onDidChangeState((e: { oldState: lc.State; newState: lc.State }) => {
    if (e.newState === lc.State.Running) {
      apply({ type: 'started' });
      if (life.generation > 1) {
        client.sendRequest<number>(CORE_METHODS.pid, {}).then(
          (pid) => log.info(`rawr core process restarted (pid ${pid})`),
          () => undefined,
        );
      }
    } else if (e.newState === lc.State.StartFailed) apply({ type: 'start_failed', why: 'it could not be restarted' });
    wake();
  });

  /** Resolves when the client runs a generation newer than `after` (or falls back in-process). */
  const ready = (after: number): Promise<'process' | 'in-process'> =>
    new Promise((resolve, reject) => {
      const check = (): boolean => {
        const route = routeOf(life, after);
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
        waiters.delete(waiter);
        reject(new Error(`the rawr core process did not (re)start within ${READY_TIMEOUT_MS / 1000}s`));
      }, READY_TIMEOUT_MS);
      const waiter = () => {
        if (check()) {
          clearTimeout(timer);
          waiters.delete(waiter);
        }
      };
      waiters.add(waiter);
    });

  // ---- start, or fall back -----------------------------------------------------------------------
  try {
    await withTimeout(client.start(), START_TIMEOUT_MS, 'starting the rawr core process');
    const pid = await client.sendRequest<number>(CORE_METHODS.pid, {});
    log.info(`rawr core process running (pid ${pid}, ${path.basename(serverModule)})`);
  } catch (err) {
    stateSub.dispose();
    apply({ type: 'dispose' });
    void stopClient();
    return fallbackHandle(inProcess((err as Error)?.message ?? String(err)), (c) => (lastConfig = c));
  }

  /**
   * Stops the client and its process. The client cannot be stopped while it is starting (a restart in
   * flight): then it is stopped as soon as it runs, so no orphan process is left serving.
   */
  async function stopClient(): Promise<void> {
    if (client.state === lc.State.Starting) {
      await new Promise<void>((resolve) => {
        const sub = client.onDidChangeState((e: { newState: lc.State }) => {
          if (e.newState === lc.State.Starting) return;
          sub.dispose();
          resolve();
        });
      });
    }
    if (client.state !== lc.State.Running) return;
    try {
      await client.dispose();
    } catch (err) {
      log.warn(`stopping the rawr core process: ${(err as Error)?.message ?? String(err)}`);
    }
  }

  /** Sends a request on the current process; a request lost with a dying process is retried once. */
  async function request<R>(name: keyof typeof CORE_METHODS, params: object, viaLocal: (core: CoreApi) => Promise<R>): Promise<R> {
    const method = CORE_METHODS[name];
    let after = life.generation - 1; // the current process will do
    for (let attempt = 0; ; attempt++) {
      if (local) return viaLocal(local);
      const mode = await ready(after);
      if (mode === 'in-process') return viaLocal(inProcess(life.phase === 'in_process' ? life.why : 'it could not be restarted'));
      const sentOn = life.generation;
      try {
        return await client.sendRequest<R>(method, params);
      } catch (err) {
        if (attempt >= 1 || !isConnectionLoss(err)) throw err;
        log.warn(`${method}: the connection to the rawr core process was lost; retrying once on the restarted process`);
        after = sentOn; // wait for the next process, not the one that just died
      }
    }
  }

  const sent = clientApi(request);
  // The configuration is remembered for a restarted process's initializationOptions.
  const api: CoreApi = {
    ...sent,
    configure: (config) => {
      lastConfig = config;
      return sent.configure(config);
    },
  };

  return {
    ...api,
    get mode() {
      return local ? 'in-process' : 'process';
    },
    dispose: () => {
      if (life.phase === 'disposed') return;
      apply({ type: 'dispose' });
      wake();
      stateSub.dispose();
      return stopClient();
    },
  };
}

/** The handle when the process never started: everything in-process, configure() still remembered. */
function fallbackHandle(core: CoreApi, set: (c: PromptSet) => void): CoreHandle {
  return {
    ...core,
    configure: async (config) => {
      set(config);
      await core.configure(config);
    },
    mode: 'in-process',
    dispose: () => undefined,
  };
}
