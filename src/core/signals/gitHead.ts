/**
 * Classifies a HEAD movement reported by the VS Code git API (`repository.state.onDidChange`):
 * only commits made on the branch the agent is working on are a `commit` boundary. Amends, resets,
 * rebases and checkouts move HEAD too, but they rewrite or leave the current phase rather than close it.
 *
 * Pure: the caller (extension side) gathers `newCommits` (e.g. `repository.log({ range: 'before..after' })`,
 * newest first as git prints them) and the ancestry answer (`git merge-base --is-ancestor before after`).
 */
import type { DetectedBoundary } from './types';

export interface HeadState {
  commit?: string;
  /** Branch name; undefined when HEAD is detached. */
  branch?: string;
  /**
   * Parents of `commit`, when the caller knows them. Needed to recognise an amend (the rewritten
   * commit has the same parent as the one it replaces); without them a rewrite is `reset_or_rebase`.
   */
  parents?: string[];
}

export interface HeadCommit {
  hash: string;
  message: string;
  parents: string[];
}

export interface HeadChangeInput {
  /** Previous observation; undefined on the first one (no baseline, nothing to classify). */
  before?: HeadState;
  after: HeadState;
  /** Commits reachable from `after` but not from `before`. */
  newCommits: HeadCommit[];
  /** Whether `before.commit` is an ancestor of `after.commit`; undefined when not determined. */
  beforeIsAncestorOfAfter: boolean | undefined;
}

export type HeadChangeKind = 'new_commits' | 'amend' | 'reset_or_rebase' | 'checkout' | 'none';

export interface HeadChange {
  kind: HeadChangeKind;
  /** Present only for `new_commits`. */
  boundary?: DetectedBoundary;
  detail: string;
}

/**
 * Rules, in order:
 *  1. No `before` → `none` (first observation; there is no movement to judge).
 *  2. Branch changed (including attach/detach) → `checkout`, no boundary, even if the commit moved
 *     too: switching branches starts or resumes work, it does not finish a phase.
 *  3. Same commit → `none`.
 *  4. `after.commit` gone (branch unborn again) → `reset_or_rebase`.
 *  5. `before.commit` unset (unborn branch) and now a commit → `new_commits` (the root commit).
 *  6. `before` is an ancestor of `after` → `new_commits`, boundary key = newest hash, detail =
 *     `<short sha> <subject>` plus the count when several landed at once. When the ancestry flag is
 *     undefined it is inferred only from positive evidence: a new commit whose parent is `before`.
 *  7. Not an ancestor, exactly one new commit, and its parents equal `before.parents` → `amend`:
 *     the same commit rewritten, no boundary (the original already marked it).
 *  8. Anything else (reset backwards or sideways, rebase, unverifiable rewrite) → `reset_or_rebase`.
 */
export function classifyHeadChange(input: HeadChangeInput): HeadChange {
  const { before, after, newCommits } = input;
  if (!before) return { kind: 'none', detail: 'first observation of HEAD' };

  if ((before.branch ?? null) !== (after.branch ?? null)) {
    return { kind: 'checkout', detail: `checkout ${branchName(before)} → ${branchName(after)}` };
  }
  if (sameHash(before.commit, after.commit)) return { kind: 'none', detail: 'HEAD unchanged' };
  if (!after.commit) return { kind: 'reset_or_rebase', detail: `${branchName(after)} no longer points at a commit` };

  const ancestor =
    before.commit === undefined ||
    input.beforeIsAncestorOfAfter === true ||
    (input.beforeIsAncestorOfAfter === undefined && newCommits.some((c) => c.parents.some((p) => sameHash(p, before.commit))));

  if (ancestor) {
    const newest = newCommits.find((c) => sameHash(c.hash, after.commit)) ?? newCommits[0];
    const hash = newest?.hash ?? after.commit;
    const count = Math.max(newCommits.length, 1);
    const subject = newest ? ` ${subjectOf(newest.message)}` : '';
    const detail = `${short(hash)}${subject}${count > 1 ? ` (${count} new commits)` : ''}`;
    return { kind: 'new_commits', boundary: { kind: 'commit', key: hash, detail }, detail };
  }

  const c = newCommits.length === 1 ? newCommits[0] : undefined;
  if (c && before.parents && sameParents(c.parents, before.parents)) {
    return { kind: 'amend', detail: `amend ${short(before.commit)} → ${short(c.hash)} ${subjectOf(c.message)}` };
  }

  return {
    kind: 'reset_or_rebase',
    detail: `${branchName(after)} moved ${short(before.commit)} → ${short(after.commit)}${newCommits.length ? ` (${newCommits.length} rewritten)` : ''}`,
  };
}

function branchName(state: HeadState): string {
  return state.branch ?? 'detached HEAD';
}

function short(hash: string | undefined): string {
  return hash ? hash.slice(0, 7) : '?';
}

function subjectOf(message: string): string {
  return (message.split('\n', 1)[0] ?? '').trim();
}

/** Equal hashes, tolerating one side being abbreviated (≥ 7 hex digits). */
function sameHash(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x === y) return true;
  return Math.min(x.length, y.length) >= 7 && (x.startsWith(y) || y.startsWith(x));
}

function sameParents(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((p, i) => sameHash(p, b[i]));
}
