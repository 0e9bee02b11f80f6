/**
 * `node out/test/bench/phasedEmergencies.js --family NAME [--seed N] [--to M] [--lambda L]`: BENCH ONLY. Lines up
 * rawr's close-by-close decisions on a generated family against the Bayes-optimal causal policy's (phasedBayes.ts,
 * at weight `lambda`) and the hindsight optimum's on the same sessions, and classifies rawr's emergencies
 * (compactions outside a close) by what rawr's forecast had at the close before them: how many phases it knew,
 * which scenarios (the recent phases or the calibrated ones), whether the phase that came was larger than
 * every scenario, and whether the causal-optimal policy compacted there. A diagnosis tool: it decides nothing.
 */
import { loadRecording } from '../../src/cli/replay/replayCommand';
import { calibratedScenarios, CALIBRATED_MIN_PHASES, compareNowAndWait, phaseScenarios } from '../../src/core/arbiter/forecast';
import { replay } from '../../src/core/replay/driver';
import {
  DEFAULT_POST_TOKENS,
  OPTIMUM_LIMIT_FRACTION,
  alignedClose,
  isAligned,
  modelContext,
  optimalSchedule,
  type PhaseLabels,
} from '../../src/core/replay/schedule';
import type { Prompts } from '../../src/core/prompts/promptSet';
import type { Settings } from '../../src/core/settings/schema';
import { familySessions } from './phasedBound';
import { BayesPolicy, bayesSchedule, closePoints, generatorSampler } from './phasedBayes';
import { FAMILIES } from './phasedGen';
import { familyArgs } from './familyArgs';

type Tally = Record<string, number>;
const bump = (t: Tally, k: string, by = 1) => (t[k] = (t[k] ?? 0) + by);

/** Which phase (0-based) a line falls in: the phase after the last close window that ended before it. */
function phaseOf(labels: PhaseLabels, line: number): number {
  let k = 0;
  labels.windows.forEach(([, last], j) => {
    if (line > last + 2) k = j + 1;
  });
  return k;
}

