/**
 * The resident hook engine's cache of the sessions it saved last (src/core/hooks/claude/steerState.ts
 * remember / takeRecent): a session's next call takes the live follower instead of reading back what it
 * has just written — but only that same state file, unchanged since (another process — a hook run alone
 * while the engine was busy — may have written it), with the same transcript and options, once, and for
 * a few sessions at most. A stale follower taken from the cache would decide on a history it never read.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSession, saveSession, STEER_STATE } from '../../src/core/hooks/claude/steerState';
import { Transcript } from '../support/claudeTranscript';
import { SHIPPED as SET } from '../support/steered';

const TMP = fs.realpathSync(os.tmpdir());
const OPTS = { settings: SET.settings, prompts: SET.prompts };

function session() {
  const root = fs.mkdtempSync(path.join(TMP, 'rawr-steercache-'));
  const dir = path.join(root, 'state');
  fs.mkdirSync(dir);
  const tr = new Transcript(root);
  tr.prompt('work');
  tr.bash('echo a', 300_000, 'a');
  return { root, dir, tr };
}

describe('rawr hooks claude: the resident engine’s cache of the sessions it saved', function () {
  this.timeout(30_000);

  it('the next call of a session this process saved takes its live follower, once, with what was written since read into it', async () => {
    const { dir, tr } = session();
    const s = await loadSession(dir, tr.file, OPTS);
    assert.equal(s.restarted, 'first call');
    saveSession(dir, s, OPTS);
    tr.bash('echo b', 310_000, 'b');
    const next = await loadSession(dir, tr.file, OPTS);
    assert.equal(next.follower, s.follower, 'the live follower, not a restored copy');
    assert.equal(next.restarted, undefined);
    assert.ok(next.readBytes > 0 && next.offset === fs.statSync(tr.file).size, 'the new lines read into it, counted from 0');
    assert.equal(next.readBytes, next.offset - s.offset);
    // Taken out: a call that fails before saving leaves nothing cached; the next one reads the disk.
    const again = await loadSession(dir, tr.file, OPTS);
    assert.notEqual(again.follower, s.follower);
    assert.equal(again.readBytes, next.offset - s.offset, 'from the saved offset: the lines after it read again');
  });

  it('a state file another process wrote since is read from disk, not the cache', async () => {
    const { dir, tr } = session();
    const s = await loadSession(dir, tr.file, OPTS);
    saveSession(dir, s, OPTS);
    // A hook run alone (the engine busy) answered meanwhile: its own save, with its own `previous`.
    const other = { previous: { modelCalls: 1, allowed: false, at: '2026-11-20T10:30:00.000Z', line: 3 } };
    const written = JSON.parse(fs.readFileSync(path.join(dir, STEER_STATE), 'utf8')) as object;
    fs.writeFileSync(path.join(dir, `${STEER_STATE}.tmp`), JSON.stringify({ ...written, previous: other.previous }));
    fs.renameSync(path.join(dir, `${STEER_STATE}.tmp`), path.join(dir, STEER_STATE));
    const next = await loadSession(dir, tr.file, OPTS);
    assert.notEqual(next.follower, s.follower);
    assert.deepEqual(next.previous, other.previous, 'what the other process decided is seen');
  });

  it('other options (the settings changed), another transcript or a removed state file: not the cache', async () => {
    const a = session();
    const sa = await loadSession(a.dir, a.tr.file, OPTS);
    saveSession(a.dir, sa, OPTS);
    const changed = { ...OPTS, settings: { ...SET.settings, early_percent_remaining_lt: 40 } };
    assert.notEqual((await loadSession(a.dir, a.tr.file, changed)).follower, sa.follower, 'settings changed');

    const b = session();
    const sb = await loadSession(b.dir, b.tr.file, OPTS);
    saveSession(b.dir, sb, OPTS);
    const moved = path.join(b.root, 'other.jsonl');
    fs.copyFileSync(b.tr.file, moved);
    const other = await loadSession(b.dir, moved, OPTS);
    assert.notEqual(other.follower, sb.follower);
    assert.equal(other.restarted, 'another transcript');

    const c = session();
    const sc = await loadSession(c.dir, c.tr.file, OPTS);
    saveSession(c.dir, sc, OPTS);
    fs.rmSync(path.join(c.dir, STEER_STATE));
    const gone = await loadSession(c.dir, c.tr.file, OPTS);
    assert.notEqual(gone.follower, sc.follower);
    assert.equal(gone.restarted, 'first call');
  });

  it('keeps the eight sessions saved last: a ninth pushes out the oldest', async () => {
    const all = [];
    for (let i = 0; i < 9; i++) {
      const x = session();
      const s = await loadSession(x.dir, x.tr.file, OPTS);
      saveSession(x.dir, s, OPTS);
      all.push({ ...x, s });
    }
    const first = all[0]!;
    assert.notEqual((await loadSession(first.dir, first.tr.file, OPTS)).follower, first.s.follower, 'the oldest left the cache');
    for (const x of all.slice(1)) assert.equal((await loadSession(x.dir, x.tr.file, OPTS)).follower, x.s.follower, x.dir);
  });

  it('a save without options (a hook run alone) caches nothing', async () => {
    const { dir, tr } = session();
    const s = await loadSession(dir, tr.file, OPTS);
    saveSession(dir, s);
    assert.notEqual((await loadSession(dir, tr.file, OPTS)).follower, s.follower);
  });
});
