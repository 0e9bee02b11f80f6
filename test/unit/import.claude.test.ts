import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { importClaude } from '../../src/core/replay/import/claude';
import { detectFormat, importRecording } from '../../src/core/replay/import/detect';
import type { Recording, RecordingItem } from '../../src/core/replay/recording';
import { needShared, sharedFiles } from '../support/sharedData';

// Tests compile to out/test/unit/; the shared data sits beside the repo (/work/shared).
const DIR = process.env.RAWR_TRANSCRIPTS ?? path.resolve(__dirname, '../../../../shared/data/transcripts');

type Of<T extends RecordingItem['type']> = Extract<RecordingItem, { type: T }>;
const all = <T extends RecordingItem['type']>(r: Recording, type: T) => r.items.filter((i): i is Of<T> => i.type === type);
const peak = (r: Recording) => Math.max(0, ...all(r, 'usage').map((u) => u.contextTokens));
const jsonl = (...records: unknown[]) => records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n';

/** Minimal valid records. */
const user = (content: unknown, extra: object = {}) => ({
  type: 'user',
  uuid: 'u',
  timestamp: '2026-01-01T00:00:00.000Z',
  message: { role: 'user', content },
  ...extra,
});
const assistant = (
  id: string,
  block: object,
  usage = { input_tokens: 10, cache_read_input_tokens: 1000, cache_creation_input_tokens: 5, output_tokens: 1 },
) => ({ type: 'assistant', uuid: 'a', timestamp: '2026-01-01T00:00:01.000Z', message: { id, role: 'assistant', content: [block], usage } });

