/**
 * A CoreConnection (src/host/core/coreSupervisor.ts) to the real core process, for the unit tier: the
 * compiled server forked with --node-ipc and a vscode-jsonrpc connection over its IPC channel — the
 * library and transport vscode-languageclient uses in the extension, which cannot load outside VS Code.
 * It does what the LanguageClient does with the supervisor's policy: initialize with its
 * initializationOptions at every start, ask `closed()` when the process exits and fork a new one on
 * 'restart', report 'start_failed' when a process dies or errs before it is initialized, and reject the
 * requests in flight when the connection goes (vscode-jsonrpc's PendingResponseRejected, as there).
 * The real VS Code tier runs the LanguageClient itself (test/vscode/suite/core.test.js).
 */
import { fork, type ChildProcess } from 'node:child_process';
import * as rpc from 'vscode-jsonrpc/node';
import type { ConnectionPolicy, ConnectionState, CoreConnection } from '../../src/host/core/coreSupervisor';

export interface ForkedCore extends CoreConnection {
  /** The process now (undefined between a death and the next start). */
  child(): ChildProcess | undefined;
  /** Every process forked so far, first first. */
  readonly forked: ChildProcess[];
}

export function forkedCoreConnection(serverModule: string, policy: ConnectionPolicy): ForkedCore {
  let state: ConnectionState = 'stopped';
  let current: { child: ChildProcess; conn: rpc.MessageConnection } | undefined;
  let stopping = false;
  const listeners = new Set<(s: ConnectionState) => void>();
  const forked: ChildProcess[] = [];
  const set = (s: ConnectionState) => {
    state = s;
    for (const l of [...listeners]) l(s);
  };

  async function launch(): Promise<void> {
    set('starting');
    const child = fork(serverModule, ['--node-ipc'], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'], execArgv: [] });
    forked.push(child);
    const conn = rpc.createMessageConnection(new rpc.IPCMessageReader(child), new rpc.IPCMessageWriter(child));
    conn.onNotification(() => undefined); // window/logMessage and friends
    conn.onError(([error]) => {
      if (policy.error(error) === 'shutdown') void stop();
    });
    current = { child, conn };
    let initialized = false;
    const exited = new Promise<void>((resolve) =>
      child.on('exit', () => {
        conn.dispose(); // rejects what is in flight
        if (current?.child === child) current = undefined;
        resolve();
        if (!initialized) return; // the start below fails
        if (stopping) return set('stopped');
        if (policy.closed() === 'restart') launch().catch(() => undefined);
        else set('stopped');
      }),
    );
    conn.listen();
    try {
      await Promise.race([
        conn.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {}, initializationOptions: policy.initializationOptions() }),
        exited.then(() => Promise.reject(new Error(`the core process exited during its start (${serverModule})`))),
      ]);
      await conn.sendNotification('initialized', {});
    } catch (err) {
      if (!(err instanceof Error && /exited during its start/.test(err.message))) policy.initializationFailed(err);
      child.kill('SIGKILL');
      set('start_failed');
      throw err;
    }
    initialized = true;
    set('running');
  }

  async function stop(): Promise<void> {
    stopping = true;
    const was = current;
    if (!was) return set('stopped');
    const gone = new Promise((resolve) => was.child.once('exit', resolve));
    was.child.kill('SIGKILL');
    await gone;
  }

  return {
    get state() {
      return state;
    },
    onDidChangeState(listener) {
      listeners.add(listener);
      return { dispose: () => listeners.delete(listener) };
    },
    start: launch,
    sendRequest<R>(method: string, params: object): Promise<R> {
      if (!current || state !== 'running') return Promise.reject(new Error('Client is not running'));
      return current.conn.sendRequest<R>(method, params);
    },
    stop,
    child: () => current?.child,
    forked,
  };
}
