/**
 * `npm run bench`: decision latency, event-log cold replay rate, replay time on the real recordings, and the
 * peak memory of `rawr replay` and `rawr handoff` on a 1 GB synthetic transcript (replayMemory.ts).
 * Performance is measured here, never asserted by timing in tests. Targets (issue 2): decision p99 <
 * 0.2 ms on a 10,000-event session, cold replay >= 200k events/s on 100,000 events. Then schedule quality
 * on the labelled phased sessions (phased.ts; issue 9). Then both processes' memory over 32 long threads
 * (threadSoak.ts; issue 22). Then the core round trips of a chat message (roundTrips.ts; issue 32).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { dirReader, shippedPromptsDir } from '../../src/core/prompts/fs';
import { loadPromptSet } from '../../src/core/prompts/promptSet';
import { replayFile } from '../../src/cli/replay/replayCommand';
import { formatCostBench, runCostBench } from './cost';
import { engineBench, loadBench } from './engineBench';
import { panelOpenBench } from './panelOpen';
import { DEFAULT_DIRS, formatHandoffBench, recordings, runHandoffBench } from './handoff';
import { generatedOptions, printGenerated, printPhased } from './phased';
import { replayMemoryBench } from './replayMemory';
import { formatThreadSoak, runThreadSoak } from './threadSoak';
import { formatRoundTrips, runRoundTrips } from './roundTrips';
import { hookLatencyBench } from './hookLatency';
import { formatIdleCostBench, runIdleCostBench } from './idleCost';
import { formatSteerRefusals, runSteerRefusals } from './steerRefusals';

const set = loadPromptSet([dirReader(shippedPromptsDir())]);
function transcripts(): Array<{ file: string; mb: number; ms: number; compactions: number; overflows: number }> {
  const dir = process.env.RAWR_TRANSCRIPTS ?? resolve(__dirname, '../../../../shared/data/transcripts');
  let names: string[] = [];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.jsonl'))
      .sort();
  } catch {
    console.log(`(no transcripts at ${dir})`);
  }
  const rows = names.map((n) => ({ file: n, text: readFileSync(join(dir, n), 'utf8') }));
  // A 10 MB file: the largest Claude recording repeated (ids made unique) until it passes 10 MB.
  const big = rows.find((r) => r.file.startsWith('claude-spotter-258c7280'));
  if (big) {
    const parts: string[] = [];
    let size = 0;
    for (let copy = 0; size < 10 * 1024 * 1024; copy++) {
      const t = big.text.replace(/"(uuid|parentUuid|id|tool_use_id)":"([^"]+)"/g, (_m, k: string, v: string) => `"${k}":"${v}-${copy}"`);
      parts.push(t.endsWith('\n') ? t : `${t}\n`);
      size += t.length;
    }
    rows.push({ file: 'synthetic-10MB (claude-spotter-258c7280 ×N)', text: parts.join('') });
  }
  const o = { settings: set.settings, prompts: set.prompts, json: true, file: 'x' };
  return rows.map(({ file, text }) => {
    replayFile(text, o); // warm-up
    const t0 = process.hrtime.bigint();
    const out = replayFile(text, o);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const summary = JSON.parse(out.trim().split('\n').pop()!) as { compactions: unknown[]; counterfactualOverflows: number };
    return { file, mb: text.length / 1024 / 1024, ms, compactions: summary.compactions.length, overflows: summary.counterfactualOverflows };
  });
}

async function main(): Promise<void> {
  for (const line of engineBench()) console.log(line);
  // A thread's load, flat in its history (10k and 100k events: seconds; 300k in `npm run bench:engine`).
  for (const line of loadBench([10_000, 100_000])) console.log(line);
  for (const line of await panelOpenBench()) console.log(line);
  console.log('replay on recordings:');
  for (const r of transcripts()) {
    console.log(
      `  ${r.file.padEnd(48)} ${r.mb.toFixed(1).padStart(5)} MB  ${r.ms.toFixed(0).padStart(6)} ms  ${r.compactions} compaction(s), ${r.overflows} overflow(s)`,
    );
  }
  console.log(replayMemoryBench(process.env.RAWR_TRANSCRIPTS ?? resolve(__dirname, '../../../../shared/data/transcripts')));
  // Memory of the extension host's and the core's parts over many long threads (issue 22, defect 13).
  console.log(formatThreadSoak(await runThreadSoak()));
  console.log(formatRoundTrips(await runRoundTrips()));
  console.log(await hookLatencyBench());
  // Schedule quality with the shipped policy as it runs (judgment on, answered by its fallback in replay).
  printPhased(set.settings, set.prompts);
  const gen = generatedOptions(process.argv.slice(2));
  printGenerated(set.settings, set.prompts, gen.seed, gen.count, gen.to);
  // One seed is one draw of a few sessions a family: the policy is judged on ten (80 sessions a family),
  // and held out on the next ten (issue 33: seeds 1-10 judged, 11-20 held out).
  if (gen.to === gen.seed) {
    printGenerated(set.settings, set.prompts, gen.seed, gen.count, gen.seed + 9);
    printGenerated(set.settings, set.prompts, gen.seed + 10, gen.count, gen.seed + 19);
  }
  // What steering Claude Code shows the person: its refused PreCompact calls per compaction (issue 34).
  console.log(formatSteerRefusals(runSteerRefusals(set.settings, set.prompts, gen.seed, gen.count), gen.seed, gen.count));
  console.log('');
  console.log(formatHandoffBench(runHandoffBench()));
  console.log('');
  // What a compaction costs, counted by the scripted model over HTTP (through the real openai client).
  console.log(formatCostBench(await runCostBench(recordings(DEFAULT_DIRS))));
  console.log('');
  // What idle compaction saves the person's next request (issue 21), from the recordings' timestamps.
  // Idle compaction is off by default (no model call the person did not start); the bench measures what turning
  // it on saves, at the setting's value when set, else at the common prompt-cache lifetime (5 minutes).
  const idle = { ...set.settings, idle_compact_minutes: set.settings.idle_compact_minutes || IDLE_BENCH_MINUTES };
  console.log(formatIdleCostBench(runIdleCostBench(recordings(DEFAULT_DIRS), idle, set.prompts), idle.idle_compact_minutes));
}

/** The absence idle compaction is measured at when the setting is off: the common 5-minute prompt-cache lifetime. */
const IDLE_BENCH_MINUTES = 5;

void main();