describe('importClaude: real recordings', function () {
  const load = (name: string) => fs.readFileSync(path.join(DIR, name), 'utf8');
  before(function () {
    needShared(this, DIR);
  });

  // Expected numbers come from jq over the files and the README, not from this importer, e.g.
  // jq -r 'select(.type=="assistant")|.message.id' f | sort -u | wc -l   (usage items)
  // jq -c 'select(.type=="assistant")|.message.content[]|select(.type=="tool_use" and .name=="Bash")
  //        |select(.input.command|test("git commit"))' f | wc -l       (commits)
  const cases = [
    {
      file: 'claude-spotter-258c7280.jsonl',
      lines: 1863,
      prompts: ['Implement spotter-gqc', 'did you push?'],
      usage: 152,
      calls: 186,
      bash: 79,
      commits: 5,
      errors: 7,
      exits: { 0: 72, 1: 1, 2: 3, 128: 1 },
      compaction: { line: 1256, trigger: 'auto', preTokens: 167094 },
      peak: 166759,
      before: 166759,
      after: 33960,
    },
    {
      file: 'claude-spotter-8463c716.jsonl',
      lines: 1593,
      prompts: ['Work on bead spotter-fum.'],
      usage: 143,
      calls: 177,
      bash: 74,
      commits: 5,
      errors: 13,
      exits: { 0: 62, 1: 3, 2: 6, 128: 1 },
      compaction: { line: 714, trigger: 'auto', preTokens: 167731 },
      peak: 167094,
      before: 167094,
      after: 42603,
    },
    {
      file: 'claude-spotter-ae4a77f8.jsonl',
      lines: 2385,
      prompts: ['Work on bead spotter-4te.', 'continue implementation'],
      usage: 217,
      calls: 242,
      bash: 120,
      commits: 14,
      errors: 12,
      exits: { 0: 108, 1: 1 },
      compaction: { line: 1481, trigger: 'manual', preTokens: 142431 },
      peak: 141787,
      before: 141787,
      after: 45263,
    },
  ];

  for (const c of cases) {
    describe(c.file, () => {
      let r: Recording;
      before(() => {
        r = importClaude(load(c.file));
      });

      it('parses every line, window unstated', () => {
        assert.equal(r.format, 'claude');
        assert.equal(r.lines, c.lines);
        assert.deepEqual(r.problems, []);
        assert.equal(r.window, undefined);
      });
      it('person prompts only (no task notifications, commands, summaries, meta)', () => {
        const prompts = all(r, 'user_prompt').map((p) => p.text);
        assert.equal(prompts.length, c.prompts.length);
        c.prompts.forEach((p, i) => assert.ok(prompts[i]!.startsWith(p), prompts[i]));
      });
      it('one usage per message.id, peak and the drop across the compaction', () => {
        const usage = all(r, 'usage');
        assert.equal(usage.length, c.usage);
        assert.equal(peak(r), c.peak);
        const cut = c.compaction.line;
        assert.equal(usage.filter((u) => u.line < cut).at(-1)!.contextTokens, c.before);
        assert.equal(usage.find((u) => u.line > cut)!.contextTokens, c.after);
      });
      it('tool calls, commits, results and exit codes', () => {
        const calls = all(r, 'tool_call');
        assert.equal(calls.length, c.calls);
        const bash = calls.filter((t) => t.name === 'Bash');
        assert.equal(bash.length, c.bash);
        const commits = bash.filter((t) => String((t.input as { command?: unknown }).command).includes('git commit'));
        assert.equal(commits.length, c.commits);
        const results = all(r, 'tool_result');
        assert.equal(results.length, c.calls);
        assert.deepEqual(new Set(results.map((x) => x.id)), new Set(calls.map((x) => x.id)));
        assert.equal(results.filter((x) => x.isError).length, c.errors);
        const exits: Record<number, number> = {};
        for (const x of results) if (x.exitCode !== undefined) exits[x.exitCode] = (exits[x.exitCode] ?? 0) + 1;
        assert.deepEqual(exits, c.exits);
      });
      it('exactly one native compaction with its trigger and preTokens', () => {
        const comps = all(r, 'native_compaction');
        assert.deepEqual(
          comps.map(({ line, trigger, preTokens }) => ({ line, trigger, preTokens })),
          [c.compaction],
        );
      });
      it('no plan items (these sessions never call TodoWrite)', () => {
        assert.equal(all(r, 'plan').length, 0);
      });
      it('items are in line order; `at` is the record time (may step back a few seconds)', () => {
        // Claude Code timestamps are not monotone: with parallel tool calls a tool_result record can be
        // stamped up to ~5 s before the tool_use record written just above it. `at` stays faithful.
        for (let i = 1; i < r.items.length; i++) {
          assert.ok(r.items[i]!.line >= r.items[i - 1]!.line);
          assert.ok(r.items[i]!.at >= r.items[i - 1]!.at - 10_000);
        }
      });
    });
  }

  it('258c7280: a rejected tool use is an error with no exit code', () => {
    const r = importClaude(load('claude-spotter-258c7280.jsonl'));
    // line 494: toolUseResult "User rejected tool use"
    const rejected = all(r, 'tool_result').find((x) => x.line === 494)!;
    assert.equal(rejected.isError, true);
    assert.equal(rejected.exitCode, undefined);
  });

  it('ae4a77f8-acompact: the summariser subagent has no person prompt, one usage', () => {
    const r = importClaude(load('claude-spotter-ae4a77f8-acompact.jsonl'));
    assert.equal(r.lines, 2);
    assert.equal(all(r, 'user_prompt').length, 0); // isSidechain: written by Claude Code
    assert.deepEqual(
      all(r, 'usage').map((u) => u.contextTokens),
      [139534],
    );
    assert.equal(all(r, 'assistant_text').length, 1);
  });

  it('detectFormat recognises every Claude file', () => {
    for (const f of sharedFiles(DIR, (n) => n.startsWith('claude-'))) assert.equal(detectFormat(load(f)), 'claude', f);
  });

  it('imports ~11 MB whole (its speed is measured by npm run bench)', () => {
    const text = load('claude-spotter-258c7280.jsonl').repeat(4);
    const r = importRecording(text);
    assert.equal(r.lines, 4 * 1863);
  });
});

