import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { importCodex } from '../../src/core/replay/import/codex';
import { detectFormat, importRecording } from '../../src/core/replay/import/detect';
import type { Recording, RecordingItem } from '../../src/core/replay/recording';
import { needShared, sharedFiles } from '../support/sharedData';

// Tests compile to out/test/unit/; the shared data sits beside the repo (/work/shared).
const DIR = process.env.RAWR_TRANSCRIPTS ?? path.resolve(__dirname, '../../../../shared/data/transcripts');

type Of<T extends RecordingItem['type']> = Extract<RecordingItem, { type: T }>;
const all = <T extends RecordingItem['type']>(r: Recording, type: T) => r.items.filter((i): i is Of<T> => i.type === type);
const peak = (r: Recording) => Math.max(0, ...all(r, 'usage').map((u) => u.contextTokens));
const jsonl = (...records: unknown[]) => records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n';

let clock = 0;
const rec = (type: string, payload: unknown) => ({ timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, clock++)).toISOString(), type, payload });
const tokens = (input: number, total: number, window: number | null = 258400) =>
  rec('event_msg', {
    type: 'token_count',
    info: { last_token_usage: { input_tokens: input }, total_token_usage: { total_tokens: total }, model_context_window: window },
  });
const call = (name: string, args: string, id: string) => rec('response_item', { type: 'function_call', name, arguments: args, call_id: id });
const output = (id: string, out: unknown) => rec('response_item', { type: 'function_call_output', call_id: id, output: out });

describe('importCodex: real recordings', function () {
  const load = (name: string) => fs.readFileSync(path.join(DIR, name), 'utf8');
  before(function () {
    needShared(this, DIR);
  });

  // Expected numbers from jq over the files and the README, not from this importer, e.g. usage:
  // jq -r 'select(.payload.type=="token_count" and .payload.info!=null)|.payload.info
  //        |"\(.last_token_usage.input_tokens) \(.total_token_usage.total_tokens)"' f | grep -v '^0 ' | uniq | wc -l
  const cases = [
    {
      file: 'codex-acidicsoil-lmstudio.jsonl',
      lines: 279,
      prompts: 1,
      texts: 0,
      usage: 39,
      peak: 52645,
      calls: 39,
      results: 39,
      shell: ['shell', 37],
      plans: 2,
      compaction: null,
      exits: { 0: 34, 1: 1, 2: 2 },
    },
    {
      file: 'codex-localpush-compacted.jsonl',
      lines: 2722,
      prompts: 38,
      texts: 255,
      usage: 286,
      peak: 209950,
      calls: 365,
      results: 365,
      shell: ['exec_command', 212],
      plans: 0,
      compaction: { line: 1788, trigger: 'auto', preTokens: 209950 },
      exits: {},
    },
    {
      file: 'codex-localpush-plan.jsonl',
      lines: 837,
      prompts: 7,
      texts: 52,
      usage: 83,
      peak: 143372,
      calls: 144,
      results: 143,
      shell: ['exec_command', 118],
      plans: 0,
      compaction: null,
      exits: {},
    },
  ] as const;

  for (const c of cases) {
    describe(c.file, () => {
      let r: Recording;
      before(() => {
        r = importCodex(load(c.file));
      });

      it('parses every line; window 258,400', () => {
        assert.equal(r.format, 'codex');
        assert.equal(r.lines, c.lines);
        assert.deepEqual(r.problems, []); // redacted arguments are expected, not problems
        assert.equal(r.window, 258400);
      });
      it('prompts from user_message events, assistant text from response items', () => {
        assert.equal(all(r, 'user_prompt').length, c.prompts);
        assert.equal(all(r, 'assistant_text').length, c.texts);
      });
      it('usage: non-null, deduplicated, with window, and its peak', () => {
        const usage = all(r, 'usage');
        assert.equal(usage.length, c.usage);
        assert.equal(peak(r), c.peak);
        assert.ok(usage.every((u) => u.window === 258400 && u.contextTokens > 0));
        for (let i = 1; i < usage.length; i++) assert.notEqual(usage[i]!.line, usage[i - 1]!.line);
      });
      it('tool calls, shell calls, results and exit codes', () => {
        assert.equal(all(r, 'tool_call').length, c.calls);
        assert.equal(all(r, 'tool_call').filter((t) => t.name === c.shell[0]).length, c.shell[1]);
        assert.equal(all(r, 'tool_call').filter((t) => t.name === 'update_plan').length, 2);
        const results = all(r, 'tool_result');
        assert.equal(results.length, c.results);
        const exits: Record<number, number> = {};
        for (const x of results) if (x.exitCode !== undefined) exits[x.exitCode] = (exits[x.exitCode] ?? 0) + 1;
        assert.deepEqual(exits, c.exits);
        assert.equal(
          results.filter((x) => x.isError).length,
          Object.entries(c.exits)
            .filter(([k]) => k !== '0')
            .reduce((n, [, v]) => n + v, 0),
        );
      });
      it('plan items (only where update_plan arguments are readable)', () => {
        assert.equal(all(r, 'plan').length, c.plans);
      });
      it('native compaction', () => {
        const comps = all(r, 'native_compaction').map(({ line, trigger, preTokens }) => ({ line, trigger, preTokens }));
        assert.deepEqual(comps, c.compaction ? [c.compaction] : []);
      });
    });
  }

  it('acidicsoil (0.58): readable plans and JSON shell outputs', () => {
    const r = importCodex(load('codex-acidicsoil-lmstudio.jsonl'));
    const plans = all(r, 'plan');
    assert.deepEqual(
      plans.map((p) => p.line),
      [253, 260],
    );
    assert.deepEqual(
      plans.map((p) => p.steps.map((s) => s.status)),
      [
        ['in_progress', 'pending', 'pending'],
        ['completed', 'in_progress', 'pending'],
      ],
    );
    assert.ok(plans[0]!.steps[0]!.text.startsWith('Inspect existing LM Studio integration points'));
    const first = all(r, 'tool_call')[0]!;
    assert.deepEqual((first.input as { command: string[] }).command, ['bash', '-lc', 'ls']);
    const firstOut = all(r, 'tool_result')[0]!;
    assert.equal(firstOut.id, first.id);
    assert.ok(firstOut.output.startsWith('LM Studio configuration.md\nREADME.md')); // unwrapped from {"output":…}
    assert.equal(all(r, 'user_prompt')[0]!.text.startsWith('finish up the users work'), true); // not <environment_context>
  });

  it('localpush-compacted: context 209,950 → 48,297 across the compaction', () => {
    const r = importCodex(load('codex-localpush-compacted.jsonl'));
    const usage = all(r, 'usage');
    assert.equal(usage.filter((u) => u.line < 1788).at(-1)!.contextTokens, 209950);
    assert.equal(usage.find((u) => u.line > 1788)!.contextTokens, 48297);
  });

  it('detectFormat recognises every Codex file', () => {
    for (const f of sharedFiles(DIR, (n) => n.startsWith('codex-'))) assert.equal(detectFormat(load(f)), 'codex', f);
  });

  it('imports ~10 MB whole (its speed is measured by npm run bench)', () => {
    const text = load('codex-localpush-compacted.jsonl').repeat(10);
    const r = importRecording(text);
    assert.equal(r.lines, 10 * 2722);
  });
});

