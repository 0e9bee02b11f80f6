/**
 * The receipt of @rawr's own compactions (issue 20, item 5): per fact class of rawr's trail, the facts,
 * those the agent's own packet kept, and those only rawr's additions (its recorded facts, the handoff)
 * carried — the same fact check as the repair of a tool's summary.
 */
import * as assert from 'node:assert/strict';
import type { EngineEvent, Fact } from '../../src/core/engine/types';
import { mkState, run, usedFor, WINDOW } from '../support/engine';

const T0 = 1_700_000_000_000;
let clock = T0;
const at = () => (clock += 1000);

const receiptOf = (facts: Fact[]) => facts.find((f): f is Extract<Fact, { type: 'compacted' }> => f.type === 'compacted')!.receipt!;

/** A turn that commits (sha b7e2f41) and fails one test, then ends with 30% of the context left. */
const turn: EngineEvent[] = [
  { type: 'user_message', at: at(), text: 'Add rate limiting to the upload endpoint, then commit.' },
  { type: 'tool_call', at: at(), id: 't1', name: 'run_in_terminal', input: { command: 'npm test -- upload' } },
  { type: 'tool_result', at: at(), id: 't1', output: 'FAIL test/upload.test.ts: expected 429, got 200', isError: true, exitCode: 1 },
  { type: 'tool_call', at: at(), id: 't2', name: 'run_in_terminal', input: { command: 'git commit -am "limiter"' } },
  { type: 'tool_result', at: at(), id: 't2', output: '[main b7e2f41] limiter\n 2 files changed', isError: false, exitCode: 0 },
  { type: 'boundary', at: at(), source: 'terminal', boundary: { kind: 'commit', key: 'b7e2f41', detail: 'b7e2f41 limiter' } },
  { type: 'assistant_message', at: at(), text: 'Committed the limiter; the 429 test still fails.' },
  { type: 'tokens', at: at(), used: usedFor(30), window: WINDOW },
  { type: 'evaluate', at: at(), point: 'turn_complete' },
];

/** The agent's packet: names the commit, not the failing test nor the person's ask. */
const PACKET = `## What just completed
The limiter is in, commit b7e2f41.

## Where we are now
Working tree clean.

## What's next
1. Look at the remaining work.

## Decisions, invariants and traps
- Keep the limiter per route: a global bucket would let one noisy client starve the others.
- The bucket refills continuously (tokens per millisecond), never in steps, so bursts stay bounded.
- Configuration lives in config/limits.json; no constants in the middleware itself.
`;

describe('step: the receipt of a compaction', () => {
  it("agent packet: the commit kept by the agent's packet, the failing test and the ask added by rawr", () => {
    const r = run(mkState({ judgment_enabled: false, forecast_enabled: false }), turn);
    const seqId = r.facts.find((f): f is Extract<Fact, { type: 'sequence_started' }> => f.type === 'sequence_started')!.seqId;
    const done = run(r.state, [
      { type: 'packet', at: at(), seqId, text: PACKET, scratchWritten: true },
      { type: 'compaction_done', at: at(), seqId, tokensBefore: usedFor(30), tokensAfter: 9_000 },
    ]);
    const receipt = receiptOf(done.facts);
    assert.deepEqual(receipt.commits, { facts: 1, kept: 1, added: 0 }, JSON.stringify(receipt));
    assert.equal(receipt.current_ask?.kept, 0, JSON.stringify(receipt));
    assert.equal(receipt.current_ask?.added, 1, JSON.stringify(receipt));
    assert.ok((receipt.tool_errors?.added ?? 0) >= 1, JSON.stringify(receipt));
    for (const c of Object.values(receipt)) assert.ok(c.kept + c.added <= c.facts, JSON.stringify(receipt));
  });

  it('watcher packet: the agent kept nothing (it wrote none); every fact is carried by rawr', () => {
    const r = run(mkState({ judgment_enabled: false, forecast_enabled: false, packet_author: 'watcher', scratch_write_enabled: false }), turn);
    const seqId = r.facts.find((f): f is Extract<Fact, { type: 'sequence_started' }> => f.type === 'sequence_started')!.seqId;
    const done = run(r.state, [{ type: 'compaction_done', at: at(), seqId, tokensBefore: usedFor(30), tokensAfter: 9_000 }]);
    const receipt = receiptOf(done.facts);
    assert.ok(Object.keys(receipt).length >= 3, JSON.stringify(receipt));
    for (const c of Object.values(receipt)) assert.equal(c.kept, 0, JSON.stringify(receipt));
    assert.deepEqual(receipt.commits, { facts: 1, kept: 0, added: 1 });
  });

  it("the plan's next step and open items count as facts of the receipt", () => {
    const plan: EngineEvent = {
      type: 'plan',
      at: at(),
      steps: [
        { text: 'Add the limiter', status: 'completed' },
        { text: 'Fix the 429 test in test/upload.test.ts', status: 'in_progress' },
        { text: 'Document the limits in README', status: 'pending' },
      ],
    };
    const r = run(mkState({ judgment_enabled: false, forecast_enabled: false, packet_author: 'watcher', scratch_write_enabled: false }), [plan, ...turn]);
    const seqId = r.facts.find((f): f is Extract<Fact, { type: 'sequence_started' }> => f.type === 'sequence_started')!.seqId;
    const done = run(r.state, [{ type: 'compaction_done', at: at(), seqId, tokensBefore: usedFor(30), tokensAfter: 9_000 }]);
    const receipt = receiptOf(done.facts);
    assert.equal(receipt.next_step?.facts, 1, JSON.stringify(receipt));
    assert.equal(receipt.open_plan_items?.facts, 1, JSON.stringify(receipt));
  });
});
