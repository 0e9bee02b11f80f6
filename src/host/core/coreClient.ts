/**
 * The client of the rawr core process (src/server/main.ts) in the extension: starts it with
 * vscode-languageclient over IPC, serves the prompt files' language features through it (rawr-*.md),
 * and hands the connection to the CoreSupervisor (coreSupervisor.ts), which implements CoreApi on it and
 * owns the lifecycle: restarts (up to MAX_RESTARTS in RESTART_WINDOW_MS, coreLifecycle.ts), requests
 * waiting or retried across a restart, and the in-process fallback (localCore) on the same logs when
 * the process cannot start or keeps dying.
 */
import { access } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import * as lc from 'vscode-languageclient/node';
import { CoreSupervisor, type ConnectionPolicy, type ConnectionState, type CoreConnection, type CoreHandle, type CoreLog } from './coreSupervisor';

/** The prompt files the core process serves diagnostics, hover and completion for. */
export const PROMPT_DOCUMENT_SELECTOR = [{ scheme: 'file', language: 'markdown', pattern: '**/rawr-*.md' }];

const START_TIMEOUT_MS = 20_000;

export interface StartCoreOptions {
  logDir: string;
  promptDirs: string[];
  log: vscode.LogOutputChannel;
  /** Overrides the server module (tests); default: dist/server.js, or out/src/server/main.js when unbundled. */
  serverModule?: string;
}

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

/** The core process behind a LanguageClient: its states, and its error and close handling asked of the policy. */
function languageClientConnection(serverModule: string, channel: vscode.LogOutputChannel, policy: ConnectionPolicy): CoreConnection {
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
      initializationOptions: () => policy.initializationOptions(),
      outputChannel: safeChannel(channel),
      revealOutputChannelOn: lc.RevealOutputChannelOn.Never,
      errorHandler: {
        error: (error) => ({ action: policy.error(error) === 'shutdown' ? lc.ErrorAction.Shutdown : lc.ErrorAction.Continue, handled: true }),
        closed: () => ({ action: policy.closed() === 'restart' ? lc.CloseAction.Restart : lc.CloseAction.DoNotRestart, handled: true }),
      },
      initializationFailedHandler: (err: unknown) => {
        policy.initializationFailed(err);
        return false;
      },
    },
  );
  const stateOf = (s: lc.State): ConnectionState => {
    switch (s) {
      case lc.State.Starting:
        return 'starting';
      case lc.State.Running:
        return 'running';
      case lc.State.Stopped:
        return 'stopped';
      case lc.State.StartFailed:
        return 'start_failed';
      default: {
        const unknown: never = s;
        throw new Error(`unknown language client state ${String(unknown)}`);
      }
    }
  };
  return {
    get state() {
      return stateOf(client.state);
    },
    onDidChangeState: (listener) => client.onDidChangeState((e: { newState: lc.State }) => listener(stateOf(e.newState))),
    start: () => client.start(),
    sendRequest: <R>(method: string, params: object) => client.sendRequest<R>(method, params),
    // The client cannot be stopped while it is starting (a restart in flight): then it is stopped as
    // soon as it runs, so no orphan process is left serving.
    stop: async () => {
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
        safely(() => channel.warn(`stopping the rawr core process: ${(err as Error)?.message ?? String(err)}`));
      }
    },
  };
}

export async function startCore(context: vscode.ExtensionContext, opts: StartCoreOptions): Promise<CoreHandle> {
  // Logging must never change what the core does (a closed channel throws): the supervisor's lines go through this.
  const log: CoreLog = {
    info: (m) => safely(() => opts.log.info(m)),
    warn: (m) => safely(() => opts.log.warn(m)),
    error: (m) => safely(() => opts.log.error(m)),
  };
  const core = new CoreSupervisor(opts.logDir, opts.promptDirs, log);
  const serverModule = opts.serverModule ?? (await defaultServerModule(context));
  if (!(await exists(serverModule))) core.startInProcess(`server module ${serverModule} not found`);
  else
    await core.start((policy) => languageClientConnection(serverModule, opts.log, policy), {
      timeoutMs: START_TIMEOUT_MS,
      server: path.basename(serverModule),
    });
  return core;
}
