/**
 * The compaction panel's model layer, against a real CoreService (the core's own persistence, in a temp
 * folder): a scripted thread goes through a judged golden path, the panel's journal reads the thread's
 * event log (all at once and line by line), and the view model must say what happened and why.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { EngineEvent, StepOutput } from '../../src/core/engine/types';
import { CoreService } from '../../src/core/service/coreService';
import { LogTail } from '../../src/host/panel/logTail';
import { blocksText } from '../../src/host/panel/markdown';
import { ViewModelSchema, type TimelineDecisionVM, type ViewModel } from '../../src/host/panel/messages';
import { boundaryId, boundaryRef, buildViewModel, gaugeOf, ThreadJournal, type BusReport } from '../../src/host/panel/viewModel';
import { percentLabel, statusText } from '../../src/host/ui/statusText';
import { shipped } from '../support/engine';

const T0 = 1_760_000_000_000;
const WINDOW = 20_000;
const XSS_PACKET = [
  '## What just completed',
  '- Step 1: the limiter (done, tests green).',
  '',
  '## Where we are now',
  'Steps completed: 1 of 3. Watch out: <img src=x onerror=alert(1)> and <script>alert(1)</script> are literal text here.',
  '',
  "## What's next",
  '1. Step 2: wire the middleware.',
  '2. Step 3: tests.',
  '',
  '## Decisions, invariants and traps',
  '- Keep the limiter pure; **never** count health checks.',
  '```ts',
  'const bucket = new Bucket(10);',
  '```',
].join('\n');

interface Driver {
  svc: CoreService;
  logDir: string;
  threadId: string;
  at: (ms: number) => number;
  step: (ev: EngineEvent) => StepOutput;
}

function driver(threadId = 'tpanel1', forecast = false): Driver {
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-panel-'));
  // Without the phase forecast, which would hold the plan step's compaction to the end of the phase
  // close; the forecast's own view is tested in its own suite below.
  const svc = new CoreService(logDir, { ...shipped, settings: { ...shipped.settings, forecast_enabled: forecast } });
  return { svc, logDir, threadId, at: (ms) => T0 + ms, step: (ev) => svc.step(threadId, ev) };
}

/** Up to the packet request of a judged sequence (tier ready, plan checkpoint). */
function toAwaitingPacket(d: Driver): void {
  const { step, at } = d;
  step({ type: 'user_message', at: at(0), text: 'Build the limiter, phase by phase.' });
  d.svc.appendMessage(d.threadId, { role: 'user', text: 'Build the limiter, phase by phase.' });
  step({ type: 'tokens', at: at(100), used: 6_000, window: WINDOW });
  step({ type: 'evaluate', at: at(200), point: 'tool_loop' }); // 70% left: above the early threshold (noise)
  step({ type: 'tokens', at: at(1_000), used: 14_000, window: WINDOW }); // 30% left: tier ready
  step({ type: 'tool_call', at: at(1_100), id: 'c1', name: 'rawr_update_plan', input: {} });
  step({
    type: 'plan',
    at: at(1_200),
    steps: [
      { text: 'Add the limiter', status: 'completed' },
      { text: 'Wire the middleware', status: 'in_progress' },
      { text: 'Tests', status: 'pending' },
    ],
  });
  step({ type: 'tool_result', at: at(1_300), id: 'c1', output: 'Plan recorded', isError: false });
  const judge = step({ type: 'evaluate', at: at(2_000), point: 'tool_loop' });
  const req = judge.commands.find((e) => e.type === 'request_judgment');
  assert.ok(req && req.type === 'request_judgment', `judgment requested: ${judge.commands.map((e) => e.type)}`);
  step({ type: 'judgment_result', at: at(2_420), corrId: req.corrId, text: '{"should_compact": true, "reason": "phase boundary: step 1 of 3 is complete"}' });
  // A commit reported during rawr's own sequence never counts.
  step({ type: 'boundary', at: at(2_500), source: 'git', boundary: { kind: 'commit', key: '1111111aaaa', detail: '1111111 wip during the packet' } });
}

