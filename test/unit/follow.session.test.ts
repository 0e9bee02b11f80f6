import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { replayFile } from '../../src/cli/replay/replayCommand';
import { SessionFollower, MAX_LINE_CHARS } from '../../src/core/follow/sessionFollower';
import { codexCwd, encodeClaudeProject, hookEvents, hookReceipts, newestClaudeTranscript, steerLog } from '../../src/host/follow/discover';
import { FileTail } from '../../src/host/follow/tail';
import { shipped } from '../support/engine';
import { needShared, sharedFiles } from '../support/sharedData';

const DATA = path.resolve(__dirname, '../../../../shared/data');
const opts = { settings: shipped.settings, prompts: shipped.prompts };

/** A Claude Code session that works to a commit at 69% of a 1M window. */
function session(): string[] {
  const usage = (n: number) => ({ input_tokens: n, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 1 });
  const a = (id: string, block: object, n: number) => ({
    type: 'assistant',
    uuid: id,
    sessionId: 's',
    timestamp: '2026-01-01T00:00:01.000Z',
    message: { id, model: 'claude-opus-5-5', role: 'assistant', content: [block], usage: usage(n) },
  });
  const u = (content: unknown, extra: object = {}) => ({
    type: 'user',
    uuid: 'u',
    sessionId: 's',
    timestamp: '2026-01-01T00:00:02.000Z',
    message: { role: 'user', content },
    ...extra,
  });
  return [
    u('implement step 1'),
    a('m1', { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'git commit -m "step 1"' } }, 690_000),
    u([{ type: 'tool_result', tool_use_id: 't1', content: '[main 3f2a1c9] step 1\n 1 file changed' }], {
      toolUseResult: { stdout: '[main 3f2a1c9] step 1\n 1 file changed', stderr: '' },
    }),
    a('m2', { type: 'text', text: 'Committed step 1.' }, 691_000),
  ].map((r) => JSON.stringify(r));
}

describe('live follow: SessionFollower', () => {
  it('fed in arbitrary pieces, it reaches the same state as fed whole; it says where rawr would compact', () => {
    const text = session().join('\n') + '\n';
    const whole = new SessionFollower(opts);
    whole.append(text);
    const pieces = new SessionFollower(opts);
    for (let i = 0; i < text.length; i += 37) pieces.append(text.slice(i, i + 37));
    const a = whole.state();
    assert.deepEqual(pieces.state(), a);
    assert.equal(a.format, 'claude');
    assert.equal(a.window.window, 1_000_000);
    assert.ok(a.percentRemaining !== null && a.percentRemaining < 35 && a.percentRemaining > 25, String(a.percentRemaining));
    assert.ok(a.wouldCompact, JSON.stringify(a.decisions));
    assert.match(a.wouldCompact.text, /^rawr would compact here: commit 3f2a1c9, 3\d% left$/);
    assert.match(a.wouldCompact.instructions, /Just completed: commit 3f2a1c9/);
  });

  it('a half-written last line waits; garbage and over-long lines are problems, not crashes', () => {
    const lines = session();
    const f = new SessionFollower(opts);
    f.append(lines[0]! + '\n' + lines[1]!.slice(0, 50));
    assert.equal(f.state().lines, 1);
    f.append(lines[1]!.slice(50) + '\n{nope\n');
    assert.equal(f.state().lines, 3);
    assert.deepEqual(
      f.state().problems.map((p) => p.line),
      [3],
    );
    f.append('x'.repeat(MAX_LINE_CHARS + 1));
    f.append('tail of the long line\n' + lines[2] + '\n');
    const s = f.state();
    assert.match(s.problems.at(-1)!.message, /longer than/);
    assert.equal(s.format, 'claude');
  });

  it('wrong-typed records are reported as replay reports them: every one counted, the first few listed (issue 22, item 12)', () => {
    const good = session();
    const wrong: string[] = [];
    for (let k = 0; k < 2_000; k++) {
      const base = { uuid: `w${k}`, sessionId: 's', timestamp: '2026-01-01T00:00:03.000Z' };
      const kinds = [
        { ...base, type: 'assistant', message: { id: `x${k}`, role: 'assistant', content: 42, usage: { input_tokens: 'many' } } },
        { ...base, type: 'user', message: { role: 'user', content: { not: 'a list' } } },
        { ...base, type: 'assistant', message: 'not an object' },
        { ...base, type: 'user', timestamp: 17, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 5, content: 'x' }] } },
      ];
      wrong.push(JSON.stringify(kinds[k % kinds.length]));
    }
    const text = [good[0], ...wrong, ...good.slice(1)].join('\n') + '\n';
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-follow-wrong-'));
    try {
      const file = path.join(dir, 'wrong.jsonl');
      fs.writeFileSync(file, text);
      const replayed = JSON.parse(
        replayFile({ path: file }, { ...opts, json: true, file })
          .trim()
          .split('\n')
          .pop()!,
      ) as {
        problems: number;
        problemsDetail: Array<{ line: number; message: string }>;
      };
      assert.ok(replayed.problems > 1_000, `replay reports ${replayed.problems} problems`);
      const f = new SessionFollower({ ...opts, format: 'claude' });
      for (let i = 0; i < text.length; i += 65_536) f.append(text.slice(i, i + 65_536));
      const s = f.state();
      assert.equal(s.problemCount, replayed.problems, 'the same count as replay');
      assert.deepEqual(s.problems, replayed.problemsDetail, 'the same first problems, with their lines');
      assert.equal(s.format, 'claude');
      assert.ok(s.decisions.length > 0, 'the good records still reach the arbiter');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an over-long line is skipped the same way whether it arrives whole or in pieces', () => {
    const lines = session();
    const text = [lines[0], 'x'.repeat(MAX_LINE_CHARS + (2 << 20)), ...lines.slice(1)].join('\n') + '\n';
    const whole = new SessionFollower(opts);
    whole.append(text);
    const pieces = new SessionFollower(opts);
    for (let i = 0; i < text.length; i += 1 << 20) pieces.append(text.slice(i, i + (1 << 20)));
    const a = whole.state();
    assert.deepEqual(pieces.state(), a);
    assert.deepEqual(
      a.problems.map((p) => [p.line, /longer than/.test(p.message)]),
      [[2, true]],
    );
    assert.equal(a.lines, 5);
  });

  it('follows every real 2.1 transcript and 0.171 rollout to the same compactions as replay', function () {
    for (const d of ['claude-code-2.1', 'codex-0.171']) needShared(this, path.join(DATA, d));
    const dirs = ['claude-code-2.1', 'codex-0.171'].map((d) => path.join(DATA, d));
    for (const dir of dirs) {
      for (const file of sharedFiles(dir, (x) => x.endsWith('.jsonl'))) {
        const text = fs.readFileSync(path.join(dir, file), 'utf8');
        const f = new SessionFollower(opts);
        for (let i = 0; i < text.length; i += 4096) f.append(text.slice(i, i + 4096));
        const s = f.state();
        assert.equal(s.problems.length, 0, file);
        // The importer lets go of what the arbiter has and no later record can change.
        assert.ok(f.heldItems <= 16, `${file}: ${f.heldItems} items held after the whole session`);
        assert.equal(s.nativeCompactions.length, (text.match(/"subtype":"compact_boundary"|"type":"compacted"/g) ?? []).length, file);
      }
    }
  });
});