describe('importCodex: hand-written inputs', () => {
  it('corrupt, truncated and schema-failing lines are problems; unknown types are silent', () => {
    const text =
      jsonl(
        rec('session_meta', { id: 'x', cli_version: '0.104.0' }),
        '{oops',
        rec('turn_context', {}),
        rec('brand_new_type', { anything: true }),
        rec('response_item', { type: 'brand_new_item' }),
        rec('event_msg', { type: 'brand_new_event' }),
        rec('response_item', { type: 'function_call', name: 'shell' }), // no arguments / call_id
        rec('event_msg', 'not an object'),
        tokens(100, 100),
      ) + '{"timestamp":"2026-01-01T00:00:09Z","type":"event_msg","payload":{"type":"tok';
    const r = importCodex(text);
    assert.equal(r.lines, 10);
    assert.deepEqual(
      r.problems.map((p) => p.line),
      [2, 7, 8, 10],
    );
    assert.match(r.problems[3]!.message, /truncated/);
    assert.deepEqual(
      all(r, 'usage').map((u) => u.contextTokens),
      [100],
    );
  });

  it('usage: null info skipped, exact duplicates and 0 readings dropped, last window kept', () => {
    const r = importCodex(
      jsonl(
        rec('event_msg', { type: 'token_count', info: null, rate_limits: null }),
        tokens(1000, 1000, 128000),
        tokens(1000, 1000, 128000), // duplicate report
        tokens(1500, 2500, 128000),
        tokens(0, 2500, 128000), // compaction reset
        rec('compacted', { message: '', replacement_history: [] }),
        tokens(300, 2800, 200000),
        tokens(300, 3100, null), // same size, new call: kept, no window
      ),
    );
    assert.deepEqual(
      all(r, 'usage').map((u) => [u.line, u.contextTokens, u.window]),
      [
        [2, 1000, 128000],
        [4, 1500, 128000],
        [7, 300, 200000],
        [8, 300, undefined],
      ],
    );
    assert.deepEqual(
      all(r, 'native_compaction').map((c) => [c.line, c.trigger, c.preTokens]),
      [[6, 'auto', 1500]],
    );
    assert.equal(r.window, 200000);
    assert.deepEqual(r.problems, []);
  });

  it('tool calls: JSON arguments, bad arguments kept raw, redacted silently, update_plan → plan', () => {
    const plan = {
      plan: [
        { step: 'Read', status: 'completed' },
        { step: 'Write', status: 'in_progress' },
      ],
    };
    const r = importCodex(
      jsonl(
        call('shell', '{"command":["bash","-lc","ls"]}', 'c1'),
        call('shell', '{"command": [', 'c2'),
        call('exec_command', '[REDACTED_ARGUMENTS len=10 sha=ab]', 'c3'),
        call('update_plan', JSON.stringify(plan), 'c4'),
        call('update_plan', '{"plan": "nope"}', 'c5'),
        rec('response_item', { type: 'custom_tool_call', status: 'completed', call_id: 'c6', name: 'apply_patch', input: '*** Begin Patch' }),
      ),
    );
    assert.deepEqual(
      all(r, 'tool_call').map((t) => [t.line, t.id, t.name, t.input]),
      [
        [1, 'c1', 'shell', { command: ['bash', '-lc', 'ls'] }],
        [2, 'c2', 'shell', '{"command": ['],
        [3, 'c3', 'exec_command', '[REDACTED_ARGUMENTS len=10 sha=ab]'],
        [4, 'c4', 'update_plan', plan],
        [5, 'c5', 'update_plan', { plan: 'nope' }],
        [6, 'c6', 'apply_patch', '*** Begin Patch'],
      ],
    );
    assert.deepEqual(
      all(r, 'plan').map((p) => [p.line, p.steps]),
      [
        [
          4,
          [
            { text: 'Read', status: 'completed' },
            { text: 'Write', status: 'in_progress' },
          ],
        ],
      ],
    );
    assert.deepEqual(
      r.problems.map((p) => p.line),
      [2, 5],
    );
  });

  it('tool outputs: 0.58 JSON metadata, 0.104 header, plain text, content items', () => {
    const r = importCodex(
      jsonl(
        output('a', JSON.stringify({ output: 'hello\n', metadata: { exit_code: 0, duration_seconds: 0.1 } })),
        output('b', JSON.stringify({ output: 'fail', metadata: { exit_code: 2, duration_seconds: 0.1 } })),
        output('c', 'Chunk ID: 1\nWall time: 0.2 seconds\nProcess exited with code 1\nOriginal token count: 3\nOutput:\nno\n'),
        output('d', 'Plan updated'),
        output('e', 'Output:\nProcess exited with code 9\n'), // phrase inside the body: not a status
        output('f', [
          { type: 'input_text', text: 'one' },
          { type: 'input_text', text: 'two' },
        ]),
        rec('response_item', { type: 'custom_tool_call_output', call_id: 'g', output: 'Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.' }),
      ),
    );
    assert.deepEqual(
      all(r, 'tool_result').map((t) => [t.id, t.output, t.isError, t.exitCode]),
      [
        ['a', 'hello\n', false, 0],
        ['b', 'fail', true, 2],
        ['c', 'Chunk ID: 1\nWall time: 0.2 seconds\nProcess exited with code 1\nOriginal token count: 3\nOutput:\nno\n', true, 1],
        ['d', 'Plan updated', false, undefined],
        ['e', 'Output:\nProcess exited with code 9\n', false, undefined],
        ['f', 'one\ntwo', false, undefined],
        ['g', 'Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.', false, 0],
      ],
    );
  });

  it('prompts: user_message preferred, injected context excluded, agent_message not double counted', () => {
    const r = importCodex(
      jsonl(
        rec('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>\n<cwd>/x</cwd>' }] }),
        rec('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'do it' }] }),
        rec('event_msg', { type: 'user_message', message: 'do it', images: [] }),
        rec('event_msg', { type: 'user_message', message: '<user_instructions>be nice</user_instructions>' }),
        rec('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] }),
        rec('event_msg', { type: 'agent_message', message: 'Done.' }),
      ),
    );
    assert.deepEqual(
      all(r, 'user_prompt').map((p) => [p.line, p.text]),
      [[3, 'do it']],
    );
    assert.deepEqual(
      all(r, 'assistant_text').map((p) => [p.line, p.text]),
      [[5, 'Done.']],
    );
  });

  it('prompts fall back to response_item user messages when there are no user_message events', () => {
    const r = importCodex(
      jsonl(
        rec('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: '# AGENTS.md instructions for /x' }] }),
        tokens(10, 10),
        rec('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix the bug' }] }),
        tokens(20, 30),
      ),
    );
    assert.deepEqual(
      r.items.map((i) => [i.line, i.type]),
      [
        [2, 'usage'],
        [3, 'user_prompt'],
        [4, 'usage'],
      ],
    );
  });

  it('missing timestamps reuse the previous item time', () => {
    const a = tokens(10, 10);
    const r = importCodex(jsonl(a, { type: 'event_msg', payload: { type: 'user_message', message: 'hi' } }));
    assert.deepEqual(
      r.items.map((i) => i.at),
      [Date.parse(a.timestamp), Date.parse(a.timestamp)],
    );
  });

  it('importRecording detects Codex', () => {
    const text = jsonl(rec('session_meta', { id: 'x' }), tokens(5, 5));
    assert.equal(detectFormat(text), 'codex');
    assert.equal(importRecording(text).format, 'codex');
  });
});