function finishSequence(d: Driver): void {
  const { step, at } = d;
  step({ type: 'packet', at: at(4_000), seqId: 's3', text: XSS_PACKET });
  d.svc.swap(d.threadId, {
    seqId: 's3',
    tokensBefore: 14_000,
    tokensAfter: 2_000,
    replacement: [
      { role: 'user', text: 'summary', synthetic: true, kind: 'summary' },
      { role: 'assistant', text: XSS_PACKET, synthetic: true, kind: 'packet' },
    ],
  });
  step({ type: 'compaction_done', at: at(5_000), seqId: 's3', tokensBefore: 14_000, tokensAfter: 2_000 });
  // After the handoff: a commit from the terminal, still pending.
  step({ type: 'boundary', at: at(6_000), source: 'terminal', boundary: { kind: 'commit', key: 'deadbee', detail: 'deadbee limiter: middleware' } });
}

function journalOf(d: Driver): ThreadJournal {
  const j = new ThreadJournal(d.threadId);
  j.ingestText(fs.readFileSync(path.join(d.logDir, `${d.threadId}.jsonl`), 'utf8'));
  return j;
}

/** A judged golden path run to its end, and the lines of the thread's log it wrote. */
function finishedLogLines(d: Driver): string[] {
  toAwaitingPacket(d);
  finishSequence(d);
  return fs
    .readFileSync(path.join(d.logDir, `${d.threadId}.jsonl`), 'utf8')
    .trim()
    .split('\n');
}

function vmOf(d: Driver, journal = journalOf(d), bus: BusReport[] = []): ViewModel {
  const vm = buildViewModel({
    threadId: d.threadId,
    threads: d.svc.listThreads(),
    activeThreadId: d.threadId,
    followActive: true,
    snapshot: d.svc.snapshot(d.threadId),
    journal,
    busRecent: bus,
    live: true,
    now: T0 + 10_000,
  });
  ViewModelSchema.parse(vm); // what the host posts must pass the wire schema
  return vm;
}

const decisions = (vm: ViewModel) => vm.timeline.filter((x): x is TimelineDecisionVM => x.kind === 'decision');

