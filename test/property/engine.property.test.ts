/**
 * Property tests over random event sequences (fast-check, >= 10,000 runs): the engine is driven by a
 * model executor that sometimes behaves (answers requests with the right ids) and sometimes does not
 * (stale ids, duplicates, failures, timeouts, cancels, user input at any moment). Invariants:
 *  1. at most one compaction per boundary event;
 *  2. none during cooldown unless emergency (or the user asked);
 *  3. never while a tool call is unanswered;
 *  4. every sequence ends in Idle once the executor answers what is pending;
 *  5. queued input is delivered exactly once, and after the handoff;
 *  6. a failure or cancel at any step leaves the thread intact (no handoff, no swap, tokens unchanged);
 *  7. the phase forecast: a compaction above the early threshold is only ever a forecast compaction, at a
 *     phase close (commit, plan step, PR step) whose next phase does not fit in the room before the
 *     emergency line; "it fits" never compacts; emergency is never held back;
 *  8. an observation (engine/observation.ts) asks for nothing but an annotation or a timer's cancel.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { isObservation } from '../../src/core/engine/observation';
import { step } from '../../src/core/engine/step';
import type { Decision, Effect, EngineEvent, EngineState } from '../../src/core/engine/types';
import { BOUNDARY_KINDS } from '../../src/core/signals/types';
import { GOOD_PACKET, mkState, WINDOW } from '../support/engine';

const RUNS = Number(process.env.RAWR_PROPERTY_RUNS ?? 10_000);

type Action =
  | { a: 'user'; text: number }
  | { a: 'assistant'; done: boolean }
  | { a: 'call' }
  | { a: 'result'; which: number }
  | { a: 'tokens'; pct: number }
  | { a: 'boundary'; kind: number; key: number }
  | { a: 'plan'; n: number; done: number }
  | { a: 'evaluate'; turn: boolean }
  | { a: 'judgment'; kind: number; stale: boolean }
  | { a: 'scratch'; stale: boolean }
  | { a: 'packet'; good: boolean; stale: boolean }
  | { a: 'done'; gain: number; stale: boolean }
  | { a: 'failed'; stale: boolean }
  | { a: 'timeout'; which: number }
  | { a: 'cancel' }
  | { a: 'compact_now' }
  | { a: 'wait'; seconds: number }
  /** Macro: a work phase ending at an evaluation point with a fresh boundary and tokens in a tier. */
  | { a: 'phase'; kind: number; pct: number; turn: boolean; user: boolean }
  /** Macro: a work phase that grows the context by `grow`% of the window, then closes (commit or plan step). */
  | { a: 'grow'; grow: number; plan: boolean; turn: boolean }
  /** Macro: the executor answers the running sequence correctly through to compaction_done. */
  | { a: 'finish'; gain: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ a: fc.constant('user' as const), text: fc.nat(1e9) }) },
  { weight: 2, arbitrary: fc.record({ a: fc.constant('assistant' as const), done: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ a: fc.constant('call' as const) }) },
  { weight: 3, arbitrary: fc.record({ a: fc.constant('result' as const), which: fc.nat(5) }) },
  { weight: 4, arbitrary: fc.record({ a: fc.constant('tokens' as const), pct: fc.double({ min: 0, max: 100, noNaN: true }) }) },
  { weight: 4, arbitrary: fc.record({ a: fc.constant('boundary' as const), kind: fc.nat(BOUNDARY_KINDS.length - 1), key: fc.nat(30) }) },
  { weight: 1, arbitrary: fc.record({ a: fc.constant('plan' as const), n: fc.nat(5), done: fc.nat(5) }) },
  { weight: 6, arbitrary: fc.record({ a: fc.constant('evaluate' as const), turn: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ a: fc.constant('judgment' as const), kind: fc.nat(3), stale: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ a: fc.constant('scratch' as const), stale: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ a: fc.constant('packet' as const), good: fc.boolean(), stale: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ a: fc.constant('done' as const), gain: fc.double({ min: 0, max: 80, noNaN: true }), stale: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ a: fc.constant('failed' as const), stale: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ a: fc.constant('timeout' as const), which: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ a: fc.constant('cancel' as const) }) },
  { weight: 1, arbitrary: fc.record({ a: fc.constant('compact_now' as const) }) },
  { weight: 1, arbitrary: fc.record({ a: fc.constant('wait' as const), seconds: fc.nat(900) }) },
  {
    weight: 14,
    arbitrary: fc.record({
      a: fc.constant('phase' as const),
      kind: fc.nat(BOUNDARY_KINDS.length - 1),
      pct: fc.double({ min: 0, max: 80, noNaN: true }),
      turn: fc.boolean(),
      user: fc.boolean(),
    }),
  },
  { weight: 9, arbitrary: fc.record({ a: fc.constant('finish' as const), gain: fc.double({ min: 0, max: 80, noNaN: true }) }) },
  {
    weight: 20,
    arbitrary: fc.record({ a: fc.constant('grow' as const), grow: fc.double({ min: 0, max: 45, noNaN: true }), plan: fc.boolean(), turn: fc.boolean() }),
  },
);

