/** The provider's token-estimate calibration from the server's usage (src/host/lm/tokenCalibration.ts). */
import * as assert from 'node:assert/strict';
import { CHANGE_THRESHOLD, MAX_FACTOR, MIN_FACTOR, MIN_SAMPLE_ESTIMATE, TokenCalibration } from '../../src/host/lm/tokenCalibration';

describe('TokenCalibration', () => {
  it('uncalibrated: factor 1, epoch 0, the estimate unchanged', () => {
    const c = new TokenCalibration();
    assert.deepEqual(c.get('m'), { factor: 1, epoch: 0 });
    assert.equal(c.scale('m', 1234), 1234);
  });

  it('a sample sets the factor from the server count over the estimate, with a new epoch', () => {
    const c = new TokenCalibration();
    const r = c.observe('m', 10_000, 16_200);
    assert.ok(r.changed);
    assert.equal(c.get('m').factor, 1.62);
    assert.equal(c.get('m').epoch, 1);
    assert.deepEqual(c.get('m').from, { promptTokens: 16_200, estimate: 10_000 });
    assert.equal(c.scale('m', 1000), 1620);
    // per model: another model is untouched
    assert.equal(c.scale('other', 1000), 1000);
  });

  it('samples within the threshold keep the factor and the epoch (cached counts stay valid)', () => {
    const c = new TokenCalibration();
    c.observe('m', 10_000, 20_000);
    const near = 20_000 * (1 + CHANGE_THRESHOLD * 0.9);
    const r = c.observe('m', 10_000, near);
    assert.equal(r.changed, false);
    assert.equal(c.get('m').factor, 2);
    assert.equal(c.get('m').epoch, 1);
    const far = c.observe('m', 10_000, 25_000);
    assert.ok(far.changed);
    assert.equal(c.get('m').factor, 2.5);
    assert.equal(c.get('m').epoch, 2);
  });

  it('ignores small requests and unusable counts', () => {
    const c = new TokenCalibration();
    for (const [estimate, prompt] of [
      [MIN_SAMPLE_ESTIMATE - 1, 10_000],
      [10_000, 0],
      [10_000, -5],
      [10_000, Number.NaN],
      [10_000, Infinity],
      [10_000, '12000'],
      [10_000, undefined],
    ] as const) {
      assert.equal(c.observe('m', estimate, prompt).changed, false, `${estimate} / ${String(prompt)}`);
    }
    assert.deepEqual(c.get('m'), { factor: 1, epoch: 0 });
  });

  it('clamps a wild server count', () => {
    const c = new TokenCalibration();
    c.observe('m', 1000, 1_000_000);
    assert.equal(c.get('m').factor, MAX_FACTOR);
    c.observe('m', 1_000_000, 1000);
    assert.equal(c.get('m').factor, MIN_FACTOR);
  });

  it('epochs are never reused, even after reset (a stale cached count can never match)', () => {
    const c = new TokenCalibration();
    c.observe('m', 1000, 2000);
    const first = c.get('m').epoch;
    c.reset();
    assert.deepEqual(c.get('m'), { factor: 1, epoch: 0 });
    c.observe('m', 1000, 3000);
    assert.ok(c.get('m').epoch > first, `${c.get('m').epoch} > ${first}`);
  });
});
