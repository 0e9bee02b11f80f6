/**
 * The packet turn's room and timers: who writes the packet when the window is nearly full or the model
 * overflowed, which deadline a step cancels, and what the summary prepared in the background is asked for.
 */
import * as assert from 'node:assert/strict';
import type { EngineEvent, EngineState } from '../../src/core/engine/types';
import type { Settings } from '../../src/core/settings/schema';
import { commitTurn, find, GOOD_PACKET, mkState, run, types, usedFor, WINDOW } from '../support/engine';

const T0 = 1_700_000_000_000;
let clock = T0;
const at = () => (clock += 1000);

const turnEnd = (): EngineEvent => ({ type: 'evaluate', at: at(), point: 'turn_complete' });
/** A committed turn ending with `used` tokens of the 200k window, then its evaluation. */
const endingAt = (used: number, settings: Partial<Settings> = {}) =>
  run(mkState({ judgment_enabled: false, ...settings }), [...commitTurn(at, 50).slice(0, -1), { type: 'tokens', at: at(), used, window: WINDOW }, turnEnd()]);
const seqIdOf = (s: EngineState) => ('seqId' in s.seq ? s.seq.seqId : '');

describe('step: room for the packet turn', () => {
  it('exactly 8k tokens free is room enough for the agent; one fewer and rawr writes the packet, saying why', () => {
    const room = endingAt(WINDOW - 8_000);
    assert.equal(find(room.effects, 'sequence_started')[0]!.packetAuthor, 'agent');
    assert.deepEqual(find(room.effects, 'annotate'), []);
    assert.deepEqual(find(room.effects, 'prepare_summary'), [], 'the agent packet stands in for the summary');
    const tight = endingAt(WINDOW - 7_999);
    assert.equal(find(tight.effects, 'sequence_started')[0]!.packetAuthor, 'watcher');
    assert.deepEqual(
      find(tight.effects, 'annotate').map((a) => [a.level, a.text]),
      [['warning', 'Only 7999 tokens left: no room for a packet turn, rawr writes the packet itself.']],
    );
    assert.equal(find(tight.effects, 'prepare_summary').length, 1, 'the watcher packet needs the summary call');
  });

  it('after an overflow rawr writes the packet with no room warning and no summary call', () => {
    const { state } = run(mkState({ judgment_enabled: false }), commitTurn(at, 50));
    const r = run(state, [{ type: 'overflow', at: at(), error: 'prompt is too long:\n  210000 tokens' }]);
    assert.equal(find(r.effects, 'sequence_started')[0]!.packetAuthor, 'watcher');
    assert.deepEqual(find(r.effects, 'annotate'), []);
    assert.equal(find(r.effects, 'compact')[0]!.summarise, false);
    const d = find(r.effects, 'decision')[0]!.decision;
    assert.match(d.reason, /\(prompt is too long: 210000 tokens\)/, 'the error on one line');
    assert.equal(d.id, `d${state.counter + 1}`);
    assert.equal(find(r.effects, 'sequence_started')[0]!.seqId, `s${state.counter + 2}`);
  });
});

describe('step: the packet deadline', () => {
  it('is cancelled when the packet arrives or the notes are written, and never when no packet turn ran', () => {
    const agent = endingAt(usedFor(30));
    const seqA = seqIdOf(agent.state);
    assert.deepEqual(find(run(agent.state, [{ type: 'packet', at: at(), seqId: seqA, text: GOOD_PACKET }]).effects, 'cancel_timer'), [
      { type: 'cancel_timer', timerId: `packet:${seqA}` },
    ]);
    const scratch = endingAt(usedFor(30), { packet_author: 'watcher' });
    const seqS = seqIdOf(scratch.state);
    assert.deepEqual(find(run(scratch.state, [{ type: 'scratch_written', at: at(), seqId: seqS, path: '/tmp/n.md' }]).effects, 'cancel_timer'), [
      { type: 'cancel_timer', timerId: `packet:${seqS}` },
    ]);
    const direct = endingAt(usedFor(30), { packet_author: 'watcher', scratch_write_enabled: false });
    assert.equal(direct.state.seq.phase, 'compacting');
    assert.deepEqual(find(direct.effects, 'start_timer'), []);
    assert.deepEqual(find(direct.effects, 'cancel_timer'), []);
  });

  it('a deadline that fires after the packet arrived (the cancel raced it) is ignored while compacting', () => {
    const agent = endingAt(usedFor(30));
    const seqId = seqIdOf(agent.state);
    const compacting = run(agent.state, [{ type: 'packet', at: at(), seqId, text: GOOD_PACKET }]).state;
    assert.equal(compacting.seq.phase, 'compacting');
    const late = run(compacting, [{ type: 'timeout', at: at(), timerId: `packet:${seqId}` }]);
    assert.deepEqual(late.effects, []);
    assert.equal(late.state, compacting);
  });
});