export function explain(settings: Settings, prompts: Prompts, familyName: string, seeds: number[], count: number, lambda: number, verbose: boolean): void {
  const f = FAMILIES.findIndex((x) => x.name === familyName);
  if (f < 0) throw new Error(`no family ${familyName}`);
  const sessions = familySessions(f, seeds, count);
  const cls: Tally = {};
  const diff: Tally = {};
  const tot: Record<'rawr' | 'bound' | 'opt', [number, number]> = { rawr: [0, 0], bound: [0, 0], opt: [0, 0] };
  const summary: Tally = {};
  sessions.forEach(({ model, session, phases }) => {
    const labels = session.labels;
    const line = OPTIMUM_LIMIT_FRACTION * labels.window;
    const { decisions, summary: replayed } = replay(loadRecording(session.text), { settings, prompts, window: labels.window, postTokens: DEFAULT_POST_TOKENS });
    const rawr = replayed.compactions.map((c) => c.line);
    const policy = new BayesPolicy(model!.window, model!.n, generatorSampler(model!), lambda);
    const bound = bayesSchedule(labels, policy, model!.phases.zAfter).lines;
    const opt = optimalSchedule(labels)?.lines ?? [];
    for (const [k, ls] of [
      ['rawr', rawr],
      ['bound', bound],
      ['opt', opt],
    ] as const) {
      tot[k][0] += ls.length;
      tot[k][1] += ls.filter((l) => isAligned(labels, l)).length;
    }
    const closes = labels.windows.length;
    const atClose = (ls: number[], k: number) => ls.some((l) => alignedClose(labels, l) === k);
    const emergIn = (ls: number[], p: number) => ls.filter((l) => alignedClose(labels, l) < 0 && phaseOf(labels, l) === p).length;
    const rows: string[] = [];
    // A_k: the close's last aligned call (bayesSchedule's decision point); the bound asked in rawr's own state there.
    const pts = labels.points;
    const A = closePoints(labels);
    const ctxRawr = (k: number) => {
      const a = A[k]!.a;
      if (a < 0) return 0;
      return modelContext(
        labels,
        rawr.filter((l) => l < pts[a]![0] && alignedClose(labels, l) !== k),
      )[a]!;
    };
    for (let k = 0; k < closes; k++) {
      const [first, last] = labels.windows[k]!;
      const d = [...decisions].reverse().find((x) => x.line >= first && x.line <= last + 2 && x.forecast);
      const r = atClose(rawr, k);
      const bAt = atClose(bound, k);
      const cR = ctxRawr(k);
      // What the bound would do in rawr's state (its context before a compaction at this close).
      const b = A[k]!.a >= 0 && cR < line && policy.decide(k, model!.phases.zAfter(k), A[k]!.runOn, cR).compact;
      const o = atClose(opt, k);
      const er = emergIn(rawr, k + 1);
      const eb = emergIn(bound, k + 1);
      if (r !== b && cR < line) {
        const who = r ? 'rawr compacts, bound waits' : 'rawr waits, bound compacts';
        bump(diff, `${who} (then rawr ${er ? 'emergency' : 'no emergency'}, bound ${eb ? 'emergency' : 'no emergency'})`);
        const room = Math.round((line - cR) / 20_000) * 20;
        bump(diff, `  ${who}: room ~${room}k`);
        bump(diff, `  ${who}: phases known ${Math.min(k + 1, 6)}${k + 1 >= 6 ? '+' : ''}`);
        bump(diff, `  ${who}: phases left ${Math.min(closes - k - 1, 4)}${closes - k - 1 >= 4 ? '+' : ''}`);
      }
      rows.push(
        `    close ${k}: ctx ${Math.round((d?.contextTokens ?? 0) / 1000)}k next ${Math.round((phases[k + 1] ?? 0) / 1000)}k  rawr ${r ? 'C' : '.'}${er ? `E${er}` : '  '} bound ${bAt ? 'C' : '.'}${b ? '(C)' : '(.)'}${eb ? `E${eb}` : '  '} opt ${o ? 'C' : '.'}  ${d ? `${d.code}` : ''}`,
      );
      if (!er) continue;
      // rawr's emergency in phase k+1: what its forecast had at close k.
      const known = phases.slice(0, k + 1);
      const fresh = Math.min(30_000, d?.contextTokens ?? 30_000);
      const exceeded = (x: number) => fresh + x >= line;
      const fit = known.filter((x) => !exceeded(x));
      const cal = k + 1 >= CALIBRATED_MIN_PHASES ? calibratedScenarios(known, exceeded) : null;
      const scen = cal ?? phaseScenarios(known.slice(-3), known);
      const margin = 1 + settings.forecast_margin_percent / 100;
      const spread = k + 1 >= 3 ? 0 : 0.15;
      const top = Math.max(...scen) * margin * (cal ? 1 : 1 + spread);
      const next = phases[k + 1]!;
      const cmp = d
        ? compareNowAndWait({
            used: d.contextTokens,
            samples: known.slice(-3),
            history: known,
            fresh: DEFAULT_POST_TOKENS,
            window: labels.window,
            settings,
            remaining: closes - k,
            phases: k + 1,
          })
        : null;
      const kind = cal ? 'calibrated' : `recent (${Math.min(3, k + 1)} phases${spread ? ', +-15%' : ''})`;
      let what: string;
      if (r) what = 'compacted at the close: the phase exceeded a fresh context';
      else if (next > top && next > Math.max(...known))
        what = `next phase above every scenario and every phase seen (a true tail; max seen ${Math.round(Math.max(...known) / 1000)}k)`;
      else if (next > top)
        what = `next phase above every scenario, not above every phase seen (scenarios below the thread's own sizes; max seen ${Math.round(Math.max(...known) / 1000)}k)`;
      else what = `within the scenarios, waited (${cmp ? `P(avoid) ${Math.round(cmp.avoidsShare * 100)}%` : '?'})`;
      const key = `${kind}: ${what.replace(/\(.*\)/, '').trim()}; bound ${b ? 'compacted' : 'waited'} in rawr's state${eb ? ' (and had one on its own path)' : ''}`;
      const short = r
        ? 'compacted at the close'
        : next > top && next > Math.max(...known)
          ? 'a true tail'
          : next > top
            ? "below the thread's own sizes"
            : 'within, waited';
      bump(summary, `${cal ? 'calibrated' : 'recent'}: ${short}`, er);
      if (b) bump(summary, `${cal ? 'calibrated' : 'recent'}: ${short} [the bound compacts in rawr's state]`, er);
      bump(cls, key, er);
      bump(cls, `  by phases known ${k + 1 >= 6 ? '6+' : k + 1}`, er);
      rows[rows.length - 1] += `   <- ${kind}: ${what}; ${fit.length} fit; scenarios ${scen.map((x) => Math.round(x / 1000)).join(',')}`;
    }
    const n = (ls: number[]) => `${ls.length}/${ls.filter((l) => isAligned(labels, l)).length}`;
    if (verbose) console.log(`  ${session.name}: phases ${phases.map((x) => Math.round(x / 1000)).join(',')}  rawr ${n(rawr)} bound ${n(bound)} opt ${n(opt)}`);
    if (verbose) for (const r of rows) console.log(r);
    for (const [who, ls] of [
      ['rawr', rawr],
      ['bound', bound],
    ] as const)
      bump(cls, `${who} emergencies in phase 0`, emergIn(ls, 0));
  });
  const p = (x: [number, number]) => `${x[0]} (${Math.round((100 * x[1]) / Math.max(1, x[0]))}% aligned, ${x[0] - x[1]} outside a close)`;
  console.log(
    `${familyName}, seeds ${seeds[0]}-${seeds[seeds.length - 1]}: rawr ${p(tot.rawr)}, bound(lambda ${lambda}) ${p(tot.bound)}, optimum ${p(tot.opt)}`,
  );
  console.log("  rawr emergencies by what the forecast had at the close before (in brackets: the bound, asked in rawr's state there, compacts):");
  for (const [k, v] of Object.entries(summary).sort()) console.log(`    ${String(v).padStart(4)}  ${k}`);
  console.log('  in detail:');
  for (const [k, v] of Object.entries(cls).sort()) console.log(`    ${String(v).padStart(4)}  ${k}`);
  console.log('  closes where rawr and the bound differ:');
  for (const [k, v] of Object.entries(diff).sort()) console.log(`    ${String(v).padStart(4)}  ${k}`);
}

if (require.main === module) {
  const { set, seeds, count, value, has } = familyArgs(process.argv.slice(2));
  explain(set.settings, set.prompts, value('--family', 'random'), seeds, count, Number(value('--lambda', '2')), has('--verbose'));
}
