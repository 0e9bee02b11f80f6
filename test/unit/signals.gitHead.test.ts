import * as assert from 'node:assert/strict';
import { classifyHeadChange, type HeadChangeInput, type HeadChangeKind } from '../../src/core/signals/gitHead';

const A = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
const B = 'b2c3d4e5f60718293a4b5c6d7e8f901234567891';
const C = 'c3d4e5f60718293a4b5c6d7e8f90123456789012';
const D = 'd4e5f60718293a4b5c6d7e8f9012345678901234';
const P = '0f0e0d0c0b0a09080706050403020100ffeeddcc'; // parent of A
const U = 'e5f60718293a4b5c6d7e8f901234567890123456'; // upstream tip (rebase target)

interface Case {
  name: string;
  input: HeadChangeInput;
  kind: HeadChangeKind;
  /** Expected boundary (key, detail) for `new_commits`. */
  boundary?: { key: string; detail: string };
  detail?: RegExp;
}

const CASES: Case[] = [
  {
    name: 'a merge undone (reset to its first parent) and a new commit there: not an amend of the merge',
    input: {
      before: { commit: C, branch: 'main', parents: [A, B] },
      after: { commit: D, branch: 'main' },
      newCommits: [{ hash: D, message: 'fix: redo without the merge', parents: [A] }],
      beforeIsAncestorOfAfter: false,
    },
    kind: 'reset_or_rebase',
  },
  {
    name: 'one commit on the same branch, fast-forward',
    input: {
      before: { commit: A, branch: 'main' },
      after: { commit: B, branch: 'main' },
      newCommits: [{ hash: B, message: 'feat: login form\n\nbody', parents: [A] }],
      beforeIsAncestorOfAfter: true,
    },
    kind: 'new_commits',
    boundary: { key: B, detail: 'b2c3d4e feat: login form' },
  },
  {
    name: 'several commits landed between two observations (newest first)',
    input: {
      before: { commit: A, branch: 'spotter-gqc' },
      after: { commit: D, branch: 'spotter-gqc' },
      newCommits: [
        { hash: D, message: 'feat: close review session', parents: [C] },
        { hash: C, message: 'feat: project review page', parents: [B] },
        { hash: B, message: 'feat: annotation state', parents: [A] },
      ],
      beforeIsAncestorOfAfter: true,
    },
    kind: 'new_commits',
    boundary: { key: D, detail: 'd4e5f60 feat: close review session (3 new commits)' },
  },
  {
    name: 'newest is found by hash even if the list is oldest first',
    input: {
      before: { commit: A, branch: 'main' },
      after: { commit: C, branch: 'main' },
      newCommits: [
        { hash: B, message: 'one', parents: [A] },
        { hash: C, message: 'two', parents: [B] },
      ],
      beforeIsAncestorOfAfter: true,
    },
    kind: 'new_commits',
    boundary: { key: C, detail: 'c3d4e5f two (2 new commits)' },
  },
  {
    name: 'ancestry unknown, inferred from a new commit whose parent is before',
    input: {
      before: { commit: A, branch: 'main' },
      after: { commit: B, branch: 'main' },
      newCommits: [{ hash: B, message: 'fix: typo', parents: [A] }],
      beforeIsAncestorOfAfter: undefined,
    },
    kind: 'new_commits',
    boundary: { key: B, detail: 'b2c3d4e fix: typo' },
  },
  {
    name: 'ancestor, but the caller could not list the commits',
    input: {
      before: { commit: A, branch: 'main' },
      after: { commit: B, branch: 'main' },
      newCommits: [],
      beforeIsAncestorOfAfter: true,
    },
    kind: 'new_commits',
    boundary: { key: B, detail: 'b2c3d4e' },
  },
  {
    name: 'root commit on an unborn branch',
    input: {
      before: { branch: 'main' },
      after: { commit: A, branch: 'main' },
      newCommits: [{ hash: A, message: 'init', parents: [] }],
      beforeIsAncestorOfAfter: undefined,
    },
    kind: 'new_commits',
    boundary: { key: A, detail: 'a1b2c3d init' },
  },
  {
    name: 'commit in detached HEAD',
    input: {
      before: { commit: A },
      after: { commit: B },
      newCommits: [{ hash: B, message: 'experiment', parents: [A] }],
      beforeIsAncestorOfAfter: true,
    },
    kind: 'new_commits',
    boundary: { key: B, detail: 'b2c3d4e experiment' },
  },
  {
    name: 'abbreviated before hash still matches the parent',
    input: {
      before: { commit: A.slice(0, 7), branch: 'main' },
      after: { commit: B, branch: 'main' },
      newCommits: [{ hash: B, message: 'feat: x', parents: [A] }],
      beforeIsAncestorOfAfter: undefined,
    },
    kind: 'new_commits',
    boundary: { key: B, detail: 'b2c3d4e feat: x' },
  },
  {
    // Git abbreviates to 7 characters at least; a shorter prefix may name another commit.
    name: 'a before hash shorter than 7 characters is not taken as the same commit',
    input: {
      before: { commit: A.slice(0, 4), branch: 'main' },
      after: { commit: A, branch: 'main' },
      newCommits: [],
      beforeIsAncestorOfAfter: false,
    },
    kind: 'reset_or_rebase',
  },
  {
    name: 'amend: one new commit with the same parent as before',
    input: {
      before: { commit: A, branch: 'main', parents: [P] },
      after: { commit: B, branch: 'main' },
      newCommits: [{ hash: B, message: 'feat: login form (with validation)', parents: [P] }],
      beforeIsAncestorOfAfter: false,
    },
    kind: 'amend',
    detail: /^amend a1b2c3d → b2c3d4e feat: login form/,
  },
  {
    name: 'amend with ancestry unknown',
    input: {
      before: { commit: A, branch: 'main', parents: [P] },
      after: { commit: B, branch: 'main' },
      newCommits: [{ hash: B, message: 'feat: x', parents: [P] }],
      beforeIsAncestorOfAfter: undefined,
    },
    kind: 'amend',
  },
  {
    name: 'amend of a root commit (no parents on either side)',
    input: {
      before: { commit: A, branch: 'main', parents: [] },
      after: { commit: B, branch: 'main' },
      newCommits: [{ hash: B, message: 'init (reworded)', parents: [] }],
      beforeIsAncestorOfAfter: false,
    },
    kind: 'amend',
  },
  {
    name: 'one rewritten commit but before.parents unknown: cannot prove an amend',
    input: {
      before: { commit: A, branch: 'main' },
      after: { commit: B, branch: 'main' },
      newCommits: [{ hash: B, message: 'feat: x', parents: [P] }],
      beforeIsAncestorOfAfter: false,
    },
    kind: 'reset_or_rebase',
  },
  {
    name: 'single-commit rebase onto a new upstream (different parent)',
    input: {
      before: { commit: A, branch: 'feat', parents: [P] },
      after: { commit: B, branch: 'feat' },
      newCommits: [{ hash: B, message: 'feat: x', parents: [U] }],
      beforeIsAncestorOfAfter: false,
    },
    kind: 'reset_or_rebase',
  },
  {
    name: 'rebase of several commits',
    input: {
      before: { commit: A, branch: 'feat', parents: [P] },
      after: { commit: C, branch: 'feat' },
      newCommits: [
        { hash: C, message: 'b', parents: [B] },
        { hash: B, message: 'a', parents: [U] },
      ],
      beforeIsAncestorOfAfter: false,
    },
    kind: 'reset_or_rebase',
    detail: /\(2 rewritten\)$/,
  },
  {
    name: 'reset --hard HEAD~1 (after is an ancestor of before, nothing new)',
    input: {
      before: { commit: A, branch: 'main', parents: [P] },
      after: { commit: P, branch: 'main' },
      newCommits: [],
      beforeIsAncestorOfAfter: false,
    },
    kind: 'reset_or_rebase',
    detail: /^main moved a1b2c3d → 0f0e0d0$/,
  },
  {
    name: 'ancestry unknown and no evidence either way',
    input: {
      before: { commit: A, branch: 'main' },
      after: { commit: C, branch: 'main' },
      newCommits: [],
      beforeIsAncestorOfAfter: undefined,
    },
    kind: 'reset_or_rebase',
  },
  {
    name: 'branch switched',
    input: {
      before: { commit: A, branch: 'main' },
      after: { commit: B, branch: 'feat/login' },
      newCommits: [{ hash: B, message: 'wip', parents: [A] }],
      beforeIsAncestorOfAfter: true,
    },
    kind: 'checkout',
    detail: /^checkout main → feat\/login$/,
  },
  {
    name: 'new branch at the same commit (git checkout -b)',
    input: {
      before: { commit: A, branch: 'main' },
      after: { commit: A, branch: 'spotter-4te' },
      newCommits: [],
      beforeIsAncestorOfAfter: true,
    },
    kind: 'checkout',
  },
  {
    name: 'detaching HEAD',
    input: {
      before: { commit: A, branch: 'main' },
      after: { commit: P },
      newCommits: [],
      beforeIsAncestorOfAfter: false,
    },
    kind: 'checkout',
    detail: /→ detached HEAD$/,
  },
  {
    name: 'HEAD unchanged',
    input: {
      before: { commit: A, branch: 'main' },
      after: { commit: A, branch: 'main' },
      newCommits: [],
      beforeIsAncestorOfAfter: true,
    },
    kind: 'none',
  },
  {
    name: 'first observation',
    input: {
      after: { commit: A, branch: 'main' },
      newCommits: [],
      beforeIsAncestorOfAfter: undefined,
    },
    kind: 'none',
  },
  {
    name: 'branch lost its commit (update-ref -d HEAD)',
    input: {
      before: { commit: A, branch: 'main' },
      after: { branch: 'main' },
      newCommits: [],
      beforeIsAncestorOfAfter: undefined,
    },
    kind: 'reset_or_rebase',
  },
];

describe('classifyHeadChange (table)', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const r = classifyHeadChange(c.input);
      assert.equal(r.kind, c.kind, r.detail);
      if (c.boundary) {
        assert.deepEqual(r.boundary, { kind: 'commit', ...c.boundary });
        assert.equal(r.detail, c.boundary.detail);
      } else {
        assert.equal(r.boundary, undefined, 'only new commits are a boundary');
      }
      if (c.detail) assert.match(r.detail, c.detail);
    });
  }

  it('ancestry flag wins over parent evidence when it says false', () => {
    const r = classifyHeadChange({
      before: { commit: A, branch: 'main' },
      after: { commit: B, branch: 'main' },
      newCommits: [{ hash: B, message: 'x', parents: [A] }],
      beforeIsAncestorOfAfter: false,
    });
    assert.equal(r.kind, 'reset_or_rebase');
  });
});