const settingsArb = fc.record({
  mode: fc.constantFrom('auto' as const, 'auto' as const, 'tag' as const, 'suggest' as const, 'off' as const),
  judgment_enabled: fc.boolean(),
  packet_author: fc.constantFrom('agent' as const, 'watcher' as const),
  scratch_write_enabled: fc.boolean(),
  mid_turn_policy: fc.constantFrom('golden_path' as const, 'emergency_only' as const, 'off' as const),
  cooldown_turns: fc.nat(3),
  cooldown_seconds: fc.constantFrom(0, 60, 300),
  forecast_enabled: fc.boolean(),
  forecast_margin_percent: fc.constantFrom(0, 5, 50),
  forecast_recent_phases: fc.constantFrom(1, 3),
});

/** The model executor plus the invariant checks, fed one action at a time. */
export class Harness {
  state: EngineState;
  now = 1_700_000_000_000;
  callSeq = 0;
  open: string[] = [];
  texts = new Map<string, 'direct' | 'queued'>();
  delivered = new Map<string, number>();
  compactedBoundaries = new Set<string>();
  seqDecision = new Map<string, Decision>();
  seqEvents = new Map<string, string[]>();
  lastEnd: { at: number; turn: number } | null = null;
  userTurns = 0;
  forecastStarts = 0;

  constructor(settings: Parameters<typeof mkState>[0]) {
    this.state = mkState(settings);
  }

  private seqId(stale: boolean): string {
    const s = this.state.seq;
    return stale || !('seqId' in s) ? 's-stale' : s.seqId;
  }

  feed(ev: EngineEvent): void {
    const before = this.state;
    const { state, facts, commands } = step(before, ev);
    this.state = state;
    // 8. an observation decides nothing: the host may send it with the next step (engine/observation.ts).
    if (isObservation(ev)) for (const c of commands) assert.ok(c.type === 'annotate' || c.type === 'cancel_timer', `${ev.type} asked for ${c.type}`);
    this.check(before, ev, [...facts, ...commands]);
  }

