/**
 * Commit and push boundaries from the built-in git extension: whatever moves HEAD (the agent's tool, a
 * terminal, another git client, the Source Control view) is seen here.
 *
 * Per repository, the last observed HEAD (commit, branch, ahead, upstream) is remembered; on
 * `repository.state.onDidChange` (it fires often: every status refresh) the new HEAD is compared with it:
 *  - HEAD commit or branch moved → new commits are listed (`log({range: 'OLD..NEW'})`, fallback
 *    `log({maxEntries})`), ancestry is decided with `getMergeBase(OLD, NEW) === OLD`, the old commit's
 *    parents come from `getCommit(OLD)` (needed to recognise an amend), and `classifyHeadChange` (core)
 *    decides; only `new_commits` fires a `commit` boundary (source 'git'). Amends, resets, rebases and
 *    checkouts are logged, not reported.
 *  - same HEAD commit and branch, the same upstream, `ahead` going from > 0 to 0 → a push:
 *    `pr_checkpoint`.
 * Processing is serialized per repository; changes that arrive meanwhile collapse into one re-run that
 * reads the newest state, so a burst of events costs one comparison.
 *
 * Two guards keep one commit one boundary (boundaries are edge-triggered, docs/ARCHITECTURE.md#boundaries):
 *  - a HEAD that still names the same branch but has lost its commit is a failed read, not an unborn
 *    branch: the git extension's `getHEADRef` swallows a failing `getBranch` (e.g. while another git
 *    process updates the refs) and reports `{name, commit: undefined}` for one refresh. Taken at face
 *    value, the next refresh would look like the branch's root commit arriving and re-report HEAD
 *    (seen in CI under load). Such a read is skipped and the baseline kept.
 *  - a commit hash already reported by this repository is not reported again (HEAD flickering back to a
 *    stale value and forward again, or a reset followed by re-applying the same commit).
 */
import * as vscode from 'vscode';
import type { BoundaryBus } from '../boundaryBus';
import { classifyHeadChange, type HeadCommit, type HeadState } from '../../core/signals/gitHead';
import type { DetectedBoundary } from '../../core/signals/types';
import type { Branch, Commit, GitAPI, GitExtension, Repository } from './gitApi';

/** How many commits one HEAD movement lists at most (the boundary names the newest; the count is shown). */
const MAX_NEW_COMMITS = 100;
/** Quiet time before a burst of state changes is processed. */
const SETTLE_MS = 50;
/** How many reported commit hashes a repository remembers so that one commit is never reported twice. */
const REPORTED_MEMORY = 256;

interface HeadSnapshot {
  /** False until the repository reported a HEAD at all. */
  known: boolean;
  commit?: string;
  branch?: string;
  ahead?: number;
  upstream?: { remote: string; name: string; commit?: string };
}

/**
 * Starts watching every repository the git extension knows (now and later). The returned disposable's
 * `ready` resolves once the existing repositories have their HEAD baseline (or git is unavailable).
 */
export function watchGit(bus: BoundaryBus, log: vscode.LogOutputChannel): vscode.Disposable & { ready: Promise<void> } {
  const disposables: vscode.Disposable[] = [];
  const watchers = new Map<string, RepoWatcher>();
  let disposed = false;

  const attach = (repo: Repository): void => {
    if (disposed) return;
    const key = repo.rootUri.toString();
    if (watchers.has(key)) return;
    const w = new RepoWatcher(repo, bus, log);
    watchers.set(key, w);
    log.info(`git: watching ${repo.rootUri.fsPath} (HEAD ${describe(w.last)})`);
  };
  const detach = (repo: Repository): void => {
    const key = repo.rootUri.toString();
    watchers.get(key)?.dispose();
    watchers.delete(key);
  };

  const useApi = (api: GitAPI): void => {
    if (disposed) return;
    disposables.push(api.onDidOpenRepository(attach), api.onDidCloseRepository(detach));
    const attachAll = (): void => api.repositories.forEach(attach);
    attachAll();
    if (api.state !== 'initialized') {
      disposables.push(api.onDidChangeState((state) => state === 'initialized' && attachAll()));
    }
  };

  const start = async (): Promise<void> => {
    const ext = vscode.extensions.getExtension<GitExtension>('vscode.git');
    if (!ext) {
      log.warn('git: the built-in git extension (vscode.git) is not available; commits are seen only from terminals and tools');
      return;
    }
    const gitExt = ext.isActive ? ext.exports : await ext.activate();
    if (disposed) return;
    if (!gitExt) {
      log.warn('git: vscode.git exported no API');
      return;
    }
    if (gitExt.enabled) {
      useApi(gitExt.getAPI(1));
      return;
    }
    log.info('git: the git extension is disabled (git.enabled); waiting for it to be enabled');
    const d = gitExt.onDidChangeEnablement((enabled) => {
      if (!enabled || disposed) return;
      d.dispose();
      try {
        useApi(gitExt.getAPI(1));
      } catch (err) {
        log.warn(`git: cannot get the git API: ${(err as Error).message}`);
      }
    });
    disposables.push(d);
  };
  const ready = start().catch((err) => log.warn(`git: cannot watch repositories: ${(err as Error)?.message ?? err}`));

  const disposable = new vscode.Disposable(() => {
    disposed = true;
    for (const w of watchers.values()) w.dispose();
    watchers.clear();
    for (const d of disposables) d.dispose();
  });
  return Object.assign(disposable, { ready });
}

