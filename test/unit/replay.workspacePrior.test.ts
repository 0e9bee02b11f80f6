/**
 * The bench's --workspace mode (test/bench/phased.ts): a family's sessions run as threads of one workspace,
 * each given what workspacePhasePrior (coreService.ts) would read of the earlier ones as its phase_prior.
 */
import * as assert from 'node:assert/strict';
import { loadRecording } from '../../src/cli/replay/replayCommand';
import { Replayer } from '../../src/core/replay/driver';
import { DEFAULT_POST_TOKENS } from '../../src/core/replay/schedule';
import { chooseWindow } from '../../src/core/replay/windows';
import { rawrSchedule, workspacePrior } from '../bench/phased';
import { generateSession } from '../bench/phasedGen';
import { shipped } from '../support/engine';

const session = () => generateSession('ws', { window: 200_000, phases: [60_000, 50_000, 70_000], perCall: 3000, spread: 0.3, first: 40_000 }, 7);

describe('bench --workspace: a prior across threads', () => {
  it('reads the last five earlier threads, each its last forecast_recent_phases phases, at most 20 in all', () => {
    const threads = [[1], [2, 3], [4, 5, 6, 7], [], [8], [9, 10], [11, 12, 13]];
    // The last five threads (one has no phases: it adds none, an older one does not stand in), last 3 of each.
    assert.deepEqual(workspacePrior(threads, shipped.settings).phases, [5, 6, 7, 8, 9, 10, 11, 12, 13]);
    assert.deepEqual(workspacePrior([], shipped.settings).phases, []);
    const long = Array.from({ length: 5 }, (_, t) => Array.from({ length: 6 }, (__, j) => 10 * t + j));
    const got = workspacePrior(long, { ...shipped.settings, forecast_recent_phases: 5 }).phases;
    assert.equal(got.length, 20);
    assert.deepEqual(got.slice(-5), [41, 42, 43, 44, 45]);
  });

  it("a thread's phases are what the next one's prior reads", () => {
    const s = session();
    const { phases } = rawrSchedule(s, shipped.settings, shipped.prompts);
    assert.ok(phases.length >= 2, `phases ${phases.join(',')}`);
    for (const p of phases) assert.ok(p > 40_000 && p < 90_000, `phase ${p}`);
  });

  it('the prior reaches the engine: the forecast state holds it until this thread has phases of its own', () => {
    const s = session();
    const rec = loadRecording(s.text);
    const opts = { settings: shipped.settings, prompts: shipped.prompts, window: 200_000, postTokens: DEFAULT_POST_TOKENS };
    const withPrior = new Replayer(rec.format, chooseWindow(rec, 200_000), { ...opts, prior: { phases: [30_000, 0, 123_456] } });
    const without = new Replayer(rec.format, chooseWindow(rec, 200_000), opts);
    // withPrior's filter drops what is not a phase size (0), as the live host's event is.
    assert.deepEqual(withPrior.save().state.forecast.prior, [30_000, 123_456]);
    assert.deepEqual(without.save().state.forecast.prior, []);
  });
});
