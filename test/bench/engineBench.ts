/**
 * The engine's two speed benches, the first lines of `npm run bench`: decision latency (each evaluation
 * step of a 10,000-event session) and event-log cold replay (a 100,000-event log read and re-stepped as
 * the core loads a thread). Also alone, in seconds: `npm run bench:engine` (engineBenchMain.ts), which is
 * what an A/B of two builds runs alternately (`node <build>/test/bench/engineBenchMain.js`), and what to
 * profile (`node --cpu-prof out/test/bench/engineBenchMain.js`).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initialState } from '../../src/core/engine/state';
import { step } from '../../src/core/engine/step';
import type { EngineEvent, EngineState } from '../../src/core/engine/types';
import { EventLog } from '../../src/core/log/eventLog';
import { streamLog, type LogProblem } from '../../src/core/logformat/reader';
import { rebuild } from '../../src/core/log/rebuild';
import { dirReader, shippedPromptsDir } from '../../src/core/prompts/fs';
import { loadPromptSet } from '../../src/core/prompts/promptSet';
import { CoreService } from '../../src/core/service/coreService';

const set = loadPromptSet([dirReader(shippedPromptsDir())]);
const settings = { ...set.settings, judgment_enabled: false };
const fresh = (): EngineState => initialState({ threadId: 'bench', settings, prompts: set.prompts });

/** A realistic long session: turns of tool calls, commits, plan updates, token growth, compactions. */
function session(n: number, resetAt = 150_000): EngineEvent[] {
  const out: EngineEvent[] = [];
  let at = 1_700_000_000_000;
  let used = 20_000;
  let k = 0;
  while (out.length < n) {
    out.push({ type: 'user_message', at: (at += 5000), text: `Phase ${k}: implement the next part of the importer and commit it when the tests pass.` });
    for (let t = 0; t < 12 && out.length < n; t++) {
      const id = `c${k}-${t}`;
      out.push({
        type: 'assistant_message',
        at: (at += 800),
        text: t === 11 ? 'All done with this phase. In summary, the importer works.' : 'Running the tests next.',
      });
      out.push({
        type: 'tool_call',
        at: (at += 200),
        id,
        name: 'run_in_terminal',
        input: { command: t === 10 ? 'git commit -am "phase"' : 'npm test -- --grep importer' },
      });
      out.push({ type: 'tool_result', at: (at += 1500), id, output: 'ok '.repeat(50), isError: false, exitCode: 0 });
      if (t === 10)
        out.push({ type: 'boundary', at, source: 'terminal', boundary: { kind: 'commit', key: (0x1000000 + k).toString(16), detail: `commit ${k}` } });
      if (t === 5)
        out.push({
          type: 'plan',
          at,
          steps: [
            { text: `phase ${k}`, status: 'in_progress' },
            { text: `phase ${k - 1}`, status: 'completed' },
          ],
        });
      used += 1800;
      out.push({ type: 'tokens', at, used, window: 200_000 });
      out.push({ type: 'evaluate', at, point: 'tool_loop' });
      if (used > resetAt) used = 40_000;
    }
    out.push({ type: 'evaluate', at, point: 'turn_complete' });
    k++;
  }
  return out.slice(0, n);
}

/** Runs the session, answering the golden path like an executor, timing each evaluate step. */
function decisionLatency(events: EngineEvent[]): { p50: number; p99: number; max: number; evaluations: number; compactions: number } {
  let s = fresh();
  const times: number[] = [];
  let compactions = 0;
  for (const ev of events) {
    const t0 = process.hrtime.bigint();
    const r = step(s, ev);
    const dt = Number(process.hrtime.bigint() - t0) / 1e6;
    if (ev.type === 'evaluate') times.push(dt);
    s = r.state;
    for (const fx of r.commands) {
      if (fx.type === 'request_scratch_write') s = step(s, { type: 'scratch_written', at: ev.at, seqId: fx.seqId, path: fx.path }).state;
      if (fx.type === 'request_packet' || (fx.type === 'start_timer' && s.seq.phase === 'awaiting_packet')) {
        if (s.seq.phase === 'awaiting_packet') s = step(s, { type: 'timeout', at: ev.at, timerId: `packet:${s.seq.seqId}` }).state;
      }
    }
    if (s.seq.phase === 'awaiting_scratch') s = step(s, { type: 'scratch_written', at: ev.at, seqId: s.seq.seqId, path: 'x' }).state;
    if (s.seq.phase === 'awaiting_packet') s = step(s, { type: 'timeout', at: ev.at, timerId: `packet:${s.seq.seqId}` }).state;
    if (s.seq.phase === 'compacting') {
      s = step(s, { type: 'compaction_done', at: ev.at, seqId: s.seq.seqId, tokensBefore: s.tokens!.used, tokensAfter: 30_000 }).state;
      compactions++;
    }
  }
  times.sort((a, b) => a - b);
  const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!;
  return { p50: q(0.5), p99: q(0.99), max: times[times.length - 1]!, evaluations: times.length, compactions };
}

