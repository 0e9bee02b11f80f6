/**
 * Replayer.peekToolLoop (src/core/replay/driver.ts) evaluates the due tool-loop point on a copy that
 * shares the engine state instead of deep-cloning it (the Claude Code hook peeks before every model
 * request while rawr defers). The copy must decide exactly as a replay restored from save() does, and
 * the peek must leave the replay itself unchanged: on a generated multi-phase session and on the shared
 * Claude Code recordings, at every point a peek is due.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Replayer, type ReplayDecision, type ReplayOptions } from '../../src/core/replay/driver';
import { importRecording } from '../../src/core/replay/import/detect';
import { chooseWindow } from '../../src/core/replay/windows';
import { loadPromptSet } from '../../src/core/prompts/promptSet';
import { dirReader, shippedPromptsDir } from '../../src/core/prompts/fs';
import { Transcript } from '../support/claudeTranscript';
import { needShared, TRANSCRIPTS_DIR } from '../support/sharedData';

const SET = loadPromptSet([dirReader(shippedPromptsDir())]);

/** Every due peek of `text` compared with a restored copy's evaluation; the number of peeks that decided. */
function checkPeeks(text: string, window?: number): { due: number; decided: number } {
  const rec = importRecording(text, 'claude');
  const opts: ReplayOptions = { settings: SET.settings, prompts: SET.prompts, live: true, ...(window ? { window } : {}) };
  const r = new Replayer(rec.format, chooseWindow(rec, window), opts);
  let due = 0;
  let decided = 0;
  for (const item of rec.items) {
    r.push(item);
    const before = JSON.stringify(r.save());
    const peeked = r.peekToolLoop();
    const saved = r.save();
    assert.equal(JSON.stringify(saved), before, `a peek at line ${item.line} changed the replay`);
    if (!saved.toolLoopDue) {
      assert.equal(peeked, null);
      continue;
    }
    let restored: ReplayDecision | null = null;
    const copy = Replayer.restore(saved, { ...opts, onDecision: (d) => (restored = d) });
    copy.push({ type: 'assistant_text', line: saved.line, at: saved.at, text: '' });
    due++;
    assert.deepEqual(peeked, restored, `line ${item.line}`);
    if (peeked) decided++;
    // Twice in a row (the hook asks again before the next request): the same answer.
    assert.deepEqual(r.peekToolLoop(), peeked);
  }
  return { due, decided };
}

describe('Replayer.peekToolLoop: a copy that shares the engine state', function () {
  this.timeout(300_000);

  it('decides as a restored copy and leaves the replay unchanged, on a generated session with phases and commits', () => {
    const root = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'rawr-peek-'));
    try {
      const tr = new Transcript(root);
      let context = 30_000;
      for (let phase = 0; phase < 6; phase++) {
        tr.prompt(`phase ${phase}: do the next part`);
        for (let step = 0; step < 12; step++) {
          context += 9_000 + ((phase * 7 + step * 3) % 5) * 2_000;
          tr.bash(step === 11 ? `git commit -m "phase ${phase}"` : `npm test -- part ${step}`, context, `ok ${step}`);
        }
        tr.answer(`phase ${phase} done`, context);
      }
      const { due, decided } = checkPeeks(fs.readFileSync(tr.file, 'utf8'), 400_000);
      assert.ok(due >= 60, `peeks due: ${due}`);
      assert.ok(decided > 0, 'some peeks made a decision');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('the same on the shared Claude Code recordings', function () {
    needShared(this);
    const names = fs.readdirSync(TRANSCRIPTS_DIR).filter((f) => /^claude-.*\.jsonl$/.test(f));
    assert.ok(names.length > 0, `Claude Code recordings in ${TRANSCRIPTS_DIR}`);
    let due = 0;
    for (const name of names) due += checkPeeks(fs.readFileSync(path.join(TRANSCRIPTS_DIR, name), 'utf8')).due;
    assert.ok(due > 0, 'some peeks were due');
  });
});
