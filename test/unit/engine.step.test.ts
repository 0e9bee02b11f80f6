import * as assert from 'node:assert/strict';
import type { EngineEvent, EngineState } from '../../src/core/engine/types';
import { commitTurn, find, GOOD_PACKET, mkState, run, types, usedFor, WINDOW } from '../support/engine';
import { validateAgentPacket } from '../../src/core/sequence/packet';

const T0 = 1_700_000_000_000;
let clock = T0;
const at = () => (clock += 1000);

/** A realistic turn: the user asks, the agent runs tests and commits, tokens land in `pct` remaining. */
const workTurn = (pct: number, sha?: string): EngineEvent[] => commitTurn(at, pct, sha);

const seqIdOf = (s: EngineState) => ('seqId' in s.seq ? s.seq.seqId : '');

describe('step: golden path', () => {
  it('agent packet with scratch: heads-up → one turn for the scratch notes and the packet → compact (no summary call) → handoff', () => {
    let { state, effects } = run(mkState({ judgment_enabled: false }), [...workTurn(30), { type: 'evaluate', at: at(), point: 'turn_complete' }]);
    // The message went into the thread; the commit and the turn end were noted, then consumed by the decision.
    assert.deepEqual(
      types(effects).filter((t) => t !== 'decision'),
      [
        'append_user_message',
        'boundary_noted',
        'boundary_noted',
        'boundaries_consumed',
        'sequence_started',
        'inject_heads_up',
        'request_packet',
        'start_timer',
      ],
    );
    const d = find(effects, 'decision')[0]!.decision;
    assert.deepEqual(find(effects, 'boundaries_consumed')[0], {
      type: 'boundaries_consumed',
      ids: find(effects, 'boundary_noted').map((b) => b.boundary.id),
      by: d.id,
      why: 'decision',
    });
    assert.deepEqual(find(effects, 'sequence_started')[0], {
      type: 'sequence_started',
      seqId: seqIdOf(state),
      decisionId: d.id,
      reason: d.reason,
      packetAuthor: 'agent',
    });
    const headsUp = find(effects, 'inject_heads_up')[0]!;
    assert.match(headsUp.text, /rawr watcher → agent/);
    assert.match(headsUp.text, /commit a1b2c3d/);
    // One turn asks for both: the scratch notes first, then the packet.
    const req = find(effects, 'request_packet')[0]!;
    assert.equal(req.scratchPath, '.scratch/agent-rawr-thread-t.scratch.md');
    assert.ok(req.text.indexOf('rawr_write_scratch') < req.text.indexOf('Write your continuation packet'), req.text);
    assert.ok(req.text.includes('`.scratch/agent-rawr-thread-t.scratch.md`'));
    assert.equal(state.seq.phase, 'awaiting_packet');
    const seqId = seqIdOf(state);

    ({ state, effects } = run(state, [{ type: 'packet', at: at(), seqId, text: GOOD_PACKET, scratchWritten: true }]));
    assert.deepEqual(types(effects), ['cancel_timer', 'show_packet', 'progress', 'compact']);
    assert.equal(find(effects, 'show_packet')[0]!.author, 'agent');
    // The agent's packet stands in for the summary (agent_packet_replaces_summary, on by default).
    assert.equal(find(effects, 'compact')[0]!.summarise, false);
    assert.equal(state.seq.phase, 'compacting');

    ({ state, effects } = run(state, [{ type: 'compaction_done', at: at(), seqId, tokensBefore: usedFor(30), tokensAfter: 31_000 }]));
    assert.deepEqual(types(effects), ['compacted', 'sequence_ended', 'show_compacted', 'inject_handoff']);
    assert.match(find(effects, 'compacted')[0]!.text, /^Context compacted — 140k → 31k tokens \(tier ready, boundary commit a1b2c3d importer\)$/);
    const handoff = find(effects, 'inject_handoff')[0]!.text;
    assert.match(handoff, /CONTEXT COMPACTION DETECTED/);
    assert.match(handoff, /git diff --stat/);
    assert.match(handoff, /\.scratch\/agent-rawr-thread-t\.scratch\.md/);
    assert.ok(handoff.includes(GOOD_PACKET.trim()));
    assert.match(handoff, /Continue from here\.\s*$/);
    assert.match(handoff, /the continuation packet you wrote before the compaction:/);
    assert.equal(state.seq.phase, 'idle');
    assert.equal(state.tokens?.used, 31_000);
  });

  it('an agent that wrote no scratch notes in the packet turn: the handoff does not point to a scratch file', () => {
    const started = run(mkState({ judgment_enabled: false }), [...workTurn(30), { type: 'evaluate', at: at(), point: 'turn_complete' }]).state;
    const seqId = seqIdOf(started);
    const { state, effects } = run(started, [
      { type: 'packet', at: at(), seqId, text: GOOD_PACKET, scratchWritten: false },
      { type: 'compaction_done', at: at(), seqId, tokensBefore: usedFor(30), tokensAfter: 31_000 },
    ]);
    const handoff = find(effects, 'inject_handoff')[0]!.text;
    assert.ok(handoff.includes(GOOD_PACKET.trim()));
    assert.doesNotMatch(handoff, /\.scratch\//);
    assert.equal(state.seq.phase, 'idle');
  });

  it('watcher packet with scratch: the agent writes its notes in a turn of its own, then rawr assembles the packet and summarises', () => {
    let { state, effects } = run(mkState({ judgment_enabled: false, packet_author: 'watcher' }), [
      ...workTurn(30),
      { type: 'evaluate', at: at(), point: 'turn_complete' },
    ]);
    const req = find(effects, 'request_scratch_write')[0]!;
    assert.equal(req.path, '.scratch/agent-rawr-thread-t.scratch.md');
    assert.ok(!types(effects).includes('request_packet'));
    assert.equal(state.seq.phase, 'awaiting_scratch');
    ({ state, effects } = run(state, [{ type: 'scratch_written', at: at(), seqId: req.seqId, path: req.path }]));
    assert.equal(find(effects, 'show_packet')[0]!.author, 'watcher');
    // No agent packet to stand in for it: the summary call runs.
    assert.equal(find(effects, 'compact')[0]!.summarise, undefined);
    assert.equal(state.seq.phase, 'compacting');
  });

  it('watcher packet (packet_author watcher, no scratch) assembles a packet with the required sections and tool tail', () => {
    const { state, effects } = run(mkState({ judgment_enabled: false, packet_author: 'watcher', scratch_write_enabled: false }), [
      ...workTurn(30),
      { type: 'evaluate', at: at(), point: 'turn_complete' },
    ]);
    const pk = find(effects, 'show_packet')[0]!;
    assert.equal(pk.author, 'watcher');
    for (const h of [
      '## What just completed',
      '**Current ask**',
      '## Where we are now',
      "## What's next",
      '## Decisions, invariants and traps',
      '## Recent tool calls',
    ]) {
      assert.ok(pk.packet.includes(h), `missing ${h}`);
    }
    // rawr's own packet has the sections it asks the agent for.
    assert.deepEqual(validateAgentPacket(pk.packet, 300), { ok: true });
    assert.ok(pk.packet.includes('git commit -am "importer"'), 'tool tail verbatim');
    assert.equal(state.seq.phase, 'compacting');
    const done = run(state, [{ type: 'compaction_done', at: at(), seqId: seqIdOf(state), tokensBefore: 140_000, tokensAfter: 20_000 }]);
    assert.match(find(done.effects, 'inject_handoff')[0]!.text, /packet rawr assembled from the session trail before the compaction \(you did not write it\)/);
  });

  it('an unusable agent packet falls back to the watcher packet with a warning', () => {
    let { state } = run(mkState({ judgment_enabled: false, scratch_write_enabled: false }), [
      ...workTurn(30),
      { type: 'evaluate', at: at(), point: 'turn_complete' },
    ]);
    const r = run(state, [{ type: 'packet', at: at(), seqId: seqIdOf(state), text: 'ok, done.' }]);
    assert.match(find(r.effects, 'annotate')[0]!.text, /not usable \(too short/);
    assert.equal(find(r.effects, 'show_packet')[0]!.author, 'watcher');
    state = r.state;
    assert.equal(state.seq.phase, 'compacting');
  });

  it('packet deadline → watcher packet; a late packet is then ignored', () => {
    let { state } = run(mkState({ judgment_enabled: false, scratch_write_enabled: false }), [
      ...workTurn(30),
      { type: 'evaluate', at: at(), point: 'turn_complete' },
    ]);
    const seqId = seqIdOf(state);
    let r = run(state, [{ type: 'timeout', at: at(), timerId: `packet:${seqId}` }]);
    assert.equal(find(r.effects, 'show_packet')[0]!.author, 'watcher');
    state = r.state;
    r = run(state, [{ type: 'packet', at: at(), seqId, text: GOOD_PACKET }]);
    assert.deepEqual(r.effects, []);
    assert.equal(r.state, state);
  });

  it('a nearly full window skips the agent packet turn and the scratch write', () => {
    const { effects } = run(mkState({ judgment_enabled: false }), [...workTurn(3), { type: 'evaluate', at: at(), point: 'turn_complete' }]);
    assert.ok(!types(effects).includes('request_scratch_write'));
    assert.ok(!types(effects).includes('request_packet'));
    assert.equal(find(effects, 'show_packet')[0]!.author, 'watcher');
    assert.equal(find(effects, 'decision')[0]!.decision.code, 'emergency');
  });
});

describe('step: judgment (single flight, correlation ids, fallback)', () => {
  const judged = () =>
    run(mkState({ judgment_enabled: true, scratch_write_enabled: false }), [...workTurn(30), { type: 'evaluate', at: at(), point: 'turn_complete' }]);

  it('requests one judgment with the plan trail and user-request chain in the prompt', () => {
    const { state, effects } = judged();
    const req = find(effects, 'request_judgment');
    assert.equal(req.length, 1);
    assert.match(req[0]!.system, /strict JSON/);
    assert.match(req[0]!.user, /\*\*\[current ask\]\*\* Implement phase 2/);
    assert.match(req[0]!.user, /Plan trail/);
    assert.match(req[0]!.user, /"kind":"commit"/);
    assert.equal(state.seq.phase, 'assessing');
    // A second evaluation point while assessing does not start a second judgment.
    const again = run(state, [{ type: 'evaluate', at: at(), point: 'tool_loop' }]);
    assert.deepEqual(again.effects, []);
  });

  it('approval starts the sequence and the reason reaches the compacted line', () => {
    let { state, effects } = judged();
    const corrId = find(effects, 'request_judgment')[0]!.corrId;
    ({ state, effects } = run(state, [{ type: 'judgment_result', at: at(), corrId, text: '{"should_compact": true, "reason": "phase 2 complete"}' }]));
    assert.ok(types(effects).includes('inject_heads_up'));
    const seqId = seqIdOf(state);
    ({ effects } = run(state, [
      { type: 'packet', at: at(), seqId, text: GOOD_PACKET },
      { type: 'compaction_done', at: at(), seqId, tokensBefore: 140_000, tokensAfter: 30_000 },
    ]));
    assert.match(find(effects, 'compacted')[0]!.text, /judgment: phase 2 complete/);
  });

  it('a veto returns to idle and says why', () => {
    const { state, effects } = judged();
    const corrId = find(effects, 'request_judgment')[0]!.corrId;
    const r = run(state, [{ type: 'judgment_result', at: at(), corrId, text: '{"should_compact": false, "reason": "mid-step"}' }]);
    assert.equal(r.state.seq.phase, 'idle');
    assert.equal(find(r.effects, 'decision')[0]!.decision.code, 'judgment_vetoed');
    assert.ok(!types(r.effects).includes('inject_heads_up'));
  });

  it('invalid output → deterministic fallback that says so', () => {
    const { state, effects } = judged();
    const corrId = find(effects, 'request_judgment')[0]!.corrId;
    for (const bad of [
      'sure, compact!',
      '{"should_compact": "yes", "reason": "x"}',
      '{"should_compact": true}',
      '{"should_compact": true, "reason": "x", "extra": 1}',
    ]) {
      const r = run(state, [{ type: 'judgment_result', at: at(), corrId, text: bad }]);
      const d = find(r.effects, 'decision')[0]!.decision;
      assert.equal(d.code, 'judgment_fallback', bad);
      assert.match(d.reason, /fallback \(invalid judgment output/);
    }
  });

  it('a fenced JSON answer is accepted', () => {
    const { state, effects } = judged();
    const corrId = find(effects, 'request_judgment')[0]!.corrId;
    const r = run(state, [{ type: 'judgment_result', at: at(), corrId, text: '```json\n{"should_compact": true, "reason": "done"}\n```' }]);
    assert.equal(find(r.effects, 'decision')[0]!.decision.code, 'judgment_approved');
  });

  it('late (timeout) → fallback; the stale result that arrives afterwards is ignored', () => {
    const { state, effects } = judged();
    const corrId = find(effects, 'request_judgment')[0]!.corrId;
    const r1 = run(state, [{ type: 'timeout', at: at(), timerId: `judgment:${corrId}` }]);
    assert.equal(find(r1.effects, 'decision')[0]!.decision.code, 'judgment_fallback');
    const r2 = run(r1.state, [{ type: 'judgment_result', at: at(), corrId, text: '{"should_compact": false, "reason": "late"}' }]);
    assert.deepEqual(r2.effects, []);
  });

  it('no judge available → the fallback rule decides and says why (not "timed out"); its timer is cancelled', () => {
    const { state, effects } = judged();
    const corrId = find(effects, 'request_judgment')[0]!.corrId;
    const r = run(state, [{ type: 'judgment_unavailable', at: at(), corrId, why: 'no judge configured: deterministic rule' }]);
    const d = find(r.effects, 'decision')[0]!.decision;
    assert.equal(d.code === 'judgment_fallback' || d.code === 'judgment_vetoed', true, d.code);
    assert.match(d.reason, /fallback \(no judge configured: deterministic rule\)/);
    assert.doesNotMatch(d.reason, /timed out/);
    assert.deepEqual(
      find(r.effects, 'cancel_timer').map((c) => c.timerId),
      [`judgment:${corrId}`],
    );
    assert.deepEqual(run(state, [{ type: 'judgment_unavailable', at: at(), corrId: 'j999', why: 'x' }]).effects, [], 'an unknown correlation id is ignored');
  });

  it('a result with an unknown correlation id is ignored', () => {
    const { state } = judged();
    const r = run(state, [{ type: 'judgment_result', at: at(), corrId: 'j999', text: '{"should_compact": true, "reason": "x"}' }]);
    assert.deepEqual(r.effects, []);
    assert.equal(r.state.seq.phase, 'assessing');
  });
});

describe('step: preflight, queued input, cancel, failure, loop prevention', () => {
  it('preflight: decided at turn completion with only turn_complete, run when the next message arrives, message delivered after handoff', () => {
    let { state, effects } = run(mkState({ judgment_enabled: false, scratch_write_enabled: false }), [
      { type: 'user_message', at: at(), text: 'Explain the design of the importer.' },
      { type: 'tool_call', at: at(), id: 'r1', name: 'read_file', input: { path: 'src/importer.ts' } },
      { type: 'tool_result', at: at(), id: 'r1', output: 'export function importCodex() {}', isError: false },
      { type: 'assistant_message', at: at(), text: 'The importer reads JSON Lines and normalises records into items.' },
      { type: 'tokens', at: at(), used: usedFor(20), window: WINDOW },
      { type: 'evaluate', at: at(), point: 'turn_complete' },
    ]);
    assert.equal(find(effects, 'decision')[0]!.decision.action, 'preflight');
    assert.equal(state.seq.phase, 'idle');
    assert.ok(state.preflight);
    ({ state, effects } = run(state, [{ type: 'user_message', at: at(), text: 'Now add the CLI.' }]));
    assert.ok(types(effects).includes('inject_heads_up'));
    assert.deepEqual(state.queuedInput, ['Now add the CLI.']);
    const seqId = seqIdOf(state);
    ({ state, effects } = run(state, [
      { type: 'packet', at: at(), seqId, text: GOOD_PACKET },
      { type: 'compaction_done', at: at(), seqId, tokensBefore: usedFor(20), tokensAfter: 20_000 },
    ]));
    const order = types(effects);
    assert.ok(order.indexOf('inject_handoff') < order.indexOf('deliver_queued_input'));
    assert.deepEqual(
      find(effects, 'deliver_queued_input').map((e) => e.text),
      ['Now add the CLI.'],
    );
    assert.deepEqual(state.queuedInput, []);
    assert.equal(state.trail.userRequests.at(-1)!.text, 'Now add the CLI.');
  });

  it('preflight: a tool call after the turn it was decided at drops it; the next message is not held over the open call', () => {
    // Found by the property test (seed 361242039, 300,000 runs): a preflight started over an unanswered call.
    let { state, effects } = run(mkState({ judgment_enabled: false, scratch_write_enabled: false }), [
      { type: 'user_message', at: at(), text: 'Explain the design of the importer.' },
      { type: 'tokens', at: at(), used: usedFor(12), window: WINDOW },
      { type: 'evaluate', at: at(), point: 'turn_complete' },
    ]);
    assert.equal(find(effects, 'decision')[0]!.decision.action, 'preflight');
    ({ state, effects } = run(state, [{ type: 'tool_call', at: at(), id: 'c1', name: 'run_in_terminal', input: { command: 'npm test' } }]));
    assert.equal(state.preflight, null);
    assert.match(find(effects, 'annotate')[0]!.text, /Preflight compaction dropped: work resumed/);
    ({ state, effects } = run(state, [{ type: 'user_message', at: at(), text: 'Now add the CLI.' }]));
    assert.ok(!types(effects).includes('inject_heads_up'), 'no sequence over the open tool call');
    assert.equal(state.seq.phase, 'idle');
    assert.deepEqual(state.queuedInput, []);
    assert.deepEqual(state.openToolCalls, ['c1']);
  });

  it('input typed during a sequence is held and delivered exactly once, after the handoff', () => {
    let { state } = run(mkState({ judgment_enabled: false, scratch_write_enabled: false }), [
      ...workTurn(30),
      { type: 'evaluate', at: at(), point: 'turn_complete' },
    ]);
    const seqId = seqIdOf(state);
    const r = run(state, [
      { type: 'user_message', at: at(), text: 'also update the README' },
      { type: 'packet', at: at(), seqId, text: GOOD_PACKET },
      { type: 'compaction_done', at: at(), seqId, tokensBefore: 140_000, tokensAfter: 30_000 },
    ]);
    state = r.state;
    assert.deepEqual(
      find(r.effects, 'deliver_queued_input').map((e) => e.text),
      ['also update the README'],
    );
    const again = run(state, [{ type: 'evaluate', at: at(), point: 'turn_complete' }]);
    assert.equal(find(again.effects, 'deliver_queued_input').length, 0);
  });

  for (const phase of ['assessing', 'awaiting_scratch', 'awaiting_packet'] as const) {
    it(`cancel in ${phase} returns to idle, delivers queued input, never compacts`, () => {
      // The scratch turn of its own is the watcher packet's (the agent packet asks for both in one turn).
      const settings = {
        judgment_enabled: phase === 'assessing',
        scratch_write_enabled: phase === 'awaiting_scratch',
        packet_author: phase === 'awaiting_scratch' ? ('watcher' as const) : ('agent' as const),
      };
      let { state } = run(mkState(settings), [...workTurn(30), { type: 'evaluate', at: at(), point: 'turn_complete' }]);
      assert.equal(state.seq.phase, phase);
      const r = run(state, [
        { type: 'user_message', at: at(), text: 'wait' },
        { type: 'cancel', at: at() },
      ]);
      state = r.state;
      assert.equal(state.seq.phase, 'idle');
      assert.ok(!types(r.effects).includes('compact'));
      assert.deepEqual(
        find(r.effects, 'deliver_queued_input').map((e) => e.text),
        ['wait'],
      );
      // A cancelled sequence (not a cancelled judgment: nothing was shown yet) starts the cooldown.
      const again = run(state, [
        { type: 'boundary', at: at(), source: 'terminal', boundary: { kind: 'commit', key: 'abcdef1', detail: 'abcdef1 next' } },
        { type: 'tokens', at: at(), used: usedFor(29), window: WINDOW },
        { type: 'evaluate', at: at(), point: 'tool_loop' },
      ]);
      assert.equal(
        find(again.effects, 'decision')[0]!.decision.code,
        phase === 'assessing' ? (settings.judgment_enabled ? 'judgment_pending' : 'compact') : 'cooldown',
      );
      // Nothing was compacted: the reason must not say a compaction happened (issue 34).
      if (phase !== 'assessing')
        assert.match(find(again.effects, 'decision')[0]!.decision.reason, /since the last compaction attempt \(cancelled; nothing was compacted\)/);
    });
  }

  it('cancel while compacting waits for the executor: abort requested; a finished swap still gets its handoff', () => {
    const { state } = run(mkState({ judgment_enabled: false, packet_author: 'watcher', scratch_write_enabled: false }), [
      ...workTurn(30),
      { type: 'evaluate', at: at(), point: 'turn_complete' },
    ]);
    const seqId = seqIdOf(state);
    const c = run(state, [{ type: 'cancel', at: at() }]);
    assert.deepEqual(types(c.effects), ['abort_compaction']);
    assert.equal(c.state.seq.phase, 'compacting');
    const failed = run(c.state, [{ type: 'compaction_failed', at: at(), seqId, error: 'aborted' }]);
    assert.match(find(failed.effects, 'annotate')[0]!.text, /cancelled; the thread is unchanged/);
    assert.equal(failed.state.seq.phase, 'idle');
    const done = run(c.state, [{ type: 'compaction_done', at: at(), seqId, tokensBefore: 140_000, tokensAfter: 30_000 }]);
    assert.ok(types(done.effects).includes('inject_handoff'));
  });

  it('compaction failure: idle, thread untouched, cooldown starts so it does not loop', () => {
    let { state } = run(mkState({ judgment_enabled: false, packet_author: 'watcher', scratch_write_enabled: false }), [
      ...workTurn(30),
      { type: 'evaluate', at: at(), point: 'turn_complete' },
    ]);
    const r = run(state, [{ type: 'compaction_failed', at: at(), seqId: seqIdOf(state), error: 'LanguageModelError: quota' }]);
    assert.match(find(r.effects, 'annotate')[0]!.text, /failed \(LanguageModelError: quota\); the thread is unchanged/);
    state = r.state;
    const again = run(state, [...workTurn(29, 'b2c3d4e'), { type: 'evaluate', at: at(), point: 'turn_complete' }]);
    assert.equal(find(again.effects, 'decision')[0]!.decision.code, 'cooldown');
    assert.match(find(again.effects, 'decision')[0]!.decision.reason, /since the last compaction attempt \(failed; nothing was compacted\)/);
  });

  it('a compaction that frees little but leaves the context above every threshold is no stall: nothing can re-fire (issue 33)', () => {
    const { state } = run(mkState({ judgment_enabled: false, packet_author: 'watcher', scratch_write_enabled: false }), [
      ...workTurn(30),
      { type: 'evaluate', at: at(), point: 'turn_complete' },
    ]);
    // 60% → 70% remaining: 10 points freed (< min_gain_percent 15), but 70% is above the early threshold (45%).
    const r = run(state, [{ type: 'compaction_done', at: at(), seqId: seqIdOf(state), tokensBefore: usedFor(60), tokensAfter: usedFor(70) }]);
    assert.equal(r.state.stall, 'none');
    assert.equal(find(r.effects, 'annotate').filter((a) => /will not compact again/.test(a.text)).length, 0);
  });

  it('a compaction that frees too little: stalled (only emergency), then suspended', () => {
    let { state } = run(mkState({ judgment_enabled: false, packet_author: 'watcher', scratch_write_enabled: false }), [
      ...workTurn(30),
      { type: 'evaluate', at: at(), point: 'turn_complete' },
    ]);
    let r = run(state, [{ type: 'compaction_done', at: at(), seqId: seqIdOf(state), tokensBefore: usedFor(30), tokensAfter: usedFor(35) }]);
    assert.match(find(r.effects, 'annotate')[0]!.text, /will not compact again unless it reaches emergency/);
    state = r.state;
    assert.equal(state.stall, 'stalled');
    clock += 3_600_000;
    r = run(state, [...workTurn(28, 'c3d4e5f'), ...workTurn(27, 'd4e5f60'), { type: 'evaluate', at: at(), point: 'turn_complete' }]);
    assert.equal(find(r.effects, 'decision')[0]!.decision.code, 'stalled');
    r = run(r.state, [...workTurn(5, 'e5f6071'), { type: 'evaluate', at: at(), point: 'tool_loop' }]);
    assert.equal(find(r.effects, 'decision')[0]!.decision.code, 'emergency');
    r = run(r.state, [{ type: 'compaction_done', at: at(), seqId: seqIdOf(r.state), tokensBefore: usedFor(5), tokensAfter: usedFor(8) }]);
    assert.equal(r.state.stall, 'suspended');
    r = run(r.state, [...workTurn(2, 'f607182'), { type: 'evaluate', at: at(), point: 'tool_loop' }]);
    assert.equal(find(r.effects, 'decision')[0]!.decision.code, 'suspended');
  });

  it('boundaries are consumed once; the same commit reported twice (git + terminal) counts once', () => {
    let { state, effects } = run(mkState({ judgment_enabled: false, mode: 'tag' }), [
      ...workTurn(30),
      { type: 'boundary', at: at(), source: 'git', boundary: { kind: 'commit', key: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678', detail: 'a1b2c3d importer' } },
      { type: 'evaluate', at: at(), point: 'tool_loop' },
    ]);
    assert.equal(find(effects, 'decision')[0]!.decision.boundaries.length, 1);
    ({ state, effects } = run(state, [{ type: 'evaluate', at: at(), point: 'tool_loop' }]));
    assert.equal(find(effects, 'decision')[0]!.decision.code, 'no_boundary');
    assert.equal(state.pending.length, 0);
  });

  it('signals during a sequence (synthetic turns) never count', () => {
    let { state } = run(mkState({ judgment_enabled: false, scratch_write_enabled: false }), [
      ...workTurn(30),
      { type: 'evaluate', at: at(), point: 'turn_complete' },
    ]);
    const r = run(state, [
      { type: 'boundary', at: at(), source: 'terminal', boundary: { kind: 'commit', key: '9999999', detail: 'synthetic' } },
      { type: 'plan', at: at(), steps: [{ text: 'a', status: 'completed' }] },
      { type: 'assistant_message', at: at(), text: 'All done — task complete.' },
    ]);
    state = r.state;
    assert.equal(state.pending.length, 0);
  });

  it('manual Compact Now bypasses tiers and works in mode off; deferred while a tool call is open', () => {
    let r = run(mkState({ mode: 'off', scratch_write_enabled: false }), [
      { type: 'user_message', at: at(), text: 'hello' },
      { type: 'tokens', at: at(), used: 10_000, window: WINDOW },
      { type: 'tool_call', at: at(), id: 'x', name: 'read_file', input: {} },
      { type: 'compact_now', at: at(), instructions: 'keep the API notes' },
    ]);
    assert.ok(!types(r.effects).includes('inject_heads_up'));
    r = run(r.state, [
      { type: 'tool_result', at: at(), id: 'x', output: 'ok', isError: false },
      { type: 'evaluate', at: at(), point: 'tool_loop' },
    ]);
    assert.ok(types(r.effects).includes('inject_heads_up'));
    assert.equal(find(r.effects, 'decision')[0]!.decision.code, 'manual');
    r = run(r.state, [{ type: 'packet', at: at(), seqId: seqIdOf(r.state), text: GOOD_PACKET }]);
    assert.match(find(r.effects, 'compact')[0]!.summaryPrompt, /keep the API notes/);
  });
});

describe('step: the summary prepared in the background (prepare_summary)', () => {
  const quietTurn = (pct: number): EngineEvent[] => [
    { type: 'user_message', at: at(), text: 'Read the importer and tell me what it does.' },
    { type: 'assistant_message', at: at(), text: 'It parses both formats line by line and reports bad records.' },
    { type: 'tokens', at: at(), used: usedFor(pct), window: WINDOW },
    { type: 'evaluate', at: at(), point: 'turn_complete' },
  ];

  it('the default path (the agent packet stands in for the summary) asks for none: nothing is spent on it', () => {
    const { effects } = run(mkState({ judgment_enabled: false }), [...workTurn(30), { type: 'evaluate', at: at(), point: 'turn_complete' }]);
    assert.ok(types(effects).includes('request_packet'));
    assert.equal(find(effects, 'prepare_summary').length, 0);
  });

  it('watcher packet: asked once when the tier is entered (no boundary yet), not again until a compaction', () => {
    let { state, effects } = run(
      mkState({ packet_author: 'watcher', scratch_write_enabled: false, judgment_enabled: false, forecast_enabled: false }),
      quietTurn(40),
    );
    const prep = find(effects, 'prepare_summary');
    assert.equal(prep.length, 1, JSON.stringify(types(effects)));
    assert.equal(prep[0]!.reason, 'tier early entered');
    assert.match(prep[0]!.summaryPrompt, /Summarise the conversation so far/);
    assert.equal(state.seq.phase, 'idle');
    ({ state, effects } = run(state, quietTurn(38)));
    assert.equal(find(effects, 'prepare_summary').length, 0, 'once per compaction cycle');
    // The compaction at the next commit; after it, the next cycle may prepare again.
    ({ state, effects } = run(state, [...workTurn(30), { type: 'evaluate', at: at(), point: 'turn_complete' }]));
    const compact = find(effects, 'compact')[0];
    assert.ok(compact, JSON.stringify(find(effects, 'decision').map((d) => d.decision.reason)));
    assert.equal(find(effects, 'prepare_summary').length, 0);
    ({ state } = run(state, [{ type: 'compaction_done', at: at(), seqId: compact.seqId, tokensBefore: usedFor(30), tokensAfter: usedFor(60) }]));
    ({ effects } = run(state, quietTurn(40)));
    assert.equal(find(effects, 'prepare_summary').length, 1);
  });

  it('at a decision to compact now with too little room for a packet turn (the watcher packet follows): asked with the decision', () => {
    const { effects } = run(mkState({ judgment_enabled: false }), [...workTurn(3), { type: 'evaluate', at: at(), point: 'turn_complete' }]);
    assert.equal(find(effects, 'prepare_summary').length, 1, JSON.stringify(types(effects)));
    assert.equal(find(effects, 'show_packet')[0]!.author, 'watcher');
  });
});

describe('step: bounded state under hostile input', () => {
  it('tool calls that never get a result (an interrupted recording) are remembered up to 1,000, the newest kept', () => {
    const calls: EngineEvent[] = Array.from({ length: 1_500 }, (_, i) => ({
      type: 'tool_call',
      at: at(),
      id: `c${i}`,
      name: 'Read',
      input: { file_path: `/f${i}` },
    }));
    let { state } = run(mkState(), calls);
    assert.equal(state.openToolCalls.length, 1_000);
    assert.equal(state.openToolCalls[0], 'c500');
    ({ state } = run(state, [{ type: 'tool_result', at: at(), id: 'c1499', output: 'ok', isError: false }]));
    assert.equal(state.openToolCalls.length, 999);
    assert.ok(!state.openToolCalls.includes('c1499'));
  });
});

// The cases below were missing: mutation testing (CONTRIBUTING.md "Mutation testing") changed each rule
// they pin and every engine test still passed.
describe('step: timers, stalls and packet-worthiness (mutation-tested)', () => {
  const started = (settings: Parameters<typeof mkState>[0]) =>
    run(mkState(settings), [...workTurn(30), { type: 'evaluate', at: at(), point: 'turn_complete' }]);

  it('the packet turn and the judgment wait rawr.packetDeadlineSeconds and rawr.judgmentTimeoutSeconds, in milliseconds', () => {
    const agent = started({ judgment_enabled: false, packet_deadline_seconds: 90 });
    assert.deepEqual(find(agent.effects, 'start_timer'), [{ type: 'start_timer', timerId: `packet:${seqIdOf(agent.state)}`, ms: 90_000 }]);
    const scratch = started({ judgment_enabled: false, packet_author: 'watcher', packet_deadline_seconds: 45 });
    assert.deepEqual(find(scratch.effects, 'start_timer'), [{ type: 'start_timer', timerId: `packet:${seqIdOf(scratch.state)}`, ms: 45_000 }]);
    const judged = started({ judgment_enabled: true, judgment_timeout_seconds: 7 });
    assert.equal(find(judged.effects, 'request_judgment')[0]!.timeoutMs, 7_000);
    assert.equal(find(judged.effects, 'start_timer')[0]!.ms, 7_000);
  });

  it("a timer of another sequence or judgment does nothing: only the current one's deadline ends it", () => {
    const agent = started({ judgment_enabled: false });
    const stale = run(agent.state, [{ type: 'timeout', at: at(), timerId: 'packet:s0' }]);
    assert.deepEqual(stale.effects, []);
    assert.equal(stale.state.seq.phase, 'awaiting_packet');
    const judged = started({ judgment_enabled: true });
    const old = run(judged.state, [{ type: 'timeout', at: at(), timerId: 'judgment:j0' }]);
    assert.deepEqual(old.effects, []);
    assert.equal(old.state.seq.phase, 'assessing');
  });

  it('the deadline of a scratch turn (watcher packet) ends it too: rawr assembles the packet without the notes', () => {
    const { state } = started({ judgment_enabled: false, packet_author: 'watcher' });
    assert.equal(state.seq.phase, 'awaiting_scratch');
    const r = run(state, [{ type: 'timeout', at: at(), timerId: `packet:${seqIdOf(state)}` }]);
    assert.equal(find(r.effects, 'show_packet')[0]!.author, 'watcher');
    assert.equal(r.state.seq.phase, 'compacting');
  });

  const compactedFrom = (before: number, after: number) => {
    const { state } = started({ judgment_enabled: false, packet_author: 'watcher', scratch_write_enabled: false });
    return run(state, [{ type: 'compaction_done', at: at(), seqId: seqIdOf(state), tokensBefore: usedFor(before), tokensAfter: usedFor(after) }]);
  };
  it('a compaction that frees rawr.minGainPercent or more is no stall, though it leaves the context under a threshold', () => {
    assert.equal(compactedFrom(20, 40).state.stall, 'none', '20 points freed, early tier after');
    assert.equal(compactedFrom(20, 35).state.stall, 'none', 'exactly min_gain_percent (15) freed');
    assert.equal(compactedFrom(20, 34).state.stall, 'stalled', '14 points freed');
  });

  it('a second compaction that frees too little suspends, and says so', () => {
    let r = compactedFrom(30, 35);
    r = run(r.state, [...workTurn(5, 'e5f6071'), { type: 'evaluate', at: at(), point: 'tool_loop' }]);
    r = run(r.state, [{ type: 'compaction_done', at: at(), seqId: seqIdOf(r.state), tokensBefore: usedFor(5), tokensAfter: usedFor(8) }]);
    assert.equal(r.state.stall, 'suspended');
    assert.match(find(r.effects, 'annotate').at(-1)!.text, /auto-compaction is suspended for this thread/);
  });

  it('nothing worth a packet: no user request and no agent message of substance → no compaction', () => {
    const quiet: EngineEvent[] = [
      { type: 'assistant_message', at: at(), text: 'OK.' },
      { type: 'boundary', at: at(), source: 'terminal', boundary: { kind: 'commit', key: 'abc1234', detail: 'abc1234 wip' } },
      { type: 'tokens', at: at(), used: usedFor(30), window: WINDOW },
      { type: 'evaluate', at: at(), point: 'turn_complete' },
    ];
    const r = run(mkState({ judgment_enabled: false }), quiet);
    assert.equal(find(r.effects, 'decision')[0]!.decision.code, 'not_packet_worthy');
    // An agent message of substance is enough.
    const said = run(mkState({ judgment_enabled: false }), [
      { type: 'assistant_message', at: at(), text: 'Committed the importer; phase 2 is done and the CLI is next.' },
      ...quiet.slice(1),
    ]);
    assert.equal(find(said.effects, 'decision')[0]!.decision.code, 'compact');
  });
});