export class RepoWatcher {
  last: HeadSnapshot;
  private readonly sub: vscode.Disposable;
  /** Hashes of commits already reported, oldest first (bounded by REPORTED_MEMORY). */
  private readonly reported: string[] = [];
  private running = false;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(
    private readonly repo: Repository,
    private readonly bus: BoundaryBus,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.last = snapshot(repo.state.HEAD);
    this.sub = repo.state.onDidChange(() => this.schedule());
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.sub.dispose();
  }

  private schedule(): void {
    if (this.disposed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.run();
    }, SETTLE_MS);
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      do {
        this.again = false;
        try {
          await this.process();
        } catch (err) {
          this.log.warn(`git ${this.repo.rootUri.fsPath}: ${(err as Error)?.message ?? err}`);
        }
      } while (this.again && !this.disposed);
    } finally {
      this.running = false;
    }
  }

  private async process(): Promise<void> {
    if (this.disposed) return;
    const before = this.last;
    const now = snapshot(this.repo.state.HEAD);
    if (sameSnapshot(before, now)) return;
    if (before.known && before.commit && now.known && !now.commit && now.branch !== undefined && now.branch === before.branch) {
      this.log.debug(
        `git ${this.repo.rootUri.fsPath}: HEAD read without a commit on ${now.branch}; keeping ${before.commit.slice(0, 7)} until the next refresh`,
      );
      return;
    }
    this.last = now;
    if (!now.known) return;
    if (!before.known) {
      this.log.info(`git ${this.repo.rootUri.fsPath}: HEAD ${describe(now)} (first observation)`);
      return;
    }
    const root = this.repo.rootUri.fsPath;
    if (before.commit !== now.commit || before.branch !== now.branch) {
      const change = await this.classify(before, now);
      if (this.disposed) return;
      this.log.info(`git ${root}: ${change.kind}: ${change.detail}`);
      if (change.kind === 'new_commits' && change.boundary) {
        if (this.wasReported(change.boundary.key)) {
          this.log.info(`git ${root}: ${change.boundary.key.slice(0, 7)} was already reported; not a new boundary`);
        } else {
          this.remember(change.boundary.key);
          this.report(change.boundary);
        }
      }
    }
    const push = pushBoundary(before, now);
    if (push) {
      this.log.info(`git ${root}: ${push.detail}`);
      this.report(push);
    }
  }

  private wasReported(hash: string): boolean {
    return this.reported.some((h) => sameHash(h, hash));
  }

  private remember(hash: string): void {
    this.reported.push(hash);
    if (this.reported.length > REPORTED_MEMORY) this.reported.shift();
  }

  private report(boundary: DetectedBoundary): void {
    this.bus.fire({ source: 'git', boundary, at: Date.now() });
  }

  private async classify(before: HeadSnapshot, now: HeadSnapshot) {
    const beforeState: HeadState = { commit: before.commit, branch: before.branch };
    const afterState: HeadState = { commit: now.commit, branch: now.branch };
    let newCommits: HeadCommit[] = [];
    let ancestor: boolean | undefined;
    // A branch switch is a checkout whatever the commits did: no need to ask git anything.
    if (now.commit && before.branch === now.branch) {
      newCommits = await this.newCommits(before.commit, now.commit);
      if (before.commit) {
        const base = await this.repo.getMergeBase(before.commit, now.commit).catch(() => undefined);
        ancestor = base ? sameHash(base, before.commit) : undefined;
        if (ancestor !== true) {
          const old = await this.repo.getCommit(before.commit).catch(() => undefined);
          if (old) beforeState.parents = old.parents;
        }
      }
    }
    return classifyHeadChange({ before: beforeState, after: afterState, newCommits, beforeIsAncestorOfAfter: ancestor });
  }

  /** Commits reachable from `to` but not from `from`, newest first. */
  private async newCommits(from: string | undefined, to: string): Promise<HeadCommit[]> {
    if (from) {
      try {
        return (await this.repo.log({ range: `${from}..${to}`, maxEntries: MAX_NEW_COMMITS })).map(headCommit);
      } catch (err) {
        this.log.debug(`git: log ${from.slice(0, 7)}..${to.slice(0, 7)} failed (${(err as Error)?.message}); walking back from HEAD`);
      }
    }
    try {
      const recent = await this.repo.log({ maxEntries: from ? 32 : MAX_NEW_COMMITS });
      if (!from) return recent.map(headCommit);
      const stop = recent.findIndex((c) => sameHash(c.hash, from));
      // `from` not among the recent commits: only the commit HEAD now points at is known to be new-ish.
      return (stop >= 0 ? recent.slice(0, stop) : recent.filter((c) => sameHash(c.hash, to))).map(headCommit);
    } catch {
      return [];
    }
  }
}