  private check(before: EngineState, ev: EngineEvent, effects: Effect[]): void {
    let lastDecision: Decision | null = null;
    const handoffAt = new Map<string, number>();
    effects.forEach((fx, k) => {
      switch (fx.type) {
        case 'decision': {
          lastDecision = fx.decision;
          // 7. the phase forecast
          const d = fx.decision;
          const s = this.state.settings;
          if (d.code === 'forecast_fits' || d.code === 'forecast_plan_done' || d.code === 'forecast_held') assert.equal(d.action, 'none', d.reason);
          if (d.tier === 'emergency') assert.ok(!d.code.startsWith('forecast'), `emergency held back by the forecast: ${d.reason}`);
          if (d.action !== 'none' && d.tier === null && d.point !== 'manual') {
            // A judged forecast decision keeps its forecast (the code then says how the judgment went).
            const byForecast = d.code === 'forecast' || d.code === 'judgment_approved' || d.code === 'judgment_fallback';
            assert.ok(
              s.forecast_enabled && byForecast && d.forecast?.verdict === 'compact' && d.forecast.drove,
              `compaction above the threshold without the forecast: ${d.code} ${d.reason}`,
            );
            // The forecast compacts when waiting costs more over its scenarios of the next phase (the phases
            // seen, with the margin and a spread while few are known): it says what that avoids, and it never
            // compacts with a room far larger than any phase it has seen.
            assert.match(d.forecast.avoids ?? '', /avoids/, d.reason);
            const largest = Math.max(d.forecast.nextPhaseTokens, ...(d.forecast.samples ?? []));
            assert.ok(d.forecast.roomTokens < largest * (1 + s.forecast_margin_percent / 100) * 1.5 + 1, d.reason);
            assert.ok(d.matched.length > 0, `a forecast compaction cites no boundary: ${d.reason}`);
          }
          if (d.code === 'forecast' && d.action !== 'none') {
            const kinds = d.boundaries.filter((b) => d.matched.includes(b.id)).map((b) => b.kind);
            const phaseClose = kinds.some((k) => k === 'commit' || k === 'plan_checkpoint' || k === 'pr_checkpoint');
            // A finished plan compacts at the end of the turn: decided there, run as a preflight before
            // the next request (the decision is then re-issued with point 'preflight').
            const turnEnd = d.point === 'turn_complete' || d.point === 'preflight';
            assert.ok(phaseClose || (d.forecast?.planFinished && turnEnd), `forecast compaction away from a phase close: ${d.point} ${d.reason}`);
          }
          break;
        }
        case 'prepare_summary':
          // 8. the background summary: at most once per compaction cycle, only when rawr compacts by itself
          assert.ok(!before.summaryPrepared, 'prepare_summary twice in one compaction cycle');
          assert.equal(this.state.settings.mode, 'auto');
          break;
        case 'inject_heads_up': {
          const d = lastDecision ?? (before.seq.phase === 'idle' ? before.preflight : null);
          assert.ok(d, 'a sequence starts only from a decision');
          // 3. never while a tool call is unanswered
          assert.equal(this.open.length, 0, `sequence started with open tool calls ${this.open}`);
          // 2. cooldown
          if (d.code !== 'emergency' && d.code !== 'manual' && this.lastEnd) {
            const s = this.state.settings;
            const turns = before.turn - this.lastEnd.turn;
            const secs = (ev.at - this.lastEnd.at) / 1000;
            assert.ok(turns >= s.cooldown_turns || secs >= s.cooldown_seconds, `compaction during cooldown: ${turns} turns, ${secs}s (${d.code})`);
          }
          if (d.forecast?.verdict === 'compact') this.forecastStarts++;
          this.seqDecision.set(fx.seqId, d);
          this.seqEvents.set(fx.seqId, ['start']);
          break;
        }
        case 'compacted': {
          const d = this.seqDecision.get(fx.seqId);
          assert.ok(d, 'compacted for an unknown sequence');
          // 1. at most one compaction per boundary event
          for (const id of d.matched) {
            assert.ok(!this.compactedBoundaries.has(id), `boundary ${id} caused two compactions`);
            this.compactedBoundaries.add(id);
          }
          assert.equal(ev.type, 'compaction_done');
          this.seqEvents.get(fx.seqId)!.push('compacted');
          break;
        }
        case 'inject_handoff':
          assert.equal(ev.type, 'compaction_done', 'handoff only after a completed compaction');
          this.seqEvents.get(fx.seqId)!.push('handoff');
          handoffAt.set(fx.seqId, k);
          break;
        case 'sequence_ended': {
          const evs = this.seqEvents.get(fx.seqId)!;
          evs.push(`end:${fx.outcome}`);
          // 6. failed/cancelled sequences never swapped; compacted ones always handed off
          // (the facts of a step come before its commands: the handoff is a command of the same step)
          if (fx.outcome === 'compacted') {
            assert.deepEqual(evs.slice(-2), ['compacted', 'end:compacted']);
            assert.ok(
              effects.some((e) => e.type === 'inject_handoff' && e.seqId === fx.seqId),
              'a compacted sequence hands off in the same step',
            );
          } else {
            assert.ok(!evs.includes('compacted') && !evs.includes('handoff'), `a ${fx.outcome} sequence swapped the thread`);
            assert.deepEqual(this.state.tokens, before.tokens, 'a failed compaction must not change the context');
          }
          // The turn the sequence ended in: queued input delivered in the same step starts the next
          // turn, and that turn counts towards the cooldown once it completes (seed 2101604907).
          this.lastEnd = { at: ev.at, turn: before.turn };
          break;
        }
        case 'deliver_queued_input': {
          // 5. exactly once, after the handoff
          assert.equal(this.texts.get(fx.text), 'queued', `delivered a message that was not queued: ${fx.text}`);
          this.delivered.set(fx.text, (this.delivered.get(fx.text) ?? 0) + 1);
          assert.equal(this.delivered.get(fx.text), 1, `delivered twice: ${fx.text}`);
          for (const [, idx] of handoffAt) assert.ok(idx < k, 'queued input delivered before the handoff');
          break;
        }
        default:
          break;
      }
    });
    if (ev.type === 'compaction_failed' && before.seq.phase === 'compacting' && before.seq.seqId === ev.seqId) {
      assert.equal(this.state.seq.phase, 'idle');
    }
  }

