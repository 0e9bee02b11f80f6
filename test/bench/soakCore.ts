/**
 * The thread soak's core process (threadSoak.ts): the real CoreService in a child process, as the
 * extension runs it, answering the CoreApi methods over Node's IPC channel (a plain message per call
 * instead of the language server's JSON-RPC: the transport is not what the soak measures), plus
 * `memory`: its heap after a full collection, its RSS and how many threads it holds.
 *
 *   node --expose-gc out/test/bench/soakCore.js LOG_DIR SETTINGS_JSON [CACHE_JSON]
 */
import { dirReader, shippedPromptsDir } from '../../src/core/prompts/fs';
import { loadPromptSet } from '../../src/core/prompts/promptSet';
import { CoreService } from '../../src/core/service/coreService';

const [logDir, settingsJson, cacheJson] = process.argv.slice(2);
const set = loadPromptSet([dirReader(shippedPromptsDir())]);
const service = new CoreService(
  logDir!,
  { ...set, settings: { ...set.settings, ...(JSON.parse(settingsJson ?? '{}') as object) } },
  JSON.parse(cacheJson ?? '{}') as { max?: number; idleMs?: number },
);
const gc = (globalThis as { gc?: () => void }).gc;

process.on('message', (m: { id: number; method: string; args: unknown[] }) => {
  try {
    let value: unknown;
    if (m.method === 'memory') {
      gc?.();
      const mu = process.memoryUsage();
      value = { heapUsed: mu.heapUsed, rss: mu.rss, threads: service.threadsInMemory() };
    } else if (m.method === 'pid') value = process.pid;
    else value = (service as unknown as Record<string, (...a: unknown[]) => unknown>)[m.method]!.apply(service, m.args);
    process.send!({ id: m.id, value: value ?? null });
  } catch (err) {
    process.send!({ id: m.id, error: err instanceof Error ? err.message : String(err) });
  }
});
