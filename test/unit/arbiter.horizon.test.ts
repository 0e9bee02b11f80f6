/** The finite-horizon decision at a phase close (horizon.ts): cases whose best schedule is known by hand. */
import * as assert from 'node:assert/strict';
import { horizonValue, HORIZON_CAP, type HorizonInput } from '../../src/core/arbiter/horizon';

const FRESH = 30_000;
const LINE = 176_000; // 88% of 200k: 146k of room from a fresh context

/** The value at a close of a plan with `horizon` phases left, every phase `x` tokens. */
const planned = (used: number, x: number, horizon: number) =>
  horizonValue({ used, fresh: FRESH, line: LINE, scenarios: [{ x, weight: 1 }], into: 0, horizon, open: false, emergencyWeight: 5 });

/** The closes (1 = before the first phase) where the decision compacts, playing a whole session of `phases`. */
function play(phases: readonly number[], scenarios: HorizonInput['scenarios'], planned: boolean, emergencyWeight = 5) {
  let used = FRESH;
  const compactions: number[] = [];
  let emergencies = 0;
  phases.forEach((size, k) => {
    const v = horizonValue({ used, fresh: FRESH, line: LINE, scenarios, into: 0, horizon: planned ? phases.length - k : 6, open: !planned, emergencyWeight });
    if (v.now < v.wait) {
      compactions.push(k + 1);
      used = FRESH;
    }
    used += size;
    if (used >= LINE) {
      emergencies++;
      used = FRESH + (used - LINE);
    }
  });
  return { compactions, emergencies };
}

describe('horizonValue: compact now or wait, over every phase ahead', () => {
  it('phases of a known size that fit exactly three to a fresh context: a compaction at every third close, no emergency', () => {
    // 45k a phase: three (135k) fit the 146k of room, a fourth (180k) does not.
    const even = Array.from({ length: 12 }, () => 45_000);
    assert.deepEqual(play(even, [{ x: 45_000, weight: 1 }], true), { compactions: [4, 7, 10], emergencies: 0 });
    // Open horizon (no plan): the same.
    assert.deepEqual(play(even, [{ x: 45_000, weight: 1 }], false), { compactions: [4, 7, 10], emergencies: 0 });
    // 70k: two fit (140k), so every second close.
    assert.deepEqual(play([70_000, 70_000, 70_000, 70_000, 70_000, 70_000], [{ x: 70_000, weight: 1 }], true), {
      compactions: [3, 5],
      emergencies: 0,
    });
  });

  it('the plan says where the session ends: the last phase that fits needs no compaction, one that does not fit does', () => {
    const at = (used: number, horizon: number) => planned(used, 45_000, horizon);
    // 120k + 45k = 165k fits: waiting costs nothing, compacting one.
    assert.deepEqual(at(120_000, 1), { now: 1, wait: 0 });
    // 165k + 45k reaches the line: an emergency (5) against a compaction (1).
    assert.deepEqual(at(165_000, 1), { now: 1, wait: 5 });
  });

  it('weighs the risk over the phases ahead: a one-in-four chance of a large phase is worth a compaction only while it is cheaper than the emergency', () => {
    // Next phase 20k (3 in 4) or 100k (1 in 4), from 90k used: 100k would reach the line (190k), from a
    // fresh context it fits. An emergency at 5 compactions × 1/4 = 1.25 > 1: compact; at 3 × 1/4 = 0.75: wait.
    const scenarios = [
      { x: 20_000, weight: 3 },
      { x: 100_000, weight: 1 },
    ];
    const v = (w: number) => horizonValue({ used: 90_000, fresh: FRESH, line: LINE, scenarios, into: 0, horizon: 1, open: false, emergencyWeight: w });
    assert.ok(v(5).now < v(5).wait);
    assert.ok(v(3).now > v(3).wait);
  });

  it('an emergency mid-phase leaves the rest of the phase in the fresh context: the close after it sees that much used', () => {
    // From 150k a 100k phase reaches the line at 176k: an emergency, then 74k more on a fresh 30k = 104k.
    // With one more phase of 100k planned, waiting then costs the emergency and a compaction at that close
    // (104k + 100k would not fit): 5 + 1; compacting now: 1, then 130k, and the next 100k needs a compaction: 2.
    const v = planned(150_000, 100_000, 2);
    assert.ok(Math.abs(v.wait - 6) < 1e-9, `wait ${v.wait}`);
    assert.ok(Math.abs(v.now - 2) < 1e-9, `now ${v.now}`);
  });

  it('stays bounded: a plan of hundreds of phases is looked at HORIZON_CAP phases deep', () => {
    const v = planned(165_000, 45_000, 500);
    assert.ok(HORIZON_CAP <= 32 && v.now < v.wait);
  });
});
