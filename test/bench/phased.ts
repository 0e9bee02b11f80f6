/**
 * Schedule quality on the labelled phase-structured sessions (`npm run bench`, and on its own:
 * `node out/test/bench/phased.js [DIR]`). For every session in the folder (enumerated, never a fixed
 * count): rawr's compactions through the same replay as `rawr replay`, the hindsight-optimal schedule
 * (src/core/replay/schedule.ts) and the plain 83.5% threshold, all judged by the same rules, side by
 * side, with totals and the issue-9 targets (>= 90% aligned, <= 1.15x the optimum, 0 overflows).
 * `--loo` adds a leave-one-out check of the forecast knobs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadRecording } from '../../src/cli/replayCommand';
import type { Prompts } from '../../src/core/prompts/promptSet';
import { replay } from '../../src/core/replay/driver';
import {
  DEFAULT_POST_TOKENS,
  PhaseLabelFileSchema,
  optimalSchedule,
  scoreSchedule,
  thresholdSchedule,
  type PhaseLabels,
  type ScheduleScore,
} from '../../src/core/replay/schedule';
import type { Settings } from '../../src/core/settings/schema';

export const phasedDir = () => process.env.RAWR_PHASED ?? resolve(__dirname, '../../../../shared/data/phased-sessions');

export interface PhasedSession {
  name: string;
  labels: PhaseLabels;
  text: string;
}

/** Every labelled session of the folder; files without labels are reported, never silently dropped. */
export function loadPhased(dir = phasedDir()): { sessions: PhasedSession[]; notes: string[] } {
  const notes: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.jsonl'))
      .sort();
  } catch {
    return { sessions: [], notes: [`(no phased sessions at ${dir})`] };
  }
  const parsed = PhaseLabelFileSchema.safeParse(JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8')));
  if (!parsed.success) throw new Error(`${dir}/labels.json: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const sessions: PhasedSession[] = [];
  for (const name of names) {
    const labels = parsed.data[name];
    if (!labels) notes.push(`${name}: no labels in labels.json (not scored)`);
    else sessions.push({ name, labels, text: readFileSync(join(dir, name), 'utf8') });
  }
  return { sessions, notes };
}

export interface SessionResult {
  name: string;
  rawr: ScheduleScore;
  /** How many of rawr's compactions the forecast drove (decision code forecast). */
  forecastDriven: number;
  optimum: { compactions: number; aligned: number } | null;
  threshold: ScheduleScore;
}

/** Rawr's schedule on one session: the replay's compaction lines, judged by the labels' rules. */
export function rawrSchedule(
  s: PhasedSession,
  settings: Settings,
  prompts: Prompts,
  postTokens = DEFAULT_POST_TOKENS,
): { score: ScheduleScore; forecastDriven: number } {
  const { summary } = replay(loadRecording(s.text), { settings, prompts, window: s.labels.window, postTokens });
  const lines = summary.compactions.map((c) => c.line);
  return { score: scoreSchedule(s.labels, lines, postTokens), forecastDriven: summary.compactions.filter((c) => c.forecast).length };
}

export function evaluateSessions(sessions: PhasedSession[], settings: Settings, prompts: Prompts, postTokens = DEFAULT_POST_TOKENS): SessionResult[] {
  return sessions.map((s) => {
    const r = rawrSchedule(s, settings, prompts, postTokens);
    const opt = optimalSchedule(s.labels);
    return {
      name: s.name,
      rawr: r.score,
      forecastDriven: r.forecastDriven,
      optimum: opt ? { compactions: opt.compactions, aligned: opt.compactions - opt.unaligned } : null,
      threshold: scoreSchedule(s.labels, thresholdSchedule(s.labels)),
    };
  });
}

export interface Totals {
  rawr: { compactions: number; aligned: number; overflows: number };
  optimum: { compactions: number; aligned: number };
  threshold: { compactions: number; aligned: number; overflows: number };
}

export function totals(rows: SessionResult[]): Totals {
  const t: Totals = {
    rawr: { compactions: 0, aligned: 0, overflows: 0 },
    optimum: { compactions: 0, aligned: 0 },
    threshold: { compactions: 0, aligned: 0, overflows: 0 },
  };
  for (const r of rows) {
    t.rawr.compactions += r.rawr.compactions;
    t.rawr.aligned += r.rawr.aligned;
    t.rawr.overflows += r.rawr.overflows;
    t.optimum.compactions += r.optimum?.compactions ?? 0;
    t.optimum.aligned += r.optimum?.aligned ?? 0;
    t.threshold.compactions += r.threshold.compactions;
    t.threshold.aligned += r.threshold.aligned;
    t.threshold.overflows += r.threshold.overflows;
  }
  return t;
}

export const share = (a: number, n: number) => (n === 0 ? 1 : a / n);
const pct = (a: number, n: number) => `${Math.round(share(a, n) * 100)}%`;

/** The issue-9 targets on the totals. */
export function targets(t: Totals): { aligned: boolean; count: boolean; overflows: boolean } {
  return {
    aligned: share(t.rawr.aligned, t.rawr.compactions) >= 0.9,
    count: t.rawr.compactions <= 1.15 * t.optimum.compactions,
    overflows: t.rawr.overflows === 0,
  };
}

export function printPhased(settings: Settings, prompts: Prompts, dir = phasedDir()): void {
  const { sessions, notes } = loadPhased(dir);
  console.log(`schedule quality on labelled phased sessions (${dir}, ${sessions.length} session(s), post-compaction ${DEFAULT_POST_TOKENS / 1000}k):`);
  for (const n of notes) console.log(`  ${n}`);
  if (sessions.length === 0) return;
  const rows = evaluateSessions(sessions, settings, prompts);
  const cell = (c: number, a: number, o?: number) =>
    `${String(c).padStart(3)} ${`(${pct(a, c)})`.padStart(6)}${o === undefined ? '' : ` ${String(o).padStart(2)}`}`;
  console.log('  session                 rawr  aligned ovf  forecast   optimum aligned   83.5%  aligned ovf   rawr lines');
  for (const r of rows) {
    console.log(
      `  ${r.name.padEnd(22)} ${cell(r.rawr.compactions, r.rawr.aligned, r.rawr.overflows)}  ${String(r.forecastDriven).padStart(8)}   ${r.optimum ? cell(r.optimum.compactions, r.optimum.aligned) : ' infeasible '}     ${cell(r.threshold.compactions, r.threshold.aligned, r.threshold.overflows)}   ${r.rawr.lines.join(',')}`,
    );
  }
  const t = totals(rows);
  const ok = targets(t);
  console.log(
    `  ${'total'.padEnd(22)} ${cell(t.rawr.compactions, t.rawr.aligned, t.rawr.overflows)}  ${String(rows.reduce((a, r) => a + r.forecastDriven, 0)).padStart(8)}   ${cell(t.optimum.compactions, t.optimum.aligned)}     ${cell(t.threshold.compactions, t.threshold.aligned, t.threshold.overflows)}`,
  );
  const ratio = t.optimum.compactions ? t.rawr.compactions / t.optimum.compactions : 0;
  console.log(
    `  targets: aligned ${pct(t.rawr.aligned, t.rawr.compactions)} >= 90% ${ok.aligned ? 'MET' : 'MISSED'}; count ${t.rawr.compactions} = ${ratio.toFixed(2)}x optimum <= 1.15x ${ok.count ? 'MET' : 'MISSED'}; overflows ${t.rawr.overflows} ${ok.overflows ? 'MET' : 'MISSED'}`,
  );
}

/**
 * Leave-one-out check of the forecast knobs: for each session, the knobs are chosen on the others by the
 * optimum's own objective (0 overflows, then the fewest unaligned compactions, then the fewest; ties go
 * to the more cautious setting), then judged on the held-out session. The totals say how the method does on a
 * session it was not tuned on.
 */
const lexLess = (a: number[], b: number[]) => {
  const n = a.findIndex((x, k) => x !== b[k]);
  return n >= 0 && a[n]! < b[n]!;
};

export function leaveOneOut(sessions: PhasedSession[], settings: Settings, prompts: Prompts): void {
  const margins = [0, 5, 10, 15, 20, 30];
  const recents = [1, 2, 3, 4, 5];
  const grid = margins.flatMap((m) => recents.map((k) => ({ forecast_margin_percent: m, forecast_recent_phases: k })));
  const results = grid.map((g) => evaluateSessions(sessions, { ...settings, ...g }, prompts));
  const held: SessionResult[] = [];
  console.log('leave-one-out (knobs chosen on the other sessions, judged on the held-out one):');
  for (let h = 0; h < sessions.length; h++) {
    let best = -1;
    let bestKey: number[] = [];
    grid.forEach((g, k) => {
      const t = totals(results[k]!.filter((_, j) => j !== h));
      if (!targets(t).overflows) return;
      // The optimum's own objective: fewest unaligned compactions, then fewest compactions.
      const key = [t.rawr.compactions - t.rawr.aligned, t.rawr.compactions, -g.forecast_margin_percent, -g.forecast_recent_phases];
      if (best < 0 || lexLess(key, bestKey)) {
        best = k;
        bestKey = key;
      }
    });
    if (best < 0) {
      console.log(`  ${sessions[h]!.name}: no knob setting met the targets on the others`);
      continue;
    }
    const r = results[best]![h]!;
    held.push(r);
    console.log(
      `  ${sessions[h]!.name.padEnd(22)} margin ${grid[best]!.forecast_margin_percent}%, recent ${grid[best]!.forecast_recent_phases}: ${r.rawr.compactions} (optimum ${r.optimum?.compactions ?? '?'}), ${r.rawr.aligned} aligned, ${r.rawr.overflows} overflows`,
    );
  }
  const t = totals(held);
  console.log(
    `  held-out total: ${t.rawr.compactions} = ${(t.rawr.compactions / Math.max(1, t.optimum.compactions)).toFixed(2)}x optimum, ${pct(t.rawr.aligned, t.rawr.compactions)} aligned, ${t.rawr.overflows} overflows`,
  );
}

if (require.main === module) {
  void (async () => {
    const { dirReader, shippedPromptsDir } = await import('../../src/core/prompts/fs.js');
    const { loadPromptSet } = await import('../../src/core/prompts/promptSet.js');
    const set = loadPromptSet([dirReader(shippedPromptsDir())]);
    const dir = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? phasedDir();
    printPhased(set.settings, set.prompts, dir);
    if (process.argv.includes('--loo')) leaveOneOut(loadPhased(dir).sessions, set.settings, set.prompts);
  })();
}
