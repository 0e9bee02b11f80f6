/**
 * Runs the background summary of a thread (the `prepare_summary` effect; the plan of what to do with it
 * at the boundary is pure: src/core/sequence/preparedSummary.ts). One job per thread at a time; the
 * compaction takes it (waiting for it if it is still running); a swap or an undo discards it.
 */
import * as vscode from 'vscode';
import { prepareSummaryOf, type PreparedSummary } from '../../core/sequence/preparedSummary';
import type { ThreadMessage } from '../../core/thread/thread';
import { summarise } from './compactor';

export class SummaryPreparer {
  private job: { promise: Promise<PreparedSummary | undefined>; cancel: vscode.CancellationTokenSource } | undefined;

  constructor(private readonly log: vscode.LogOutputChannel) {}

  get running(): boolean {
    return this.job !== undefined;
  }

  /** Starts summarising the thread as it stands (a copy) in the background; false when a job exists already. */
  start(model: vscode.LanguageModelChat, messages: readonly ThreadMessage[], prompt: string, threadId: string): boolean {
    if (this.job) return false;
    const snapshot = messages.slice();
    const cancel = new vscode.CancellationTokenSource();
    const promise = summarise(model, snapshot, prompt, cancel.token).then(
      (text) => prepareSummaryOf(snapshot, prompt, text),
      (err: unknown) => {
        // Nothing is lost: the compaction summarises the whole thread itself.
        this.log.warn(`[${threadId}] background summary failed: ${err instanceof Error ? err.message : String(err)}`);
        return undefined;
      },
    );
    this.job = { promise, cancel };
    return true;
  }

  /** The prepared summary, waiting for a job still running (cancelled with `token`); the job is used up. */
  async take(token: vscode.CancellationToken): Promise<PreparedSummary | undefined> {
    const job = this.job;
    this.job = undefined;
    if (!job) return undefined;
    const sub = token.onCancellationRequested(() => job.cancel.cancel());
    try {
      return await job.promise;
    } finally {
      sub.dispose();
      job.cancel.dispose();
    }
  }

  /** The thread changed under it (a swap, an undo): a running job is stopped, a finished one dropped. */
  discard(): void {
    this.job?.cancel.cancel();
    this.job?.cancel.dispose();
    this.job = undefined;
  }
}