  apply(x: Action): void {
    const at = (this.now += 1000);
    switch (x.a) {
      case 'user': {
        const text = `msg-${x.text}-${this.texts.size}`;
        const holds = this.state.seq.phase !== 'idle' || (this.state.preflight !== null && this.state.settings.mode === 'auto');
        this.texts.set(text, holds ? 'queued' : 'direct');
        this.feed({ type: 'user_message', at, text });
        break;
      }
      case 'assistant':
        this.feed({
          type: 'assistant_message',
          at,
          text: x.done ? 'Everything passes. Task complete; in summary the importer is done.' : 'Looking at the file now.',
        });
        break;
      case 'call': {
        const id = `c${++this.callSeq}`;
        if (this.state.seq.phase === 'idle') this.open.push(id);
        this.feed({ type: 'tool_call', at, id, name: 'run_in_terminal', input: { command: 'npm test' } });
        break;
      }
      case 'result': {
        const id = this.open[x.which % Math.max(1, this.open.length)] ?? `c-none`;
        this.open = this.open.filter((o) => o !== id);
        this.feed({ type: 'tool_result', at, id, output: 'ok', isError: false, exitCode: 0 });
        break;
      }
      case 'tokens':
        this.feed({ type: 'tokens', at, used: Math.round(WINDOW * (1 - x.pct / 100)), window: WINDOW });
        break;
      case 'boundary': {
        const kind = BOUNDARY_KINDS[x.kind]!;
        this.feed({ type: 'boundary', at, source: 'terminal', boundary: { kind, key: String(x.key), detail: `${kind} ${x.key}` } });
        break;
      }
      case 'plan': {
        const steps = Array.from({ length: x.n }, (_, i) => ({ text: `step ${i}`, status: i < x.done ? ('completed' as const) : ('pending' as const) }));
        this.feed({ type: 'plan', at, steps });
        break;
      }
      case 'evaluate':
        this.feed({ type: 'evaluate', at, point: x.turn ? 'turn_complete' : 'tool_loop' });
        break;
      case 'judgment': {
        const s = this.state.seq;
        const corrId = x.stale || s.phase !== 'assessing' ? 'j-stale' : s.corrId;
        const text = [
          '{"should_compact": true, "reason": "phase done"}',
          '{"should_compact": false, "reason": "mid-step"}',
          'not json',
          '{"should_compact": 1}',
        ][x.kind]!;
        this.feed({ type: 'judgment_result', at, corrId, text });
        break;
      }
      case 'scratch':
        this.feed({ type: 'scratch_written', at, seqId: this.seqId(x.stale), path: '.scratch/agent-x.scratch.md' });
        break;
      case 'packet':
        this.feed({ type: 'packet', at, seqId: this.seqId(x.stale), text: x.good ? GOOD_PACKET : 'done' });
        break;
      case 'done': {
        const used = this.state.tokens?.used ?? 100_000;
        const after = Math.max(0, Math.round(used - (WINDOW * x.gain) / 100));
        this.feed({ type: 'compaction_done', at, seqId: this.seqId(x.stale), tokensBefore: used, tokensAfter: after });
        break;
      }
      case 'failed':
        this.feed({ type: 'compaction_failed', at, seqId: this.seqId(x.stale), error: 'boom' });
        break;
      case 'timeout': {
        const s = this.state.seq;
        const timerId =
          x.which === 0 && s.phase === 'assessing'
            ? `judgment:${s.corrId}`
            : x.which === 1 && 'seqId' in s
              ? `packet:${s.seqId}`
              : x.which === 3 // the idle watch ending (idle compaction), or a stale one
                ? (this.state.idle?.timerId ?? 'idle:d-stale')
                : 'packet:s-stale';
        this.feed({ type: 'timeout', at, timerId });
        break;
      }
      case 'cancel':
        this.feed({ type: 'cancel', at });
        break;
      case 'compact_now':
        this.feed({ type: 'compact_now', at });
        break;
      case 'wait':
        this.now += x.seconds * 1000;
        break;
      case 'phase': {
        if (x.user) this.apply({ a: 'user', text: this.callSeq });
        // The tool batch finished: every open call gets its result before the evaluation point.
        while (this.open.length) this.apply({ a: 'result', which: 0 });
        const kind = BOUNDARY_KINDS[x.kind]!;
        this.feed({ type: 'boundary', at: (this.now += 1000), source: 'git', boundary: { kind, key: `p${++this.callSeq}`, detail: `${kind} phase` } });
        this.feed({ type: 'tokens', at: (this.now += 1000), used: Math.round(WINDOW * (1 - x.pct / 100)), window: WINDOW });
        this.feed({ type: 'evaluate', at: (this.now += 1000), point: x.turn ? 'turn_complete' : 'tool_loop' });
        break;
      }
      case 'finish':
        this.drain(x.gain);
        break;
      case 'grow': {
        while (this.open.length) this.apply({ a: 'result', which: 0 });
        const used = Math.min(WINDOW, (this.state.tokens?.used ?? 20_000) + Math.round((WINDOW * x.grow) / 100));
        this.feed({ type: 'tokens', at: (this.now += 1000), used, window: WINDOW });
        const key = `g${++this.callSeq}`;
        if (x.plan)
          this.feed({
            type: 'plan',
            at: (this.now += 1000),
            steps: [
              { text: `step ${key}`, status: 'completed' },
              { text: 'next', status: 'pending' },
            ],
          });
        else this.feed({ type: 'boundary', at: (this.now += 1000), source: 'git', boundary: { kind: 'commit', key, detail: `commit ${key}` } });
        this.feed({ type: 'evaluate', at: (this.now += 1000), point: 'tool_loop' });
        // The close ends: the next evaluation point (a tool call later, or the turn end).
        this.feed({ type: 'evaluate', at: (this.now += 1000), point: x.turn ? 'turn_complete' : 'tool_loop' });
        break;
      }
    }
    if (this.state.seq.phase === 'idle') this.open = this.open.filter((id) => this.state.openToolCalls.includes(id));
  }

