/**
 * The compaction panel opening on a long thread (`npm run bench`, or `node out/test/bench/panelOpen.js`): a
 * thread log of N engine events written as the core writes it (an event record per event, a decision record at
 * every evaluation), then read as the panel reads it on first open (LogTail → ThreadJournal,
 * src/host/panel/panel.ts journalFor), timed, with the heap it keeps. What it shows: the time and memory of
 * opening the panel do not grow with the thread's history (LogTail reads at most its cap, so the lines read
 * and the journal built from them are bounded too).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../src/core/log/eventLog';
import { LogTail } from '../../src/host/panel/logTail';
import { ThreadJournal } from '../../src/host/panel/viewModel';

/** Writes a log of `n` events: turns of tool calls and token counts, an evaluation (and its decision record) every fourth event. */
function writeLog(path: string, n: number): number {
  const log = new EventLog(path, 'bench-panel');
  let at = 1_700_000_000_000;
  for (let k = 0; k < n; k++) {
    at += 700;
    const id = `c${Math.floor(k / 4)}`;
    const event =
      k % 4 === 0
        ? { type: 'tool_call' as const, at, id, name: 'run_in_terminal', input: { command: 'npm test -- --grep importer' } }
        : k % 4 === 1
          ? { type: 'tool_result' as const, at, id, output: 'ok '.repeat(50), isError: false, exitCode: 0 }
          : k % 4 === 2
            ? { type: 'tokens' as const, at, used: 20_000 + (k % 400) * 400, window: 200_000 }
            : { type: 'evaluate' as const, at, point: 'tool_loop' as const };
    log.append({ kind: 'event', at, event });
    if (event.type === 'evaluate') {
      log.append({
        kind: 'decision',
        at,
        decision: {
          id: `d${k}`,
          action: 'wait',
          code: 'above_threshold',
          reason: 'Context is above every threshold: nothing to do yet.',
          at,
          point: 'tool_loop',
          tier: null,
          percentRemaining: 60,
        },
      });
    }
  }
  log.close();
  return statSync(path).size;
}

async function openOnce(path: string): Promise<{ ms: number; lines: number; skipped: number }> {
  const t0 = process.hrtime.bigint();
  const tail = new LogTail(path);
  const journal = new ThreadJournal('bench-panel');
  const { lines, skipped } = await tail.read();
  journal.skip(skipped, tail.maxBytes);
  for (const line of lines) journal.ingestLine(line);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (journal.problems.length || journal.decisions.length === 0) throw new Error(`the panel's read of the bench log: ${journal.problems[0] ?? 'no decisions'}`);
  return { ms, lines: journal.lines, skipped };
}

/** One line per history length: the panel's first open (median of three) and what it read. */
export async function panelOpenBench(sizes = [10_000, 100_000, 300_000]): Promise<string[]> {
  const out: string[] = [];
  for (const n of sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'rawr-bench-panel-'));
    try {
      const path = join(dir, 'bench-panel.jsonl');
      const bytes = writeLog(path, n);
      const runs = [await openOnce(path), await openOnce(path), await openOnce(path)].sort((a, b) => a.ms - b.ms);
      const r = runs[1]!;
      out.push(
        `panel first open, ${n.toLocaleString('en-US')} events (${(bytes / 1e6).toFixed(1)} MB log): ${r.ms.toFixed(0)} ms, ${r.lines.toLocaleString('en-US')} lines read, ${(r.skipped / 1e6).toFixed(1)} MB not read`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}

if (require.main === module) void panelOpenBench().then((lines) => lines.forEach((l) => console.log(l)));