function pushBoundary(before: HeadSnapshot, now: HeadSnapshot): DetectedBoundary | undefined {
  const up = now.upstream;
  if (!up || !now.commit || now.branch === undefined || before.branch !== now.branch || now.ahead !== 0) return undefined;
  const sameUpstream = !!before.upstream && before.upstream.remote === up.remote && before.upstream.name === up.name;
  // Only with HEAD unchanged: when HEAD moved in the same refresh, an upstream that now equals HEAD may
  // as well be a `git pull` (fetch + fast-forward) as a commit and its push, so nothing is claimed.
  if (before.commit !== now.commit || !sameUpstream || !((before.ahead ?? 0) > 0)) return undefined;
  const from = before.upstream?.commit;
  // Same key shape as the terminal's `To <remote>` parsing (`push:<old>..<new>`, 7-digit abbreviations)
  // so one push seen by both is usually one boundary.
  const key = from ? `push:${from.slice(0, 7)}..${now.commit.slice(0, 7)}` : `push:git:${now.branch}:${now.commit.slice(0, 7)}`;
  const count = before.ahead;
  return {
    kind: 'pr_checkpoint',
    key,
    detail: `pushed ${now.branch} -> ${up.remote}/${up.name} (${now.commit.slice(0, 7)}${count ? `, ${count} commit${count === 1 ? '' : 's'}` : ''})`,
  };
}

function snapshot(head: Branch | undefined): HeadSnapshot {
  if (!head) return { known: false };
  return {
    known: true,
    commit: head.commit || undefined,
    branch: head.name || undefined,
    ahead: head.ahead,
    upstream: head.upstream ? { remote: head.upstream.remote, name: head.upstream.name, commit: head.upstream.commit } : undefined,
  };
}

function sameSnapshot(a: HeadSnapshot, b: HeadSnapshot): boolean {
  return (
    a.known === b.known &&
    a.commit === b.commit &&
    a.branch === b.branch &&
    a.ahead === b.ahead &&
    a.upstream?.remote === b.upstream?.remote &&
    a.upstream?.name === b.upstream?.name &&
    a.upstream?.commit === b.upstream?.commit
  );
}

function describe(s: HeadSnapshot): string {
  if (!s.known) return 'unknown yet';
  return `${s.branch ?? 'detached'} ${s.commit ? s.commit.slice(0, 7) : '(no commit)'}${s.upstream ? ` ↑${s.ahead ?? '?'} ${s.upstream.remote}/${s.upstream.name}` : ''}`;
}

function headCommit(c: Commit): HeadCommit {
  return { hash: c.hash, message: c.message, parents: [...c.parents] };
}

function sameHash(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x === y || (Math.min(x.length, y.length) >= 7 && (x.startsWith(y) || y.startsWith(x)));
}
