/**
 * Hostile and damaged thread logs (issue 11, items 4, 5, 10, 13): a bad record is reported and skipped
 * and the thread still loads; retries are answered from a window of request ids; a writer that died
 * mid-line never costs another long-lived writer its record; listThreads is most recent first.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EventLog } from '../../src/core/log/eventLog';
import { readLog } from '../../src/core/logformat/reader';
import type { ThreadInput } from '../../src/core/protocol/coreProtocol';
import { CoreService } from '../../src/core/service/coreService';
import { shipped } from '../support/engine';

describe('hardening: thread logs', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-harden-log-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const line = (o: unknown) => `${JSON.stringify(o)}\n`;
  const rec = (kind: string, rest: Record<string, unknown>) => line({ rawr: 1, thread: 't1', at: 1, kind, ...rest });

  it('well-formed but invalid records (unknown event type, wrong field types) are reported and skipped; the thread loads', () => {
    fs.writeFileSync(
      path.join(dir, 't1.jsonl'),
      rec('event', { event: { type: 'user_message', at: 1, text: 'Build the rate limiter' } }) +
        line({ type: 'explode' }) +
        rec('event', { event: { type: 'explode' } }) +
        rec('event', { event: { type: 'tokens', at: 2, used: 'lots', window: null } }) +
        rec('event', { event: { type: 'plan', at: 2, steps: 'all of them' } }) +
        rec('message', { message: { role: 'user', text: 42 } }) +
        rec('decision', { decision: { id: 'd1', action: 'none', code: 'x', reason: 'r', tier: 7, boundaries: 'none' } }) +
        rec('message', { message: { role: 'user', text: 'Build the rate limiter' } }) +
        rec('event', { event: { type: 'tokens', at: 3, used: 50_000, window: 200_000 } }),
    );
    const core = new CoreService(dir, shipped);
    const snap = core.snapshot('t1');
    assert.deepEqual(
      snap.messages.map((m) => m.text),
      ['Build the rate limiter'],
    );
    assert.equal(snap.state.tokens?.used, 50_000, 'the valid events after the bad ones were applied');
    assert.equal(snap.problems.length, 6, snap.problems.join('\n'));
    for (const n of [2, 3, 4, 5, 6, 7])
      assert.ok(
        snap.problems.some((p) => p.includes(`t1.jsonl:${n}:`)),
        `line ${n} reported`,
      );
    assert.ok(snap.decisions.length === 0, 'the decision with wrong field types is not handed to the panel');
    // The thread keeps working: a new event is applied and persisted.
    core.step('t1', { type: 'user_message', at: 4, text: 'and test it' });
    core.dispose();
    assert.equal(new CoreService(dir, shipped).snapshot('t1').state.trail.userRequests.length, 2);
  });

  it('after a core restart with two requests in flight, neither retry is applied twice', () => {
    const a = new CoreService(dir, shipped);
    const ask: ThreadInput = { kind: 'event', event: { type: 'user_message', at: 1, text: 'Build it' } };
    const reply: ThreadInput = { kind: 'message', message: { role: 'assistant', text: 'On it.' } };
    const note: ThreadInput = { kind: 'event', event: { type: 'assistant_message', at: 2, text: 'On it.' } };
    // Two requests applied (the first one is not the last), and the first part of a third, then the
    // process dies before answering.
    const effects = a.apply('t1', [ask], 'req-1');
    assert.deepEqual(effects.appended, [{ role: 'user', text: 'Build it' }], 'the core puts the message into the thread');
    a.apply('t1', [reply], 'req-2');
    a.apply('t1', [reply], 'req-3'); // of [reply, note]: the rest was lost with the process
    a.dispose();
    const b = new CoreService(dir, shipped);
    const retried = b.apply('t1', [ask], 'req-1');
    assert.deepEqual(retried.commands, effects.commands);
    assert.deepEqual(retried.appended, [], 'nothing appended twice');
    b.apply('t1', [reply], 'req-2');
    const third = b.apply('t1', [reply, note], 'req-3');
    assert.equal(third.length, 3, 'the thread length tells the host what it holds');
    const snap = b.snapshot('t1');
    assert.deepEqual(
      snap.messages.map((m) => m.text),
      ['Build it', 'On it.', 'On it.'],
      'each message was applied once',
    );
    assert.equal(snap.state.trail.userRequests.length, 1);
    assert.equal(snap.state.trail.lastAgentMessage, 'On it.', 'what the lost request had not applied is applied by its retry');
    // Many requests later the window still holds recent ids (and a new id is applied).
    for (let i = 0; i < 40; i++) b.appendMessage('t1', { role: 'assistant', text: `step ${i}` }, `m-${i}`);
    b.dispose();
    const c = new CoreService(dir, shipped);
    for (let i = 0; i < 40; i++) c.appendMessage('t1', { role: 'assistant', text: `step ${i}` }, `m-${i}`);
    assert.equal(c.snapshot('t1').messages.length, 43);
  });

  it('a long-lived writer does not lose its record when another writer left a torn line after it opened the file', () => {
    const file = path.join(dir, 't1.jsonl');
    const a = new EventLog(file, 't1');
    a.append({ kind: 'message', at: 1, message: { role: 'user', text: 'first' } });
    // A second writer appends and dies mid-write: a torn line with no newline.
    const b = new EventLog(file, 't1');
    b.append({ kind: 'message', at: 2, message: { role: 'user', text: 'second' } });
    b.close();
    fs.appendFileSync(file, '{"rawr":1,"thread":"t1","at":3,"kind":"message","message":{"role":"user","te');
    // The first writer, open all along, appends its next record.
    a.append({ kind: 'message', at: 4, message: { role: 'user', text: 'third' } });
    a.close();
    const { records, problems } = readLog(file);
    assert.deepEqual(
      records.map((r) => (r.record as { message: { text: string } }).message.text),
      ['first', 'second', 'third'],
    );
    assert.equal(problems.length, 1, 'only the torn line is a problem');
  });

  it('a record glued to a torn fragment is still read', () => {
    const file = path.join(dir, 't1.jsonl');
    fs.writeFileSync(file, `{"rawr":1,"thread":"t1","at":3,"kind":"mess${rec('message', { message: { role: 'user', text: 'kept' } })}`);
    const { records, problems } = readLog(file);
    assert.deepEqual(
      records.map((r) => (r.record as { message: { text: string } }).message.text),
      ['kept'],
    );
    assert.match(problems[0]!.message, /torn record/);
  });

  it('listThreads is most recently written first, as documented', () => {
    const core = new CoreService(dir, shipped);
    for (const [id, age] of [
      ['old', 300],
      ['newest', 0],
      ['middle', 100],
    ] as const) {
      const f = path.join(dir, `${id}.jsonl`);
      fs.writeFileSync(f, rec('message', { thread: id, message: { role: 'user', text: id } }));
      const t = new Date(Date.now() - age * 1000);
      fs.utimesSync(f, t, t);
    }
    assert.deepEqual(core.listThreads(), ['newest', 'middle', 'old']);
  });

  it('a log that is a symlink to a device or a FIFO is a problem, not a hang or an endless read', function () {
    if (process.platform === 'win32') this.skip();
    fs.symlinkSync('/dev/zero', path.join(dir, 'zero.jsonl'));
    const core = new CoreService(dir, shipped);
    const snap = core.snapshot('zero');
    assert.equal(snap.messages.length, 0);
    assert.match(snap.problems.join('\n'), /character device, not a regular file/);
    assert.throws(() => core.exportLog('zero'), /not a regular file/);
  });
});
