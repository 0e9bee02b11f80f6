/**
 * The streaming replay (src/core/replay/stream.ts): what it holds does not grow with the recording, and
 * it decides exactly what the whole-recording replay decides.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadRecording, replayFile, replayFileWithJudge } from '../../src/cli/replay/replayCommand';
import { judgmentKey, replay, type ReplayDecision } from '../../src/core/replay/driver';
import type { RawLine } from '../../src/core/io/lines';
import { replayScanned, scanRecording, type HeldCounts } from '../../src/core/replay/stream';
import { shipped } from '../support/engine';
import { needShared, TRANSCRIPTS_DIR } from '../support/sharedData';
import { generatedSessions } from '../support/generatedSessions';

const opts = { settings: shipped.settings, prompts: shipped.prompts };
/** The documented bounds, not the code's constants: at most 10,000 shell calls waiting for a result
 *  (docs/ARCHITECTURE.md) and the first 20 problems with their lines (README, "Live follow"). */
const ID_MEMORY = 10_000;
const MAX_PROBLEM_DETAIL = 20;

/**
 * A long Claude Code session, generated line by line (never as a whole): each turn a prompt, one API
 * response split over two records (text, then a Bash call), the result; a commit every 40 turns, and a
 * line that is not JSON every 500 lines. `progress.yielded` counts the lines handed out so far.
 */
