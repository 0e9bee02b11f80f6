import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as z from 'zod';
import { emptyTrail } from '../../src/core/engine/state';
import type { Trail } from '../../src/core/engine/types';
import { compactedThread, messageTokens, selectRecentTail, tailBudget } from '../../src/core/sequence/recentTail';
import { editedFilesOf, noteToolCall, noteToolResult } from '../../src/core/sequence/trailFacts';
import { assembleWatcherPacketText, statedIntent, telling } from '../../src/core/sequence/watcherPacket';
import { validateAgentPacket } from '../../src/core/sequence/packet';
import type { ThreadMessage } from '../../src/core/thread/thread';
import { unansweredToolCalls } from '../../src/core/thread/thread';
import { Transcript } from '../support/claudeTranscript';
import { mkState, run } from '../support/engine';

const CLI = path.resolve(__dirname, '../../src/cli/main.js');

function rawr(...args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 120_000 });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const big = (n: number) => 'x'.repeat(n);
function exchange(k: number, outputChars = 400): ThreadMessage[] {
  return [
    {
      role: 'assistant',
      text: `step ${k}`,
      toolCalls: [
        { id: `c${k}a`, name: 'Bash', input: { command: `echo ${k}` } },
        { id: `c${k}b`, name: 'Read', input: { file_path: `/r/f${k}.ts` } },
      ],
    },
    { role: 'tool', toolCallId: `c${k}a`, name: 'Bash', text: `${k} ${big(outputChars)}` },
    { role: 'tool', toolCallId: `c${k}b`, name: 'Read', text: `file ${k} ${big(outputChars)}` },
  ];
}

describe('recent tail (keep_recent_tokens)', () => {
  const thread: ThreadMessage[] = [
    { role: 'user', text: 'Build the importer.' },
    ...exchange(1),
    ...exchange(2),
    { role: 'assistant', text: 'Phase one is done.' },
    { role: 'user', text: 'Now the CLI please.' },
    ...exchange(3),
    // rawr's own sequence turns are never kept
    { role: 'user', text: '[rawr watcher → agent] Heads-up', synthetic: true, kind: 'heads_up' },
    { role: 'assistant', text: '', synthetic: true, kind: 'scratch', toolCalls: [{ id: 's1', name: 'rawr_write_scratch', input: { content: 'notes' } }] },
    { role: 'tool', toolCallId: 's1', name: 'rawr_write_scratch', text: 'Scratch notes written.' },
    { role: 'assistant', text: '## What just completed …', synthetic: true, kind: 'packet' },
  ];

  it('never splits a call from its result, at any budget, and never keeps rawr synthetic turns', () => {
    for (let budget = 0; budget <= 2000; budget += 7) {
      const tail = selectRecentTail(thread, budget);
      assert.deepEqual(unansweredToolCalls(tail), [], `budget ${budget}: a call without its result`);
      const calls = new Set(tail.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : [])));
      for (const m of tail) if (m.role === 'tool') assert.ok(calls.has(m.toolCallId), `budget ${budget}: a result without its call`);
      assert.ok(
        tail.every((m) => m.role === 'tool' || !m.synthetic),
        'no synthetic message',
      );
      assert.ok(!tail.some((m) => m.role === 'tool' && m.name === 'rawr_write_scratch'), 'no scratch tool result');
      const used = tail.reduce((n, m) => n + messageTokens(m), 0);
      assert.ok(used <= Math.max(budget, 0) + 1, `budget ${budget}: used ${used}`);
    }
  });

  it('keeps the newest units, oldest first, and the whole thread when it fits', () => {
    const all = selectRecentTail(thread, 100_000);
    assert.deepEqual(
      all.map((m) => m.text.slice(0, 12)),
      thread.filter((m) => (m.role === 'tool' ? m.name !== 'rawr_write_scratch' : !m.synthetic)).map((m) => m.text.slice(0, 12)),
    );
    const some = selectRecentTail(thread, 400);
    assert.equal(some.at(-1)!.role, 'tool');
    assert.ok(some.length < all.length && some.length > 0);
    assert.equal(some[0]!.role === 'assistant' || some[0]!.role === 'user', true, 'starts with a whole unit');
  });

  it('clips the middle of the newest unit when it alone is over budget, keeping call and results paired', () => {
    const tail = selectRecentTail([{ role: 'user', text: 'go' }, ...exchange(9, 40_000)], 2000);
    assert.equal(tail.length, 3);
    assert.match(tail[1]!.text, /characters omitted by rawr/);
    assert.ok(tail.reduce((n, m) => n + messageTokens(m), 0) <= 2000);
  });

  it('drops orphan results and unanswered calls', () => {
    const t = selectRecentTail(
      [
        { role: 'tool', toolCallId: 'gone', name: 'Bash', text: 'orphan' },
        { role: 'assistant', text: 'x', toolCalls: [{ id: 'open', name: 'Bash', input: {} }] },
      ],
      1000,
    );
    assert.deepEqual(t, []);
  });

  it('the budget is capped by the window and by the context before the compaction', () => {
    assert.equal(tailBudget(4000, 200_000, 150_000), 4000);
    assert.equal(tailBudget(4000, 20_000, 15_000), 2000);
    assert.equal(tailBudget(4000, 200_000, 8000), 2000);
    assert.equal(tailBudget(0, 200_000, 150_000), 0);
  });

  it('the replacement thread: summary, packet, then the tail behind its introduction', () => {
    const tail = selectRecentTail(thread, 100_000);
    const r = compactedThread('the summary', 'the packet', tail);
    assert.deepEqual(
      r.slice(0, 3).map((m) => (m.role === 'tool' ? 'tool' : m.kind)),
      ['summary', 'packet', 'recent_intro'],
    );
    assert.deepEqual(r.slice(3), tail);
    assert.deepEqual(
      compactedThread('s', 'p', []).map((m) => (m.role === 'tool' ? 'tool' : m.kind)),
      ['summary', 'packet'],
    );
    // Without a summary (no LM) the handoff carries the packet: it is not repeated as a message.
    assert.deepEqual(
      compactedThread(null, 'p', tail).filter((m) => m.role !== 'tool' && m.kind === 'packet'),
      [],
    );
  });
});

