/**
 * The agent adapter (src/core/agent): one classification of tools for every source, and the events an
 * activity becomes. The live turn, the replay, `rawr handoff` and live follow all feed the engine
 * through it; the golden replay (replay.golden.test.ts) holds the replay's decisions fixed.
 */
import * as assert from 'node:assert/strict';
import { AgentAdapter, recordedActivity } from '../../src/core/agent/adapter';
import { commandOf, isEditTool, isShellTool } from '../../src/core/signals/tools';

const kinds = (events: Array<{ type: string; boundary?: { kind: string } }>) =>
  events.map((e) => (e.type === 'boundary' ? `boundary ${e.boundary!.kind}` : e.type));

describe('agent adapter: one classification of tools', () => {
  it("a shell tool is the same tool whichever agent ran it (Claude Code, Codex, VS Code, rawr's own)", () => {
    for (const name of [
      'Bash',
      'bash',
      'shell',
      'exec_command',
      'local_shell',
      'run_in_terminal',
      'runInTerminal',
      'rawr_run_in_terminal',
      'copilot_runInTerminal',
    ])
      assert.ok(isShellTool(name), name);
    // Claude Code's BashOutput / KillShell read or stop a background shell: they run no command.
    for (const name of ['Read', 'Edit', 'BashOutput', 'KillShell', 'apply_patch', 'rawr_update_plan', 'rawr_write_scratch', 'TodoWrite', 'execute_notebook'])
      assert.ok(!isShellTool(name), name);
  });

  it('an edit tool changes files; reading, listing, plans and scratch notes do not', () => {
    for (const name of ['Edit', 'MultiEdit', 'Write', 'NotebookEdit', 'apply_patch', 'rawr_edit_file', 'rawr_create_file']) assert.ok(isEditTool(name), name);
    for (const name of ['Read', 'rawr_read_file', 'rawr_list_files', 'rawr_write_scratch', 'TodoWrite', 'rawr_update_plan', 'Bash'])
      assert.ok(!isEditTool(name), name);
  });

  it("the command of a shell call: a string, {command}, Codex's argv (as JSON) or {cmd}", () => {
    assert.equal(commandOf('git status'), 'git status');
    assert.equal(commandOf({ command: 'git commit -m x' }), 'git commit -m x');
    assert.equal(commandOf({ command: ['bash', '-lc', 'git push'] }), '["bash","-lc","git push"]');
    assert.equal(commandOf({ cmd: 'ls' }), 'ls');
    assert.equal(commandOf({ file_path: 'a.ts' }), undefined);
    assert.equal(commandOf(null), undefined);
  });
});

