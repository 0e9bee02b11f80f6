/** Schedule scoring, the plain threshold and the hindsight-optimal schedule on small hand-made sessions. */
import * as assert from 'node:assert/strict';
import {
  PhaseLabelFileSchema,
  isAligned,
  modelContext,
  optimalSchedule,
  scoreSchedule,
  thresholdSchedule,
  type PhaseLabels,
} from '../../src/core/replay/schedule';

/** Window 100; points every 2 lines from line 2, each adding `step` after the first at `start`. */
function labels(steps: number[], windows: Array<[number, number]>, start = 10, window = 100): PhaseLabels {
  const points: Array<[number, number]> = [[2, start]];
  let t = start;
  steps.forEach((s, k) => {
    t += s;
    points.push([4 + 2 * k, t]);
  });
  return { window, points, windows };
}

describe('schedule scoring (labelled phased sessions)', () => {
  it('models the context: positive steps add, drops are ignored, a compaction restarts at postTokens plus the next step', () => {
    const l: PhaseLabels = {
      window: 100,
      points: [
        [2, 10],
        [4, 30],
        [6, 5],
        [8, 25],
        [10, 45],
      ],
      windows: [],
    };
    assert.deepEqual(modelContext(l, []), [10, 30, 30, 50, 70]);
    // A compaction at line 7 (between points 6 and 8): the point at 8 is 20 + its step 20.
    assert.deepEqual(modelContext(l, [7], 20), [10, 30, 30, 40, 60]);
    // Two compactions between the same two points restart once.
    assert.deepEqual(modelContext(l, [7, 7], 20), [10, 30, 30, 40, 60]);
    // A compaction before the first point: it starts at postTokens.
    assert.deepEqual(modelContext(l, [1], 20), [20, 40, 40, 60, 80]);
  });

  it('aligned means first <= line <= last + 2', () => {
    const l = { windows: [[10, 12]] as Array<[number, number]> };
    assert.equal(isAligned(l, 9), false);
    assert.equal(isAligned(l, 10), true);
    assert.equal(isAligned(l, 14), true);
    assert.equal(isAligned(l, 15), false);
  });

  it('counts overflows (reaching the window) and aligned compactions', () => {
    const l = labels([30, 30, 30, 30], [[6, 6]]);
    const none = scoreSchedule(l, [], 20);
    assert.equal(none.overflows, 2); // 10, 40, 70, 100, 130: two points reach 100
    assert.equal(none.peak, 130);
    const one = scoreSchedule(l, [6], 20);
    assert.deepEqual([one.compactions, one.aligned, one.overflows], [1, 1, 0]);
  });

  it('the threshold compacts at the first point at or above the fraction', () => {
    const l = labels([30, 30, 30, 30, 30], []); // 10, 40, 70, 100, ...
    assert.deepEqual(thresholdSchedule(l, 0.7, 20), [6, 10]); // 70 at line 6; then 50 at 8, 80 at 10
  });

  it('the optimum prefers an aligned compaction, then fewer compactions', () => {
    // Limit 88: 10, 40, 70 fit, 100 does not: one compaction at line 4 or 6 is needed; only 4 is aligned.
    const l = labels([30, 30, 30], [[4, 4]]);
    const opt = optimalSchedule(l, 0.88, 20)!;
    assert.deepEqual(opt, { lines: [4], unaligned: 0, compactions: 1 });
    // Without a window the latest point wins nothing over another: one compaction, unaligned.
    const free = optimalSchedule(labels([30, 30, 30], []), 0.88, 20)!;
    assert.equal(free.compactions, 1);
    assert.equal(free.unaligned, 1);
  });

  it('the optimum takes two aligned compactions over one unaligned', () => {
    // 10, 40, 70, 100, 130 at lines 2..10: one compaction at line 6 (unaligned) suffices (then 50, 80).
    // Aligned lines are 2..4 and 8..10: from 4 (then 50, 80, 110) a second one at 8 is needed.
    const l = labels(
      [30, 30, 30, 30],
      [
        [2, 2],
        [8, 8],
      ],
    );
    const opt = optimalSchedule(l, 0.88, 20)!;
    assert.equal(opt.unaligned, 0);
    assert.deepEqual(opt.lines, [4, 8]);
    assert.equal(scoreSchedule(l, opt.lines, 20).overflows, 0);
  });

  it('needs no compaction when everything fits, and says infeasible when one step alone is too big', () => {
    assert.deepEqual(optimalSchedule(labels([10, 10], [])), { lines: [], unaligned: 0, compactions: 0 });
    assert.equal(optimalSchedule(labels([10, 95], []), 0.88, 20), null);
  });

  it('the optimum is never worse than the threshold schedule, and keeps under the limit', () => {
    // Small steps (1..4) so the threshold at 83.5 never jumps past 88; phase windows every 20 lines.
    const steps = Array.from({ length: 120 }, (_, k) => 1 + ((k * 7 + 3) % 4));
    const l = labels(
      steps,
      Array.from({ length: 12 }, (_, k): [number, number] => [20 * k + 9, 20 * k + 11]),
    );
    const opt = optimalSchedule(l, 0.88, 20)!;
    const ctx = modelContext(l, opt.lines, 20);
    assert.ok(
      ctx.every((c) => c < 88),
      `a point reached the limit: ${ctx}`,
    );
    // Here the threshold keeps under the limit too, so it is a candidate the optimum must match or beat.
    const th = scoreSchedule(l, thresholdSchedule(l, 0.835, 20), 20);
    assert.ok(modelContext(l, th.lines, 20).every((c) => c < 88));
    const thUnaligned = th.compactions - th.aligned;
    assert.ok(opt.unaligned < thUnaligned || (opt.unaligned === thUnaligned && opt.compactions <= th.compactions));
  });

  it('validates labels.json', () => {
    assert.ok(PhaseLabelFileSchema.safeParse({ 'a.jsonl': { window: 100, points: [[1, 2]], windows: [[1, 2]] } }).success);
    assert.equal(PhaseLabelFileSchema.safeParse({ 'a.jsonl': { window: -1, points: [[1, 2]], windows: [] } }).success, false);
    assert.equal(PhaseLabelFileSchema.safeParse({ 'a.jsonl': { window: 100, points: [], windows: [] } }).success, false);
  });
});
