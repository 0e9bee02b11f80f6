/**
 * Where rawr's compactions on a generated family come from, close by close (bench only, issue 33:
 * `node out/test/bench/phasedExplain.js --family NAME [--seed N --to M] [--lambda L] [--list]`; lambda 0
 * skips the Bayes policy, which takes minutes on the walks). Every session of the family is replayed
 * through the same replay as the schedule bench; at each phase close the forecast's inputs are read from
 * the engine (the phases known, the context, what a compaction leaves) and the comparison
 * (compareNowAndWait) is made again, beside
 * - the truth: whether the next phase, as rawr measured it, reached the emergency line from the context at
 *   the close (a compaction where it did not is one the hindsight optimum could skip there);
 * - the risk of that under the family's true law told the session's own parameters (phasedBayes.ts
 *   MODELS), and the decision of the Bayes-optimal causal policy at weight `--lambda` (default 2: noisy's
 *   97% point) at rawr's own context;
 * - which part of the comparison made rawr compact: the same comparison without the forecast margin,
 *   without the few-phases spread, with a one-phase horizon, and with an emergency weighing 3 compactions
 *   (the Bayes policy's 1 + lambda).
 * It prints the counts per class of the compactions rawr makes where the Bayes policy waits, and, over every close
 * (recent and calibrated scenarios apart), the odds the comparison acts on (avoidsShare) against the true law's risk
 * per band of that risk: whether the scenarios' odds are too wide or too narrow on the family, not only at the
 * closes picked for their high odds (overall: their means, and what happened).
 */
import { loadRecording } from '../../src/cli/replay/replayCommand';
import { calibratedScenarios, compareNowAndWait, forecastNext, isPhaseClose } from '../../src/core/arbiter/forecast';
import type { EngineState } from '../../src/core/engine/types';
import { Replayer } from '../../src/core/replay/driver';
import { chooseWindow } from '../../src/core/replay/windows';
import { DEFAULT_POST_TOKENS } from '../../src/core/replay/schedule';
import type { Settings } from '../../src/core/settings/schema';
import type { Prompts } from '../../src/core/prompts/promptSet';
import { BayesPolicy, closePoints, generatorSampler } from './phasedBayes';
import { familySessions, type FamilySession } from './phasedBound';
import { FAMILIES, rng } from './phasedGen';
import { familyArgs } from './familyArgs';

interface Close {
  session: string;
  line: number;
  k: number;
  phases: number;
  used: number;
  into: number;
  calibrated: boolean;
  now: number;
  wait: number;
  compact: boolean;
  avoidsShare: number;
  /** What rawr did from this close to the next: compacted (at the close), an emergency, nothing. */
  did: 'close' | 'emergency' | 'none';
  next: number | null;
  risk: number;
  bayes: boolean | null;
  flips: string[];
  /** The calibrated scenarios over the true mean phase (as rawr measures it). */
  rel: number[];
  /** The next phase reached the line from the context at the close (waiting met an emergency). */
  needed: boolean;
}