describe('agent adapter: activity → engine events', () => {
  const commitOutput = '[main 1a2b3c4] phase 1: parser\n 1 file changed, 2 insertions(+)';

  it('a shell call that committed: the result, then the commit boundary from the tool result', () => {
    const a = new AgentAdapter();
    assert.deepEqual(kinds(a.adapt({ type: 'tool_call', at: 1, id: 'c1', name: 'Bash', input: { command: 'git commit -m "phase 1: parser"' } }).events), [
      'tool_call',
    ]);
    const r = a.adapt({ type: 'tool_result', at: 2, id: 'c1', output: commitOutput, isError: false, exitCode: 0 });
    assert.deepEqual(kinds(r.events), ['tool_result', 'boundary commit']);
    const b = r.events[1]!;
    assert.ok(b.type === 'boundary' && b.source === 'tool_result' && b.at === 2 && /1a2b3c4/.test(b.boundary.key), JSON.stringify(b));
    assert.equal(r.problem, undefined);
  });

  it('the same command through a tool that is not a shell, or that failed, is no boundary', () => {
    const a = new AgentAdapter();
    a.adapt({ type: 'tool_call', at: 1, id: 'r1', name: 'Read', input: { command: 'git commit -m x' } });
    assert.deepEqual(kinds(a.adapt({ type: 'tool_result', at: 2, id: 'r1', output: commitOutput, isError: false }).events), ['tool_result']);
    a.adapt({ type: 'tool_call', at: 3, id: 's1', name: 'rawr_run_in_terminal', input: { command: 'git commit -m x' } });
    assert.deepEqual(kinds(a.adapt({ type: 'tool_result', at: 4, id: 's1', output: 'exit code 1\nnothing to commit', isError: true, exitCode: 1 }).events), [
      'tool_result',
    ]);
  });

  it('a result whose call is unknown (or a reused id now names another tool) is just the result', () => {
    const a = new AgentAdapter();
    assert.deepEqual(kinds(a.adapt({ type: 'tool_result', at: 1, id: 'nope', output: commitOutput, isError: false, exitCode: 0 }).events), ['tool_result']);
    a.adapt({ type: 'tool_call', at: 2, id: 'x', name: 'Bash', input: { command: 'git commit -m x' } });
    a.adapt({ type: 'tool_call', at: 3, id: 'x', name: 'Read', input: { file_path: 'a' } });
    assert.deepEqual(kinds(a.adapt({ type: 'tool_result', at: 4, id: 'x', output: commitOutput, isError: false, exitCode: 0 }).events), ['tool_result']);
  });

  it('a command too deeply nested to analyse is reported as a problem, never thrown', () => {
    const a = new AgentAdapter();
    const deep = 'git commit -m "' + '$('.repeat(200) + 'x' + ')'.repeat(200) + '"';
    a.adapt({ type: 'tool_call', at: 1, id: 'd', name: 'exec_command', input: { cmd: deep } });
    const r = a.adapt({ type: 'tool_result', at: 2, id: 'd', output: '[main abcdef0] x', isError: false, exitCode: 0 });
    assert.deepEqual(kinds(r.events), ['tool_result']);
    assert.ok(r.problem && r.problem.length > 0);
  });

  it('remembers only the shell calls waiting for their result, and at most 10,000 of those (docs/ARCHITECTURE.md)', () => {
    const ID_MEMORY = 10_000; // the documented bound, not the code's constant
    const a = new AgentAdapter();
    for (let i = 0; i < 50; i++) {
      a.adapt({ type: 'tool_call', at: i, id: `c${i}`, name: 'Bash', input: { command: 'git commit -m x' } });
      a.adapt({ type: 'tool_result', at: i, id: `c${i}`, output: '[main abcdef0] x', isError: false, exitCode: 0 });
    }
    assert.equal(a.shellCallsHeld, 0);
    a.adapt({ type: 'tool_call', at: 1, id: 'open', name: 'Bash', input: { command: 'git commit -m y' } });
    assert.equal(AgentAdapter.restore(a.save()).shellCallsHeld, 1, 'a call waiting for its result is saved with the session');
    // A second result for the same id (a recording that repeats it) is a plain result: the commit counted once.
    const first = a.adapt({ type: 'tool_result', at: 2, id: 'open', output: '[main 1a2b3c4] y', isError: false, exitCode: 0 });
    const again = a.adapt({ type: 'tool_result', at: 3, id: 'open', output: '[main 1a2b3c4] y', isError: false, exitCode: 0 });
    assert.deepEqual(kinds(first.events), ['tool_result', 'boundary commit']);
    assert.deepEqual(kinds(again.events), ['tool_result']);
    for (let i = 0; i < ID_MEMORY + 500; i++) a.adapt({ type: 'tool_call', at: i, id: `lost${i}`, name: 'Bash', input: { command: 'sleep 1' } });
    assert.equal(a.shellCallsHeld, ID_MEMORY, 'calls that never get a result are trimmed, oldest first');
  });

  it('messages, plans and boundaries the workspace saw pass through unchanged', () => {
    const a = new AgentAdapter();
    assert.deepEqual(a.adapt({ type: 'user_message', at: 1, text: 'hi' }).events, [{ type: 'user_message', at: 1, text: 'hi' }]);
    assert.deepEqual(a.adapt({ type: 'assistant_message', at: 2, text: 'done' }).events, [{ type: 'assistant_message', at: 2, text: 'done' }]);
    const steps = [{ text: 'a', status: 'completed' as const }];
    assert.deepEqual(a.adapt({ type: 'plan', at: 3, steps }).events, [{ type: 'plan', at: 3, steps }]);
    const boundary = { kind: 'commit' as const, key: 'commit:1a2b3c4', detail: '1a2b3c4 x' };
    assert.deepEqual(a.adapt({ type: 'boundary_seen', at: 4, source: 'git', boundary }).events, [{ type: 'boundary', at: 4, source: 'git', boundary }]);
  });

  it("a recording's items are activity at the replay's clock; its context size is not", () => {
    assert.deepEqual(recordedActivity({ type: 'user_prompt', line: 1, at: 5, text: 'go' }, 7), { type: 'user_message', at: 7, text: 'go' });
    assert.deepEqual(recordedActivity({ type: 'tool_result', line: 2, at: 5, id: 'c', output: 'o', isError: false }), {
      type: 'tool_result',
      at: 5,
      id: 'c',
      output: 'o',
      isError: false,
    });
    assert.equal(recordedActivity({ type: 'usage', line: 3, at: 5, contextTokens: 10 }), null);
    assert.equal(recordedActivity({ type: 'native_compaction', line: 4, at: 5, trigger: 'auto' }), null);
  });
});
