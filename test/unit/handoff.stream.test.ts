/**
 * `rawr handoff` streams its file like `rawr replay` (issue 22, item 9): what it holds does not grow with
 * the recording (the thread keeps only what a recent tail can take: RecordingThread, tailHorizon), and it
 * gives exactly the handoff the whole recording in memory gives.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { handoffFile } from '../../src/cli/replay/handoffCommand';
import { loadRecording } from '../../src/cli/replay/replayCommand';
import { HandoffFeed, RecordingThread } from '../../src/core/replay/handoffAt';
import type { RecordingItem } from '../../src/core/replay/recording';
import { selectRecentTail } from '../../src/core/sequence/recentTail';
import { shipped } from '../support/engine';
import { needShared, TRANSCRIPTS_DIR } from '../support/sharedData';
import { generatedSessions } from '../support/generatedSessions';

const CLI = path.resolve(__dirname, '../../src/cli/main.js');

/** Items of a long session: prompts, texts, calls with results, calls answered late or never, orphan results. */
function* items(n: number): Generator<RecordingItem> {
  let line = 0;
  const at = 0;
  for (let k = 0; k < n; k++) {
    if (k % 7 === 0) yield { type: 'user_prompt', line: ++line, at, text: `ask ${k} ${'p'.repeat((k * 37) % 900)}` };
    yield { type: 'assistant_text', line: ++line, at, text: `text ${k} ${'a'.repeat((k * 53) % 700)}` };
    yield { type: 'tool_call', line: ++line, at, id: `c${k}`, name: 'Bash', input: { command: `echo ${k}` } };
    if (k % 5 === 0) yield { type: 'tool_call', line: ++line, at, id: `d${k}`, name: 'Read', input: { file_path: `/f${k}` } };
    yield { type: 'tool_result', line: ++line, at, id: `c${k}`, output: `out ${k} ${'o'.repeat((k * 91) % 3000)}`, isError: false };
    // The second call of every fifth response is answered two responses later, or (every 35th) never.
    if (k % 5 === 2 && (k - 2) % 35 !== 0) yield { type: 'tool_result', line: ++line, at, id: `d${k - 2}`, output: `late ${k}`, isError: false };
    if (k % 11 === 0) yield { type: 'tool_result', line: ++line, at, id: `nobody${k}`, output: 'orphan', isError: false };
  }
}

