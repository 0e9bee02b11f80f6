/**
 * Rawr's schedule on generated phased sessions (test/bench/phasedGen.ts, issue 21): the replay measures
 * phases as the recording shows them, never overflows on any family, and every compaction the forecast
 * drove says what it avoids. The bench (`npm run bench`) reports how close the counts come to the optimum.
 */
import * as assert from 'node:assert/strict';
import { loadRecording } from '../../src/cli/replay/replayCommand';
import { replay } from '../../src/core/replay/driver';
import { DEFAULT_POST_TOKENS, optimalSchedule, scoreSchedule } from '../../src/core/replay/schedule';
import { FAMILIES, generateFamilies, generateSession, rng } from '../bench/phasedGen';
import { familyPool, neighbours, riskRemoved, simulateGrowth } from '../bench/phasedCausal';
import { closeRuleSchedule, limits } from '../bench/phasedLimits';
import { evaluateSessions, targets } from '../bench/phased';
import { alignedByCount, frontier } from '../bench/phasedFrontier';
import { shipped } from '../support/engine';

const run = (text: string, window: number) =>
  replay(loadRecording(text), { settings: shipped.settings, prompts: shipped.prompts, window, postTokens: DEFAULT_POST_TOKENS });

describe('replay on generated phased sessions', () => {
  it('the first phase is what it added, not the context the session started with', () => {
    // Starts at 40k; phases of 60k. The first close's forecast is the first phase, ≈ 60k (not 100k).
    const s = generateSession('first', { window: 200_000, phases: [60_000, 60_000, 60_000], perCall: 3000, spread: 0.3, first: 40_000 }, 7);
    const { decisions } = run(s.text, 200_000);
    const [first, last] = s.labels.windows[0]!;
    const atClose = decisions.find((d) => d.line >= first && d.line <= last + 2 && d.forecast);
    assert.ok(atClose, 'a decision with a forecast at the first close');
    assert.ok(atClose.forecast!.nextPhaseTokens < 70_000, `first phase forecast ${atClose.forecast!.nextPhaseTokens}`);
    assert.ok(atClose.forecast!.nextPhaseTokens > 50_000, `first phase forecast ${atClose.forecast!.nextPhaseTokens}`);
  });

  it('every family: no overflow, and every forecast compaction says what it avoids', () => {
    const fams = generateFamilies(3, 1);
    // The thirteen families docs/benchmarks.md names ("Schedule quality"), not however many the generator has.
    assert.deepEqual(
      fams.map((f) => [f.family.name, f.sessions.length]),
      [
        ...['even', 'one-huge', 'growing', 'tiny', 'noisy', 'long-first', 'window-1M'],
        ...['random', 'near-full', 'rare-large', 'shrinking', 'drifting', 'big-steps'],
      ].map((name) => [name, 1]),
    );
    for (const { family, sessions } of fams) {
      for (const s of sessions) {
        const { decisions, summary } = run(s.text, s.labels.window);
        const score = scoreSchedule(
          s.labels,
          summary.compactions.map((c) => c.line),
        );
        assert.equal(score.overflows, 0, `${family.name}: ${s.name} overflows`);
        assert.equal(summary.counterfactualOverflows, 0, `${family.name}: ${s.name} overflows in the replay`);
        // Every decision that compacts (emergency and tier rule too) says what compacting avoids.
        for (const d of decisions.filter((x) => x.action === 'compact'))
          assert.match(d.reason, /avoids /, `${s.name} line ${d.line} (${d.code}) does not say what it avoids: ${d.reason}`);
        for (const d of decisions.filter((x) => x.action === 'compact' && x.forecast?.verdict === 'compact' && x.forecast.drove)) {
          assert.match(
            d.reason,
            /avoids (an emergency|\d+ emergencies|a compaction outside a boundary) (in|later in) the (next phase|rest of this phase|\d+ planned phases? ahead|next \d+ phases)( \(in \d+ of \d+ forecast scenarios(, \d+% by recency weight| from this thread's forecast errors)\))?: (forecast|phases ≈) \d+k, room -?\d+k? before emergency/,
            `${s.name} line ${d.line}: ${d.reason}`,
          );
        }
        if (family.name === 'one-huge') {
          const emergency = decisions.find((x) => x.action === 'compact' && x.code === 'emergency');
          if (emergency) assert.match(emergency.reason, /avoids overflowing the context window: \d+k of 200k left/);
        }
      }
    }
  });

  it('--limits: the close-by-close rule told the next phase waits where it fits and compacts where it does not', () => {
    // Phases of 70k from 30k: ≈93k at the first close, ≈160k at the second (two phases fit under 176k,
    // three do not): compact at the second close and at the fourth. A predictor that always says 90k
    // (more than the 83k room at the first close) compacts at every close but the last.
    const s = generateSession('lim', { window: 200_000, phases: [70_000, 70_000, 70_000, 70_000, 70_000], perCall: 3000, spread: 0.2, first: 30_000 }, 3);
    const known = closeRuleSchedule(s.labels, (_, real) => real);
    const aligned = (ls: number[]) => ls.every((l) => s.labels.windows.some(([a, b]) => a <= l && l <= b + 2));
    assert.equal(known.length, 2, `${known.join(',')}`);
    assert.ok(aligned(known));
    assert.equal(closeRuleSchedule(s.labels, () => 90_000).length, 4);
    const { rows, optimum, bound } = limits([s], true);
    assert.equal(rows[0]!.compactions, optimum);
    assert.equal(rows[0]!.overflows, 0);
    // Phases all alike: guarding against the session's largest phase is knowing the next one.
    assert.equal(bound!.compactions, optimum);
    assert.equal(bound!.overflows, 0);
    assert.equal(limits([s], false).bound, null, 'no bound where phases are not alike');
  });

  it('--limits bound: a policy without avoidable emergencies guards every close against the largest phase the session may still have', () => {
    // Four 40k phases, then one of 95k: the optimum compacts once (before the 95k phase); a policy that
    // cannot see which phase comes next must keep 95k of room at every close, so it compacts more often.
    const s = generateSession('guard', { window: 200_000, phases: [40_000, 40_000, 40_000, 40_000, 95_000], perCall: 3000, spread: 0.2, first: 30_000 }, 5);
    const { optimum, bound } = limits([s], true);
    assert.equal(optimum, 1);
    assert.ok(bound!.compactions > optimum, `the bound compacts ${bound!.compactions} times`);
    assert.equal(bound!.compactions, bound!.aligned, 'all at closes');
    assert.equal(bound!.overflows, 0);
  });

  it('targets: relative to the optimum (its share - 3 points, 97% where it is 100%; 1.15x its count), strict wherever the optimum exists', () => {
    const t = (rawr: [number, number], optimum: [number, number], noOptimum = 0, atWindow: [number, number] = optimum) =>
      targets({
        rawr: { compactions: rawr[0], aligned: rawr[1], overflows: 0 },
        optimum: { compactions: optimum[0], aligned: optimum[1] },
        optimumAtWindow: { compactions: atWindow[0], aligned: atWindow[1] },
        threshold: { compactions: 0, aligned: 0, overflows: 0 },
        forecastDriven: 0,
        silent: [],
        noOptimum,
      });
    // The optimum at 100%: 97% is the bar (96 of 100 misses it, 97 of 100 meets it); 1.15x its count.
    assert.equal(t([100, 96], [90, 90]).aligned, false);
    assert.equal(t([100, 97], [90, 90]).aligned, true);
    assert.equal(t([104, 104], [90, 90]).count, false);
    assert.equal(t([103, 103], [90, 90]).count, true);
    // The optimum at 80%: 77% is the bar.
    assert.equal(t([100, 76], [90, 72]).aligned, false);
    assert.equal(t([100, 77], [90, 72]).aligned, true);
    // No optimum on some session: relaxed to the optimum at the window, and only then.
    assert.equal(t([90, 81], [0, 0], 1, [80, 72]).count, true);
    assert.equal(t([90, 81], [0, 0], 0, [80, 72]).count, false);
  });

  it('the frontier: its cheapest point is the optimum, and more compactions at closes raise the share', () => {
    // One phase of 190k reaches the line from any context: one compaction inside it whatever the budget.
    const huge = generateSession('huge', { window: 200_000, phases: [50_000, 190_000, 50_000, 50_000], perCall: 3000, spread: 0.2, first: 30_000 }, 3);
    const opt = optimalSchedule(huge.labels)!;
    const most = alignedByCount(huge.labels, opt.compactions + 3);
    assert.equal(most[opt.compactions], opt.compactions - opt.unaligned);
    assert.equal(most[opt.compactions + 1], opt.compactions - opt.unaligned + 1, 'one more, at a close');
    const [at1, at2] = frontier([huge], [opt.compactions], [1, 2]);
    assert.deepEqual(at1, { ratio: 1, compactions: opt.compactions, aligned: opt.compactions - opt.unaligned });
    assert.ok(at2!.aligned > at1!.aligned && at2!.compactions <= 2 * opt.compactions, JSON.stringify(at2));
    // The hindsight frontier is never below rawr's point at rawr's count.
    const r = evaluateSessions([huge], shipped.settings, shipped.prompts)[0]!;
    assert.ok(alignedByCount(huge.labels, r.rawr.compactions)[r.rawr.compactions]! >= r.rawr.aligned);
  });

  it('--limits causal oracle: its growth simulator draws sessions as the generator does (honest conditional draws)', () => {
    // The same shape, 150 sessions each way: the judged growth (positive steps, the recorded tool's own
    // compaction dropped), the points and the phase sizes as the close rule measures them agree in the mean.
    const shape = { window: 200_000, phases: [60_000, 45_000, 80_000, 50_000, 70_000], perCall: 3000, spread: 0.6, first: 30_000 };
    const stats = (gs: Array<{ grown: number[]; first: number[] }>) => {
      const mean = (f: (g: { grown: number[]; first: number[] }) => number) => gs.reduce((a, g) => a + f(g), 0) / gs.length;
      return [mean((g) => g.grown[g.grown.length - 1]!), mean((g) => g.grown.length), ...shape.phases.map((_, k) => mean((g) => g.grown[g.first[k]!]!))];
    };
    const fromGen = Array.from({ length: 150 }, (_, j) => {
      const pts = generateSession('sim', shape, 1000 + j).labels;
      const grown = [0];
      for (let i = 1; i < pts.points.length; i++) grown.push(grown[i - 1]! + Math.max(0, pts.points[i]![1] - pts.points[i - 1]![1]));
      const first = pts.windows.map(([f]) => pts.points.findIndex(([l]) => l === f));
      return { grown, first };
    });
    const fromSim = Array.from({ length: 150 }, (_, j) => simulateGrowth(shape, rng(5000 + j)));
    const [a, b] = [stats(fromGen), stats(fromSim)];
    a.forEach((x, k) => assert.ok(Math.abs(x - b[k]!) <= 0.02 * x, `statistic ${k}: generator ${x.toFixed(0)}, simulator ${b[k]!.toFixed(0)}`));
  });

  it('--limits causal oracle: the posterior draws are of the same plan length and see the risk of a phase that does not fit', () => {
    const fam = FAMILIES.findIndex((f) => f.name === 'even');
    const pool = familyPool(FAMILIES[fam]!, fam, 3000, new Set());
    const base = { k: 1, n: 8, line: 176_000, window: 200_000, post: 30_000, steps: Array.from({ length: 40 }, () => 3000), real: 0 };
    const seen = [70_000, 70_000];
    const near = neighbours(pool, { ...base, seen, c: 100_000 });
    assert.ok(near.length > 50 && near.every((p) => p.g.n === 8));
    // 76k of room for a phase of about 70k (+-12%) and its close: a real risk; 146k after a compaction: none.
    const risky = riskRemoved(near, { ...base, seen, c: 100_000 });
    assert.ok(risky.wait > 0.2 && risky.now === 0, JSON.stringify(risky));
    assert.equal(riskRemoved(near, { ...base, seen, c: 40_000 }).removed, 0);
  });

  it('the generator is deterministic: the same seed gives the same sessions', () => {
    const a = generateFamilies(5, 1).map((f) => f.sessions[0]!.text);
    const b = generateFamilies(5, 1).map((f) => f.sessions[0]!.text);
    assert.deepEqual(a, b);
    assert.notDeepEqual(generateFamilies(6, 1)[0]!.sessions[0]!.text, a[0]);
  });
});
