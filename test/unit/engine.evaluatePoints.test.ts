/**
 * What an evaluation point does besides the tier rule: a deferred Compact Now, what counts as worth a
 * packet, what the modes that do not compact say, the turn's boundaries kept for the idle watch, and a
 * settings change that brings its own prompts.
 */
import * as assert from 'node:assert/strict';
import type { EngineEvent } from '../../src/core/engine/types';
import type { Settings } from '../../src/core/settings/schema';
import { commitTurn, find, mkState, run, shipped, types, usedFor, WINDOW } from '../support/engine';

let clock = 1_700_000_000_000;
const at = () => (clock += 1000);
const evaluate = (point: 'turn_complete' | 'tool_loop' = 'turn_complete'): EngineEvent => ({ type: 'evaluate', at: at(), point });

describe('step: evaluation points', () => {
  it('a deferred Compact Now waits while a tool call is still open, then starts with a decision that consumes the pending boundaries', () => {
    let r = run(mkState({ judgment_enabled: false }), [
      { type: 'user_message', at: at(), text: 'hello' },
      { type: 'tokens', at: at(), used: 10_000, window: WINDOW },
      { type: 'tool_call', at: at(), id: 'x', name: 'run', input: 'make' },
      { type: 'compact_now', at: at(), instructions: 'keep the API notes' },
      evaluate('tool_loop'),
    ]);
    assert.ok(!types(r.effects).includes('sequence_started'), 'not over the open call');
    assert.deepEqual(find(r.effects, 'annotate'), [
      { type: 'annotate', level: 'info', text: 'Compaction requested: it runs at the next safe point (after the running tool call).' },
    ]);
    assert.deepEqual(r.state.manualPending, { instructions: 'keep the API notes' });
    r = run(r.state, [
      { type: 'tool_result', at: at(), id: 'x', output: 'ok', isError: false },
      { type: 'boundary', at: at(), source: 'terminal', boundary: { kind: 'commit', key: 'a1b2c3d', detail: 'a1b2c3d wip' } },
      evaluate('tool_loop'),
    ]);
    const d = find(r.effects, 'decision')[0]!.decision;
    assert.equal(d.code, 'manual');
    assert.deepEqual(find(r.effects, 'boundaries_consumed'), [{ type: 'boundaries_consumed', ids: ['commit:a1b2c3d'], by: d.id, why: 'decision' }]);
    assert.deepEqual(r.state.pending, []);
    assert.equal(r.state.manualPending, null);
    assert.equal(r.state.instructions, 'keep the API notes');
  });

  it('an agent message of exactly 40 characters (spaces around it not counted) is worth a packet; 39 is not', () => {
    const codeAfter = (text: string) => {
      const r = run(mkState({ judgment_enabled: false }), [
        { type: 'assistant_message', at: at(), text },
        { type: 'boundary', at: at(), source: 'terminal', boundary: { kind: 'commit', key: 'abc1234', detail: 'abc1234 wip' } },
        { type: 'tokens', at: at(), used: usedFor(30), window: WINDOW },
        evaluate(),
      ]);
      return find(r.effects, 'decision')[0]!.decision.code;
    };
    assert.equal(codeAfter('x'.repeat(40)), 'compact');
    assert.equal(codeAfter(`   ${'x'.repeat(39)}   `), 'not_packet_worthy');
  });

  it('suggest mode offers Compact now (and prepares no summary: nothing may be spent in it)', () => {
    const r = run(mkState({ mode: 'suggest', judgment_enabled: false, packet_author: 'watcher' }), [...commitTurn(at, 30), evaluate()]);
    const d = find(r.effects, 'decision')[0]!.decision;
    assert.equal(d.action, 'suggest');
    assert.deepEqual(find(r.effects, 'suggest'), [{ type: 'suggest', decision: d }]);
    assert.deepEqual(find(r.effects, 'prepare_summary'), []);
  });

  it('decisions are numbered d1, d2, … in the order they are made', () => {
    const r = run(mkState({ judgment_enabled: false }), [
      { type: 'user_message', at: at(), text: 'Go.' },
      { type: 'tokens', at: at(), used: usedFor(80), window: WINDOW },
      evaluate('tool_loop'),
      evaluate(),
    ]);
    assert.deepEqual(
      find(r.effects, 'decision').map((x) => x.decision.id),
      ['d1', 'd2'],
    );
  });

  it('a phase close before any token count is decided without a forecast (no crash); an evaluation with no close leaves the forecast', () => {
    const plan: EngineEvent = { type: 'plan', at: at(), steps: [{ text: 'step 1', status: 'completed' }] };
    const early = run(mkState({ judgment_enabled: false }), [{ type: 'user_message', at: at(), text: 'Go.' }, plan, evaluate('tool_loop')]);
    assert.equal(find(early.effects, 'decision')[0]!.decision.code, 'no_tokens');
    const s = run(mkState({ judgment_enabled: false }), [
      { type: 'user_message', at: at(), text: 'Go.' },
      { type: 'tokens', at: at(), used: usedFor(80), window: WINDOW },
    ]).state;
    assert.equal(run(s, [evaluate('tool_loop')]).state.forecast, s.forecast);
  });

  it('the same plan reported again reports no boundary', () => {
    const plan: EngineEvent = { type: 'plan', at: at(), steps: [{ text: 'step 1', status: 'in_progress' }] };
    const first = run(mkState(), [plan]).state;
    const r = run(first, [plan]);
    assert.deepEqual(r.effects, []);
    assert.deepEqual(r.state.pending, first.pending);
    assert.deepEqual(r.state.plan?.steps, [{ text: 'step 1', status: 'in_progress' }]);
  });

  it('tag mode says what it would do; a preflight says what it waits for', () => {
    const tag = run(mkState({ mode: 'tag', judgment_enabled: false }), [...commitTurn(at, 30), evaluate()]);
    const d = find(tag.effects, 'decision')[0]!.decision;
    assert.equal(d.action, 'tag');
    assert.deepEqual(find(tag.effects, 'annotate'), [{ type: 'annotate', level: 'info', text: `[rawr] would compact now — ${d.reason}` }]);
    assert.equal(tag.state.seq.phase, 'idle');
    const pre = run(mkState({ judgment_enabled: false, scratch_write_enabled: false }), [
      { type: 'user_message', at: at(), text: 'Explain the importer.' },
      { type: 'tokens', at: at(), used: usedFor(20), window: WINDOW },
      evaluate(),
    ]);
    const p = find(pre.effects, 'decision')[0]!.decision;
    assert.equal(p.action, 'preflight');
    assert.deepEqual(find(pre.effects, 'annotate'), [{ type: 'annotate', level: 'info', text: `[rawr] ${p.reason}` }]);
  });

  it("a thread's first boundaries (before any message) are kept as they are", () => {
    const { state } = run(mkState({ judgment_enabled: false }), [
      { type: 'boundary', at: at(), source: 'terminal', boundary: { kind: 'commit', key: 'a1b2c3d', detail: 'a1b2c3d wip' } },
      evaluate('tool_loop'),
    ]);
    assert.deepEqual(
      state.turnCloses!.map((b) => b.id),
      ['commit:a1b2c3d'],
    );
  });

  it("a turn's boundaries are kept for the idle watch, the newest 20 of a turn that reports more", () => {
    const events: EngineEvent[] = [{ type: 'user_message', at: at(), text: 'Refactor everything.' }];
    for (let k = 0; k < 25; k++) {
      events.push({ type: 'boundary', at: at(), source: 'agent_message', boundary: { kind: 'topic_shift', key: `t${k}`, detail: `topic ${k}` } });
      events.push(evaluate('tool_loop'));
    }
    const { state } = run(mkState({ judgment_enabled: false }), events);
    assert.equal(state.turnCloses!.length, 20);
    assert.equal(state.turnCloses![0]!.id, 'topic_shift:t5');
    assert.equal(state.turnCloses!.at(-1)!.id, 'topic_shift:t24');
  });

  it('a settings change with prompts uses them; one without keeps the prompts in use', () => {
    const s = mkState();
    const settings: Settings = { ...s.settings, min_gain_percent: 20 };
    const prompts = { ...shipped.prompts, packetRequest: 'Write the packet now.' };
    const withPrompts = run(s, [{ type: 'settings', at: at(), settings, prompts }]).state;
    assert.equal(withPrompts.prompts, prompts);
    assert.equal(withPrompts.settings, settings);
    const without = run(withPrompts, [{ type: 'settings', at: at(), settings: { ...settings, min_gain_percent: 10 } }]).state;
    assert.equal(without.prompts, prompts);
    assert.equal(without.settings.min_gain_percent, 10);
  });
});