describe('trail facts and the watcher packet', () => {
  it('edited files come from edit tools and patches, not from reads or rawr tools', () => {
    assert.deepEqual(editedFilesOf('Edit', { file_path: '/r/a.ts', old_string: 'a', new_string: 'b' }), ['/r/a.ts']);
    assert.deepEqual(editedFilesOf('Read', { file_path: '/r/a.ts' }), []);
    assert.deepEqual(editedFilesOf('rawr_write_scratch', { path: 'x' }), []);
    assert.deepEqual(editedFilesOf('apply_patch', '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** Add File: src/b.ts\n+z\n*** End Patch'), [
      'src/a.ts',
      'src/b.ts',
    ]);
    assert.deepEqual(editedFilesOf('shell', { command: ['apply_patch', '*** Begin Patch\n*** Update File: c.rs\n*** End Patch'] }), ['c.rs']);
  });

  it('a quiet commit gets its sha from the git log line; errors and the last command outlive the tool tail', () => {
    let t: Trail = emptyTrail();
    const call = { id: 'k1', name: 'Bash', input: { command: 'git add -A && git commit -qm "step 1" && git log --oneline -1' } };
    t = noteToolCall(t, call, call.input.command);
    t = noteToolResult(t, { id: 'k1', output: '73a1097 step 1', isError: false, exitCode: 0 }, { id: 'k1', name: 'Bash', input: call.input.command });
    assert.deepEqual(t.commits, ['73a1097 step 1']);
    assert.equal(t.lastCommand?.output, '73a1097 step 1');
    const fail = { id: 'k2', name: 'Bash', input: { command: 'npm test' } };
    t = noteToolCall(t, fail, 'npm test');
    t = noteToolResult(
      t,
      { id: 'k2', output: 'Exit code 1\n  1 failing\nAssertionError: expected 2', isError: true, exitCode: 1 },
      { id: 'k2', name: 'Bash', input: 'npm test' },
    );
    assert.equal(t.errors?.length, 1);
    assert.equal(t.lastCommand?.exitCode, 1);
  });

  it('the packet names the facts: ask, commits, full paths, plan, last command and outcome, errors, next step', () => {
    const trail: Trail = {
      ...emptyTrail(),
      userRequests: [
        { turn: 1, at: 0, text: 'Build the importer.' },
        { turn: 2, at: 0, text: 'Now add the CLI with a --json flag.' },
      ],
      commits: ['? step 1', '73a1097 step 1', 'b9288c2 step 2'],
      edited: ['/home/u/repo/src/cli.ts', '/home/u/repo/test/cli.test.ts'],
      files: ['/home/u/repo/README.md'],
      lastAgentMessage: `${'Long explanation. '.repeat(80)}Next I will wire the --json flag into main.ts.`,
      errors: [
        { id: 'e', name: 'Bash', input: 'npm test', output: 'Exit code 1\n> mocha\n\n  1 failing\n  AssertionError: expected 2 to equal 3', isError: true },
      ],
      lastCommand: { id: 'e', name: 'Bash', input: 'npm test', output: 'Exit code 1\n  1 failing', isError: true, exitCode: 1 },
    };
    const plan = {
      steps: [
        { text: 'importer', status: 'completed' as const },
        { text: 'CLI with --json', status: 'in_progress' as const },
        { text: 'README example', status: 'pending' as const },
      ],
      completed: ['importer'],
    };
    const p = assembleWatcherPacketText(trail, plan, { tailCount: 6 });
    for (const s of [
      'Now add the CLI with a --json flag.',
      'Build the importer.',
      '`73a1097` step 1',
      '`b9288c2` step 2',
      '/home/u/repo/src/cli.ts',
      '/home/u/repo/test/cli.test.ts',
      '[~] CLI with --json',
      '[ ] README example',
      'FAILED, exit 1',
      'AssertionError: expected 2 to equal 3',
      'finish the step in progress: CLI with --json',
      'README example',
      'Next I will wire the --json flag into main.ts.',
    ]) {
      assert.ok(p.includes(s), `packet lacks ${s}\n${p}`);
    }
    assert.ok(!p.includes('(sha not seen) step 1'), 'a ? entry with a sha twin is dropped');
    assert.deepEqual(validateAgentPacket(p, 300), { ok: true });
  });

  it("an agent's packet is accepted with three of its four sections, refused with two missing, whatever its length", () => {
    const filler = 'Details of the work, long enough to pass the length check. '.repeat(10);
    const sections = ['## What just completed', '## Where we are now', "## What's next", '## Decisions and traps'];
    const packet = (hs: string[]) => hs.map((h) => `${h}\n${filler}`).join('\n\n');
    assert.deepEqual(validateAgentPacket(packet(sections), 300), { ok: true });
    assert.deepEqual(validateAgentPacket(packet(sections.slice(0, 3)), 300), { ok: true });
    assert.deepEqual(validateAgentPacket(packet(sections.slice(0, 2)), 300), {
      ok: false,
      why: "missing sections: What's next, Decisions, invariants and traps",
    });
    assert.deepEqual(validateAgentPacket(filler.repeat(5), 300), {
      ok: false,
      why: "missing sections: What just completed, Where we are now, What's next, Decisions, invariants and traps",
    });
  });

  it("the current ask of a 50 MB prompt says how much of the real prompt was left out, not of the trail's clip (issue 22, item 10)", () => {
    const prompt = `Rewrite the parser. ${'data '.repeat(10_400_000)}`;
    const { state } = run(mkState(), [
      { type: 'user_message', at: 1, text: prompt },
      { type: 'user_message', at: 2, text: `${prompt} again` },
    ]);
    const p = assembleWatcherPacketText(state.trail, null, { tailCount: 6 });
    assert.ok(p.includes(`… [${prompt.length + 6 - 1500} more characters]`), 'the current ask counts from the prompt itself');
    assert.ok(p.includes(`… [${prompt.length - 240} more characters]`), 'an earlier request too');
    assert.ok(p.length < 10_000, `${p.length} characters`);
    assert.ok(
      state.trail.userRequests.every((r) => r.text.length <= 4_001),
      'the trail still keeps only a clip',
    );
  });

  it('an empty trail gives a short packet without empty sections filled with "(none)"', () => {
    const p = assembleWatcherPacketText(emptyTrail(), null, { tailCount: 6 });
    assert.ok(!p.includes('(none)'));
    assert.ok(p.length < 900, `${p.length} characters`);
  });

  it('telling() picks the lines that name the failure; statedIntent() the sentence about what comes next', () => {
    assert.equal(
      telling('Exit code 2\ncompiling 4 files\nwarning: x\n** (CompileError) lib/a.ex:3: undefined function f/0\nmore'),
      'compiling 4 files | ** (CompileError) lib/a.ex:3: undefined function f/0',
    );
    assert.equal(statedIntent('Tests pass. Next, I will update the README. Thanks.'), 'Next, I will update the README.');
    assert.equal(statedIntent('All good.'), undefined);
  });
});

