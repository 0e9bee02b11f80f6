/** CoreApi in-process: used when the core process cannot start, and by tests. */
import { CoreService } from '../../core/service/coreService';
import type { PromptSet } from '../../core/prompts/promptSet';
import type { ThreadCacheOptions } from '../../core/service/threadCache';
import type { CoreApi } from '../../core/protocol/coreProtocol';

export function localCore(
  logDir: string,
  config: PromptSet,
  cache?: Partial<Pick<ThreadCacheOptions<unknown>, 'max' | 'idleMs' | 'now'>>,
): CoreApi & { service: CoreService } {
  const service = new CoreService(logDir, config, cache);
  return {
    service,
    configure: async (c) => service.configure(c),
    apply: async (id, inputs) => service.apply(id, inputs),
    undo: async (id) => service.undo(id),
    snapshot: async (id) => service.snapshot(id),
    listThreads: async () => service.listThreads(),
    exportLog: async (id) => service.exportLog(id),
    pid: async () => undefined,
  };
}