describe('importClaude: hand-written inputs', () => {
  it('reports corrupt and truncated lines with their numbers, keeps going', () => {
    const text = jsonl(user('first'), '{not json', '', user('second')) + '{"type":"user","mess';
    const r = importClaude(text);
    assert.equal(r.lines, 5);
    assert.deepEqual(
      all(r, 'user_prompt').map((p) => [p.line, p.text]),
      [
        [1, 'first'],
        [4, 'second'],
      ],
    );
    assert.deepEqual(
      r.problems.map((p) => p.line),
      [2, 5],
    );
    assert.match(r.problems[0]!.message, /not JSON/);
    assert.match(r.problems[1]!.message, /truncated/);
  });

  it('schema failures become problems; unknown and skipped types are silent', () => {
    const r = importClaude(
      jsonl(
        { type: 'progress', data: {} },
        { type: 'file-history-snapshot', snapshot: {} },
        { type: 'queue-operation', operation: 'enqueue' },
        { type: 'something-new', x: 1 },
        { type: 'assistant', message: { content: [] } }, // no message.id
        [1, 2],
        { type: 'user', message: { content: 42 } },
        assistant('m1', { type: 'tool_use', name: 'Bash', input: {} }), // tool_use without id
      ),
    );
    assert.deepEqual(
      r.problems.map((p) => p.line),
      [5, 6, 7, 8],
    );
    assert.match(r.problems[0]!.message, /message\.id/);
    assert.equal(all(r, 'tool_call').length, 0);
    assert.equal(all(r, 'usage').length, 1); // the record's usage is still good
  });

  it('records sharing message.id are one response: one usage, merged text, deduped tool_use', () => {
    const r = importClaude(
      jsonl(
        assistant('m1', { type: 'text', text: '\n\n' }),
        assistant('m1', { type: 'thinking', thinking: 'hmm' }),
        assistant('m1', { type: 'text', text: 'Part one.' }),
        assistant('m1', { type: 'tool_use', id: 't1', name: 'Read', input: { file_path: 'a' } }),
        assistant('m1', { type: 'tool_use', id: 't1', name: 'Read', input: { file_path: 'a' } }),
        assistant('m1', { type: 'text', text: 'Part two.' }),
        assistant('m2', { type: 'text', text: 'Next.' }, { input_tokens: 1, cache_read_input_tokens: 2000, cache_creation_input_tokens: 0, output_tokens: 9 }),
      ),
    );
    assert.deepEqual(
      all(r, 'usage').map((u) => [u.line, u.contextTokens]),
      [
        [1, 1015],
        [7, 2001],
      ],
    );
    assert.deepEqual(
      all(r, 'assistant_text').map((t) => [t.line, t.text]),
      [
        [3, 'Part one.\n\nPart two.'],
        [7, 'Next.'],
      ],
    );
    assert.equal(all(r, 'tool_call').length, 1);
  });

  it('excludes meta, injected and summary user records from prompts', () => {
    const r = importClaude(
      jsonl(
        user('skill body', { isMeta: true }),
        user('<command-name>/compact</command-name>\n<command-message>compact</command-message>'),
        user('<local-command-stdout>Compacted</local-command-stdout>'),
        user('<task-notification>\n<task-id>b0</task-id>'),
        user('[Request interrupted by user]'),
        user([{ type: 'text', text: '[Request interrupted by user for tool use]' }]),
        user('This session is being continued…', { isCompactSummary: true, isVisibleInTranscriptOnly: true }),
        user('subagent task', { isSidechain: true }),
        user('   '),
        user([
          { type: 'text', text: 'look at this' },
          { type: 'image', source: {} },
        ]),
        user('plain prompt'),
      ),
    );
    assert.deepEqual(
      all(r, 'user_prompt').map((p) => p.text),
      ['look at this', 'plain prompt'],
    );
    assert.deepEqual(r.problems, []);
  });

  it('tool results: text, errors and exit codes from toolUseResult', () => {
    const r = importClaude(
      jsonl(
        user([{ type: 'tool_result', tool_use_id: 'a', content: 'ok', is_error: false }], {
          toolUseResult: { stdout: 'ok', stderr: '', interrupted: false, isImage: false },
        }),
        user([{ type: 'tool_result', tool_use_id: 'b', content: 'Exit code 2\nboom', is_error: true }], { toolUseResult: 'Error: Exit code 2\nboom' }),
        user([{ type: 'tool_result', tool_use_id: 'c', content: '' }], {
          toolUseResult: { stdout: '', stderr: '', interrupted: false, returnCodeInterpretation: 'No matches found' },
        }),
        user([{ type: 'tool_result', tool_use_id: 'd', content: 'x' }], { toolUseResult: { stdout: 'x', stderr: '', interrupted: true } }),
        user(
          [
            {
              type: 'tool_result',
              tool_use_id: 'e',
              content: [
                { type: 'text', text: 'l1' },
                { type: 'text', text: 'l2' },
              ],
            },
          ],
          { toolUseResult: { file: {}, type: 'text' } },
        ),
        user([{ type: 'tool_result', tool_use_id: 'f', content: "The user doesn't want to proceed", is_error: true }], {
          toolUseResult: 'User rejected tool use',
        }),
      ),
    );
    assert.deepEqual(
      all(r, 'tool_result').map((t) => [t.id, t.output, t.isError, t.exitCode]),
      [
        ['a', 'ok', false, 0],
        ['b', 'Exit code 2\nboom', true, 2],
        ['c', '', false, undefined],
        ['d', 'x', false, undefined],
        ['e', 'l1\nl2', false, undefined],
        ['f', "The user doesn't want to proceed", true, undefined],
      ],
    );
    assert.equal(all(r, 'user_prompt').length, 0);
  });

  it('TodoWrite becomes a plan; compact_boundary a native compaction', () => {
    const todos = [
      { content: 'A', status: 'completed', activeForm: 'a' },
      { content: 'B', status: 'in_progress', activeForm: 'b' },
      { content: 'C', status: 'pending', activeForm: 'c' },
    ];
    const r = importClaude(
      jsonl(
        assistant('m1', { type: 'tool_use', id: 't1', name: 'TodoWrite', input: { todos } }),
        { type: 'system', subtype: 'compact_boundary', timestamp: '2026-01-01T00:00:02.000Z', compactMetadata: { trigger: 'manual', preTokens: 1234 } },
        { type: 'system', subtype: 'compact_boundary' },
      ),
    );
    assert.deepEqual(
      all(r, 'plan').map((p) => p.steps),
      [
        [
          { text: 'A', status: 'completed' },
          { text: 'B', status: 'in_progress' },
          { text: 'C', status: 'pending' },
        ],
      ],
    );
    const comps = all(r, 'native_compaction');
    assert.deepEqual(
      comps.map((c) => [c.trigger, c.preTokens]),
      [
        ['manual', 1234],
        ['unknown', undefined],
      ],
    );
    assert.equal(comps[1]!.at, Date.parse('2026-01-01T00:00:02.000Z')); // no timestamp: previous at
  });

  it('importRecording dispatches and rejects rawr logs and unknown text', () => {
    assert.equal(importRecording(jsonl(user('hi'))).format, 'claude');
    assert.equal(detectFormat(jsonl({ rawr: 1, type: 'event' })), 'rawr');
    assert.throws(() => importRecording(jsonl({ rawr: 1, type: 'event' })), /rawr log importer/);
    assert.equal(detectFormat('hello\nworld\n'), null);
    assert.throws(() => importRecording('hello\n'), /unrecognised/);
    assert.equal(importRecording('garbage\n', 'claude').problems.length, 1);
  });
});
