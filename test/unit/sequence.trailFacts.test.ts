// What the trail remembers from tool calls (sequence/trailFacts.ts) for the watcher packet and the
// repair: the files changed, the failed calls, the last command and the commits by sha. Mutation testing
// (CONTRIBUTING.md) showed these could change unnoticed by handoff.test.ts.
import * as assert from 'node:assert/strict';
import { emptyTrail } from '../../src/core/engine/state';
import type { Trail } from '../../src/core/engine/types';
import { editedFilesOf, noteToolCall, noteToolResult } from '../../src/core/sequence/trailFacts';

const PATCH = '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+*** Update File: not/a/file.ts\n*** Add File: src/b.ts\n+z\n*** End Patch';

/** A shell call and its result through the trail. */
function shell(t: Trail, id: string, command: string, result: { output: string; isError?: boolean; exitCode?: number }): Trail {
  const next = noteToolCall(t, { id, name: 'Bash', input: { command } }, command);
  return noteToolResult(next, { id, isError: false, ...result }, { id, name: 'Bash', input: command });
}
const edit = (t: Trail, file: string) => noteToolCall(t, { id: file, name: 'Edit', input: { file_path: file } }, file);

describe('the files a tool call changes', () => {
  it("a patch's header lines name its files, wherever the patch is (a string, an argv, any string field)", () => {
    assert.deepEqual(editedFilesOf('apply_patch', PATCH), ['src/a.ts', 'src/b.ts'], 'an added line quoting a header is not a file');
    assert.deepEqual(editedFilesOf('shell', ['apply_patch', PATCH]), ['src/a.ts', 'src/b.ts'], 'a top-level argv');
    assert.deepEqual(editedFilesOf('exec_command', { cmd: `apply_patch <<'EOF'\n${PATCH}\nEOF`, timeout: 5 }), ['src/a.ts', 'src/b.ts']);
    assert.deepEqual(editedFilesOf('shell', { command: ['ls', 3, null] }), [], 'non-strings in an argv are skipped');
    assert.deepEqual(editedFilesOf('shell', ['ls', 3]), [], 'and in a top-level argv');
  });

  it("an edit tool's file from any of its path fields, the first non-empty one; header-like text in an edit is not a patch", () => {
    for (const k of ['file_path', 'filePath', 'path', 'notebook_path', 'target_file'])
      assert.deepEqual(editedFilesOf('Edit', { [k]: '/r/p.ts', limit: 5 }), ['/r/p.ts'], k);
    assert.deepEqual(editedFilesOf('Write', { file_path: '', path: '/r/q.ts' }), ['/r/q.ts']);
    assert.deepEqual(editedFilesOf('Write', { file_path: 7, path: '/r/q.ts' }), ['/r/q.ts']);
    assert.deepEqual(editedFilesOf('Edit', { file_path: '/r/doc.md', new_string: '*** Update File: other.ts' }), ['/r/doc.md']);
    assert.deepEqual(editedFilesOf('Edit', '/r/doc.md'), [], 'no fields to name a file');
    assert.deepEqual(editedFilesOf('Edit', { old_string: 'a', new_string: 'b' }), [], 'no path field');
  });
});

