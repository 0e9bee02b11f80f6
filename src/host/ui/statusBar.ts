/**
 * Rawr's status-bar item: percent of context remaining and tier (`$(fold) 31% · ready`, a spinning
 * `$(sync~spin)` while a compaction sequence runs), warning background in the asap tier, error background
 * in emergency, a Markdown tooltip with the last decision and the last boundaries (from the bus), and a
 * click that opens rawr's panel (`rawr.openPanel`) when that command exists, else `rawr.showStatus`.
 */
import * as vscode from 'vscode';
import type { BoundaryBus } from '../boundaryBus';
import { statusAccessibilityLabel, statusBackground, statusText, statusTooltip, type StatusView } from './statusText';

export type { StatusView } from './statusText';

export const OPEN_PANEL_COMMAND = 'rawr.openPanel';
export const SHOW_STATUS_COMMAND = 'rawr.showStatus';

export class RawrStatusBar implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  private current: StatusView = { percentRemaining: null, tier: null, sequenceRunning: false, lastDecision: null };
  private readonly subs: vscode.Disposable[] = [];
  private panelCommand = false;
  private lastCommandCheck = 0;

  constructor(
    private readonly bus?: BoundaryBus,
    priority = 100,
  ) {
    this.item = vscode.window.createStatusBarItem('rawr.status', vscode.StatusBarAlignment.Right, priority);
    this.item.name = 'Rawr';
    if (bus) this.subs.push(bus.onBoundary(() => this.render()));
    this.render();
    this.item.show();
    void this.refreshCommand();
  }

  /** The view last shown (callers may spread it to change one field). */
  get view(): StatusView {
    return { ...this.current };
  }

  update(view: StatusView): void {
    this.current = { ...view };
    this.render();
    // The panel may register its command after this item was created: look again now and then.
    if (!this.panelCommand && Date.now() - this.lastCommandCheck > 5000) void this.refreshCommand();
  }

  /** The text currently shown (for tests and /status). */
  get text(): string {
    return this.item.text;
  }

  private render(): void {
    const view = this.current;
    this.item.text = statusText(view);
    const bg = statusBackground(view.tier);
    this.item.backgroundColor = bg ? new vscode.ThemeColor(bg) : undefined;
    const md = new vscode.MarkdownString(statusTooltip(view, this.bus?.recent ?? []), true);
    md.isTrusted = false;
    this.item.tooltip = md;
    this.item.accessibilityInformation = { label: statusAccessibilityLabel(view), role: 'button' };
    this.item.command = this.panelCommand ? OPEN_PANEL_COMMAND : SHOW_STATUS_COMMAND;
  }

  private async refreshCommand(): Promise<void> {
    this.lastCommandCheck = Date.now();
    try {
      const has = (await vscode.commands.getCommands(true)).includes(OPEN_PANEL_COMMAND);
      if (has !== this.panelCommand) {
        this.panelCommand = has;
        this.render();
      }
    } catch {
      // keep the fallback command
    }
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    this.item.dispose();
  }
}
