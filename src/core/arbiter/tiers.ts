/** Token tiers (docs/ARCHITECTURE.md#tiers): the lowest threshold the percent remaining is under wins. */
import type { Settings, Tier } from '../settings/schema';

export function percentRemaining(used: number, window: number): number {
  if (!(window > 0)) return 0;
  return Math.max(0, Math.min(100, ((window - used) / window) * 100));
}

export function tierOf(percent: number, s: Settings): Tier | null {
  if (percent < s.emergency_percent_remaining_lt) return 'emergency';
  if (percent < s.asap_percent_remaining_lt) return 'asap';
  if (percent < s.ready_percent_remaining_lt) return 'ready';
  if (percent < s.early_percent_remaining_lt) return 'early';
  return null;
}

export function thresholdOf(tier: Tier, s: Settings): number {
  // A switch, not a key built from the tier's name: every decision's reason says its threshold.
  switch (tier) {
    case 'emergency':
      return s.emergency_percent_remaining_lt;
    case 'asap':
      return s.asap_percent_remaining_lt;
    case 'ready':
      return s.ready_percent_remaining_lt;
    case 'early':
      return s.early_percent_remaining_lt;
    default: {
      const unknown: never = tier;
      throw new Error(`unknown tier ${String(unknown)}`);
    }
  }
}

export function fmtPercent(p: number): string {
  return `${p.toFixed(1)}%`;
}