function* session(turns: number, progress: { yielded: number }): Generator<RawLine> {
  let line = 0;
  const out = (text: string): RawLine => {
    progress.yielded++;
    return { line: ++line, text };
  };
  for (let k = 0; k < turns; k++) {
    const ts = new Date(Date.UTC(2026, 0, 1) + k * 60_000).toISOString();
    const commit = k % 40 === 39;
    const command = commit ? `git commit -am "step ${k}"` : `npm test -- --grep part${k}`;
    yield out(JSON.stringify({ type: 'user', uuid: `u${k}`, sessionId: 's', timestamp: ts, message: { role: 'user', content: `Do part ${k} of the work.` } }));
    const usage = { input_tokens: 20_000 + (k % 60) * 2_500, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    const msg = (content: unknown[]) => ({ id: `m${k}`, model: 'claude-sonnet-4-5', role: 'assistant', content, usage });
    yield out(JSON.stringify({ type: 'assistant', uuid: `a${k}`, timestamp: ts, message: msg([{ type: 'text', text: `Running the tests for part ${k}.` }]) }));
    yield out(
      JSON.stringify({ type: 'assistant', uuid: `b${k}`, timestamp: ts, message: msg([{ type: 'tool_use', id: `t${k}`, name: 'Bash', input: { command } }]) }),
    );
    const output = commit ? `[main ${(0xabc0000 + k).toString(16)}] step ${k}\n 1 file changed` : 'ok';
    yield out(
      JSON.stringify({
        type: 'user',
        uuid: `r${k}`,
        timestamp: ts,
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${k}`, content: output }] },
        toolUseResult: { stdout: output, stderr: '' },
      }),
    );
    if (line % 500 < 4) yield out('{"type": "assistant", "message": ');
  }
}

describe('rawr replay streams (bounded memory)', function () {
  this.timeout(120_000);

  it('holds a bounded number of items, decisions, calls and problems however long the recording is', () => {
    const turns = 12_000; // 48,000+ lines, more Bash calls than the Replayer remembers (ID_MEMORY)
    const scan = scanRecording('claude', session(turns, { yielded: 0 }));
    assert.equal(scan.window.source, 'model');
    assert.ok(scan.problems.count > MAX_PROBLEM_DETAIL, 'the bad lines outnumber the problems kept in detail');

    const progress = { yielded: 0 };
    let decisions = 0;
    let compactions = 0;
    const max: Omit<HeldCounts, 'line'> = { items: 0, decisions: 0, shellCalls: 0, problems: 0 };
    const { summary, problems } = replayScanned(scan, session(turns, progress), {
      ...opts,
      onDecision: (d: ReplayDecision) => {
        decisions++;
        if (d.action === 'compact') compactions++;
      },
      onHeld: (h) => {
        // Each record is replayed as soon as it is read: the source is never read ahead.
        assert.equal(progress.yielded, h.line, 'the lines are read one at a time, as the replay goes');
        for (const k of ['items', 'decisions', 'shellCalls', 'problems'] as const) max[k] = Math.max(max[k], h[k]);
      },
    });
    // The items of the last few API responses wait for more of their text (claude.ts, OPEN_RESPONSES).
    assert.ok(max.items <= 30, `importer held ${max.items} items at once`);
    assert.equal(max.decisions, 0, 'the Replayer keeps no decision: each is handed on');
    // A call is forgotten at its result: what is held is the calls still waiting (here one at a time),
    // and never more than ID_MEMORY whatever the recording (calls that never get a result are trimmed).
    assert.ok(max.shellCalls <= 2, `Replayer remembered ${max.shellCalls} shell calls, more than wait for a result`);
    assert.ok(max.shellCalls <= ID_MEMORY);
    assert.equal(max.problems, MAX_PROBLEM_DETAIL);
    // Everything still flowed through: every turn evaluated, the commits seen, every problem counted.
    assert.ok(decisions >= turns, `${decisions} decisions for ${turns} turns`);
    assert.equal(summary.commitsSeen, turns / 40);
    assert.ok(compactions > 0 && summary.compactions.length === compactions);
    assert.equal(problems.count, scan.problems.count);
    assert.equal(summary.problems, problems.count);
  });

  it('a response split over records still becomes one text item', () => {
    const lines = [...session(3, { yielded: 0 })].map((l) => l.text!).join('\n');
    const rec = loadRecording(lines);
    assert.deepEqual(
      rec.items.filter((i) => i.type === 'assistant_text').map((i) => i.text),
      ['Running the tests for part 0.', 'Running the tests for part 1.', 'Running the tests for part 2.'],
    );
  });
});

/** The streamed replay of a file (from its text and from the file) equals the whole-recording replay's. */
function sameAsWhole(file: string, window?: number): void {
  const name = path.basename(file);
  const text = fs.readFileSync(file, 'utf8');
  const o = { ...opts, json: true, file: name, ...(window ? { window } : {}) };
  const rec = loadRecording(text);
  const whole = replay(rec, { ...opts, ...(window ? { window } : {}) });
  const expected = [
    ...whole.decisions.map((d) => JSON.stringify(d)),
    JSON.stringify({ ...whole.summary, file: name, problemsDetail: rec.problems.slice(0, MAX_PROBLEM_DETAIL) }),
  ].join('\n');
  assert.equal(replayFile(text, o), `${expected}\n`, `${name}: streamed from a text`);
  assert.equal(replayFile({ path: file }, o), `${expected}\n`, `${name}: streamed from the file`);
}

describe('rawr replay streams: the same result as the whole-recording replay, on generated sessions (no shared data needed)', function () {
  this.timeout(180_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-replay-gen-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const window of [undefined, 150_000]) {
    it(`one session of every generated family, with its native compactions${window ? ` (--window ${window})` : ''}`, () => {
      for (const s of generatedSessions(dir)) sameAsWhole(s, window);
    });
  }
});

describe('rawr replay streams: the same result as the whole-recording replay', function () {
  this.timeout(180_000);

  before(function () {
    needShared(this);
  });

  for (const window of [undefined, 150_000]) {
    it(`on every shared recording, from a text and from a file${window ? ` (--window ${window})` : ''}`, () => {
      const names = fs.readdirSync(TRANSCRIPTS_DIR).filter((n) => n.endsWith('.jsonl'));
      assert.ok(names.length > 0);
      for (const name of names) sameAsWhole(path.join(TRANSCRIPTS_DIR, name), window);
    });
  }

  it('with a judge, each re-run writes only the decisions past those already written (no line twice, none lost)', async function () {
    const file = path.join(TRANSCRIPTS_DIR, 'claude-spotter-8463c716.jsonl');
    needShared(this, file);
    const text = fs.readFileSync(file, 'utf8');
    // Alternating verdicts, so that the judged run differs from the fallback's.
    const answers = new Map<string, string>();
    const judge = async (system: string, user: string) => {
      const verdict = answers.size % 2 === 0;
      const answer = `{"should_compact": ${verdict}, "reason": "judge ${answers.size}"}`;
      answers.set(judgmentKey(system, user), answer);
      return answer;
    };
    let runs = 0;
    const out = await replayFileWithJudge(text, { ...opts, json: true, file: 'x' }, judge, (n) => (runs = n));
    assert.ok(runs >= 2, `the judge was asked ${runs} times`);
    // The whole-recording replay given every answer up front makes the same decisions, each once.
    const whole = replay(loadRecording(text), { ...opts, judgments: answers });
    const lines = out.trim().split('\n');
    assert.deepEqual(
      lines.slice(0, -1),
      whole.decisions.map((d) => JSON.stringify(d)),
    );
    assert.deepEqual((JSON.parse(lines.at(-1)!) as { compactions: unknown }).compactions, whole.summary.compactions);
  });

  it('a Codex rollout with no user_message event takes its prompts from the response items, in line order', function () {
    const file = path.join(TRANSCRIPTS_DIR, 'codex-localpush-compacted.jsonl');
    needShared(this, file);
    const text = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => !l.includes('"type":"user_message"'))
      .join('\n');
    const rec = loadRecording(text);
    assert.ok(rec.items.some((i) => i.type === 'user_prompt'));
    const whole = replay(rec, opts);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-stream-'));
    try {
      fs.writeFileSync(path.join(tmp, 'r.jsonl'), text);
      const out = replayFile({ path: path.join(tmp, 'r.jsonl') }, { ...opts, json: true, file: 'r' });
      const summary = JSON.parse(out.trim().split('\n').pop()!) as { evaluationPoints: number; compactions: unknown[] };
      assert.equal(summary.evaluationPoints, whole.summary.evaluationPoints);
      assert.deepEqual(summary.compactions, whole.summary.compactions);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