describe('rawr handoff (CLI)', function () {
  // Each case starts the CLI (a Node process): on a loaded 2-core machine that alone takes seconds.
  this.timeout(300_000);
  // A Claude Code 2.1 session generated here (no shared data needed): step 1 of a plan — read, write, commit —
  // then Claude Code's own compaction record.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-handoff-session-'));
  const t = new Transcript(root);
  t.prompt('DO_WORK please do step 1 of PLAN.md');
  t.tool('Read', { file_path: path.join(root, 'PLAN.md') }, 1000, '1. write hello.txt and commit\n2. follow PLAN.md');
  t.tool('Write', { file_path: path.join(root, 'hello.txt'), content: 'hello\n' }, 1200, 'File created successfully');
  t.bash('git add -A && git commit -qm "step 1: hello.txt" && git log --oneline -1', 1400, '73a1097 step 1: hello.txt');
  t.answer('Step 1 is done: hello.txt is committed.', 1500);
  t.compacted(1500);
  const manual = t.file;
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const Json = z.object({
    file: z.string(),
    format: z.enum(['claude', 'codex', 'rawr']),
    line: z.number().int().positive(),
    parts: z.object({ packet: z.string().min(1), handoff: z.string().min(1), tail: z.array(z.object({ role: z.string() }).passthrough()) }),
    tokens: z.object({ packet: z.number().positive(), handoff: z.number().positive(), tail: z.number().nonnegative(), total: z.number().positive() }),
    thread: z.array(z.object({ role: z.string() }).passthrough()).min(1),
  });

  it('at a recorded compaction: the tail verbatim, then the handoff with the watcher packet', () => {
    const line =
      fs
        .readFileSync(manual, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes('"compact_boundary"')) + 1;
    assert.ok(line > 1);
    const r = rawr('handoff', manual, '--line', String(line));
    assert.equal(r.code, 0, r.stderr);
    const handoffAt = r.stdout.indexOf('[rawr handoff]');
    assert.ok(handoffAt > 0, 'the handoff is in the output');
    assert.ok(r.stdout.indexOf('kept verbatim') < handoffAt, 'the tail comes before the handoff');
    const hello = path.join(root, 'hello.txt').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    assert.match(r.stdout.slice(handoffAt), new RegExp(`<continuation-packet>[\\s\\S]*73a1097[\\s\\S]*${hello}[\\s\\S]*Continue from here\\.`));
    const j = rawr('handoff', manual, '--line', String(line), '--json');
    assert.equal(j.code, 0, j.stderr);
    const parsed = Json.parse(JSON.parse(j.stdout));
    assert.equal(parsed.line, line);
    assert.ok(parsed.tokens.total >= parsed.tokens.handoff + parsed.tokens.tail - 1);
    assert.ok(parsed.parts.handoff.includes(parsed.parts.packet));
  });

  it('bad input: one clear line on stderr and a non-zero exit', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-handoff-'));
    const junk = path.join(dir, 'junk.jsonl');
    fs.writeFileSync(junk, 'not json\nat all\n');
    const cases: Array<[string[], RegExp]> = [
      [['handoff', manual], /--line N is required/],
      [['handoff', manual, '--line', 'abc'], /--line must be a positive whole number/],
      [['handoff', manual, '--line', '0'], /--line must be a positive whole number/],
      [['handoff', manual, '--line', '99999'], /--line must be between 1 and \d+/],
      [['handoff', path.join(dir, 'missing.jsonl'), '--line', '3'], /cannot read .*no such file/],
      [['handoff', dir, '--line', '3'], /is a directory/],
      [['handoff', junk, '--line', '2'], /cannot tell the format/],
      [['handoff', '--line', '2'], /expected exactly one FILE/],
      [['handoff', manual, '--line', '2', '--bogus'], /Unknown option/],
    ];
    for (const [args, re] of cases) {
      const r = rawr(...args);
      assert.notEqual(r.code, 0, args.join(' '));
      assert.equal(r.stdout, '', args.join(' '));
      assert.match(r.stderr, re, args.join(' '));
      assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
