/**
 * The steer log (`<session>/steer-log.jsonl`, src/core/hooks/claude/steer.ts): one line per PreCompact
 * answer, rotated once past 1 MiB so a session of thousands of answers keeps a bounded log, and its
 * newest allow read back (lastAllowed) for the line Claude Code shows after its compaction.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { lastAllowed, steerPreCompact } from '../../src/core/hooks/claude/steer';
import { sessionDir } from '../../src/core/hooks/shared/store';
import { Transcript } from '../support/claudeTranscript';
import { steeredSession } from '../support/steered';

const TMP = fs.realpathSync(os.tmpdir());
const MIB = 1024 * 1024;

function session() {
  const root = fs.mkdtempSync(path.join(TMP, 'rawr-steerlog-'));
  const tr = new Transcript(root);
  tr.prompt('work');
  tr.bash('echo a', 600_000, 'a');
  const dir = sessionDir(root, 'claude', 'sess', true)!;
  const ask = (trigger: 'auto' | 'manual') =>
    steerPreCompact({
      ...steeredSession({ dir, root, transcript: tr.file }),
      trigger,
    });
  return { dir, log: path.join(dir, 'steer-log.jsonl'), ask };
}

const lines = (file: string) => fs.readFileSync(file, 'utf8').trim().split('\n');

describe('rawr hooks claude: the steer log', function () {
  this.timeout(30_000);

  it('past 1 MiB the log moves to .1 once and starts again; at 1 MiB exactly it is kept', async () => {
    const s = session();
    const old = `${JSON.stringify({ allow: false, why: 'deferred', text: 'x'.repeat(200) })}\n`;
    fs.writeFileSync(s.log, old.repeat(Math.ceil(MIB / old.length)).slice(0, MIB)); // exactly 1 MiB
    await s.ask('manual');
    assert.equal(fs.existsSync(`${s.log}.1`), false, 'not rotated at exactly 1 MiB');
    assert.equal(fs.statSync(s.log).size > MIB, true);
    const before = fs.readFileSync(s.log);
    await s.ask('manual');
    assert.deepEqual(fs.readFileSync(`${s.log}.1`), before, 'the old log, byte for byte, in .1');
    assert.equal(lines(s.log).length, 1, 'the new log holds the newest answer only');
    assert.equal((JSON.parse(lines(s.log)[0]!) as { why: string }).why, 'manual');
  });

  it('a new or empty log starts with its first line; a whole last line is not followed by an empty one', async () => {
    const s = session();
    await s.ask('manual');
    const text = fs.readFileSync(s.log, 'utf8');
    assert.match(text, /^\{[^\n]*\}\n$/, 'one line, nothing before it');
    await s.ask('manual');
    assert.match(fs.readFileSync(s.log, 'utf8'), /^\{[^\n]*\}\n\{[^\n]*\}\n$/, 'two lines, no empty one between');
    fs.writeFileSync(s.log, '');
    await s.ask('manual');
    assert.match(fs.readFileSync(s.log, 'utf8'), /^\{[^\n]*\}\n$/, 'an empty log: its first line');
  });

  it('says why a call read the transcript from its start, and how much it read', async () => {
    const s = session();
    await s.ask('manual');
    const first = JSON.parse(lines(s.log)[0]!) as { restarted?: string; readBytes?: number };
    assert.equal(first.restarted, 'first call');
    assert.ok(first.readBytes! > 0, JSON.stringify(first));
    await s.ask('manual');
    const next = JSON.parse(lines(s.log)[1]!) as { restarted?: string; readBytes?: number };
    assert.deepEqual([next.restarted, next.readBytes], [undefined, undefined], 'read on from the saved state');
    fs.writeFileSync(path.join(s.dir, 'steer-state.json'), '{"version": 1, "transcript": 3');
    await s.ask('manual');
    assert.match((JSON.parse(lines(s.log)[2]!) as { restarted: string }).restarted, /^state unreadable \(/);
  });

  it('the newest answer is read back when it allowed; a refusal or no log give nothing; a damaged line is skipped', async () => {
    const s = session();
    assert.equal(await lastAllowed(s.dir), undefined, 'no log yet');
    const refused = await s.ask('auto');
    assert.equal(refused.verdict.allow, false, refused.verdict.text);
    assert.equal(await lastAllowed(s.dir), undefined, 'the newest answer refused');
    const manual = await s.ask('manual');
    assert.equal(manual.verdict.allow, true);
    assert.deepEqual(await lastAllowed(s.dir), { why: 'manual', text: manual.verdict.text });
    assert.match(manual.verdict.text, /manual \/compact/);
    fs.appendFileSync(s.log, '{"allow": true, "why": 3}\n{"allow": tr');
    assert.deepEqual(await lastAllowed(s.dir), { why: 'manual', text: manual.verdict.text }, 'lines that are not answers are skipped');
    // The torn line (a hook killed while it wrote): the next answer starts a line of its own, read back.
    const next = await s.ask('auto');
    assert.equal(next.verdict.why, 'reactive', 'asked again with no model response since the allow');
    assert.deepEqual(await lastAllowed(s.dir), { why: 'reactive', text: next.verdict.text }, 'not glued to the torn line');
    assert.equal(lines(s.log).at(-2), '{"allow": tr', 'the torn line is left as it was');
  });
});