describe('the trail of tool calls', () => {
  it('files edited: most recently edited last, once each, the latest 80', () => {
    let t = ['/r/a', '/r/b', '/r/a'].reduce(edit, emptyTrail());
    assert.deepEqual(t.edited, ['/r/b', '/r/a']);
    assert.deepEqual(edit(t, '/r/a').edited, ['/r/b', '/r/a'], 'editing the last file again changes nothing');
    const patch = '*** Begin Patch\n*** Update File: /r/a\n*** Add File: /r/c\n*** End Patch';
    assert.deepEqual(noteToolCall(t, { id: 'p', name: 'apply_patch', input: patch }, 'patch').edited, ['/r/b', '/r/a', '/r/c'], 'a known file and a new one');
    const before = noteToolCall(
      t,
      { id: 'p2', name: 'apply_patch', input: '*** Begin Patch\n*** Add File: /r/x\n*** Update File: /r/a\n*** End Patch' },
      'patch',
    );
    assert.deepEqual(before.edited, ['/r/b', '/r/x', '/r/a'], 'a new file before the last one');
    assert.deepEqual(edit(t, '/r/b').edited, ['/r/a', '/r/b']);
    t = Array.from({ length: 81 }, (_, k) => `/r/f${k}`).reduce(edit, emptyTrail());
    assert.equal(t.edited?.length, 80);
    assert.equal(t.edited?.[0], '/r/f1');
    assert.equal(noteToolCall(emptyTrail(), { id: 'r', name: 'Read', input: { file_path: '/r/a' } }, '/r/a').edited, undefined, 'a read edits nothing');
  });

  it('the last command is the last shell call, with its output, failure and exit code; a read is no command', () => {
    const t = noteToolCall(emptyTrail(), { id: 'r', name: 'Read', input: { file_path: '/r/a' } }, '/r/a');
    assert.equal(t.lastCommand, undefined);
    const ok = shell(emptyTrail(), 'c', 'npm test', { output: '3 passing', exitCode: 0 });
    assert.deepEqual(ok.lastCommand, { id: 'c', name: 'Bash', input: 'npm test', output: '3 passing', isError: false, exitCode: 0 });
    const noCode = shell(emptyTrail(), 'c', 'ls', { output: 'a' });
    assert.deepEqual(noCode.lastCommand, { id: 'c', name: 'Bash', input: 'ls', output: 'a', isError: false }, 'no exit code when none is known');
    const again = noteToolResult(
      shell(emptyTrail(), 'c', 'make', { output: 'x', exitCode: 2 }),
      { id: 'c', output: 'y', isError: false },
      { id: 'c', name: 'Bash', input: 'make' },
    );
    assert.equal(again.lastCommand?.exitCode, 2, 'a later result without an exit code keeps the known one');
  });

  it('a failed call is an error (an error flag or a non-zero exit code), the latest 5 kept', () => {
    const exit1 = shell(emptyTrail(), 'c', 'npm test', { output: 'boom', exitCode: 1 });
    assert.deepEqual(exit1.errors, [{ id: 'c', name: 'Bash', input: 'npm test', output: 'boom', isError: true }]);
    assert.equal(exit1.lastCommand?.isError, true);
    assert.equal(shell(emptyTrail(), 'c', 'npm test', { output: 'fine', exitCode: 0 }).errors, undefined);
    assert.equal(shell(emptyTrail(), 'c', 'npm test', { output: 'fine' }).errors, undefined);
    const six = Array.from({ length: 6 }, (_, k) => k).reduce((t, k) => shell(t, `c${k}`, `run ${k}`, { output: 'x', isError: true }), emptyTrail());
    assert.deepEqual(
      six.errors?.map((e) => e.id),
      ['c1', 'c2', 'c3', 'c4', 'c5'],
    );
  });

  it("a commit's sha from git's output, short, once each, only from a shell call that succeeded and only from lines that start with it", () => {
    const commit = (output: string, command = 'git -c user.name=x commit -qm "step 1" && git log -1', t = emptyTrail(), result: { isError?: boolean } = {}) =>
      shell(t, 'c', command, { output, exitCode: 0, ...result }).commits;
    assert.deepEqual(commit('[main 73a1097] step 1  \n 1 file changed\n73a1097abcdef step 1'), ['73a1097 step 1']);
    assert.deepEqual(commit('commit 73a1097\nMerge: 1a2b3c4 5d6e7f8\n\n    step 1'), [], 'a sha inside a line is not a commit line');
    assert.deepEqual(commit('73a1097 step 1', undefined, { ...emptyTrail(), commits: ['73a1097 step 1'] }), ['73a1097 step 1'], 'a commit already known');
    assert.deepEqual(commit('73a1097 step 1', undefined, undefined, { isError: true }), [], 'a failed commit');
    assert.deepEqual(commit('73a1097 step 1', 'cat notes.txt'), [], 'not a commit command');
    const read = noteToolResult(emptyTrail(), { id: 'r', output: '73a1097 step 1', isError: false }, { id: 'r', name: 'Read', input: 'git commit notes' });
    assert.deepEqual(read.commits, [], 'not a shell call');
    const many = { ...emptyTrail(), commits: Array.from({ length: 20 }, (_, k) => `${String(k).padStart(7, 'a')} c${k}`) };
    assert.deepEqual(commit('bbbbbbb c20', undefined, many)?.slice(-2), ['aaaaa19 c19', 'bbbbbbb c20']);
    assert.equal(commit('bbbbbbb c20', undefined, many)?.length, 20, 'the latest 20');
  });
});
