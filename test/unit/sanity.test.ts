import * as assert from 'node:assert/strict';
import { strengthOf } from '../../src/core/signals/types';

describe('boundary strength', () => {
  it('plan_update is the only weak boundary (docs/ARCHITECTURE.md#boundaries)', () => {
    assert.equal(strengthOf('plan_update'), 'weak');
    assert.equal(strengthOf('commit'), 'strong');
  });
});
