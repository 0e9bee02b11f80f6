/**
 * CoreApi as requests to the core process: each method is one CORE_METHODS request (one round trip).
 * CoreSupervisor (coreSupervisor.ts) sends them on its connection to the process; the round-trip bench
 * (test/bench/roundTrips.ts) on the same supervisor over a forked server, counting them. Free of
 * vscode-languageclient, so the bench runs outside VS Code.
 */
import { randomUUID } from 'node:crypto';
import { CORE_METHODS, type CoreApi, type CoreParams } from '../../core/protocol/coreProtocol';

/** How the client sends one request: by method name, with the in-process fallback's way to answer it. */
export type CoreRequest = <R>(name: keyof typeof CORE_METHODS, params: object, viaLocal: (core: CoreApi) => Promise<R>) => Promise<R>;

/** Each method is one request; writes carry a request id (see CoreService.replayed). */
export function clientApi(request: CoreRequest): CoreApi {
  const thread = (threadId: string) => ({ threadId });
  return {
    configure: async (config) => {
      const p: CoreParams['configure'] = { config };
      await request('configure', p, (c) => c.configure(config));
    },
    // Writes carry a request id, the same on the one retry: a process that died after writing but before
    // answering has its successor answer from the log instead of applying the write twice.
    apply: (threadId, inputs) => request('apply', { threadId, inputs, rid: randomUUID() } satisfies CoreParams['apply'], (c) => c.apply(threadId, inputs)),
    undo: (threadId) => request('undo', { threadId, rid: randomUUID() } satisfies CoreParams['undo'], (c) => c.undo(threadId)),
    snapshot: (threadId) => request('snapshot', thread(threadId), (c) => c.snapshot(threadId)),
    listThreads: () => request('listThreads', {}, (c) => c.listThreads()),
    exportLog: (threadId) => request('exportLog', thread(threadId), (c) => c.exportLog(threadId)),
    pid: () => request('pid', {}, (c) => c.pid()),
  };
}
