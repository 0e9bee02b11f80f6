// The PreCompact hook's memory of a session (steerState.ts): only whole lines are read, a bounded read
// says it is behind, and a state that is missing, damaged, of another transcript or of a shrunk one
// starts again — slower once, never wrong. Mutation testing (CONTRIBUTING.md) showed these could change
// unnoticed by hooks.steer.test.ts, whose calls mostly take the resident engine's in-process state.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSession, readMore, readPrevious, saveSession, STEER_STATE } from '../../src/core/hooks/claude/steerState';
import { shipped } from '../support/engine';

const OPTS = { settings: shipped.settings, prompts: shipped.prompts };
const line = (k: number) => `${JSON.stringify({ type: 'user', uuid: `u${k}`, message: { role: 'user', content: `request ${k}` } })}\n`;

describe('the PreCompact hook: its memory of a session', () => {
  let dir: string;
  let transcript: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-steerstate-'));
    transcript = path.join(dir, 'session.jsonl');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads whole lines only: a line still being written is read whole next time', async () => {
    fs.writeFileSync(transcript, `${line(1)}${line(2)}{"type":"us`);
    const s = await loadSession(dir, transcript, OPTS);
    assert.equal(s.restarted, 'first call');
    assert.equal(s.offset, line(1).length + line(2).length);
    assert.equal(s.readBytes, s.offset);
    assert.equal(s.behind, undefined, 'nothing whole left unread');
    assert.equal(s.follower.state().lines, 2);
    fs.appendFileSync(transcript, `er"}\n`);
    assert.equal(await readMore(s), 'read');
    assert.equal(s.follower.state().lines, 3);
    assert.equal(s.readBytes, fs.statSync(transcript).size);
  });

  it('a read bounded by lines or bytes says how far behind it is, and the next reads catch up', async () => {
    fs.writeFileSync(transcript, [1, 2, 3].map(line).join(''));
    const size = fs.statSync(transcript).size;
    const s = await loadSession(dir, transcript, OPTS, { bytes: 1 << 20, lines: 1 });
    assert.equal(s.offset, line(1).length);
    assert.deepEqual(s.behind, { offset: line(1).length, size });
    await readMore(s, { bytes: line(2).length, lines: 10 });
    assert.equal(s.offset, line(1).length + line(2).length, 'exactly one line fits the byte bound');
    assert.deepEqual(s.behind, { offset: s.offset, size });
    await readMore(s, { bytes: line(3).length - 1, lines: 10 });
    assert.equal(s.offset, line(1).length + line(2).length, 'a line longer than the bound waits');
    await readMore(s);
    assert.equal(s.offset, size);
    assert.equal(s.behind, undefined);
  });

  it('starts again from the beginning for a damaged state, another transcript or a transcript that shrank', async () => {
    fs.writeFileSync(transcript, [1, 2].map(line).join(''));
    const s = await loadSession(dir, transcript, OPTS);
    s.previous = { modelCalls: 3, allowed: false, at: '2026-01-01T00:00:00Z', line: 2 };
    saveSession(dir, s);
    const again = await loadSession(dir, transcript, OPTS);
    assert.equal(again.restarted, undefined, 'the saved state, read from disk');
    assert.deepEqual(again.previous, s.previous);
    assert.equal(again.offset, s.offset);
    assert.equal(again.readBytes, 0, 'nothing new to read');
    assert.deepEqual(await readPrevious(dir, transcript), s.previous, 'the previous call, from the head of the state alone');
    assert.equal(await readPrevious(dir, `${transcript}.other`), null);

    const other = path.join(dir, 'other.jsonl');
    fs.writeFileSync(other, line(9));
    const o = await loadSession(dir, other, OPTS);
    assert.deepEqual([o.restarted, o.offset, o.previous], ['another transcript', line(9).length, null]);

    saveSession(dir, s);
    fs.writeFileSync(transcript, line(1).slice(0, 10));
    fs.appendFileSync(transcript, '\n');
    const shrunk = await loadSession(dir, transcript, OPTS);
    assert.deepEqual([shrunk.restarted, shrunk.offset, shrunk.previous], ['the transcript shrank (replaced)', 11, null]);

    fs.writeFileSync(path.join(dir, STEER_STATE), '{"version":1,"transcript":');
    assert.equal((await loadSession(dir, transcript, OPTS)).restarted?.startsWith('state unreadable'), true);
    assert.equal(await readPrevious(dir, transcript), null);
    fs.writeFileSync(path.join(dir, STEER_STATE), JSON.stringify({ version: 1, transcript, offset: 0, previous: null, follower: { lineNo: 'x' } }));
    assert.equal((await loadSession(dir, transcript, OPTS)).restarted, 'state unreadable', 'a follower without its line count');
  });
});
