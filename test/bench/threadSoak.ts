/**
 * Thread soak (`npm run bench`, also `node --expose-gc out/test/bench/threadSoak.js`): memory of both
 * processes over many long threads, one after another (issue 22, defect 13: both grew linearly with every
 * thread ever opened). The real Participant, Session, Turn and effect executor in this process (the
 * extension host's part, through the vscode shim) talk to the real CoreService in a child process (the
 * core's part, soakCore.ts); the model is the scripted multi-phase model (the only double), in a 20k
 * window so that each thread compacts several times. After every thread both processes collect their
 * garbage and report heap and RSS: with threads leaving memory when idle or beyond the bound, both stay
 * flat after the first threads, however many come.
 *
 * RAWR_BENCH_SOAK_THREADS (default 32), RAWR_BENCH_SOAK_STEPS (phases per thread, default 40);
 * `--unbounded` keeps every thread in both processes (as before issue 22), for comparison.
 */
import '../support/vscode/register';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { CoreApi } from '../../src/core/protocol/coreProtocol';
import { THREAD_CACHE_DEFAULTS } from '../../src/core/service/threadCache';
import { QUIET_MS } from '../../src/host/participant/sessionCache';
import { participantHarness } from '../support/participantHarness';
import { multiPhaseScript } from '../support/scriptedModel';

interface Memory {
  heapUsed: number;
  rss: number;
  threads: number;
}

export interface SoakRow {
  thread: number;
  compactions: number;
  modelCalls: number;
  seconds: number;
  host: Memory;
  core: Memory;
}

/** The CoreApi over the child's IPC channel, plus its memory report. */
function childCore(logDir: string, settings: object, cache: object) {
  const child = fork(path.join(__dirname, 'soakCore.js'), [logDir, JSON.stringify(settings), JSON.stringify(cache)], {
    execArgv: ['--expose-gc'],
    stdio: 'inherit',
  });
  let next = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  child.on('message', (m: { id: number; value?: unknown; error?: string }) => {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.error !== undefined) w?.reject(new Error(m.error));
    else w?.resolve(m.value);
  });
  const call = <T>(method: string, ...args: unknown[]): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ id, method, args });
    });
  const api: CoreApi = {
    configure: (c) => call('configure', c),
    apply: (id, inputs) => call('apply', id, inputs),
    undo: (id) => call('undo', id),
    snapshot: (id) => call('snapshot', id),
    listThreads: () => call('listThreads'),
    exportLog: (id) => call('exportLog', id),
    pid: () => call('pid'),
  };
  return { api, memory: () => call<Memory>('memory'), close: () => child.kill() };
}

/** A full collection in this process (the flag can be set at run time; `gc` is then a global of a new context). */
function hostGc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

export async function runThreadSoak(
  threads = Number(process.env.RAWR_BENCH_SOAK_THREADS ?? 32),
  steps = Number(process.env.RAWR_BENCH_SOAK_STEPS ?? 40),
  unbounded = false,
): Promise<SoakRow[]> {
  const cache = unbounded ? { max: Number.MAX_SAFE_INTEGER, idleMs: Number.MAX_SAFE_INTEGER } : {};
  const settings = { forecast_enabled: false }; // tiers alone: every thread compacts at its phase boundaries
  const script = multiPhaseScript({ steps: Array.from({ length: steps }, (_x, k) => `Phase ${k + 1} of the importer`), fillerChars: 9000 });
  // The window's clock for its threads in use: each thread is a later chat, long after the last one's
  // effects (QUIET_MS) — the soak does not sleep through real time.
  let now = Date.now();
  const logDir = mkdtempSync(path.join(tmpdir(), 'rawr-soak-'));
  const core = childCore(logDir, settings, cache);
  const h = participantHarness({ script, window: 20_000, settings, cache: { host: { ...cache, now: () => now } }, coreApi: core.api });
  const rows: SoakRow[] = [];
  try {
    for (let k = 1; k <= threads; k++) {
      const calls0 = h.model.requests.length;
      const t0 = process.hrtime.bigint();
      const r = await h.ask(`Build the importer, phase by phase (chat ${k}).`);
      if (r.result.errorDetails) throw new Error(`thread ${k}: ${r.result.errorDetails.message}`);
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const snap = await core.api.snapshot(r.threadId);
      // The doubles' own recordings (requests, status views, log lines) are the bench's, not rawr's.
      const modelCalls = h.model.requests.length - calls0;
      h.model.requests.length = 0;
      h.statuses.length = 0;
      h.log.lines.length = 0;
      now += QUIET_MS + 1;
      hostGc();
      const mu = process.memoryUsage();
      rows.push({
        thread: k,
        compactions: snap.compactions.length,
        modelCalls,
        seconds,
        host: { heapUsed: mu.heapUsed, rss: mu.rss, threads: h.participant.sessionsInMemory() },
        core: await core.memory(),
      });
    }
  } finally {
    core.close();
    h.dispose();
    rmSync(logDir, { recursive: true, force: true });
  }
  return rows;
}

const mb = (n: number) => (n / 1024 / 1024).toFixed(1).padStart(6);

export function formatThreadSoak(rows: SoakRow[], unbounded = false): string {
  const out: string[] = [];
  out.push(
    `thread soak: ${rows.length} threads one after another, each a multi-phase session in a 20k window (scripted model); threads kept in memory: ${unbounded ? 'ALL (--unbounded, as before issue 22)' : `at most ${THREAD_CACHE_DEFAULTS.max} idle ones (or ${THREAD_CACHE_DEFAULTS.idleMs / 60_000} min)`}, in each process`,
  );
  out.push(
    `${'thread'.padStart(6)} ${'calls'.padStart(5)} ${'compactions'.padStart(11)} ${'s'.padStart(5)}   host heap   RSS  threads   core heap   RSS  threads`,
  );
  for (const r of rows)
    out.push(
      `${String(r.thread).padStart(6)} ${String(r.modelCalls).padStart(5)} ${String(r.compactions).padStart(11)} ${r.seconds.toFixed(1).padStart(5)}   ${mb(r.host.heapUsed)} ${mb(r.host.rss)} ${String(r.host.threads).padStart(7)}   ${mb(r.core.heapUsed)} ${mb(r.core.rss)} ${String(r.core.threads).padStart(7)}`,
    );
  // Flat: from the thread that fills the bound on, the heap of each process stays within a few MB.
  const from = rows.find((r) => r.thread === THREAD_CACHE_DEFAULTS.max + 1);
  const last = rows.at(-1);
  if (from && last && last !== from) {
    const per = (a: number, b: number) => ((b - a) / 1024 / 1024 / (last.thread - from.thread)).toFixed(2);
    out.push(
      `from thread ${from.thread} to ${last.thread}: host heap ${mb(from.host.heapUsed).trim()} → ${mb(last.host.heapUsed).trim()} MB (${per(from.host.heapUsed, last.host.heapUsed)} MB/thread), core heap ${mb(from.core.heapUsed).trim()} → ${mb(last.core.heapUsed).trim()} MB (${per(from.core.heapUsed, last.core.heapUsed)} MB/thread); threads in memory ≤ ${Math.max(...rows.map((r) => Math.max(r.host.threads, r.core.threads)))}`,
    );
  } else out.push(`(fewer than ${THREAD_CACHE_DEFAULTS.max + 2} threads: the bound is never reached, nothing to compare)`);
  return out.join('\n');
}

if (require.main === module) {
  const unbounded = process.argv.includes('--unbounded');
  void runThreadSoak(undefined, undefined, unbounded).then((rows) => process.stdout.write(`${formatThreadSoak(rows, unbounded)}\n`));
}
