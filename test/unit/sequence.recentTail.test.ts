// The turns a compaction keeps verbatim and the prepared summary's plan (sequence/recentTail.ts,
// preparedSummary.ts), at their edges: the token estimate, an exact fit, a call half answered, the
// clipped unit, the handoff's bounded horizon. Mutation testing (CONTRIBUTING.md) showed these could
// change unnoticed by handoff.test.ts and preparedSummary.test.ts.
import * as assert from 'node:assert/strict';
import { compactedThread, messageTokens, recentIntroText, selectRecentTail, tailBudget, tailHorizon } from '../../src/core/sequence/recentTail';
import { planSummary, prepareSummaryOf } from '../../src/core/sequence/preparedSummary';
import type { ThreadMessage } from '../../src/core/thread/thread';

const user = (text: string): ThreadMessage => ({ role: 'user', text });
const call = (id: string, text = ''): ThreadMessage => ({ role: 'assistant', text, toolCalls: [{ id, name: 'Bash', input: { command: 'ls' } }] });
const result = (id: string, text: string): ThreadMessage => ({ role: 'tool', toolCallId: id, name: 'Bash', text });
const tokens = (ms: readonly ThreadMessage[]) => ms.reduce((n, m) => n + messageTokens(m), 0);

describe('the recent tail at its edges', () => {
  it('the token estimate: 4 characters a token for the text and for the tool calls, plus 4 for the turn', () => {
    assert.equal(messageTokens(user('x'.repeat(8))), 2 + 4);
    assert.equal(messageTokens({ role: 'assistant', text: 'abcd' }), 1 + 4);
    // "Bash {"command":"ls"}" is 21 characters: 6 tokens.
    assert.equal(messageTokens(call('c', 'abcd')), 1 + 6 + 4);
    // Two calls of 20 characters ("Bash {"command":"l"}") on two lines: 41 characters, 11 tokens.
    const two = ['a', 'b'].map((id) => ({ id, name: 'Bash', input: { command: 'l' } }));
    assert.equal(messageTokens({ role: 'assistant', text: '', toolCalls: two }), 0 + 11 + 4);
    assert.equal(messageTokens({ role: 'assistant', text: '', toolCalls: [{ id: 'u', name: 'Bash', input: undefined }] }), 0 + 2 + 4, 'no input: "Bash "');
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    // "Bash [object Object]" is 20 characters: 5 tokens.
    assert.equal(messageTokens({ role: 'assistant', text: '', toolCalls: [{ id: 'c', name: 'Bash', input: circular }] }), 0 + 5 + 4);
  });

  it('the budget: the knob, capped by the window and the context only when they are known', () => {
    assert.equal(tailBudget(4000, null, null), 4000);
    assert.equal(tailBudget(4000, undefined), 4000);
  });

  it('a thread that fits exactly is kept whole; a call with one of two results is never sent', () => {
    const thread = [user('one'), call('a', 'x'.repeat(40)), result('a', 'y'.repeat(40)), user('two')];
    assert.deepEqual(selectRecentTail(thread, tokens(thread)), thread);
    const halfAnswered: ThreadMessage = {
      role: 'assistant',
      text: 'two calls',
      toolCalls: ['p', 'q'].map((id) => ({ id, name: 'Bash', input: { command: 'ls' } })),
    };
    assert.deepEqual(selectRecentTail([user('go'), halfAnswered, result('p', 'done')], 1000), [user('go')]);
  });

  it('a unit too big alone is clipped in the middle of its long texts, short ones unchanged; too small a budget keeps nothing', () => {
    const unit = [call('c', 'short'), result('c', `${'a'.repeat(3000)}${'b'.repeat(3000)}`)];
    const fixed = tokens(unit.map((m) => ({ ...m, text: '' })));
    const budget = fixed + 1000; // room: 4000 characters, 2000 a message
    const [c, r] = selectRecentTail(unit, budget);
    assert.equal(c!.text, 'short');
    assert.equal(r!.text, `${'a'.repeat(1200)}\n… [4000 characters omitted by rawr] …\n${'b'.repeat(800)}`);
    const exact = selectRecentTail([call('c', 'x'.repeat(2000)), result('c', 'z'.repeat(2001))], budget);
    assert.equal(exact[0]!.text, 'x'.repeat(2000), 'a text of exactly its share is not clipped');
    assert.equal(selectRecentTail(unit, fixed + 199).length, 0, 'room for 796 characters: under 400 a message');
    assert.equal(selectRecentTail(unit, fixed + 200).length, 2, 'room for 800 characters: 400 a message');
  });

  it("the handoff's horizon: where the newest units over the largest budget begin, 0 when all fit", () => {
    const thread = [user('a'.repeat(400)), user('b'.repeat(400)), call('c'), result('c', 'r'.repeat(400)), user('d'.repeat(400))];
    const each = messageTokens(thread[0]!);
    const unitC = tokens(thread.slice(2, 4));
    assert.equal(tailHorizon(thread, 10_000), 0);
    assert.equal(tailHorizon(thread, each + unitC), 1, 'the second user message is the newest unit that does not fit');
    assert.equal(tailHorizon(thread, each + unitC - 1), 2, 'the call and its result begin the newest unit over the budget');
    assert.equal(tailHorizon(thread, each), 2);
    assert.equal(tailHorizon(thread, each - 1), 4);
    const afterHeadsUp: ThreadMessage[] = [{ role: 'user', text: 'heads-up', synthetic: true, kind: 'heads_up' }, user('a'.repeat(400))];
    assert.equal(tailHorizon(afterHeadsUp, 1), 1, 'the oldest unit over the budget, after a message that is no unit');
  });

  it('the replacement thread: every rawr turn synthetic, the tail behind an introduction that counts it', () => {
    const tail = [user('x'.repeat(40))];
    assert.deepEqual(compactedThread('S', 'P', tail), [
      { role: 'user', text: '[rawr] Summary of this thread before it was compacted:\n\nS', synthetic: true, kind: 'summary' },
      { role: 'assistant', text: 'P', synthetic: true, kind: 'packet' },
      { role: 'user', text: recentIntroText(1, 14), synthetic: true, kind: 'recent_intro' },
      ...tail,
    ]);
    assert.equal(
      recentIntroText(3, 120),
      '[rawr] The last 3 messages before the compaction follow, kept verbatim (about 120 tokens). They are newer than anything summarised above; the handoff after them says how to continue.',
    );
  });
});

describe('the prepared summary at its edges', () => {
  const thread = [user('build it'), call('c'), result('c', 'ok')];
  it('a summary of the whole thread is used as it is; new work of exactly the tail budget too, one token more needs a call', () => {
    const p = prepareSummaryOf(thread, 'prompt', 'SUM');
    assert.deepEqual(planSummary(p, thread, 'prompt', 0), { kind: 'prepared', summary: 'SUM', newMessages: 0 });
    const more = [...thread, user('x'.repeat(40))];
    assert.deepEqual(planSummary(p, more, 'prompt', 14), { kind: 'prepared', summary: 'SUM', newMessages: 1 });
    const inc = planSummary(p, more, 'prompt', 13);
    assert.equal(inc.kind, 'incremental');
    assert.deepEqual(inc.kind === 'incremental' && inc.thread[0], {
      role: 'user',
      text: '[rawr] Summary of the earlier part of this thread, prepared before this compaction (the messages after it follow):\n\nSUM',
      synthetic: true,
      kind: 'summary',
    });
  });
});