describe('rawr handoff streams (bounded memory)', function () {
  this.timeout(180_000);

  it('the thread holds what a recent tail can take, and every tail within the budget is the one the whole thread gives', () => {
    const maxBudget = 4_000;
    const bounded = new RecordingThread(maxBudget);
    const whole = new RecordingThread();
    let most = 0;
    let k = 0;
    for (const it of items(6_000)) {
      bounded.push(it);
      whole.push(it);
      most = Math.max(most, bounded.messages.length);
      if (++k % 997 === 0)
        for (const budget of [0, 300, 1_000, 2_500, maxBudget])
          assert.deepEqual(selectRecentTail(bounded.messages, budget), selectRecentTail(whole.messages, budget), `item ${k}, budget ${budget}`);
    }
    assert.ok(whole.messages.length > 10_000, `${whole.messages.length} messages in the session`);
    assert.ok(most < 400, `the bounded thread held ${most} messages at most`);
  });

  it('a recording larger than the heap it is given: the handoff at its end, in bounded memory', function () {
    // 40 MB of records for a CLI limited to a 32 MB heap (about 12 MB of it live at rest): the whole file cannot be held (it was: 200 MB
    // took 682 MB, 300 MB was refused).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-handoff-big-'));
    try {
      const file = path.join(dir, 'big.jsonl');
      const fd = fs.openSync(file, 'w');
      let size = 0;
      let lines = 0;
      const pad = 'x'.repeat(2_000);
      for (let k = 0; size < 40 * 1024 * 1024; k++) {
        const ts = new Date(Date.UTC(2026, 0, 1) + k * 1000).toISOString();
        const usage = { input_tokens: 30_000 + (k % 50) * 1_000, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
        const chunk = [
          { type: 'user', uuid: `u${k}`, sessionId: 's', timestamp: ts, message: { role: 'user', content: `request ${k}: ${pad}` } },
          {
            type: 'assistant',
            uuid: `a${k}`,
            timestamp: ts,
            message: {
              id: `m${k}`,
              model: 'claude-sonnet-4-5',
              role: 'assistant',
              content: [{ type: 'tool_use', id: `t${k}`, name: 'Bash', input: { command: `echo ${k}` } }],
              usage,
            },
          },
          {
            type: 'user',
            uuid: `r${k}`,
            timestamp: ts,
            message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${k}`, content: `${k} ${pad}` }] },
          },
        ]
          .map((r) => `${JSON.stringify(r)}\n`)
          .join('');
        size += fs.writeSync(fd, chunk);
        lines += 3;
      }
      fs.closeSync(fd);
      const r = spawnSync(process.execPath, ['--max-old-space-size=32', CLI, 'handoff', file, '--line', String(lines + 1), '--json'], {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        timeout: 150_000,
      });
      assert.equal(r.status, 0, `exit ${r.status} ${r.signal ?? ''}: ${r.stderr.slice(-500)}`);
      const out = JSON.parse(r.stdout) as { line: number; itemsBefore: number; parts: { handoff: string; tail: Array<{ role: string; text: string }> } };
      assert.equal(out.line, lines + 1);
      assert.ok(out.itemsBefore >= lines, `${out.itemsBefore} items fed`);
      const last = lines / 3 - 1;
      assert.match(out.parts.handoff, new RegExp(`request ${last}: x`), 'the current ask is the last request');
      assert.ok(
        out.parts.tail.some((m) => m.text.startsWith(`${last} x`)),
        'the tail ends with the last exchange',
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('rawr handoff streams: the same handoff as from the whole recording in memory', function () {
  this.timeout(300_000);

  before(function () {
    needShared(this);
  });

  it('on every shared recording, at a third, two thirds and the end', () => {
    const names = fs.readdirSync(TRANSCRIPTS_DIR).filter((n) => n.endsWith('.jsonl'));
    assert.ok(names.length > 0);
    for (const name of names) sameHandoff(path.join(TRANSCRIPTS_DIR, name));
  });
});

describe('rawr handoff streams: the same handoff as in memory, on generated sessions (no shared data needed)', function () {
  this.timeout(300_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-handoff-gen-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('one session of every generated family, at a third, two thirds and the end', () => {
    for (const file of generatedSessions(dir)) sameHandoff(file);
  });
});

/** The streamed handoff of a file, at a third, two thirds and its end, equals the in-memory one. */
function sameHandoff(file: string): void {
  const name = path.basename(file);
  const rec = loadRecording(fs.readFileSync(file, 'utf8'));
  for (const line of [Math.max(1, Math.floor(rec.lines / 3)), Math.max(1, Math.floor((rec.lines * 2) / 3)), rec.lines + 1]) {
    // The reference: every item before the line in memory, the whole thread kept (as before streaming).
    const feed = new HandoffFeed(shipped.settings, shipped.prompts, rec.window, { wholeThread: true });
    for (const it of rec.items) if (it.line < line) feed.push(it);
    const h = feed.handoff(line);
    const expected = {
      file: name,
      format: rec.format,
      line,
      itemsBefore: h.itemsBefore,
      parts: { packet: h.packet, handoff: h.handoff, tail: h.tail },
      tokens: h.tokens,
      thread: h.thread,
    };
    const streamed = JSON.parse(handoffFile({ path: file }, { settings: shipped.settings, prompts: shipped.prompts, line, json: true, file: name })) as unknown;
    assert.deepEqual(streamed, JSON.parse(JSON.stringify(expected)), `${name} at line ${line}`);
  }
}