function explainSession(settings: Settings, prompts: Prompts, s: FamilySession, lambda: number): Close[] {
  const { model, session, phases: shape } = s;
  const runOn = closePoints(session.labels);
  const rec = loadRecording(session.text);
  const choice = chooseWindow(rec, session.labels.window, undefined);
  const line = (1 - settings.emergency_percent_remaining_lt / 100) * session.labels.window;
  const closes: Close[] = [];
  const compactions: Array<{ line: number; code: string }> = [];
  let history: number[] = [];
  const r: Replayer = new Replayer(rec.format, choice, {
    settings,
    prompts,
    window: session.labels.window,
    postTokens: DEFAULT_POST_TOKENS,
    onDecision: (d) => {
      if (d.action === 'compact') compactions.push({ line: d.line, code: d.code });
      const st = (r as unknown as { state: EngineState }).state;
      if (!st.tokens) return;
      const fc = forecastNext(st.forecast, settings, st.tokens.window, st.plan);
      if (fc.history) history = fc.history;
      if (fc.basis !== 'thread' || !d.boundaries.length || closes.some((c) => c.phases === fc.phases)) return;
      if (!isPhaseClose(st.pending) && !d.forecast) return;
      const args = {
        used: st.tokens.used,
        samples: fc.samples,
        fresh: fc.freshTokens,
        window: st.tokens.window,
        settings,
        remaining: fc.planFinished ? null : (fc.remainingPhases ?? null),
        phases: fc.phases,
        history: fc.history ?? fc.samples,
        into: fc.sinceClose,
      };
      const cmp = compareNowAndWait(args);
      const flips: string[] = [];
      if (cmp.compact) {
        const again = (name: string, a: Partial<Parameters<typeof compareNowAndWait>[0]>) => {
          if (!compareNowAndWait({ ...args, ...a }).compact) flips.push(name);
        };
        again('margin', { settings: { ...settings, forecast_margin_percent: 0 } });
        if (fc.phases < 3) again('spread', { phases: 3 });
        again('horizon1', { remaining: 1 });
        again('weight3', { emergencyWeight: { recent: 3, calibrated: 3 } });
      }
      closes.push({
        session: session.name,
        line: d.line,
        k: fc.phases - 1,
        phases: fc.phases,
        used: st.tokens.used,
        into: fc.sinceClose,
        calibrated: cmp.calibrated,
        now: cmp.now,
        wait: cmp.wait,
        compact: cmp.compact,
        avoidsShare: cmp.avoidsShare,
        did: 'none',
        next: null,
        risk: 0,
        needed: false,
        bayes: null,
        flips,
        rel: calibratedScenarios(args.history, (x) => Math.min(args.fresh, args.used) + x >= line) ?? [],
      });
    },
  });
  for (const it of rec.items) r.push(it);
  r.finish(rec.lines, rec.problems.length);
  const policy = model && lambda > 0 ? new BayesPolicy(model.window, model.n, generatorSampler(model), lambda) : null;
  const drawsAt = (k: number) => (model ? Array.from({ length: 2000 }, (_, j) => model.phases.draw(k + 1, model.phases.zAfter(k), rng(j + 1)).size) : []);
  const draws = drawsAt(0);
  // Rawr measures a phase from close to close: scale the law's sizes to that (its mean over the generator's).
  const n = Math.min(history.length, shape.length);
  const scale = n ? history.slice(0, n).reduce((a, x) => a + x, 0) / shape.slice(0, n).reduce((a, x) => a + x, 0) : 1;
  closes.forEach((c, j) => {
    const nextClose = closes[j + 1];
    const within = compactions.filter((x) => x.line >= c.line && (!nextClose || x.line < nextClose.line));
    c.did = within.some((x) => x.code !== 'emergency') ? 'close' : within.length ? 'emergency' : 'none';
    c.next = history[c.phases] ?? null;
    const mean = (draws.reduce((a, x) => a + x, 0) / Math.max(1, draws.length)) * scale;
    c.rel = c.rel.map((x) => x / mean);
    const dk = drawsAt(Math.max(0, c.k));
    if (dk.length) c.risk = dk.filter((x) => c.used - c.into + x * scale >= line).length / dk.length;
    if (policy && model && c.k >= 0) c.bayes = policy.decide(c.k, model.phases.zAfter(c.k), runOn[c.k]?.runOn ?? false, c.used).compact;
  });
  for (const c of closes) c.needed = c.next !== null && c.used - c.into + c.next >= line;
  return closes;
}