describe('live follow: finding and reading sessions', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-follow-'));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('Claude Code project folders: every non-alphanumeric character becomes "-"', async () => {
    assert.equal(encodeClaudeProject('/home/user/repo'), '-home-user-repo');
    assert.equal(encodeClaudeProject('/home/me/my_repo.v2'), '-home-me-my-repo-v2');
    const dir = path.join(tmp, 'projects', encodeClaudeProject('/w/x_y'));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'old.jsonl'), '{}\n');
    fs.writeFileSync(path.join(dir, 'new.jsonl'), '{}\n');
    fs.utimesSync(path.join(dir, 'old.jsonl'), new Date(1000), new Date(1000));
    assert.equal((await newestClaudeTranscript('/w/x_y', tmp))?.file, path.join(dir, 'new.jsonl'));
    assert.equal(await newestClaudeTranscript('/elsewhere', tmp), null);
  });

  it('Codex rollouts are matched by their session_meta cwd', () => {
    assert.equal(codexCwd('{"type":"session_meta","payload":{"cwd":"/home/user/repo","id":"x"}}\n{"a":1}'), '/home/user/repo');
    assert.equal(codexCwd('{"type":"event_msg","payload":{}}'), null);
    assert.equal(codexCwd('not json'), null);
  });

  it('FileTail: bounded reads of what was appended, UTF-8 kept whole, reset when the file shrinks', async () => {
    const file = path.join(tmp, 't.jsonl');
    fs.writeFileSync(file, 'héllo\n');
    const tail = new FileTail(file, 4);
    let text = '';
    for (;;) {
      const r = await tail.read();
      text += r.text;
      if (!r.more) break;
    }
    assert.equal(text, 'héllo\n');
    fs.appendFileSync(file, 'more\n');
    assert.equal((await tail.read()).text, 'more');
    assert.equal((await tail.read()).text, '\n');
    fs.writeFileSync(file, 'x\n');
    assert.equal((await tail.read()).reset, true);
  });

  it("the PreCompact hook's answers (steer-log.jsonl): newest last, bad lines skipped, only the tail read, a FIFO never opened for reading", async () => {
    const dir = path.join(tmp, '.rawr', 'claude', 'sess-steer');
    fs.mkdirSync(dir, { recursive: true });
    const entry = (i: number, allow: boolean, text: string) =>
      JSON.stringify({
        at: `2026-11-26T10:00:${String(i % 60).padStart(2, '0')}.000Z`,
        trigger: 'auto',
        allow,
        why: allow ? 'boundary' : 'deferred',
        text,
        usedTokens: 640_000 + i,
        window: 1_000_000,
        line: i,
      });
    const lines = [
      entry(1, false, 'deferred to the next boundary (64% used; waiting for a commit or a completed task)'),
      'not json',
      JSON.stringify({ at: 'x', allow: 'yes' }),
      entry(2, true, 'compacting at commit 3f2a1c9 (70% used)'),
    ];
    fs.writeFileSync(path.join(dir, 'steer-log.jsonl'), `${lines.join('\n')}\n`);
    assert.deepEqual(
      (await steerLog(tmp, 'sess-steer')).map((e) => [e.allow, e.text]),
      [
        [false, 'deferred to the next boundary (64% used; waiting for a commit or a completed task)'],
        [true, 'compacting at commit 3f2a1c9 (70% used)'],
      ],
    );
    // A long log: only its tail is read, the newest 20 answers come back, the last one is the newest.
    fs.writeFileSync(path.join(dir, 'steer-log.jsonl'), `${Array.from({ length: 2_000 }, (_, i) => entry(i, i % 2 === 0, `answer ${i}`)).join('\n')}\n`);
    const tail = await steerLog(tmp, 'sess-steer');
    assert.equal(tail.length, 20);
    assert.equal(tail.at(-1)!.text, 'answer 1999');
    // Nothing there, or not a regular file: no answers, no hang.
    assert.deepEqual(await steerLog(tmp, 'no-such-session'), []);
    const fifoDir = path.join(tmp, '.rawr', 'claude', 'sess-fifo');
    fs.mkdirSync(fifoDir, { recursive: true });
    execFileSync('mkfifo', [path.join(fifoDir, 'steer-log.jsonl')]);
    assert.deepEqual(await steerLog(tmp, 'sess-fifo'), []);
  });

  it("the hooks' receipts after each compaction (hook-log.jsonl): receipts only, newest last, malformed ones skipped", async () => {
    const dir = path.join(tmp, '.rawr', 'claude', 'sess-receipts');
    fs.mkdirSync(dir, { recursive: true });
    const receipt = (at: string, kept: number) => ({
      kind: 'receipt',
      at,
      trigger: 'auto',
      snapshot: 'snapshot-x.json',
      tokensBefore: 700_000,
      tokensAfter: 21_000,
      summaryTokens: 20_000,
      repairTokens: 1_000,
      facts: { commits: { facts: 3, kept, added: 3 - kept }, current_ask: { facts: 1, kept: 1, added: 0 } },
    });
    fs.writeFileSync(
      path.join(dir, 'hook-log.jsonl'),
      [
        JSON.stringify(receipt('2026-11-26T10:00:00.000Z', 1)),
        JSON.stringify({ kind: 'injected', at: '2026-11-26T10:00:01.000Z', what: 'repair', event: 'PostToolUse', chars: 900 }),
        JSON.stringify({ ...receipt('2026-11-26T10:00:02.000Z', 2), facts: { commits: { facts: -1, kept: 0, added: 0 } } }),
        JSON.stringify(receipt('2026-11-26T11:00:00.000Z', 3)),
      ].join('\n') + '\n',
    );
    const r = await hookReceipts(tmp, 'claude', 'sess-receipts');
    assert.deepEqual(
      r.map((x) => [x.at, x.facts.commits!.kept]),
      [
        ['2026-11-26T10:00:00.000Z', 1],
        ['2026-11-26T11:00:00.000Z', 3],
      ],
    );
    assert.deepEqual(await hookReceipts(tmp, 'codex', 'sess-receipts'), []);
  });

  it('hook events from the store: snapshots and injection claims', async () => {
    const dir = path.join(tmp, '.rawr', 'claude', 'sess-1');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'snapshot-2026-11-26T10-00-00-000Z.json'), '{}');
    fs.writeFileSync(path.join(dir, 'snapshot-2026-11-26T10-00-00-000Z.json.injected'), '');
    const ev = await hookEvents(tmp, 'claude', 'sess-1');
    assert.deepEqual(
      ev.map((e) => [e.kind, e.at]),
      [
        ['snapshot', '2026-11-26T10:00:00.000Z'],
        ['injected', '2026-11-26T10:00:00.000Z'],
      ],
    );
  });
});
