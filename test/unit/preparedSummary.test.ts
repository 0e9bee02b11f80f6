/** The plan for a summary prepared in the background (src/core/sequence/preparedSummary.ts): used, extended, or discarded when stale. */
import * as assert from 'node:assert/strict';
import { planSummary, prepareSummaryOf } from '../../src/core/sequence/preparedSummary';
import type { ThreadMessage } from '../../src/core/thread/thread';

const user = (text: string): ThreadMessage => ({ role: 'user', text });
const agent = (text: string): ThreadMessage => ({ role: 'assistant', text });
const PROMPT = '[rawr] Summarise the conversation so far.';

describe('prepared summary: the plan at the boundary', () => {
  const before = [user('Build the limiter.'), agent('Step 1 done.'), user('continue'), agent('Step 2 done.')];
  const prepared = prepareSummaryOf(before, PROMPT, 'Steps 1 and 2 are done.');

  it('none prepared: the whole thread is summarised', () => {
    assert.deepEqual(planSummary(undefined, before, PROMPT, 4000), { kind: 'full', why: 'none' });
  });

  it('nothing but rawr turns since: used as it is, no call', () => {
    const now = [...before, { role: 'user' as const, text: '[rawr watcher → agent] heads-up', synthetic: true, kind: 'heads_up' }];
    assert.deepEqual(planSummary(prepared, now, PROMPT, 4000), { kind: 'prepared', summary: 'Steps 1 and 2 are done.', newMessages: 0 });
  });

  it('new work that fits in the verbatim tail: used as it is (the tail keeps the new part)', () => {
    const now = [...before, user('continue'), agent('Step 3 done.')];
    const plan = planSummary(prepared, now, PROMPT, 4000);
    assert.equal(plan.kind, 'prepared');
    assert.equal(plan.kind === 'prepared' && plan.newMessages, 2);
  });

  it('new work larger than the tail: one call over the prepared summary and only the new messages', () => {
    const now = [...before, user('continue'), agent(`Step 3 done. ${'x'.repeat(40_000)}`)];
    const plan = planSummary(prepared, now, PROMPT, 4000);
    assert.equal(plan.kind, 'incremental');
    if (plan.kind !== 'incremental') return;
    assert.equal(plan.thread.length, 3);
    assert.match(plan.thread[0]!.text, /Summary of the earlier part of this thread[\s\S]*Steps 1 and 2 are done\./);
    assert.deepEqual(plan.thread.slice(1), now.slice(4));
  });

  it('stale: a changed earlier message, a shorter thread (swap, undo), or another prompt (/compact instructions) discard it', () => {
    const edited = [before[0]!, agent('Step 1 done, differently.'), ...before.slice(2), user('continue')];
    assert.deepEqual(planSummary(prepared, edited, PROMPT, 4000), { kind: 'full', why: 'stale' });
    assert.deepEqual(planSummary(prepared, before.slice(0, 2), PROMPT, 4000), { kind: 'full', why: 'stale' });
    const swapped = [user('[rawr] Summary of this thread before it was compacted: …'), ...before.slice(1)];
    assert.deepEqual(planSummary(prepared, swapped, PROMPT, 4000), { kind: 'full', why: 'stale' });
    assert.deepEqual(planSummary(prepared, before, `${PROMPT}\nAdditional instructions from the user: keep the API notes`, 4000), {
      kind: 'full',
      why: 'stale',
    });
  });
});