export function explain(settings: Settings, prompts: Prompts, family: string, seeds: number[], lambda: number, list: boolean): void {
  const f = FAMILIES.findIndex((x) => x.name === family);
  if (f < 0) throw new Error(`no family ${family}`);
  const all: Close[] = [];
  const sessions = familySessions(f, seeds, 8);
  for (const s of sessions) all.push(...explainSession(settings, prompts, s, lambda));
  if (list)
    for (const c of all)
      console.log(
        `${c.session.padEnd(16)} close ${String(c.k + 1).padStart(2)} used ${Math.round(c.used / 1000)}k into ${Math.round(c.into / 1000)}k ${c.calibrated ? 'cal' : 'rec'} now ${c.now.toFixed(2)} wait ${c.wait.toFixed(2)} share ${c.avoidsShare.toFixed(2)} -> ${c.compact ? 'COMPACT' : 'wait   '} did ${c.did.padEnd(9)} next ${c.next === null ? '—' : `${Math.round(c.next / 1000)}k`} ${c.needed ? 'NEEDED' : c.next === null ? '' : 'fit   '} risk ${c.risk.toFixed(2)} bayes ${c.bayes === null ? '?' : c.bayes ? 'C' : 'w'} flips ${c.flips.join(',')} rel ${c.rel.map((x) => x.toFixed(2)).join(' ')}`,
      );
  const count = (p: (c: (typeof all)[number]) => boolean) => all.filter(p).length;
  const comp = all.filter((c) => c.did === 'close');
  console.log(`${family}, seeds ${seeds[0]}-${seeds[seeds.length - 1]}, ${sessions.length} sessions, ${all.length} closes, lambda ${lambda}:`);
  console.log(
    `  rawr compacts at ${comp.length} closes (the comparison says compact at ${count((c) => c.compact)}, the rest the session's last close) (${count((c) => c.did === 'emergency')} closes followed by an emergency); the Bayes policy at rawr's contexts: ${count((c) => c.bayes === true)}`,
  );
  console.log(
    `  of rawr's close compactions: next phase would have reached the line ${count((c) => c.did === 'close' && !!c.needed)}, fit ${count((c) => c.did === 'close' && !c.needed)}`,
  );
  console.log(
    `  rawr compacts, Bayes waits: ${count((c) => c.did === 'close' && c.bayes === false)} (of them the next phase fit: ${count((c) => c.did === 'close' && c.bayes === false && !c.needed)}); rawr waits, Bayes compacts: ${count((c) => c.did !== 'close' && c.bayes === true)} (the next phase needed it: ${count((c) => c.did !== 'close' && c.bayes === true && !!c.needed)})`,
  );
  const extra = comp.filter((c) => c.bayes === false);
  const by = (key: (c: Close) => string) => {
    const m = new Map<string, number>();
    for (const c of extra) m.set(key(c), (m.get(key(c)) ?? 0) + 1);
    return [...m.entries()]
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ');
  };
  console.log(`  those rawr-only compactions by phases known: ${by((c) => String(c.phases))}`);
  console.log(`  by scenarios: ${by((c) => (c.calibrated ? 'calibrated' : 'recent'))}`);
  console.log(`  by what flips them to wait alone: ${by((c) => c.flips.join('+') || 'nothing alone')}`);
  console.log(`  by true risk: ${by((c) => (c.risk < 0.05 ? '<5%' : c.risk < 0.15 ? '5-15%' : c.risk < 0.3 ? '15-30%' : '>=30%'))}`);
  const mean = (xs: readonly number[]) => xs.reduce((t, x) => t + x, 0) / Math.max(1, xs.length);
  console.log(
    `  their odds as rawr's scenarios weigh them (avoidsShare) ${mean(extra.map((c) => c.avoidsShare)).toFixed(2)} against the true law's ${mean(extra.map((c) => c.risk)).toFixed(2)}; where rawr and Bayes both compact: ${mean(comp.filter((c) => c.bayes).map((c) => c.avoidsShare)).toFixed(2)} against ${mean(comp.filter((c) => c.bayes).map((c) => c.risk)).toFixed(2)}`,
  );
  console.log(
    `  of them where compacting now costs exactly one compaction over the planned horizon (nothing after it): ${extra.filter((c) => Math.abs(c.now - 1) < 1e-9).length}`,
  );
  console.log(`  by hindsight: ${by((c) => (c.next === null ? 'last' : c.needed ? 'needed' : 'fit'))}`);
  // The odds the comparison acts on against the true law's, at every close (not only the ones rawr compacted at):
  // per band of the true risk, the mean of each, so a forecast whose odds are too wide or too narrow shows.
  for (const cal of [false, true]) {
    const at = all.filter((c) => c.calibrated === cal && c.next !== null);
    const bands: Array<[string, (r: number) => boolean]> = [
      ['<5%', (r) => r < 0.05],
      ['5-15%', (r) => r >= 0.05 && r < 0.15],
      ['15-30%', (r) => r >= 0.15 && r < 0.3],
      ['30-50%', (r) => r >= 0.3 && r < 0.5],
      ['>=50%', (r) => r >= 0.5],
    ];
    const rows = bands
      .map(([name, p]) => {
        const b = at.filter((c) => p(c.risk));
        return b.length ? `${name} (${b.length}): ${mean(b.map((c) => c.avoidsShare)).toFixed(2)} vs ${mean(b.map((c) => c.risk)).toFixed(2)}` : '';
      })
      .filter(Boolean);
    const brier = mean(at.map((c) => (c.avoidsShare - (c.needed ? 1 : 0)) ** 2));
    console.log(
      `  odds at all ${at.length} closes with ${cal ? 'calibrated' : 'recent'} scenarios, by the law's risk (rawr's odds vs the law's): ${rows.join('; ')}; overall ${mean(at.map((c) => c.avoidsShare)).toFixed(3)} vs ${mean(at.map((c) => c.risk)).toFixed(3)} (happened ${mean(at.map((c) => (c.needed ? 1 : 0))).toFixed(3)}); mean |odds - law| ${mean(at.map((c) => Math.abs(c.avoidsShare - c.risk))).toFixed(3)}; Brier vs hindsight ${brier.toFixed(3)} (the law's ${mean(at.map((c) => (c.risk - (c.needed ? 1 : 0)) ** 2)).toFixed(3)})`,
    );
  }
}

if (require.main === module) {
  const { set, seeds, value, has } = familyArgs(process.argv.slice(2));
  explain(set.settings, set.prompts, value('--family', 'noisy'), seeds, Number(value('--lambda', '2')), has('--list'));
}
