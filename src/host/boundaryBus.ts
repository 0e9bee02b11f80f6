/**
 * Where boundary sources (git, terminal, rawr's tools) report what they saw. The participant forwards
 * every report to the arbiter of each live @rawr thread; the arbiter dedupes (one commit seen by git and
 * by the terminal is one boundary) and ignores reports that arrive during a synthetic turn.
 */
import * as vscode from 'vscode';
import type { BoundarySource, DetectedBoundary } from '../core/signals/types';

export interface BoundaryReport {
  source: BoundarySource;
  boundary: DetectedBoundary;
  at: number;
}

export class BoundaryBus implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<BoundaryReport>();
  readonly onBoundary = this.emitter.event;
  /** The last reports, for the status bar tooltip and /status. */
  readonly recent: BoundaryReport[] = [];

  fire(report: BoundaryReport): void {
    this.recent.push(report);
    if (this.recent.length > 20) this.recent.shift();
    this.emitter.fire(report);
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
