/**
 * The trail the step keeps of the thread (what the watcher packet, the judgment and the receipt are built
 * from): the tool calls and their results, the files they name, the person's requests, the commits, and the
 * boundaries reported (one id per boundary however it is reported).
 */
import * as assert from 'node:assert/strict';
import { boundaryId } from '../../src/core/engine/step';
import type { EngineEvent } from '../../src/core/engine/types';
import { find, mkState, run } from '../support/engine';

const T0 = 1_700_000_000_000;
let clock = T0;
const at = () => (clock += 1000);
const call = (id: string, name: string, input: unknown): EngineEvent => ({ type: 'tool_call', at: at(), id, name, input });
const result = (id: string, output: string): EngineEvent => ({ type: 'tool_result', at: at(), id, output, isError: false });

describe('step: the trail of tool calls', () => {
  it("a call's input is described by its command (a string, an argv, cmd) or else as JSON; whitespace collapses in the action", () => {
    const { state } = run(mkState(), [
      call('a', 'run_in_terminal', { command: 'npm   test\n  -- --grep x' }),
      call('b', 'shell', { command: ['git', 'status', 3] }),
      call('c', 'exec', { cmd: 'ls -la' }),
      call('d', 'echo', 'plain text'),
      call('e', 'search', { query: 'TODO' }),
      call('f', 'noop', null),
      call('g', 'noop', undefined),
    ]);
    assert.deepEqual(
      state.trail.actions.map((a) => a.text),
      [
        'run_in_terminal: npm test -- --grep x',
        'shell: git status 3',
        'exec: ls -la',
        'echo: plain text',
        'search: {"query":"TODO"}',
        'noop: null',
        'noop: undefined',
      ],
    );
    // The tool tail keeps the input as given (its line breaks too).
    assert.equal(state.trail.toolTail[0]!.input, 'npm   test\n  -- --grep x');
    assert.deepEqual(state.openToolCalls, ['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    assert.equal(state.workActivityThisTurn, true);
  });

  it('an input that cannot be written as JSON is described anyway, not a crash', () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    const { state } = run(mkState(), [call('a', 'odd', loop), call('b', 'big', { n: 10n })]);
    assert.deepEqual(
      state.trail.actions.map((a) => a.text),
      ['odd: [object Object]', 'big: [object Object]'],
    );
  });

  it('the files named by file_path, filePath, path or notebook_path are kept once each, in first-seen order', () => {
    const { state } = run(mkState(), [
      call('a', 'read', { file_path: 'src/a.ts' }),
      call('b', 'read', { filePath: 'src/b.ts' }),
      call('c', 'read', { path: 'src/c.ts' }),
      call('d', 'edit', { notebook_path: 'nb.ipynb' }),
      call('e', 'read', { file_path: 'src/a.ts' }),
      call('f', 'read', { file_path: '' }),
      call('g', 'read', { path: 42 }),
      call('h', 'read', 'src/d.ts'),
      call('i', 'read', null),
    ]);
    assert.deepEqual(state.trail.files, ['src/a.ts', 'src/b.ts', 'src/c.ts', 'nb.ipynb']);
  });

  it("a result closes its call and lands on that call's entry in the tool tail; the earlier state is not changed", () => {
    const before = run(mkState(), [call('a', 'read', { path: 'x' }), call('b', 'read', { path: 'y' })]).state;
    const { state } = run(before, [result('b', 'contents of y')]);
    assert.deepEqual(state.openToolCalls, ['a']);
    assert.deepEqual(
      state.trail.toolTail.map((t) => [t.id, t.output]),
      [
        ['a', undefined],
        ['b', 'contents of y'],
      ],
    );
    assert.equal(before.trail.toolTail[1]!.output, undefined, 'the previous state keeps its own tail');
    assert.deepEqual(before.openToolCalls, ['a', 'b']);
  });

  it('a result reported again (its call already closed) still updates the entry; one with no call only leaves the open list', () => {
    const { state } = run(mkState(), [call('a', 'run', { command: 'make' }), result('a', 'first'), result('a', 'second')]);
    assert.equal(state.trail.toolTail[0]!.output, 'second');
    const orphan = run(state, [result('zz', 'nobody asked')]);
    assert.equal(orphan.state.trail, state.trail);
    assert.deepEqual(orphan.state.openToolCalls, []);
  });
});

describe("step: the person's requests", () => {
  it('a request over 4,000 characters is clipped and its length kept; one of exactly 4,000 is whole and has none', () => {
    const long = 'x'.repeat(4001);
    const exact = 'y'.repeat(4000);
    const { state } = run(mkState(), [
      { type: 'user_message', at: at(), text: long },
      { type: 'user_message', at: at(), text: exact },
    ]);
    const [a, b] = state.trail.userRequests;
    assert.equal(a!.chars, 4001);
    assert.notEqual(a!.text, long);
    assert.ok(a!.text.length < 4010);
    assert.equal(b!.text, exact);
    assert.equal('chars' in b!, false);
  });

  it('a new turn starts without work activity (a marker at its end needs work in that turn)', () => {
    const { state } = run(mkState(), [call('a', 'run', { command: 'make' }), { type: 'user_message', at: at(), text: 'next' }]);
    assert.equal(state.workActivityThisTurn, false);
    assert.equal(state.turn, 1);
  });
});

describe('step: boundaries reported', () => {
  it('a commit is one boundary by its short sha, whatever case or length the sha was reported in', () => {
    assert.equal(boundaryId({ kind: 'commit', key: 'ABCDEF1234567890' }), 'commit:abcdef1');
    assert.equal(boundaryId({ kind: 'commit', key: 'abcdef1' }), 'commit:abcdef1');
    // Not a sha (too short, or more than a sha around it): the key is kept whole.
    assert.equal(boundaryId({ kind: 'commit', key: 'abc123' }), 'commit:abc123');
    assert.equal(boundaryId({ kind: 'commit', key: 'v1.0-abcdef1' }), 'commit:v1.0-abcdef1');
    assert.equal(boundaryId({ kind: 'commit', key: 'abcdef1-dirty' }), 'commit:abcdef1-dirty');
    // Only a commit's key is a sha.
    assert.equal(boundaryId({ kind: 'plan_checkpoint', key: 'ABCDEF1234' }), 'plan_checkpoint:ABCDEF1234');
  });

  it('a boundary is noted as pending once, then as a duplicate (as often as it comes); only commits enter the trail', () => {
    const b = (kind: 'commit' | 'topic_shift', key: string, detail: string): EngineEvent => ({
      type: 'boundary',
      at: at(),
      source: 'terminal',
      boundary: { kind, key, detail },
    });
    const s0 = mkState();
    const first = run(s0, [b('topic_shift', 'ts1', 'new topic')]);
    assert.equal(first.state.trail, s0.trail, 'no commit: the trail is not copied');
    assert.deepEqual(first.state.trail.commits, []);
    const { state, effects } = run(first.state, [
      b('commit', 'a1b2c3d', 'a1b2c3d importer'),
      b('commit', 'A1B2C3D9', 'again'),
      b('commit', 'a1b2c3d', 'and again'),
    ]);
    const noted = find(effects, 'boundary_noted');
    assert.deepEqual(
      noted.map((n) => [n.boundary.id, n.status, n.why, n.boundary.synthetic]),
      [
        ['commit:a1b2c3d', 'pending', 'new', false],
        ['commit:a1b2c3d', 'ignored', 'duplicate', false],
        ['commit:a1b2c3d', 'ignored', 'duplicate', false],
      ],
    );
    assert.deepEqual(state.trail.commits, ['a1b2c3d importer']);
    assert.deepEqual(
      state.pending.map((p) => p.id),
      ['topic_shift:ts1', 'commit:a1b2c3d'],
    );
  });
});
