/**
 * Whether rawr steers Claude Code's compaction in a project, and at which size Claude Code is made to
 * ask: `<root>/.rawr/claude/steer.json`, written by `rawr hooks claude install` (on by default,
 * `--no-steer` off). The PreCompact hook refuses an automatic compaction only when this file says
 * `steer: true`; without it (hooks installed by an earlier rawr) it never refuses, as before.
 *
 * Claude Code asks its PreCompact hook only once its context passes its auto-compact threshold. Measured
 * on 2.1.332 (../shared/claude-code-e2e/steer/README.md): the setting `autoCompactWindow: W` (in the
 * project's `.claude/settings.json` or `.claude/settings.local.json`; the environment variable
 * `CLAUDE_CODE_AUTO_COMPACT_WINDOW` wins over it) gives an effective window of W − 20,000 and a
 * threshold of W − 33,000. rawr sets W so that the threshold falls a little before its own early line,
 * and the hook then answers every request from there on with the arbiter's decision.
 */
import * as path from 'node:path';
import * as z from 'zod';
import type { Settings } from '../../settings/schema';
import { readStateFile, writeFileAtomic } from '../shared/store';

/** Claude Code's auto-compact threshold sits this far below the configured window (measured, above). */
export const CLAUDE_THRESHOLD_BELOW_WINDOW = 33_000;
/** Claude Code is made to ask this share of the window before rawr's early line: its count and rawr's differ a little. */
const ASK_MARGIN = 0.02;

export const SteerConfig = z.object({
  steer: z.boolean(),
  /** The model's context window the threshold was computed for. */
  window: z.number().int().positive(),
  /** The `autoCompactWindow` rawr wrote into the settings file (null: none, the person's own value is kept). */
  autoCompactWindow: z.number().int().positive().nullable(),
  /** The settings file it went into, relative to the project. */
  settingsFile: z.string(),
});
export type SteerConfig = z.infer<typeof SteerConfig>;

export const steerConfigFile = (root: string) => path.join(root, '.rawr', 'claude', 'steer.json');

/** The `autoCompactWindow` that makes Claude Code ask from just before rawr's early line. */
export function autoCompactWindowFor(window: number, settings: Pick<Settings, 'early_percent_remaining_lt'>): number {
  const early = window * (1 - settings.early_percent_remaining_lt / 100);
  const ask = early - window * ASK_MARGIN;
  return Math.max(CLAUDE_THRESHOLD_BELOW_WINDOW + 10_000, Math.round((ask + CLAUDE_THRESHOLD_BELOW_WINDOW) / 1000) * 1000);
}

/** Claude Code's auto-compact threshold for a configured window. */
export const claudeThreshold = (autoCompactWindow: number) => autoCompactWindow - CLAUDE_THRESHOLD_BELOW_WINDOW;

/** The project's steering configuration; null when absent or unreadable (then rawr does not steer). */
export async function readSteerConfig(root: string): Promise<SteerConfig | null> {
  try {
    const text = await readStateFile(steerConfigFile(root));
    if (text === null) return null;
    const parsed = SteerConfig.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Written by install, inside rawr's own state folder (`.rawr/claude/`, created and git-ignored by the caller). */
export function writeSteerConfig(root: string, c: SteerConfig): void {
  writeFileAtomic(steerConfigFile(root), `${JSON.stringify(c, null, 2)}\n`);
}
