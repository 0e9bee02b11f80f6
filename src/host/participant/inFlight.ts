/**
 * What this window has running for a thread on the engine's behalf: the end times of the engine's timers
 * (start_timer fixes one, and every model call under it gets only what is left) and the compaction call.
 * Host state, not engine state: the engine knows a timer or a compaction was asked for, only the window
 * knows when it ends and how to stop it. Written by the effect executor alone; read by the session cache
 * (a thread with work in flight stays in memory) and by the executor of a later Cancel.
 */
import type * as vscode from 'vscode';

export class InFlight {
  private readonly deadlines = new Map<string, number>();
  private compaction: { seqId: string; cancel: vscode.CancellationTokenSource } | undefined;

  startTimer(timerId: string, endsAt: number): void {
    this.deadlines.set(timerId, endsAt);
  }

  cancelTimer(timerId: string): void {
    this.deadlines.delete(timerId);
  }

  /** When the timer ends (ms since epoch), or undefined when none was started. */
  deadline(timerId: string): number | undefined {
    return this.deadlines.get(timerId);
  }

  /** The compaction call running in this window, if any. */
  get compacting(): { readonly seqId: string } | undefined {
    return this.compaction;
  }

  /** Registers the running compaction call; the returned function unregisters it (if still the same). */
  compactionStarted(seqId: string, cancel: vscode.CancellationTokenSource): () => void {
    const entry = { seqId, cancel };
    this.compaction = entry;
    return () => {
      if (this.compaction === entry) this.compaction = undefined;
    };
  }

  /** Stops the compaction call of `seqId`; false when none of it runs here. */
  abortCompaction(seqId: string): boolean {
    if (this.compaction?.seqId !== seqId) return false;
    this.compaction.cancel.cancel();
    return true;
  }

  /** A compaction call runs, or a timer has not ended yet. */
  busy(now: number): boolean {
    if (this.compaction) return true;
    for (const endsAt of this.deadlines.values()) if (endsAt > now) return true;
    return false;
  }
}