describe('panel view model: a judged golden path, from the core snapshot and the event log', () => {
  let d: Driver;
  let vm: ViewModel;
  before(() => {
    d = driver();
    toAwaitingPacket(d);
    finishSequence(d);
    vm = vmOf(d, undefined, [{ source: 'git', at: T0 + 7_000, boundary: { kind: 'commit', key: 'cafe1234567', detail: 'cafe123 elsewhere' } }]);
  });
  after(() => fs.rmSync(d.logDir, { recursive: true, force: true }));

  it('gauge: tokens, percent as the status bar shows it, tier, and the four thresholds', () => {
    // After the compaction the core's token count is the post-compaction size.
    assert.equal(vm.gauge.usedTokens, 2_000);
    assert.equal(vm.gauge.window, WINDOW);
    assert.equal(vm.gauge.percentRemaining, 90);
    assert.equal(vm.gauge.percentLabel, percentLabel(90));
    assert.equal(vm.gauge.tier, null);
    assert.deepEqual(vm.gauge.thresholds, [
      { tier: 'early', below: 45 },
      { tier: 'ready', below: 35 },
      { tier: 'asap', below: 25 },
      { tier: 'emergency', below: 12 },
    ]);
    assert.equal(vm.mode, 'auto');
  });

  it('gauge matches statusText for every tier, rounding down like the status bar', () => {
    for (const used of [0, 11_000, 13_070, 15_500, 17_700, 19_999, 20_000]) {
      const g = gaugeOf(shipped.settings, { used, window: WINDOW }, false);
      const bar = statusText({ percentRemaining: g.percentRemaining, tier: g.tier, sequenceRunning: false });
      assert.equal(`$(fold) ${g.statusText}`, bar);
      assert.ok(bar.includes(g.percentLabel!), `${bar} shows ${g.percentLabel}`);
    }
    assert.equal(gaugeOf(shipped.settings, { used: 13_070, window: WINDOW }, false).tier, 'ready'); // 34.65% → ready, shown as 34%
    assert.equal(gaugeOf(shipped.settings, { used: 13_070, window: WINDOW }, false).percentLabel, '34%');
    assert.equal(gaugeOf(shipped.settings, null, false).percentLabel, null);
  });

  it('boundaries: consumed by the judged decision with their turn, ignored during the sequence, pending after, seen on the bus', () => {
    const plan = vm.boundaries.find((b) => b.kind === 'plan_checkpoint')!;
    assert.ok(plan, JSON.stringify(vm.boundaries));
    assert.equal(plan.status, 'consumed');
    assert.equal(plan.turn, 1);
    assert.deepEqual(plan.sources, ['plan_tool']);
    assert.equal(plan.ref, 'Add the limiter');
    const judged = decisions(vm).find((x) => x.action === 'judge')!;
    assert.equal(plan.consumedBy, judged.id);

    const during = vm.boundaries.find((b) => b.id === 'commit:1111111')!;
    assert.equal(during.status, 'ignored');
    assert.match(during.note!, /rawr's own compaction sequence/);

    const after = vm.boundaries.find((b) => b.id === 'commit:deadbee')!;
    assert.equal(after.status, 'pending');
    assert.equal(after.ref, 'deadbee');
    assert.deepEqual(after.sources, ['terminal']);
    assert.equal(after.turn, 1);

    const elsewhere = vm.boundaries.find((b) => b.id === 'commit:cafe123')!;
    assert.equal(elsewhere.status, 'seen');
    assert.equal(elsewhere.turn, null);
  });

  it('timeline: every decision with its reason, the judgment with verdict, latency and correlation id, the compaction', () => {
    const ds = decisions(vm);
    const noise = ds.filter((x) => x.noise);
    assert.equal(noise.length, 1);
    assert.equal(noise[0]!.code, 'above_threshold');
    const judge = ds.find((x) => x.action === 'judge')!;
    assert.match(judge.reason, /tier ready, 30\.0% remaining/);
    assert.ok(judge.judgment);
    assert.equal(judge.judgment.corrId, `j${judge.id.slice(1)}`);
    assert.equal(judge.judgment.verdict, 'approved');
    assert.equal(judge.judgment.latencyMs, 420);
    assert.equal(judge.judgment.reason, 'phase boundary: step 1 of 3 is complete');
    const approved = ds.find((x) => x.id === `${judge.id}j`)!;
    assert.equal(approved.code, 'judgment_approved');
    assert.equal(approved.judgment?.verdict, 'approved');

    const c = vm.timeline.find((x) => x.kind === 'compaction');
    assert.ok(c && c.kind === 'compaction');
    assert.match(c.text, /^Context compacted — 14k → 2k tokens \(tier ready, boundary plan_checkpoint/);
    assert.match(c.reason!, /judgment: phase boundary: step 1 of 3 is complete/);
    // Oldest first: the judge decision precedes the compaction.
    assert.ok(vm.timeline.indexOf(judge) < vm.timeline.indexOf(c));
  });

  it('sequence: the last one ran heads-up → packet → compact → handoff', () => {
    assert.ok(vm.sequence);
    assert.equal(vm.sequence.running, false);
    assert.equal(vm.sequence.outcome, 'compacted');
    assert.deepEqual(
      vm.sequence.steps.map((s) => s.state),
      ['done', 'done', 'done', 'done'],
    );
    assert.equal(vm.sequence.canCancel, false);
  });

  it('compactions: numbers, packet as inert Markdown blocks, scratch path, undo for the latest', () => {
    assert.equal(vm.compactions.length, 1);
    const c = vm.compactions[0]!;
    assert.equal(c.tokensBefore, 14_000);
    assert.equal(c.tokensAfter, 2_000);
    assert.equal(c.packetAuthor, 'agent');
    assert.equal(c.scratchPath, '.scratch/agent-rawr-tpanel1.scratch.md');
    assert.equal(c.canUndo, true);
    assert.equal(c.undone, false);
    const text = blocksText(c.packet!);
    assert.ok(text.includes('<img src=x onerror=alert(1)>'), text);
    assert.ok(text.includes('<script>alert(1)</script>'));
    // The agent's four sections, then the facts rawr appended (its packet stands in for the summary).
    assert.ok(c.packet!.filter((b) => b.type === 'heading').length >= 4);
    assert.ok(text.includes('Facts rawr recorded from the session trail'), text);
    assert.ok(c.packet!.some((b) => b.type === 'code' && b.lang === 'ts'));
  });

  it('reading the log line by line (as the panel tails it) gives the same view as reading it at once', () => {
    const j = new ThreadJournal(d.threadId);
    for (const line of fs.readFileSync(path.join(d.logDir, `${d.threadId}.jsonl`), 'utf8').split('\n')) j.ingestLine(line);
    const a = vmOf(d, j);
    const b = vmOf(d);
    assert.deepEqual(a, b);
  });

  it('undo: the compaction is marked undone and can no longer be undone', () => {
    const d2 = driver('tpanel2');
    try {
      toAwaitingPacket(d2);
      finishSequence(d2);
      assert.ok(d2.svc.undo(d2.threadId));
      const v = vmOf(d2);
      assert.equal(v.compactions[0]!.undone, true);
      assert.equal(v.compactions[0]!.canUndo, false);
    } finally {
      fs.rmSync(d2.logDir, { recursive: true, force: true });
    }
  });

  it('a bad log line is a problem, not a crash', () => {
    const j = new ThreadJournal(d.threadId);
    j.ingestLine('{not json');
    j.ingestLine(JSON.stringify({ rawr: 1, thread: d.threadId, at: 1, kind: 'decision', decision: { id: 5 } }));
    assert.equal(j.problems.length, 2);
    assert.equal(j.decisions.length, 0);
  });
});

describe('panel view model: a sequence in progress, and a cancelled one', () => {
  it('running: heads-up done, packet active, cancel offered', () => {
    const d = driver('tpanel3');
    try {
      toAwaitingPacket(d);
      const vm = vmOf(d);
      assert.ok(vm.sequence);
      assert.equal(vm.sequence.running, true);
      assert.equal(vm.sequence.phase, 'awaiting_packet');
      assert.deepEqual(
        vm.sequence.steps.map((s) => s.state),
        ['done', 'active', 'pending', 'pending'],
      );
      assert.equal(vm.sequence.canCancel, true);
      assert.match(vm.sequence.reason!, /judgment: phase boundary/);
      assert.equal(vm.gauge.tier, 'ready');
      assert.equal(vm.gauge.statusText, '30% · ready');
      // Nothing is undoable while a sequence runs (there is nothing yet here anyway).
      assert.equal(vm.compactions.length, 0);
    } finally {
      fs.rmSync(d.logDir, { recursive: true, force: true });
    }
  });

  it('cancelled: the timeline says so and the sequence shows how far it got', () => {
    const d = driver('tpanel4');
    try {
      toAwaitingPacket(d);
      d.step({ type: 'cancel', at: d.at(3_500) });
      const vm = vmOf(d);
      assert.equal(vm.sequence?.running, false);
      assert.equal(vm.sequence?.outcome, 'cancelled');
      assert.deepEqual(
        vm.sequence?.steps.map((s) => s.state),
        ['done', 'skipped', 'skipped', 'skipped'],
      );
      const end = vm.timeline.find((x) => x.kind === 'sequence_end');
      assert.ok(end && end.kind === 'sequence_end' && end.outcome === 'cancelled');
    } finally {
      fs.rmSync(d.logDir, { recursive: true, force: true });
    }
  });

  it('a judgment cancelled before it answered is shown as cancelled, with its latency', () => {
    const d = driver('tpanel5');
    try {
      d.step({ type: 'user_message', at: d.at(0), text: 'go' });
      d.step({ type: 'tokens', at: d.at(10), used: 14_000, window: WINDOW });
      d.step({ type: 'boundary', at: d.at(20), source: 'git', boundary: { kind: 'commit', key: 'abcdef0123', detail: 'abcdef0 phase 1' } });
      const fx = d.step({ type: 'evaluate', at: d.at(30), point: 'turn_complete' });
      assert.ok(fx.commands.some((e) => e.type === 'request_judgment'));
      d.step({ type: 'cancel', at: d.at(530) });
      const vm = vmOf(d);
      const judge = decisions(vm).find((x) => x.action === 'judge')!;
      assert.equal(judge.judgment?.verdict, 'cancelled');
      assert.equal(judge.judgment?.latencyMs, 500);
      // The turn_complete boundary was added and consumed by the same evaluation.
      const tc = vm.boundaries.find((b) => b.kind === 'turn_complete')!;
      assert.equal(tc.status, 'consumed');
      assert.equal(tc.turn, 1);
      assert.equal(tc.consumedBy, judge.id);
    } finally {
      fs.rmSync(d.logDir, { recursive: true, force: true });
    }
  });
});

describe('panel view model: the phase forecast', () => {
  it('the gauge marks the next phase; the timeline shows the decisions the forecast made', () => {
    const d = driver('tpanelfc', true);
    const { step, at } = d;
    const plan = (done: number) => [1, 2, 3].map((k) => ({ text: `step ${k}`, status: k <= done ? ('completed' as const) : ('pending' as const) }));
    step({ type: 'user_message', at: at(0), text: 'Build the limiter, phase by phase.' });
    step({ type: 'tokens', at: at(100), used: 4_000, window: WINDOW });
    // Phase 1 adds 5k (9k of 20k used): it fits before the emergency line (17.6k).
    step({ type: 'plan', at: at(1_000), steps: plan(1) });
    step({ type: 'tokens', at: at(1_100), used: 9_000, window: WINDOW });
    step({ type: 'evaluate', at: at(1_200), point: 'tool_loop' });
    let vm = vmOf(d);
    assert.deepEqual(vm.gauge.forecast, { nextPhaseTokens: 5_000, endPercentUsed: 70, emergencyPercentUsed: 88, basis: 'thread', phases: 1, fits: true });
    // Phase 2 adds 5k more: 14k used, 3.6k left before emergency: held to the end of the close, then judged.
    step({ type: 'plan', at: at(2_000), steps: plan(2) });
    step({ type: 'tokens', at: at(2_100), used: 14_000, window: WINDOW });
    step({ type: 'evaluate', at: at(2_200), point: 'tool_loop' });
    const fx = step({ type: 'evaluate', at: at(2_300), point: 'tool_loop' });
    assert.ok(fx.commands.some((e) => e.type === 'request_judgment'));
    vm = vmOf(d);
    assert.equal(vm.gauge.forecast?.fits, false);
    assert.equal(vm.gauge.forecast?.endPercentUsed, 95);
    const byCode = new Map(decisions(vm).map((x) => [x.code, x]));
    // The recent phase the compaction rests on (its scenario in the reason: 5k, +15% with one phase seen, +5% margin).
    assert.deepEqual(byCode.get('forecast_held')?.forecast, { verdict: 'compact', drove: true, nextPhaseTokens: 5_000, roomTokens: 3_600 });
    assert.match(
      byCode.get('forecast_held')!.reason,
      /compacting when this phase close ends avoids an emergency in the next phase: forecast 6k, room 4k before emergency/,
    );
    assert.equal(byCode.get('forecast')?.action, 'judge');
    assert.equal(byCode.get('forecast')?.forecast?.drove, true);
    d.svc.dispose();
  });
});

describe('panel helpers', () => {
  it('boundaryId normalises commit shas like the engine; boundaryRef names sha, plan step, turn', () => {
    assert.equal(boundaryId({ kind: 'commit', key: 'ABCDEF0123456' }), 'commit:abcdef0');
    assert.equal(boundaryId({ kind: 'commit', key: 'cmd:12' }), 'commit:cmd:12');
    assert.equal(boundaryRef('commit', null, '0badf00d fix'), '0badf00');
    assert.equal(boundaryRef('plan_checkpoint', null, 'completed "Wire it" (2/3 done)'), 'Wire it');
    assert.equal(boundaryRef('concluding', null, 'in summary'), null);
  });

  it('LogTail returns only complete new lines, keeps a torn line for later, and notices a replaced file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-tail-'));
    try {
      const file = path.join(dir, 'x.jsonl');
      const tail = new LogTail(file);
      assert.deepEqual(await tail.read(), { lines: [], reset: false, skipped: 0 }); // no file yet
      fs.writeFileSync(file, 'one\ntwo\nthr');
      assert.deepEqual((await tail.read()).lines, ['one', 'two']);
      fs.appendFileSync(file, 'ee\n€uro\n');
      assert.deepEqual((await tail.read()).lines, ['three', '€uro']);
      assert.deepEqual((await tail.read()).lines, []);
      fs.writeFileSync(file, 'new\n');
      assert.equal((await tail.read()).reset, true);
      assert.deepEqual((await tail.read()).lines, ['new']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('LogTail reads at most its cap: a long log from the first whole line of its last bytes, saying what it passed over', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-tail-'));
    try {
      const file = path.join(dir, 'x.jsonl');
      const line = (k: number) => `line ${String(k).padStart(4, '0')} ${'x'.repeat(k % 7)}`;
      const all = Array.from({ length: 500 }, (_, k) => line(k));
      fs.writeFileSync(file, `${all.join('\n')}\n`);
      const size = fs.statSync(file).size;
      const tail = new LogTail(file, 1_000);
      const first = await tail.read();
      assert.ok(first.lines.length > 0 && first.lines.join('\n').length + 1 <= 1_000, `at most the cap: ${first.lines.length} lines`);
      assert.deepEqual(first.lines, all.slice(-first.lines.length), 'whole lines, the newest, in order');
      assert.equal(first.skipped + Buffer.byteLength(`${first.lines.join('\n')}\n`), size, 'every byte is either read or said to be skipped');
      // after it, appends are read as they come
      fs.appendFileSync(file, 'next one\n');
      assert.deepEqual(await tail.read(), { lines: ['next one'], reset: false, skipped: 0 });
      // more than the cap appended at once (a long while unread): the newest of them, the rest said
      const burst = Array.from({ length: 200 }, (_, k) => line(1_000 + k));
      fs.appendFileSync(file, `${burst.join('\n')}\n`);
      const later = await tail.read();
      assert.ok(later.skipped > 0 && later.lines.length < burst.length);
      assert.deepEqual(later.lines, burst.slice(-later.lines.length));
      // a cap that starts exactly at a line's start drops no line
      const exact = path.join(dir, 'exact.jsonl');
      fs.writeFileSync(exact, 'aaaa\nbbbb\ncccc\n');
      assert.deepEqual(await new LogTail(exact, 10).read(), { lines: ['bbbb', 'cccc'], reset: false, skipped: 5 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a journal fed a log's tail says in the panel how much history it does not show, and from when it does", () => {
    const d = driver('tpanel-tail');
    toAwaitingPacket(d);
    finishSequence(d);
    const file = path.join(d.logDir, `${d.threadId}.jsonl`);
    const text = fs.readFileSync(file, 'utf8');
    const whole = vmOf(d);
    assert.ok(!whole.problems.some((p) => /not shown/.test(p)), 'nothing said when the whole log was read');
    // the last 2,000 bytes, from the first line that starts in them
    const cut = text.indexOf('\n', text.length - 2_000) + 1;
    const j = new ThreadJournal(d.threadId);
    j.skip(cut, 2_000);
    j.ingestText(text.slice(cut));
    const first = JSON.parse(text.slice(cut, text.indexOf('\n', cut))) as { at: number };
    const vm = vmOf(d, j);
    const note = vm.problems[0] ?? '';
    assert.match(note, /the panel reads the newest 0\.0 MB of it at a time, and 0\.0 MB of its history are not shown here/);
    assert.ok(note.includes(`starts at ${new Date(first.at).toISOString().replace('T', ' ').slice(0, 19)} UTC`), note);
    assert.ok(note.includes('Rawr: Export Decision Log'), note);
    assert.ok(!/gap/.test(note), note);
    fs.rmSync(d.logDir, { recursive: true, force: true });
  });

  it('a second skip while the panel is open leaves the history shown starting where it did, and says it has a gap', () => {
    const d = driver('tpanel-gap');
    const lines = finishedLogLines(d);
    const at = (l: string) => new Date((JSON.parse(l) as { at: number }).at).toISOString().replace('T', ' ').slice(0, 19);
    // A first look that skipped the first line, then a later one that skipped two more after reading two.
    const j = new ThreadJournal(d.threadId);
    j.skip(100, 2_000);
    j.ingestText(lines.slice(1, 3).join('\n'));
    j.skip(300, 2_000);
    j.skip(0, 2_000); // a look that skipped nothing is no gap
    j.ingestText(lines.slice(5).join('\n'));
    const note = vmOf(d, j).problems[0] ?? '';
    assert.ok(note.includes(`starts at ${at(lines[1]!)} UTC`), `the start of the history shown is the first look's: ${note}`);
    assert.match(note, /0\.0 MB of its history are not shown here/);
    assert.match(note, /It has a gap \(0\.0 MB in all\)/);
    assert.equal(j.skippedBytes, 400);
    assert.equal(j.gapBytes, 300);
    // a skip before anything was shown is not a gap: it only moves where the history starts
    const k = new ThreadJournal(d.threadId);
    k.skip(100, 2_000);
    k.skip(50, 2_000);
    k.ingestText(lines.slice(4).join('\n'));
    const note2 = vmOf(d, k).problems[0] ?? '';
    assert.ok(note2.includes(`starts at ${at(lines[4]!)} UTC`) && !/gap/.test(note2), note2);
    fs.rmSync(d.logDir, { recursive: true, force: true });
  });

  it('the journal passes over event and message records by their first bytes, and reads every other kind as before', () => {
    const d = driver('tpanel-skip');
    const lines = finishedLogLines(d);
    const kinds = lines.map((l) => (JSON.parse(l) as { kind: string }).kind);
    assert.ok(kinds.includes('event') && kinds.includes('message'), 'the log has both');
    // An event line damaged after its first bytes is not the panel's to report (the core's load reports it);
    // a damaged line of a kind the panel reads still is.
    const damaged = [...lines, lines[kinds.indexOf('event')]!.slice(0, -5), lines[kinds.indexOf('decision')]!.slice(0, -5)];
    const j = new ThreadJournal(d.threadId);
    j.ingestText(damaged.join('\n'));
    assert.equal(j.problems.length, 1, j.problems.join('\n'));
    assert.match(j.problems[0]!, /not valid JSON/);
    assert.deepEqual(vmOf(d, j).timeline, vmOf(d).timeline, 'the same timeline');
    fs.rmSync(d.logDir, { recursive: true, force: true });
  });
});
