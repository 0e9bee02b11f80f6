/** The engine state's helpers: the initial state, the copies every step makes of it, the bounded lists. */
import * as assert from 'node:assert/strict';
import { emptyTrail, initialState, pushCapped, withState, withTrail } from '../../src/core/engine/state';
import type { EngineState, Trail } from '../../src/core/engine/types';
import { shipped } from '../support/engine';

const fresh = (): EngineState => initialState({ threadId: '0123456789abcdef', settings: shipped.settings, prompts: shipped.prompts });

describe('engine state', () => {
  it('starts empty: no trail, no work this turn, an agent name from the first 8 characters of the thread id', () => {
    const s = fresh();
    assert.deepEqual(s.trail, { userRequests: [], actions: [], toolTail: [], files: [], lastAgentMessage: '', excerpt: [], commits: [] });
    assert.deepEqual(emptyTrail(), s.trail);
    assert.equal(s.workActivityThisTurn, false);
    assert.deepEqual([s.pending, s.seenIds, s.openToolCalls, s.queuedInput], [[], [], [], []]);
    assert.equal(s.agentName, 'rawr-01234567');
    assert.equal(initialState({ threadId: 't', agentName: 'named', settings: shipped.settings, prompts: shipped.prompts }).agentName, 'named');
  });

  it('withState is the spread: every key copied, the patch over it, an optional key absent stays absent', () => {
    const { summaryPrepared: _drop, ...rest } = fresh();
    void _drop;
    const bare = rest as EngineState;
    const copy = withState(bare, {});
    assert.deepStrictEqual(copy, { ...bare });
    for (const k of ['summaryPrepared', 'idle', 'turnCloses']) assert.equal(k in copy, false, k);
    const full: EngineState = { ...bare, summaryPrepared: true, idle: { timerId: 'idle:d1', boundaries: [] }, turnCloses: [] };
    assert.deepStrictEqual(withState(full, { turn: 3 }), { ...full, turn: 3 });
  });

  it('withTrail is the spread too, for the optional keys edited, errors and lastCommand', () => {
    const t = emptyTrail();
    const copy = withTrail(t, {});
    assert.deepStrictEqual(copy, { ...t });
    for (const k of ['edited', 'errors', 'lastCommand']) assert.equal(k in copy, false, k);
    const full = { ...t, edited: ['a.ts'], errors: [], lastCommand: 'npm test' } as unknown as Trail;
    assert.deepStrictEqual(withTrail(full, { lastAgentMessage: 'hi' }), { ...full, lastAgentMessage: 'hi' });
  });

  it('pushCapped keeps the newest max items (at exactly max the oldest goes) and never changes its input', () => {
    const three = [1, 2, 3];
    assert.deepEqual(pushCapped(three, 4, 3), [2, 3, 4]);
    assert.deepEqual(pushCapped(three, 4, 4), [1, 2, 3, 4]);
    assert.deepEqual(pushCapped(three, 4, 2), [3, 4]);
    assert.deepEqual(three, [1, 2, 3]);
  });
});