/**
 * Reads and rebuilds a log of `n` events `runs` times: the median run (one run on a shared machine swings
 * by a third with the load and with when the collector runs), and the fastest and slowest.
 */
function coldReplay(n: number, runs: number): { events: number; seconds: number; rate: number; bytes: number; range: [number, number] } {
  const dir = mkdtempSync(join(tmpdir(), 'rawr-bench-'));
  const path = join(dir, 'thread.jsonl');
  const log = new EventLog(path, 'bench');
  for (const ev of session(n)) log.append({ kind: 'event', at: ev.at, event: ev });
  log.close();
  const bytes = readFileSync(path).length;
  const times: number[] = [];
  try {
    for (let k = 0; k < runs; k++) {
      const t0 = process.hrtime.bigint();
      // As the core's cold replay reads a thread (coreService.ts load): each record stepped as it is read.
      const problems: LogProblem[] = [];
      const rebuilt = rebuild(streamLog(path, problems), fresh());
      times.push(Number(process.hrtime.bigint() - t0) / 1e9);
      if (problems.length || rebuilt.events !== n) throw new Error(`cold replay lost events: ${rebuilt.events}/${n}, ${problems.length} problems`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  times.sort((a, b) => a - b);
  const seconds = times[Math.floor(times.length / 2)]!;
  return { events: n, seconds, rate: n / seconds, bytes, range: [n / times[times.length - 1]!, n / times[0]!] };
}

/**
 * A thread of `sizes` events (the largest; the smaller are copies of its log taken on the way) written
 * through CoreService as the core writes one: each event stepped and logged, the agent's messages and tool
 * results appended, the golden path answered and each compaction swapped in (so the log has its
 * compactions' archives and the checkpoints as shipped). Each log is loaded cold `runs` times: the median
 * time, and how many events the load re-stepped (after the last checkpoint) of how many in the history.
 */
function coldLoads(sizes: number[], runs: number): Array<{ events: number; bytes: number; seconds: number; stepped: number; fromCheckpoint: boolean }> {
  const dir = mkdtempSync(join(tmpdir(), 'rawr-bench-load-'));
  const config = { ...set, settings };
  try {
    const svc = new CoreService(dir, config);
    const wanted = [...sizes].sort((a, b) => a - b);
    // Tokens up to 95% of the window (the rows above stop at 75%, where nothing compacts), so the engine
    // compacts; after a compaction the context counts on from what it left.
    const events = session(wanted[wanted.length - 1]!, 190_000);
    let stepped = 0;
    let shift = 0;
    let lastRaw = 0;
    const stepOne = (ev: EngineEvent) => {
      svc.step('bench', ev);
      stepped++;
      if (stepped === wanted[0]) {
        copyFileSync(join(dir, 'bench.jsonl'), join(dir, `load-${stepped}.jsonl`));
        wanted.shift();
      }
    };
    for (const raw of events) {
      if (wanted.length === 0) break;
      let ev = raw;
      if (raw.type === 'tokens') {
        if (raw.used < lastRaw) shift = 0;
        lastRaw = raw.used;
        ev = { ...raw, used: raw.used - shift };
      }
      stepOne(ev);
      if (ev.type === 'assistant_message') svc.appendMessage('bench', { role: 'assistant', text: ev.text });
      if (ev.type === 'tool_result') svc.appendMessage('bench', { role: 'tool', toolCallId: ev.id, name: 'run_in_terminal', text: ev.output });
      // The golden path, answered as an executor would (decisionLatency's answers, then the swap).
      for (let guard = 0; guard < 4 && wanted.length > 0; guard++) {
        const seq = svc.snapshot('bench').state.seq;
        if (seq.phase === 'awaiting_scratch') stepOne({ type: 'scratch_written', at: ev.at, seqId: seq.seqId, path: 'x' });
        else if (seq.phase === 'awaiting_packet') stepOne({ type: 'timeout', at: ev.at, timerId: `packet:${seq.seqId}` });
        else if (seq.phase === 'compacting') {
          const before = lastRaw - shift;
          svc.swap('bench', {
            seqId: seq.seqId,
            tokensBefore: before,
            tokensAfter: 30_000,
            replacement: [{ role: 'user', text: `summary of ${seq.seqId}`, synthetic: true, kind: 'summary' }],
          });
          stepOne({ type: 'compaction_done', at: ev.at, seqId: seq.seqId, tokensBefore: before, tokensAfter: 30_000 });
          shift = lastRaw - 30_000;
        } else break;
      }
    }
    svc.dispose();
    return sizes.map((n) => {
      const loadDir = join(dir, `dir-${n}`);
      const times: number[] = [];
      let stats = { events: 0, stepped: 0, read: 0, fromCheckpoint: false };
      for (let k = 0; k < runs; k++) {
        // A fresh copy per run: a load may write (a checkpoint is due after a full replay only at a write).
        rmSync(loadDir, { recursive: true, force: true });
        mkdirSync(loadDir, { recursive: true });
        copyFileSync(join(dir, `load-${n}.jsonl`), join(loadDir, 'bench.jsonl'));
        const t0 = process.hrtime.bigint();
        const core = new CoreService(loadDir, config);
        core.snapshot('bench');
        times.push(Number(process.hrtime.bigint() - t0) / 1e9);
        stats = core.lastLoad!;
        core.dispose();
      }
      times.sort((a, b) => a - b);
      return {
        events: stats.events,
        bytes: readFileSync(join(dir, `load-${n}.jsonl`)).length,
        seconds: times[Math.floor(times.length / 2)]!,
        stepped: stats.stepped,
        fromCheckpoint: stats.fromCheckpoint,
      };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The load rows: a thread of each size loaded cold through CoreService (from its last checkpoint). */
export function loadBench(sizes = [10_000, 100_000, 300_000]): string[] {
  return coldLoads(sizes, 5).map(
    (r) =>
      `thread load (CoreService, checkpoints as shipped): ${r.events.toLocaleString('en')} events of history (${(r.bytes / 1024 / 1024).toFixed(1)} MB) in ${(r.seconds * 1000).toFixed(1)} ms, ${r.stepped.toLocaleString('en')} events re-stepped${r.fromCheckpoint ? ' after the last checkpoint' : ' (no checkpoint: full replay)'} (median of 5 loads)`,
  );
}

/** Both benches, warmed up (JIT) first: the two lines `npm run bench` prints. */
export function engineBench(): string[] {
  const events = session(10_000);
  decisionLatency(events); // warm-up (JIT)
  const lat = decisionLatency(events);
  const latency = `decision latency (10,000-event session, ${lat.evaluations} evaluations, ${lat.compactions} compactions): p50 ${(lat.p50 * 1000).toFixed(1)} µs, p99 ${(lat.p99 * 1000).toFixed(1)} µs, max ${(lat.max * 1000).toFixed(1)} µs  [target p99 < 200 µs: ${lat.p99 < 0.2 ? 'MET' : 'MISSED'}]`;
  coldReplay(20_000, 1); // warm-up
  const run = coldReplay(100_000, 5);
  const rate = (r: number) => Math.round(r).toLocaleString('en');
  const cold = `event-log cold replay: ${run.events.toLocaleString('en')} events (${(run.bytes / 1024 / 1024).toFixed(1)} MB) in ${(run.seconds * 1000).toFixed(0)} ms = ${rate(run.rate)} events/s (median of 5 reads; ${rate(run.range[0])}–${rate(run.range[1])})  [target >= 200,000: ${run.rate >= 200_000 ? 'MET' : 'MISSED'}]`;
  return [latency, cold];
}
