/**
 * A request retried after the core process died between writing and answering must not be applied
 * twice: the successor answers it from the log (request ids in the records).
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreService } from '../../src/core/service/coreService';
import { shipped } from '../support/engine';

describe('core service: retried requests are applied once', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'rawr-retry-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const lines = () =>
    readFileSync(join(dir, 't1.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; rid?: string });

  it('a retried step returns the same effects without a second event record, also from a restarted service', () => {
    const a = new CoreService(dir, shipped);
    a.step('t1', { type: 'user_message', at: 1, text: 'Build it' }, 'r1');
    a.step('t1', { type: 'tokens', at: 2, used: 150_000, window: 200_000 }, 'r2');
    a.step('t1', { type: 'boundary', at: 3, source: 'git', boundary: { kind: 'commit', key: 'a1b2c3d', detail: 'a1b2c3d phase 1' } }, 'r3');
    const effects = a.step('t1', { type: 'evaluate', at: 4, point: 'tool_loop' }, 'r4');
    assert.ok(
      effects.commands.some((e) => e.type === 'request_judgment'),
      'the evaluation asked for judgment',
    );
    assert.deepEqual(a.step('t1', { type: 'evaluate', at: 4, point: 'tool_loop' }, 'r4'), effects, 'same process: same answer');
    a.dispose();
    // The process "died" after writing r4; its successor rebuilds from the log and answers the retry.
    const b = new CoreService(dir, shipped);
    assert.deepEqual(b.step('t1', { type: 'evaluate', at: 4, point: 'tool_loop' }, 'r4'), effects, 'restarted: same answer');
    assert.equal(lines().filter((l) => l.kind === 'event' && l.rid === 'r4').length, 1);
    assert.equal(b.snapshot('t1').state.seq.phase, 'assessing', 'the state was not stepped twice');
    // A new request is applied normally.
    const next = b.step('t1', { type: 'cancel', at: 5 }, 'r5');
    assert.ok(next.commands.some((e) => e.type === 'cancel_timer'));
    b.dispose();
  });

  it('a retried appendMessage, swap and undo are applied once', () => {
    const a = new CoreService(dir, shipped);
    a.appendMessage('t1', { role: 'user', text: 'one' }, 'm1');
    a.appendMessage('t1', { role: 'user', text: 'one' }, 'm1');
    a.dispose();
    const b = new CoreService(dir, shipped);
    b.appendMessage('t1', { role: 'user', text: 'one' }, 'm1');
    assert.equal(b.snapshot('t1').messages.length, 1);
    b.swap('t1', { seqId: 's1', tokensBefore: 100, tokensAfter: 10, replacement: [{ role: 'user', text: 'summary' }] }, 'w1');
    b.swap('t1', { seqId: 's1', tokensBefore: 100, tokensAfter: 10, replacement: [{ role: 'user', text: 'summary' }] }, 'w1');
    assert.equal(b.snapshot('t1').compactions.length, 1);
    const u = b.undo('t1', 'u1');
    b.dispose();
    const c = new CoreService(dir, shipped);
    assert.deepEqual(c.undo('t1', 'u1'), u, 'the retried undo returns the first answer');
    assert.deepEqual(
      c.snapshot('t1').messages.map((m) => m.text),
      ['one'],
    );
    assert.equal(lines().filter((l) => l.kind === 'undo').length, 1);
    c.dispose();
  });
});
