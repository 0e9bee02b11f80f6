/**
 * Turn, Session, Participant and the effect executor without VS Code: the real participant over a real
 * in-process core, with the vscode shim, a scripted language-model double (the multi-phase session of
 * the real-VS-Code tier) and a fake clock where deadlines matter. Runs in seconds in the unit tier.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { unansweredToolCalls } from '../../src/core/thread/thread';
import { FakeClock } from '../support/fakeClock';
import { gate, heldAt, inOrder, participantHarness, replacing, type Harness } from '../support/participantHarness';
import { multiPhaseScript } from '../support/scriptedModel';
import type { ThreadMessage } from '../../src/core/thread/thread';

const STEPS = ['Research the API', 'Draft the limiter', 'Implement the middleware', 'Harden: edge cases', 'Write the tests', 'Ship: docs and changelog'];
const PROMPT = 'Build a token-bucket rate limiter for our HTTP server, phase by phase.';
const session6 = () => multiPhaseScript({ steps: STEPS, fillerChars: 9000 });
const count = (text: string, s: string) => text.split(s).length - 1;
const kindOf = (m: ThreadMessage) => (m.role === 'tool' ? 'tool' : (m.kind ?? m.role));
const effectsOf = (h: Harness, threadId: string, type: string) =>
  h
    .logRecords(threadId)
    .filter((r) => r.kind === 'effect' && r.effect.type === type)
    .map((r) => r.effect);

describe('participant (unit tier: vscode shim, scripted model double)', function () {
  this.timeout(30_000);
  let h: Harness;
  afterEach(() => h?.dispose());

  it('golden path: heads-up → packet (shown once) → compaction → handoff → the agent continues to the end', async () => {
    // Tiers only: with the phase forecast, this scripted session's last phase fits and rawr compacts at
    // its end instead of at step 5 (docs/benchmarks.md, "Forecasting the next phase"); this test is about the path.
    h = participantHarness({ script: session6(), window: 20_000, settings: { forecast_enabled: false } });
    const { result, text, threadId } = await h.ask(PROMPT);
    assert.ok(!result.errorDetails, result.errorDetails?.message);
    inOrder(text, [
      /Finished step 1 of 6/,
      /\*\*rawr watcher → agent\*\*/,
      /## What just completed/,
      /<progress:Compacting thread context…>/,
      /\*\*Context compacted — [\d.]+k? → [\d.]+k? tokens \(tier \w+, boundary plan_checkpoint/,
      /\*\*rawr handoff → agent\*\*/,
      /CONTEXT COMPACTION DETECTED/,
      /git diff --stat/,
      /Continue from here\./,
      /(Starting|Finished) step \d of 6/,
      /All done: all 6 plan steps are complete/,
    ]);
    // The packet is in the chat once (the agent streamed it); the handoff points to it.
    assert.equal(count(text, '## What just completed'), 1, 'the packet is shown once');
    assert.match(text, /Here is the continuation packet you wrote before the compaction: _\(shown above\)_/);
    // The heads-up reads as sentences: no hard line break inside one.
    const headsUp = /\*\*rawr watcher → agent\*\*\n>\s*\n> (.*)/.exec(text)![1]!;
    assert.match(headsUp, /Before anything else you will write a continuation packet; then rawr compacts this thread/);
    // Ids stay in the panel and the log: the chat speaks in words.
    assert.deepEqual(text.match(/\b(?:s\d+|d\d+j?|j\d+)\b/g), null);
    // The decision's reason is not repeated block after block: the heads-up says why in its own words,
    // the "Context compacted" line names tier, boundary and judgment once more, nothing else repeats them.
    assert.equal(count(text, 'remaining (<'), 0, "the arbiter's raw reason is not in the chat");
    assert.ok(count(text, 'judgment: phase boundary') <= 2, 'the judgment is quoted at most twice');
    // The thread was swapped: it starts with the summary and the packet (then the recent turns kept
    // verbatim, if any), and the handoff follows.
    const session = await h.participant.session(threadId);
    const kinds = session.messages.map(kindOf);
    // The agent's packet stands in for the summary (agent_packet_replaces_summary): the handoff carries it.
    assert.ok(!kinds.includes('summary'), `no summary: ${kinds}`);
    const handoffMessage = session.messages.find((m) => kindOf(m) === 'handoff')!;
    assert.match(handoffMessage.text, /<continuation-packet>[\s\S]*## What just completed[\s\S]*<\/continuation-packet>/);
    assert.ok(!kinds.includes('heads_up') && !kinds.includes('packet_request'), `no sequence turns kept: ${kinds}`);
    assert.equal(session.sequenceRunning, false);
    assert.deepEqual(unansweredToolCalls(session.messages), []);
    const scratch = path.join(h.workspaceDir, '.scratch');
    assert.ok(
      fs.readdirSync(scratch).some((n) => /^agent-rawr-[a-z0-9]+\.scratch\.md$/.test(n)),
      'scratch notes written in the workspace',
    );
    // The log says what happened: the person's message went straight in, the sequence ran to its end.
    assert.deepEqual(effectsOf(h, threadId, 'append_user_message'), [{ type: 'append_user_message' }]);
    assert.deepEqual(
      effectsOf(h, threadId, 'sequence_ended').map((e) => e.outcome),
      ['compacted'],
    );
    // One model call between the heads-up and the swap: the agent's packet turn, which also saved its
    // notes (rule "scratch" answers both with the packet text and a rawr_write_scratch call). The judgment
    // comes before the heads-up; no summary call.
    const rules = h.model.requests.map((r) => r.rule);
    assert.ok(rules.includes('judgment'));
    assert.ok(!rules.includes('summary'), `no summary call: ${rules}`);
    const j = rules.indexOf('judgment');
    const resumed = rules.indexOf('work', j);
    assert.deepEqual(rules.slice(j + 1, resumed), ['scratch'], `calls between the judgment and the agent's next step: ${rules}`);
  });

  it('with the summary call kept (agent_packet_replaces_summary off): the thread starts with the summary and the packet', async () => {
    h = participantHarness({ script: session6(), window: 20_000, settings: { forecast_enabled: false, agent_packet_replaces_summary: false } });
    const { result, threadId } = await h.ask(PROMPT);
    assert.ok(!result.errorDetails, result.errorDetails?.message);
    const kinds = (await h.participant.session(threadId)).messages.map(kindOf);
    assert.deepEqual(kinds.slice(0, 2), ['summary', 'packet']);
    assert.ok(kinds.indexOf('handoff') > 1, `the handoff after the summary and packet: ${kinds}`);
    // The summary was prepared in the background beside the judgment: after it, only the packet turn.
    const rules = h.model.requests.map((r) => r.rule);
    const j = rules.indexOf('judgment');
    assert.ok(rules.indexOf('summary') < j, `${rules}`);
    assert.deepEqual(rules.slice(j + 1, rules.indexOf('work', j)), ['scratch'], `${rules}`);
  });

  it('a tool the packet turn did not offer is answered with an error, never run; the notes and the packet still count', async () => {
    const base = session6();
    const scratchRule = base.rules.find((r) => r.name === 'scratch')!;
    h = participantHarness({
      window: 20_000,
      settings: { forecast_enabled: false },
      script: replacing(base, 'scratch', async (r) => {
        const reply = (typeof scratchRule.reply === 'function' ? await scratchRule.reply(r) : scratchRule.reply) as { text?: string; toolCalls?: object[] };
        return { ...reply, toolCalls: [...(reply.toolCalls ?? []), { name: 'rawr_read_file', arguments: { path: 'README.md' } }] };
      }),
    });
    const { result, threadId } = await h.ask(PROMPT);
    assert.ok(!result.errorDetails, result.errorDetails?.message);
    const records = h.logRecords(threadId);
    const packets = records.filter((x) => x.kind === 'packet');
    assert.equal(packets[0]?.author, 'agent');
    const refused = records.filter((x) => x.kind === 'message' && x.message.role === 'tool' && x.message.name === 'rawr_read_file');
    assert.ok(refused.length >= 1, 'the call got a result');
    assert.ok(
      refused.every((x) => /was not offered in this turn; only rawr_write_scratch/.test(x.message.text)),
      JSON.stringify(refused.map((x) => x.message.text)),
    );
  });

  it('scratch notes the tool refused to write (bad input): the handoff does not point to a scratch file', async () => {
    h = participantHarness({
      window: 20_000,
      settings: { forecast_enabled: false },
      script: multiPhaseScript({ steps: STEPS, fillerChars: 9000, scratchArgs: () => ({ notes: 'the wrong field' }) }),
    });
    const { result, threadId } = await h.ask(PROMPT);
    assert.ok(!result.errorDetails, result.errorDetails?.message);
    const handoff = (await h.participant.session(threadId)).messages.find((m) => kindOf(m) === 'handoff');
    assert.ok(handoff, 'compacted');
    assert.match(handoff.text, /<continuation-packet>/);
    assert.doesNotMatch(handoff.text, /\.scratch\//);
  });

  describe('the summary prepared in the background (when the compaction needs a summary call)', () => {
    const summaryCalls = (h: Harness) => h.model.requests.filter((r) => r.rule === 'summary');
    /** The watcher packet (it needs a summary) and the early tier at once: a compaction is likely long before it is due. */
    const watcherEarlyTier = { forecast_enabled: false, packet_author: 'watcher' as const, scratch_write_enabled: false, early_percent_remaining_lt: 95 };
    /** Requests after the heads-up (the sequence's first model call) up to the agent's next step. */
    const criticalPath = (h: Harness, firstRule: string) => {
      const rules = h.model.requests.map((r) => r.rule);
      const start = rules.indexOf(firstRule, rules.indexOf('judgment'));
      return h.model.requests.slice(start, rules.indexOf('work', start));
    };

    it('watcher packet: summarised in the background at the decision; at the boundary no summary call remains', async () => {
      h = participantHarness({ script: session6(), window: 20_000, settings: { forecast_enabled: false, packet_author: 'watcher' } });
      const { result, threadId, text } = await h.ask(PROMPT);
      assert.ok(!result.errorDetails, result.errorDetails?.message);
      assert.match(text, /<progress:Compacting thread context… \(with the summary prepared in the background\)>/);
      const lines = h.log.lines.join('\n');
      assert.match(lines, /summarising \d+ messages in the background \(decision judgment_pending\)/);
      assert.match(lines, /using the summary prepared in the background \(\d+ newer messages kept verbatim\): no summary call/);
      // The background summary ran beside the judgment; after the heads-up only the scratch turn called the model.
      assert.equal(summaryCalls(h).length, 1);
      assert.deepEqual(
        criticalPath(h, 'scratch').map((r) => r.rule),
        ['scratch'],
      );
      assert.ok(summaryCalls(h)[0]!.index < criticalPath(h, 'scratch')[0]!.index);
      // The thread starts with that summary and the watcher packet.
      const kinds = (await h.participant.session(threadId)).messages.map(kindOf);
      assert.deepEqual(kinds.slice(0, 2), ['summary', 'packet']);
    });

    it('prepared when the tier is entered, well before the boundary: at the boundary one call summarises the prepared summary and the new part', async () => {
      h = participantHarness({
        script: session6(),
        window: 20_000,
        settings: {
          ...watcherEarlyTier,
          ready_percent_remaining_lt: 45,
          auto_requires_any_boundary: { early: [], ready: ['plan_checkpoint'], asap: ['plan_checkpoint', 'turn_complete'] },
        },
      });
      const { result, text: said } = await h.ask(PROMPT);
      assert.ok(!result.errorDetails, result.errorDetails?.message);
      assert.match(said, /<progress:Compacting thread context… \(the summary prepared in the background, plus the \d+ newer messages\)>/);
      const lines = h.log.lines.join('\n');
      assert.match(lines, /summarising \d+ messages in the background \(tier early entered\)/);
      assert.match(lines, /summarising the prepared summary and \d+ newer messages/);
      const [early, atBoundary] = summaryCalls(h);
      assert.ok(early && atBoundary, `two summary calls: ${h.model.requests.map((r) => r.rule)}`);
      // The call at the boundary carries the earlier summary and only the messages after it.
      const text = JSON.stringify(atBoundary.messages);
      assert.match(text, /Summary of the earlier part of this thread, prepared before this compaction/);
      assert.doesNotMatch(text, /Finished step 1 of 6/, 'the first step is in the prepared summary, not sent again');
      // One model call on the critical path: the judgment decides first; after it, only the summary.
      const rules = h.model.requests.map((r) => r.rule);
      const j = rules.indexOf('judgment');
      assert.ok(rules.indexOf('summary') < j, `the background summary came before the boundary: ${rules}`);
      assert.deepEqual(rules.slice(j + 1, rules.indexOf('work', j)), ['summary'], `${rules}`);
    });

    it('a prepared summary that went stale (/compact with instructions changes what to summarise) is discarded, never used', async () => {
      h = participantHarness({
        script: multiPhaseScript({ steps: ['Research', 'Draft', 'Ship'], fillerChars: 9000, stopAfterEachPhase: true }),
        window: 20_000,
        // No tier compacts by itself here: only the person's /compact.
        settings: { ...watcherEarlyTier, auto_requires_any_boundary: { early: [], ready: [], asap: [] } },
      });
      const first = await h.ask('Build the limiter in three phases.');
      assert.match(h.log.lines.join('\n'), /summarising \d+ messages in the background \(tier early entered\)/);
      const compact = await h.ask('keep the limiter API notes verbatim', { command: 'compact', threadId: first.threadId });
      assert.ok(!compact.result.errorDetails, compact.result.errorDetails?.message);
      assert.match(h.log.lines.join('\n'), /the summary prepared in the background is stale \(the thread changed\): discarded/);
      const calls = summaryCalls(h);
      // The background one, then the whole thread again (then, in the next cycle, a new background one).
      assert.ok(calls.length >= 2, `${h.model.requests.map((r) => r.rule)}`);
      assert.ok(JSON.stringify(calls[1]!.messages).includes('keep the limiter API notes verbatim'), 'the summary that was used follows the instructions');
      assert.doesNotMatch(JSON.stringify(calls[1]!.messages), /Summary of the earlier part of this thread/);
    });

    it('the default (the agent packet stands in for the summary) prepares nothing: no model call is spent on it', async () => {
      h = participantHarness({ script: session6(), window: 20_000, settings: { forecast_enabled: false } });
      await h.ask(PROMPT);
      assert.equal(summaryCalls(h).length, 0);
      assert.doesNotMatch(h.log.lines.join('\n'), /in the background/);
    });
  });

  it('preflight: the next message is held, the golden path runs, then the message is delivered once, after the handoff', async () => {
    const script = multiPhaseScript({ steps: ['Research', 'Draft', 'Ship'], fillerChars: 9000, stopAfterEachPhase: true });
    h = participantHarness({
      script,
      window: 12_000,
      // Tiers only (the preflight mechanics): the phase forecast would hold these plan steps' compactions.
      settings: {
        forecast_enabled: false,
        early_percent_remaining_lt: 70,
        ready_percent_remaining_lt: 60,
        asap_percent_remaining_lt: 50,
        emergency_percent_remaining_lt: 5,
        auto_requires_any_boundary: { early: [], ready: [], asap: ['turn_complete'] },
      },
    });
    const prompts = ['Build the limiter in three phases.', 'continue', 'continue', 'Thanks! Now list what changed.'];
    let threadId: string | undefined;
    const texts: string[] = [];
    for (const p of prompts) {
      const r = await h.ask(p, threadId ? { threadId } : {});
      assert.ok(!r.result.errorDetails, r.result.errorDetails?.message);
      threadId = r.threadId;
      texts.push(r.text);
    }
    const k = texts.findIndex((t) => /rawr watcher → agent/.test(t));
    assert.ok(k >= 1, 'a later request ran the golden path');
    inOrder(texts[k]!, [
      /Compacting before your message \(preflight\)/,
      /\*\*rawr watcher → agent\*\*/,
      /Context compacted/,
      /\*\*rawr handoff → agent\*\*/,
      /\*\*Your message, delivered after the handoff\*\*/,
    ]);
    // The thread has the held message exactly once, after the handoff.
    const messages = (await h.participant.session(threadId!)).messages;
    const handoffAt = messages.findIndex((m) => kindOf(m) === 'handoff');
    const held = messages.map((m, i) => (m.role === 'user' && !m.synthetic && m.text === prompts[k] ? i : -1)).filter((i) => i >= 0);
    assert.deepEqual(held.length, 1, `the held message is in the thread once: ${JSON.stringify(messages.map(kindOf))}`);
    assert.ok(held[0]! > handoffAt, 'after the handoff');
    // The engine said so, in the log: held for the preflight; the other messages went straight in.
    assert.deepEqual(effectsOf(h, threadId!, 'hold_user_message'), [{ type: 'hold_user_message', reason: 'preflight' }]);
    assert.equal(effectsOf(h, threadId!, 'append_user_message').length, prompts.length - 1);
  });

  it("the panel's Cancel while the agent writes its packet: the sequence ends, the request stops, the thread is not compacted", async () => {
    // The packet turn (which also asks for the scratch notes) is answered by rule "scratch".
    const { script, reached, release } = heldAt(session6(), 'scratch');
    h = participantHarness({ window: 20_000, script });
    const asked = h.ask(PROMPT);
    await reached.p;
    const session = await h.participant.session(h.participant.activeThreadId!);
    assert.equal(session.sequenceRunning, true);
    assert.equal(await session.cancel(), true);
    release.open();
    const { result, text, threadId } = await asked;
    assert.ok(!result.errorDetails, result.errorDetails?.message);
    assert.match(text, /stopped from the Rawr panel/);
    const snap = await h.core.snapshot(threadId);
    assert.equal(snap.state.seq.phase, 'idle');
    assert.equal(snap.compactions.length, 0, 'not compacted');
    assert.equal(session.sequenceRunning, false);
    assert.ok(!session.messages.some((m) => kindOf(m) === 'summary'));
    assert.deepEqual(unansweredToolCalls(session.messages), []);
    assert.deepEqual(
      effectsOf(h, threadId, 'sequence_ended').map((e) => e.outcome),
      ['cancelled'],
    );
    assert.ok(!h.model.requests.some((r) => r.rule === 'summary'), 'no summary was asked for');
  });

  it("the panel's Cancel during the summary call aborts that call: compaction_failed (cancelled), the thread is unchanged", async () => {
    const reached = gate();
    let failed = false;
    const base = session6();
    h = participantHarness({
      window: 20_000,
      settings: { agent_packet_replaces_summary: false },
      // The background summary fails (the compaction then summarises the whole thread itself); that call is held.
      script: replacing(base, 'summary', async () => {
        if (!failed) {
          failed = true;
          return { status: 500, error: 'scripted outage of the background summary' };
        }
        reached.open();
        return { text: 'A summary that arrives after the cancel.' };
      }),
    });
    const asked = h.ask(PROMPT);
    await reached.p;
    const session = await h.participant.session(h.participant.activeThreadId!);
    const before = session.messages.length;
    assert.ok(session.compacting, 'the compaction call is running in this window');
    assert.equal(await session.cancel(), true);
    const { text, threadId } = await asked;
    assert.match(text, /Compaction cancelled; the thread is unchanged/);
    const snap = await h.core.snapshot(threadId);
    assert.equal(snap.compactions.length, 0);
    assert.equal(snap.state.seq.phase, 'idle');
    assert.ok(session.messages.length >= before && !session.messages.some((m) => kindOf(m) === 'summary'), 'nothing swapped');
    assert.deepEqual(effectsOf(h, threadId, 'abort_compaction').length, 1);
    assert.deepEqual(
      effectsOf(h, threadId, 'sequence_ended').map((e) => e.outcome),
      ['cancelled'],
    );
  });

  it('a model error mid-sequence: recover ends the sequence, answers every tool call, and the request reports the error', async () => {
    const base = session6();
    h = participantHarness({ window: 20_000, script: replacing(base, 'scratch', () => ({ status: 500, error: 'scripted outage' })) });
    const { result, text, threadId } = await h.ask(PROMPT);
    assert.ok(result.errorDetails, 'errorDetails set');
    assert.match(result.errorDetails!.message, /scripted outage/);
    assert.match(text, /Compaction sequence cancelled; the thread is unchanged/);
    const session = await h.participant.session(threadId);
    assert.equal(session.sequenceRunning, false);
    assert.equal((await h.core.snapshot(threadId)).state.seq.phase, 'idle');
    assert.deepEqual(unansweredToolCalls(session.messages), []);
    // The thread is usable: the next request runs (and the agent carries on).
    const next = await h.ask('continue', { threadId });
    assert.ok(!next.result.errorDetails, next.result.errorDetails?.message);
  });

  describe('the packet deadline is a fixed end time, shared by every call of the packet turn', () => {
    // rawr.packetDeadlineSeconds = 180 (shipped default). The agent first only saves its notes (rule
    // "scratch" answers with the rawr_write_scratch call alone), then, asked again, writes its packet
    // (rule "scratch-confirm"); each call takes `ms` of (fake) time; the deadline counts from the
    // heads-up, not from each call.
    const run = async (scratchMs: number, packetMs: number) => {
      const clock = new FakeClock();
      const base = session6();
      const scratchRule = base.rules.find((r) => r.name === 'scratch')!;
      h = participantHarness({
        script: replacing(base, 'scratch', async (r) => {
          const reply = (typeof scratchRule.reply === 'function' ? await scratchRule.reply(r) : scratchRule.reply) as { toolCalls?: unknown };
          return { toolCalls: reply.toolCalls };
        }),
        window: 20_000,
        clock,
        takesMs: (_req, rule) => (rule === 'scratch' ? scratchMs : rule === 'scratch-confirm' ? packetMs : 0),
      });
      const r = await h.ask(PROMPT);
      assert.ok(!r.result.errorDetails, r.result.errorDetails?.message);
      const packets = h.logRecords(r.threadId).filter((x) => x.kind === 'packet');
      assert.equal(packets.length, 1);
      return { ...r, author: packets[0]!.author as string, clock };
    };

    it('100 s of scratch notes + 100 s of packet = 200 s > 180 s: the watcher packet is used', async () => {
      const { text, author } = await run(100_000, 100_000);
      assert.equal(author, 'watcher');
      assert.match(text, /did not produce its packet in time/);
      assert.match(text, /Continuation packet — assembled by the rawr watcher/);
      assert.ok(
        h.model.requests.some((r) => r.rule === 'scratch-confirm' && r.clientClosed),
        'the late packet call was cancelled',
      );
    });

    it('50 s + 100 s = 150 s < 180 s: the agent packet is used', async () => {
      const { author, clock } = await run(50_000, 100_000);
      assert.equal(author, 'agent');
      assert.equal(clock.pending, 0, 'no deadline timer left behind');
    });
  });

  describe('rough edges of a first run', () => {
    it('/undo restores the thread as it was before the heads-up, counts it again (status bar and arbiter), and says so in words', async () => {
      h = participantHarness({ script: session6(), window: 20_000 });
      const first = await h.ask(PROMPT);
      const threadId = first.threadId;
      const session = await h.participant.session(threadId);
      const afterCompaction = h.statuses.at(-1)!;
      const undo = await h.ask('', { command: 'undo', threadId });
      assert.match(
        undo.text,
        /^Undid the last compaction \([\d.]+k → [\d.]+k? tokens\): the thread is back as it was before it — \d+ messages, [\d.]+% of the context left\.$/,
      );
      assert.deepEqual(undo.text.match(/\b(?:s\d+|d\d+j?|j\d+)\b/g), null, 'no ids in the chat');
      // No heads-up, scratch or packet turns: not more context than before the sequence.
      const kinds = session.messages.map(kindOf);
      for (const k of ['heads_up', 'scratch_request', 'scratch', 'packet_request', 'packet', 'summary', 'handoff'])
        assert.ok(!kinds.includes(k), `${k} in the restored thread: ${kinds}`);
      assert.deepEqual(unansweredToolCalls(session.messages), []);
      // The status bar got the restored thread's count at once, and the arbiter has it too.
      const shown = h.statuses.at(-1)!;
      assert.equal(shown.threadId, threadId);
      assert.ok(
        shown.percentRemaining! < afterCompaction.percentRemaining!,
        `${shown.percentRemaining}% after the undo, ${afterCompaction.percentRemaining}% before`,
      );
      assert.match(undo.text, new RegExp(`${shown.percentRemaining!.toFixed(1).replace('.', '\\.')}% of the context left`));
      assert.equal((await h.core.snapshot(threadId)).state.tokens?.used, shown.usedTokens);
      // /status agrees with the status bar.
      const status = await h.ask('', { command: 'status', threadId });
      assert.match(status.text, new RegExp(`${shown.percentRemaining!.toFixed(1).replace('.', '\\.')}% remaining`));
    });

    it('a new chat shows no percentage: the status bar forgets the previous thread, /status and /undo say there is no thread yet', async () => {
      h = participantHarness({ script: session6(), window: 20_000 });
      const first = await h.ask(PROMPT);
      assert.ok(h.statuses.at(-1)!.percentRemaining !== null);
      const status = await h.ask('', { command: 'status' });
      assert.notEqual(status.threadId, first.threadId);
      assert.deepEqual(
        { ...h.statuses.at(-1)! },
        { threadId: status.threadId, percentRemaining: null, tier: null, sequenceRunning: false, lastDecision: null, usedTokens: null, window: null },
      );
      assert.match(status.text, /no @rawr thread yet/);
      const undo = await h.ask('', { command: 'undo' });
      assert.match(undo.text, /Nothing to undo: this chat has no @rawr thread yet/);
      assert.ok(!fs.existsSync(path.join(h.logDir, `${status.threadId}.jsonl`)), 'no empty thread log was created');
    });

    it('/help says what @rawr does and lists its commands, and package.json offers it', async () => {
      h = participantHarness({ script: session6(), window: 20_000 });
      const help = await h.ask('', { command: 'help' });
      for (const c of ['/status', '/compact', '/undo', '/help']) assert.ok(help.text.includes(`\`${c}`), `${c} in /help`);
      assert.match(help.text, /phase boundaries/);
      assert.equal(h.model.requests.length, 0, '/help asks no model');
      const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8'));
      const names = pkg.contributes.chatParticipants[0].commands.map((c: { name: string }) => c.name);
      assert.deepEqual(names.sort(), ['compact', 'help', 'status', 'undo']);
    });

    it('a sequence left running by an earlier window (reload mid-sequence) is cancelled by the next request, which is not held', async () => {
      h = participantHarness({ script: session6(), window: 20_000 });
      const first = await h.ask(PROMPT);
      // The earlier window: a compaction was requested and the window went away before anyone answered.
      const started = await h.core.apply(first.threadId, [{ kind: 'event', event: { type: 'compact_now', at: Date.now(), instructions: '' } }]);
      assert.ok(started.commands.some((fx) => fx.type === 'inject_heads_up'));
      const fresh = h.reopen();
      const next = await h.ask('Thanks. What is left to do?', { threadId: first.threadId });
      assert.ok(!next.result.errorDetails, next.result.errorDetails?.message);
      assert.match(next.text, /left unfinished \(the window reloaded during it\); it is cancelled/);
      assert.doesNotMatch(next.text, /held/);
      const messages = (await fresh.session(first.threadId)).messages;
      assert.ok(
        messages.some((m) => m.role === 'user' && m.text === 'Thanks. What is left to do?'),
        'the message went into the thread',
      );
      assert.equal((await h.core.snapshot(first.threadId)).state.seq.phase, 'idle');
    });
  });
});
