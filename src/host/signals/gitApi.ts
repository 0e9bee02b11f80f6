/**
 * The parts of the built-in git extension's API (`vscode.git`, `getAPI(1)`) that rawr uses, typed after
 * VS Code's `extensions/git/src/api/git.d.ts`. Only what is read here is declared, so a newer git
 * extension with more members still satisfies it; members that older versions lack are optional.
 */
import type * as vscode from 'vscode';

export type APIState = 'uninitialized' | 'initialized';

export interface GitExtension {
  readonly enabled: boolean;
  readonly onDidChangeEnablement: vscode.Event<boolean>;
  /** Throws when the extension is disabled (`git.enabled: false`). */
  getAPI(version: 1): GitAPI;
}

export interface GitAPI {
  readonly state: APIState;
  readonly onDidChangeState: vscode.Event<APIState>;
  readonly repositories: Repository[];
  readonly onDidOpenRepository: vscode.Event<Repository>;
  readonly onDidCloseRepository: vscode.Event<Repository>;
  openRepository?(root: vscode.Uri): Promise<Repository | null>;
}

export interface Ref {
  /** 0 = Head, 1 = RemoteHead, 2 = Tag (git.d.ts `RefType`). */
  readonly type: number;
  readonly name?: string;
  readonly commit?: string;
  readonly remote?: string;
}

export interface UpstreamRef {
  readonly remote: string;
  readonly name: string;
  /** Present in VS Code ≥ 1.8x; optional here. */
  readonly commit?: string;
}

export interface Branch extends Ref {
  readonly upstream?: UpstreamRef;
  readonly ahead?: number;
  readonly behind?: number;
}

export interface Commit {
  readonly hash: string;
  readonly message: string;
  readonly parents: string[];
  readonly authorDate?: Date;
  readonly authorName?: string;
  readonly authorEmail?: string;
  readonly commitDate?: Date;
}

export interface LogOptions {
  /** Max number of log entries to retrieve. If not specified, the default is 32. */
  readonly maxEntries?: number;
  readonly path?: string;
  /** A commit range, such as "0a47c67f0fb52dd11562af48658bc1dff1d75a38..0bb4bdea78e1db44d728fd6894720071e303304f" */
  readonly range?: string;
  readonly reverse?: boolean;
  readonly sortByAuthorDate?: boolean;
}

export interface RepositoryState {
  readonly HEAD: Branch | undefined;
  readonly onDidChange: vscode.Event<void>;
}

export interface Repository {
  readonly rootUri: vscode.Uri;
  readonly state: RepositoryState;
  getCommit(ref: string): Promise<Commit>;
  getMergeBase(ref1: string, ref2: string): Promise<string | undefined>;
  log(options?: LogOptions): Promise<Commit[]>;
}
