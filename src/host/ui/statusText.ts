/**
 * What rawr's status-bar item says, as pure functions (vscode-free, unit-tested): the text
 * (`$(fold) 31% · ready`, `$(sync~spin) …` while a sequence runs), the tooltip Markdown and the
 * background colour id per tier.
 */
import type { BoundaryKind, BoundarySource } from '../../core/signals/types';

export interface StatusView {
  /** Percent of the context window remaining; null when unknown (no token count yet). */
  percentRemaining: number | null;
  /** Current tier (early/ready/asap/emergency); null when above every threshold. */
  tier: string | null;
  /** A compaction sequence (heads-up … handoff) is running. */
  sequenceRunning: boolean;
  lastDecision?: { reason: string; action: string } | null;
}

/** A boundary as the tooltip lists it (BoundaryBus's `BoundaryReport`, structurally). */
export interface StatusBoundary {
  source: BoundarySource;
  boundary: { kind: BoundaryKind; key: string; detail: string };
  at: number;
}

export const STATUS_ICON = '$(fold)';
export const STATUS_ICON_RUNNING = '$(sync~spin)';

/**
 * Percent shown as an integer rounded DOWN (clamped to 0–100) so the number never contradicts the tier:
 * thresholds are "below N", and 34.6% is in the < 35 tier, shown as 34%, not 35%.
 */
export function percentLabel(percent: number): string {
  const p = Number.isFinite(percent) ? Math.min(100, Math.max(0, Math.floor(percent))) : 0;
  return `${p}%`;
}

export function statusText(view: StatusView): string {
  const icon = view.sequenceRunning ? STATUS_ICON_RUNNING : STATUS_ICON;
  const parts: string[] = [];
  if (view.percentRemaining !== null && view.percentRemaining !== undefined) parts.push(percentLabel(view.percentRemaining));
  if (view.tier) parts.push(view.tier);
  return parts.length ? `${icon} ${parts.join(' · ')}` : `${icon} rawr`;
}

/** ThemeColor id of the item's background: warning for asap, error for emergency, none otherwise. */
export function statusBackground(tier: string | null): string | undefined {
  if (tier === 'emergency') return 'statusBarItem.errorBackground';
  if (tier === 'asap') return 'statusBarItem.warningBackground';
  return undefined;
}

/** Screen-reader label for the item. */
export function statusAccessibilityLabel(view: StatusView): string {
  const pct = view.percentRemaining === null ? 'context use unknown' : `${percentLabel(view.percentRemaining)} of context remaining`;
  return `rawr: ${pct}${view.tier ? `, tier ${view.tier}` : ''}${view.sequenceRunning ? ', compaction sequence running' : ''}`;
}

/** Escapes Markdown so boundary details and reasons (commit subjects, agent text) render literally. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, '\\$&').replace(/\r?\n/g, ' ');
}

function clock(at: number): string {
  const d = new Date(at);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/**
 * Tooltip Markdown: the state line, the running sequence, the last decision (action and reason) and the
 * last boundaries, newest first (at most `maxBoundaries`).
 */
export function statusTooltip(view: StatusView, recent: readonly StatusBoundary[], maxBoundaries = 5): string {
  const lines: string[] = [];
  const pct = view.percentRemaining === null ? 'context use not known yet' : `**${percentLabel(view.percentRemaining)}** of the context window remaining`;
  lines.push(`**rawr** — ${pct}${view.tier ? `, tier **${escapeMarkdown(view.tier)}**` : view.percentRemaining === null ? '' : ', no tier'}`);
  if (view.sequenceRunning) lines.push('', '$(sync~spin) Compaction sequence running');
  if (view.lastDecision) {
    lines.push('', `Last decision: **${escapeMarkdown(view.lastDecision.action)}** — ${escapeMarkdown(view.lastDecision.reason)}`);
  }
  const last = recent.slice(-maxBoundaries).reverse();
  lines.push('', last.length ? 'Recent boundaries:' : 'No boundaries seen yet.');
  for (const r of last) {
    lines.push(`- ${clock(r.at)} **${escapeMarkdown(r.boundary.kind)}** (${escapeMarkdown(r.source)}) ${escapeMarkdown(r.boundary.detail)}`);
  }
  return lines.join('\n');
}