  /** 4. The executor answers whatever is pending, correctly; every sequence must reach Idle. */
  drain(gain = 50): void {
    for (let guard = 0; guard < 10 && this.state.seq.phase !== 'idle'; guard++) {
      const s = this.state.seq;
      const at = (this.now += 1000);
      if (s.phase === 'assessing') this.feed({ type: 'judgment_result', at, corrId: s.corrId, text: '{"should_compact": true, "reason": "drain"}' });
      else if (s.phase === 'awaiting_scratch') this.feed({ type: 'scratch_written', at, seqId: s.seqId, path: '.scratch/x' });
      else if (s.phase === 'awaiting_packet') this.feed({ type: 'packet', at, seqId: s.seqId, text: GOOD_PACKET });
      else if (s.phase === 'compacting') {
        const used = this.state.tokens?.used ?? 100_000;
        this.feed({ type: 'compaction_done', at, seqId: s.seqId, tokensBefore: used, tokensAfter: Math.max(0, Math.round(used - (WINDOW * gain) / 100)) });
      }
    }
  }

  /** End of a run: answer what is pending and check nothing is left behind. */
  settle(): void {
    this.drain();
    assert.equal(this.state.seq.phase, 'idle', 'sequence did not end in Idle');
    for (const [id, evs] of this.seqEvents)
      assert.ok(
        evs.some((e) => e.startsWith('end:')),
        `sequence ${id} never ended`,
      );
    for (const [text, how] of this.texts) {
      if (how === 'queued') assert.equal(this.delivered.get(text), 1, `queued input lost: ${text}`);
      else assert.equal(this.delivered.get(text), undefined);
    }
    assert.deepEqual(this.state.queuedInput, []);
  }
}