describe('step: the summary prepared in the background, when', () => {
  const WATCHER: Partial<Settings> = { packet_author: 'watcher', scratch_write_enabled: false, forecast_enabled: false };

  it('at a decision to judge or to preflight (a compaction is coming), asked with that decision', () => {
    const judged = endingAt(usedFor(30), { ...WATCHER, judgment_enabled: true });
    const d = find(judged.effects, 'decision')[0]!.decision;
    assert.equal(d.action, 'judge');
    assert.deepEqual(
      find(judged.effects, 'prepare_summary').map((p) => p.reason),
      [`decision ${d.code}`],
    );
    const pre = run(
      mkState({ ...WATCHER, judgment_enabled: false, early_percent_remaining_lt: 10, ready_percent_remaining_lt: 9, asap_percent_remaining_lt: 30 }),
      [{ type: 'user_message', at: at(), text: 'Explain the importer.' }, { type: 'tokens', at: at(), used: usedFor(20), window: WINDOW }, turnEnd()],
    );
    const p = find(pre.effects, 'decision')[0]!.decision;
    assert.equal(p.action, 'preflight');
    assert.deepEqual(
      find(pre.effects, 'prepare_summary').map((x) => x.reason),
      [`decision ${p.code}`],
    );
  });

  it('not while no tier is reached and nothing is decided: nothing is spent', () => {
    const calm = endingAt(usedFor(70), { ...WATCHER, judgment_enabled: false });
    assert.equal(find(calm.effects, 'decision')[0]!.decision.tier, null);
    assert.deepEqual(find(calm.effects, 'prepare_summary'), []);
    assert.notEqual(calm.state.summaryPrepared, true);
  });
});

describe('step: a manual compaction', () => {
  it('its decision and sequence take one number each; the compacted line says manual', () => {
    const { state } = run(mkState({ judgment_enabled: false }), commitTurn(at, 70));
    let r = run(state, [{ type: 'compact_now', at: at() }]);
    const d = find(r.effects, 'decision')[0]!.decision;
    assert.equal(d.id, `d${state.counter + 1}`);
    assert.equal(d.percentRemaining, 70);
    const seqId = find(r.effects, 'sequence_started')[0]!.seqId;
    assert.equal(seqId, `s${state.counter + 2}`);
    r = run(r.state, [
      { type: 'packet', at: at(), seqId, text: GOOD_PACKET },
      { type: 'compaction_done', at: at(), seqId, tokensBefore: usedFor(70), tokensAfter: usedFor(90) },
    ]);
    assert.equal(find(r.effects, 'compacted')[0]!.text, 'Context compacted — 60k → 20k tokens (manual)');
    assert.ok(types(r.effects).includes('inject_handoff'));
  });
});

describe('step: the compacted line says why', () => {
  const compactedAt5 = (trigger: EngineEvent) => {
    let r = run(mkState({ judgment_enabled: false, packet_author: 'watcher', scratch_write_enabled: false }), [
      { type: 'user_message', at: at(), text: 'Do the whole migration, please.' },
      { type: 'tokens', at: at(), used: usedFor(5), window: WINDOW },
      trigger,
    ]);
    r = run(r.state, [{ type: 'compaction_done', at: at(), seqId: seqIdOf(r.state), tokensBefore: usedFor(5), tokensAfter: usedFor(80) }]);
    return find(r.effects, 'compacted')[0]!.text;
  };

  it('an emergency with no boundary says no boundary came before the line; an overflow says the model rejected the request and no summary was made', () => {
    assert.equal(
      compactedAt5({ type: 'evaluate', at: at(), point: 'tool_loop' }),
      'Context compacted — 190k → 40k tokens (tier emergency, no boundary came before the emergency line)',
    );
    assert.equal(
      compactedAt5({ type: 'overflow', at: at(), error: 'too long' }),
      'Context compacted — 190k → 40k tokens (the model rejected the request as too long; no summary call)',
    );
  });
});
