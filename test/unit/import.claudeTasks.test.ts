import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { importClaude } from '../../src/core/replay/import/claude';
import { replay } from '../../src/core/replay/driver';
import type { Recording, RecordingItem } from '../../src/core/replay/recording';
import { readTranscriptFacts } from '../../src/core/hooks/shared/facts';
import { modelWindow } from '../../src/core/replay/windows';
import { shipped } from '../support/engine';
import { needShared } from '../support/sharedData';

// Claude Code 2.1 transcripts (Task tools, no TodoWrite) beside the repo; the folder grows, so every
// expectation below is computed from the file by an independent scan, never a hard-coded count.
const DIR = process.env.RAWR_CLAUDE21 ?? path.resolve(__dirname, '../../../../shared/data/claude-code-2.1');

type Of<T extends RecordingItem['type']> = Extract<RecordingItem, { type: T }>;
const all = <T extends RecordingItem['type']>(r: Recording, type: T) => r.items.filter((i): i is Of<T> => i.type === type);
const jsonl = (...records: unknown[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** The task list as an independent, naive scan sees it: creates in order, then status updates by id. */
function scanTasks(text: string) {
  const calls = new Map<string, { name: string; input: Record<string, unknown> }>();
  const tasks = new Map<string, { text: string; status: string }>();
  let completions = 0;
  let changes = 0;
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    const r = JSON.parse(raw) as { type?: string; message?: { content?: unknown }; toolUseResult?: Record<string, unknown> };
    const content = Array.isArray(r.message?.content) ? (r.message!.content as Array<Record<string, unknown>>) : [];
    for (const b of content) {
      if (b.type === 'tool_use' && typeof b.name === 'string' && b.name.startsWith('Task'))
        calls.set(b.id as string, { name: b.name, input: b.input as Record<string, unknown> });
      if (b.type === 'tool_result' && calls.has(b.tool_use_id as string) && b.is_error !== true) {
        const c = calls.get(b.tool_use_id as string)!;
        if (c.name === 'TaskCreate') {
          tasks.set(String((r.toolUseResult as { task: { id: string } }).task.id), { text: c.input.subject as string, status: 'pending' });
          changes++;
        }
        if (c.name === 'TaskUpdate') {
          const t = tasks.get(String(c.input.taskId))!;
          if (c.input.status === 'completed' && t.status !== 'completed') completions++;
          t.status = c.input.status as string;
          changes++;
        }
      }
    }
  }
  return { steps: [...tasks.values()], completions, changes };
}

describe('Claude Code 2.1 Task tools: importer, replay and snapshot plan (real transcripts)', function () {
  const files = fs.existsSync(DIR)
    ? fs
        .readdirSync(DIR)
        .filter((f) => f.endsWith('.jsonl'))
        .sort()
    : [];
  it('the 2.1 transcripts are here', function () {
    needShared(this, DIR); // set RAWR_CLAUDE21 to point elsewhere
    assert.ok(files.length > 0, `no .jsonl in ${DIR}`);
  });
  for (const f of files) {
    describe(f, () => {
      const text = fs.readFileSync(path.join(DIR, f), 'utf8');
      const r = importClaude(text);
      const expected = scanTasks(text);
      it('reads every line without problems and names the model', () => {
        assert.deepEqual(r.problems, []);
        assert.ok(r.models && r.models.length > 0 && r.models[0]!.calls > 0);
        assert.equal(text.includes('"name":"TodoWrite"'), false, 'the 2.1 era has no TodoWrite');
      });
      it('one plan item per successful TaskCreate / TaskUpdate, ending in the scanned list', () => {
        const plans = all(r, 'plan');
        assert.equal(plans.length, expected.changes);
        if (plans.length) assert.deepEqual(plans[plans.length - 1]!.steps, expected.steps);
      });
      it('replay: a plan checkpoint per completed task, and the window from the model table', () => {
        const { summary } = replay(r, { settings: shipped.settings, prompts: shipped.prompts });
        assert.equal(summary.planCheckpoints, expected.completions);
        assert.equal(summary.windowSource, 'model');
        assert.equal(summary.window, modelWindow(r.models![0]!.name)!.window); // 1M for claude-opus-5-5
        assert.match(summary.windowWhy, new RegExp(`^model ${r.models![0]!.name}`));
      });
      it('the hooks snapshot reader sees the same plan', () => {
        const facts = readTranscriptFacts(text);
        assert.deepEqual(facts.todos, expected.steps.length ? expected.steps : null);
      });
    });
  }
});

describe('Claude Code Task tools: hand-written records', () => {
  let n = 0;
  const use = (name: string, input: unknown) => ({
    type: 'assistant',
    uuid: `a${n}`,
    timestamp: '2026-01-01T00:00:01.000Z',
    message: {
      id: `m${n++}`,
      model: 'claude-sonnet-4-6',
      role: 'assistant',
      content: [{ type: 'tool_use', id: `t${n}`, name, input }],
      usage: { input_tokens: 10 },
    },
  });
  const result = (content: string, toolUseResult: unknown, isError = false) => ({
    type: 'user',
    uuid: `u${n}`,
    timestamp: '2026-01-01T00:00:02.000Z',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${n}`, content, is_error: isError }] },
    toolUseResult,
  });
  const plans = (r: Recording) => all(r, 'plan').map((p) => p.steps.map((s) => `${s.text}:${s.status}`));

  it('create, update, refused call, delete, a task from an earlier session, TaskList', () => {
    const r = importClaude(
      jsonl(
        use('TaskCreate', { subject: 'A', description: 'a' }),
        result('Task #1 created successfully: A', { task: { id: '1', subject: 'A' } }),
        use('TaskCreate', { subject: 'B', description: 'b' }),
        result('Task #2 created successfully: B', undefined), // id from the text
        use('TaskUpdate', { taskId: '1', status: 'completed' }),
        result('Updated task #1 status', { success: true, taskId: '1', statusChange: { from: 'pending', to: 'completed' } }),
        use('TaskUpdate', { taskId: '2', status: 'in_progress' }),
        result('<tool_use_error>Task not found</tool_use_error>', 'Error: Task not found', true),
        use('TaskUpdate', { taskId: '2', status: 'deleted' }),
        result('Updated task #2 deleted', { success: true, taskId: '2' }),
        use('TaskUpdate', { taskId: '9', status: 'in_progress' }),
        result('Updated task #9 status', { success: true, taskId: '9' }),
        use('TaskList', {}),
        result('#1 [completed] A\n#3 [pending] C', undefined),
      ),
    );
    assert.deepEqual(r.problems, []);
    assert.deepEqual(plans(r), [
      ['A:pending'],
      ['A:pending', 'B:pending'],
      ['A:completed', 'B:pending'],
      ['A:completed'],
      ['A:completed', 'Task #9:in_progress'],
      ['A:completed', 'C:pending'],
    ]);
    // the new list lands before its tool result, so a tool-loop point after it sees the checkpoint
    const kinds = r.items.map((i) => i.type);
    assert.equal(kinds[kinds.indexOf('plan') + 1], 'tool_result');
  });

  it('a bad TaskCreate input is a problem, not a crash; TodoWrite keeps working beside Task tools', () => {
    const r = importClaude(
      jsonl(
        use('TaskCreate', { description: 'no subject' }),
        result('Task #1 created successfully', { task: { id: '1' } }),
        use('TodoWrite', { todos: [{ content: 'X', status: 'completed' }] }),
      ),
    );
    assert.equal(r.problems.length, 1);
    assert.match(r.problems[0]!.message, /TaskCreate input/);
    assert.deepEqual(plans(r), [['X:completed']]);
  });
});
