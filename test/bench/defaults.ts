/**
 * `npm run measure-defaults`: how the tier thresholds behave on the real recordings, to choose the
 * shipped defaults by measurement. For each candidate it sums, over all recordings: rawr's compactions,
 * how many landed on a commit / completed plan step (vs. turn ends and emergencies), how many of the
 * recorded tools' own auto compactions rawr pre-empted (compacted earlier), counterfactual overflows,
 * the lowest context left at any evaluation point, and the plain 83.5% threshold's count for comparison.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { dirReader, shippedPromptsDir } from '../../src/core/prompts/fs';
import { loadPromptSet } from '../../src/core/prompts/promptSet';
import { replay } from '../../src/core/replay/driver';
import { loadRecording } from '../../src/cli/replay/replayCommand';

const set = loadPromptSet([dirReader(shippedPromptsDir())]);
const dir = process.env.RAWR_TRANSCRIPTS ?? resolve(__dirname, '../../../../shared/data/transcripts');
const recs = readdirSync(dir)
  .filter((n) => n.endsWith('.jsonl') && !n.includes('acompact'))
  .map((n) => ({ name: n, rec: loadRecording(readFileSync(join(dir, n), 'utf8')) }));

const candidates: Array<[number, number, number, number]> = [
  [55, 45, 35, 15],
  [50, 40, 30, 15],
  [45, 35, 25, 12],
  [40, 30, 20, 10],
  [35, 25, 15, 8],
  [30, 20, 12, 6],
];

console.log('early/ready/asap/emerg  compactions  on-commit/plan  turn-end  emergency  pre-empted-native  overflows  min-left  baseline-83.5%');
for (const [early, ready, asap, emergency] of candidates) {
  const settings = {
    ...set.settings,
    early_percent_remaining_lt: early,
    ready_percent_remaining_lt: ready,
    asap_percent_remaining_lt: asap,
    emergency_percent_remaining_lt: emergency,
  };
  let total = 0,
    phase = 0,
    turnEnd = 0,
    emerg = 0,
    preempted = 0,
    natives = 0,
    overflows = 0,
    baseline = 0,
    minLeft = 100;
  const where: string[] = [];
  for (const { name, rec } of recs) {
    const { decisions, summary } = replay(rec, { settings, prompts: set.prompts });
    total += summary.compactions.length;
    baseline += summary.baseline.compactions.length;
    overflows += summary.counterfactualOverflows;
    for (const c of summary.compactions) {
      if (c.code === 'emergency') emerg++;
      else if (c.boundaries.some((b) => /^(commit|plan_checkpoint|pr_checkpoint)\b/.test(b))) phase++;
      else turnEnd++;
    }
    for (const n of summary.nativeCompactions.filter((x) => x.trigger === 'auto')) {
      natives++;
      if (summary.compactions.some((c) => c.line < n.line)) preempted++;
    }
    for (const d of decisions) if (d.percentRemaining !== null) minLeft = Math.min(minLeft, d.percentRemaining);
    where.push(`${name.replace(/\.jsonl$/, '')}: ${summary.compactions.map((c) => c.line).join(',') || '-'}`);
  }
  console.log(
    `${`${early}/${ready}/${asap}/${emergency}`.padEnd(22)} ${String(total).padStart(11)}  ${String(phase).padStart(14)}  ${String(turnEnd).padStart(8)}  ${String(emerg).padStart(9)}  ${`${preempted}/${natives}`.padStart(17)}  ${String(overflows).padStart(9)}  ${`${minLeft.toFixed(1)}%`.padStart(8)}  ${String(baseline).padStart(14)}`,
  );
  if (process.argv.includes('--where')) for (const w of where) console.log(`      ${w}`);
}
