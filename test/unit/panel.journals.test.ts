/**
 * The panel's journals (src/host/panel/journals.ts): the threads looked at most recently keep one, a long
 * log is fed to its journal in slices between turns of the event loop, and a replaced log starts over.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ThreadJournals } from '../../src/host/panel/journals';

/** A log line the journal reads (not passed over): a decision record as EventLog writes it. */
function decisionLine(k: number): string {
  const at = 1_760_000_000_000 + k;
  return JSON.stringify({ rawr: 1, thread: 't', at, kind: 'decision', decision: { id: `d${k}`, at, action: 'none', code: 'noop', reason: `step ${k}` } });
}

describe('panel journals', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-journals-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps a journal for the threads looked at most recently only, the one looked at again kept', async () => {
    for (const t of ['a', 'b', 'c', 'd']) fs.writeFileSync(path.join(dir, `${t}.jsonl`), `${decisionLine(1)}\n`);
    const journals = new ThreadJournals(dir, { kept: 3 });
    const first = await journals.journalFor('a');
    await journals.journalFor('b');
    await journals.journalFor('c');
    assert.equal(await journals.journalFor('a'), first, 'a thread looked at again keeps its journal');
    await journals.journalFor('d');
    assert.deepEqual(journals.held, ['c', 'a', 'd'], 'b, looked at longest ago, left memory; a was used after it');
    const again = await journals.journalFor('b');
    assert.equal(again.lines, 1, 'b was read again from its log, once');
    assert.deepEqual(journals.held, ['a', 'd', 'b']);
  });

  it('feeds a long log to its journal in slices, letting the event loop run between them', async () => {
    const total = 5_000;
    fs.writeFileSync(path.join(dir, 't.jsonl'), `${Array.from({ length: total }, (_, k) => decisionLine(k)).join('\n')}\n`);
    const journals = new ThreadJournals(dir, { slice: 1_000 });
    // What the journal held each time another task got the event loop while the log was fed.
    const seen: number[] = [];
    let done = false;
    const loaded = journals.journalFor('t').finally(() => (done = true));
    const journalNow = journals.peek('t')!; // made before the log is read
    const watch = (): void => {
      if (done) return;
      seen.push(journalNow.lines);
      setImmediate(watch);
    };
    setImmediate(watch);
    const journal = await loaded;
    assert.equal(journal, journalNow);
    assert.equal(journal.lines, total);
    assert.equal(journal.problems.length, 0, journal.problems.join('\n'));
    const between = seen.filter((n) => n > 0 && n < total);
    assert.ok(between.length >= 3, `other tasks ran while the log was fed, between slices: ${JSON.stringify(seen)}`);
    assert.ok(
      between.every((n) => n % 1_000 === 0),
      `the journal is only ever seen between whole slices: ${JSON.stringify(between)}`,
    );
  });

  it('starts over when the log was replaced by a shorter one', async () => {
    const file = path.join(dir, 't.jsonl');
    fs.writeFileSync(file, `${[1, 2, 3].map(decisionLine).join('\n')}\n`);
    const journals = new ThreadJournals(dir);
    assert.equal((await journals.journalFor('t')).decisions.length, 3);
    fs.writeFileSync(file, `${decisionLine(9)}\n`);
    const after = await journals.journalFor('t');
    assert.deepEqual(
      after.decisions.map((d) => d.id),
      ['d9'],
      'only the new log',
    );
  });
});