/** Phase-structured sequences: the context grows phase by phase, so the forecast decides often. */
const phasedAction: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({ a: fc.constant('grow' as const), grow: fc.double({ min: 0, max: 45, noNaN: true }), plan: fc.boolean(), turn: fc.boolean() }),
  },
  { weight: 5, arbitrary: fc.record({ a: fc.constant('finish' as const), gain: fc.double({ min: 0, max: 80, noNaN: true }) }) },
  { weight: 2, arbitrary: fc.record({ a: fc.constant('user' as const), text: fc.nat(1e9) }) },
  { weight: 2, arbitrary: fc.record({ a: fc.constant('evaluate' as const), turn: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ a: fc.constant('call' as const) }) },
  { weight: 2, arbitrary: fc.record({ a: fc.constant('result' as const), which: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ a: fc.constant('plan' as const), n: fc.nat(5), done: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ a: fc.constant('tokens' as const), pct: fc.double({ min: 0, max: 100, noNaN: true }) }) },
  { weight: 1, arbitrary: fc.record({ a: fc.constant('wait' as const), seconds: fc.nat(900) }) },
  { weight: 1, arbitrary: fc.record({ a: fc.constant('cancel' as const) }) },
  { weight: 1, arbitrary: fc.record({ a: fc.constant('compact_now' as const) }) },
);

describe('engine properties (fast-check)', function () {
  this.timeout(300_000);

  it(`hold over ${RUNS} random event sequences`, () => {
    let sequencesStarted = 0;
    let compactions = 0;
    fc.assert(
      fc.property(settingsArb, fc.array(action, { minLength: 1, maxLength: 80, size: 'max' }), (settings, actions) => {
        const h = new Harness(settings);
        for (const x of actions) h.apply(x);
        h.settle();
        sequencesStarted += h.seqEvents.size;
        compactions += [...h.seqEvents.values()].filter((e) => e.includes('end:compacted')).length;
      }),
      { numRuns: RUNS, ...(process.env.RAWR_PROPERTY_SEED ? { seed: Number(process.env.RAWR_PROPERTY_SEED) } : {}) },
    );
    // The generators must actually reach the interesting states, or the properties prove little.
    assert.ok(sequencesStarted > RUNS / 2, `only ${sequencesStarted} sequences started in ${RUNS} runs`);
    assert.ok(compactions > RUNS / 4, `only ${compactions} compactions in ${RUNS} runs`);
    // Whether the forecast decides is not asked here: since a compaction must buy something, unstructured
    // sequences rarely give it a phase history to forecast from (CI saw 0 in 10,000 runs). The
    // phase-structured property below is the one that drives the forecast and counts it.
  });

  it(`hold over ${RUNS} random phase-structured sequences (the phase forecast deciding)`, () => {
    let forecastStarts = 0;
    fc.assert(
      fc.property(settingsArb, fc.array(phasedAction, { minLength: 1, maxLength: 60, size: 'max' }), (settings, actions) => {
        const h = new Harness({ ...settings, forecast_enabled: true });
        for (const x of actions) h.apply(x);
        h.settle();
        forecastStarts += h.forecastStarts;
      }),
      { numRuns: RUNS, ...(process.env.RAWR_PROPERTY_SEED ? { seed: Number(process.env.RAWR_PROPERTY_SEED) } : {}) },
    );
    // Measured over seeds 1–11 at 10,000 runs: 16–32 (mean 23). The bar sits far enough below that a
    // random seed does not fail it by chance, and still fails if the generator stops reaching the forecast.
    assert.ok(forecastStarts > RUNS / 2500, `only ${forecastStarts} sequences the forecast decided in ${RUNS} runs`);
  });
});
