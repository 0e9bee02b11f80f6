/**
 * Whether rawr steers Claude Code's compaction in a project, and at which size Claude Code is made to
 * ask: `<root>/.rawr/claude/steer.json`, written by `rawr hooks claude install` (on by default,
 * `--no-steer` off). The PreCompact hook refuses an automatic compaction only when this file says
 * `steer: true`; without it (hooks installed by an earlier rawr) it never refuses, as before.
 *
 * Claude Code asks its PreCompact hook only once its context passes its auto-compact threshold. Measured
 * on 2.1.332 (../shared/claude-code-e2e/steer/README.md, docs/claude-code.md "Which window"):
 *   - the window it compacts in is `CLAUDE_CODE_AUTO_COMPACT_WINDOW` (environment), else the merged
 *     settings' `autoCompactWindow` (`.claude/settings.local.json` over `.claude/settings.json` over
 *     `~/.claude/settings.json`), clamped to the model's window; with neither, a 200k model (Sonnet 4.5)
 *     has no threshold at all (it compacts only when the API refuses a request), a 1M model uses its own;
 *   - the threshold is that window − 33,000, or, with `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` (a percentage, also
 *     read from a settings file's `env`), that percentage of the effective window (window − 20,000) when
 *     lower.
 * One `autoCompactWindow` (563,000 for rawr's early line in 1M) is clamped to 200k in a 200k session and
 * asks there only at 167k, far past rawr's early line. So rawr writes `autoCompactWindow` = the largest
 * window (every model's own window then applies) and the percentage that puts the threshold just before
 * the early line in that window; in a smaller window the same percentage asks a little earlier (measured:
 * 1M asks from 529,200, 200k from 97,200), never later. The hook then answers every request from there on.
 */
import * as path from 'node:path';
import * as z from 'zod';
import type { Settings } from '../../settings/schema';
import { readStateFile, writeFileAtomic } from '../shared/store';
import { parseJsonc } from '../shared/jsonEdit';
import { safeReadTextIfExists } from '../../io/safeRead';

/** Claude Code's auto-compact threshold sits this far below the configured window (measured, above). */
export const CLAUDE_THRESHOLD_BELOW_WINDOW = 33_000;
/** Claude Code's effective window: the window less the output it reserves (measured, above). */
const CLAUDE_OUTPUT_RESERVE = 20_000;
/** The largest window of Claude Code's models (Opus 4.6+, the 5.x models): rawr's `autoCompactWindow`. */
export const CLAUDE_LARGEST_WINDOW = 1_000_000;
/** Claude Code is made to ask this share of the window before rawr's early line: its count and rawr's differ a little. */
const ASK_MARGIN = 0.02;

export const SteerConfig = z.object({
  steer: z.boolean(),
  /** The model's context window the threshold was computed for. */
  window: z.number().int().positive(),
  /** The `autoCompactWindow` rawr wrote into the settings file (null: none, the person's own value is kept). */
  autoCompactWindow: z.number().int().positive().nullable(),
  /**
   * The `env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` rawr wrote beside it (null or absent: none — the person's or
   * the team's own value is kept, or an earlier rawr wrote only the window) and whether rawr created the
   * `env` object for it (uninstall then removes an `env` left empty).
   */
  askPercent: z.string().max(16).nullable().optional(),
  envCreated: z.boolean().optional(),
  /** The settings file it went into, relative to the project. */
  settingsFile: z.string(),
});
export type SteerConfig = z.infer<typeof SteerConfig>;

export const steerConfigFile = (root: string) => path.join(root, '.rawr', 'claude', 'steer.json');

/**
 * What rawr installs so that Claude Code asks from just before rawr's early line in every window up to
 * `window` (at least the largest model's): `autoCompactWindow` = that window, and the percentage of its
 * effective window where the early line (less a margin) falls. Smaller windows get a smaller share of
 * their whole (their output reserve weighs more): they ask a little earlier, never after the early line.
 */
export function askLineFor(window: number, settings: Pick<Settings, 'early_percent_remaining_lt'>): { autoCompactWindow: number; percent: string } {
  const w = Math.max(window, CLAUDE_LARGEST_WINDOW);
  const ask = 1 - settings.early_percent_remaining_lt / 100 - ASK_MARGIN;
  const pct = Math.floor((100 * ask * w) / (w - CLAUDE_OUTPUT_RESERVE));
  return { autoCompactWindow: w, percent: String(Math.min(100, Math.max(1, pct))) };
}

/** A `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` as Claude Code reads it (parseFloat, in (0, 100]); null otherwise. */
export function askPercentOf(v: unknown): number | null {
  const n = typeof v === 'string' ? parseFloat(v) : typeof v === 'number' ? v : NaN;
  return n > 0 && n <= 100 ? n : null;
}

/** Where Claude Code starts asking (its auto-compact threshold) in a window, with the percentage override if any. */
export function claudeAsksFrom(window: number, percent: number | null): number {
  const fixed = window - CLAUDE_THRESHOLD_BELOW_WINDOW;
  return percent === null ? fixed : Math.min(fixed, Math.floor((window - CLAUDE_OUTPUT_RESERVE) * (percent / 100)));
}

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

/** Claude Code's settings files, the one that wins first (measured on 2.1.332: local over project over user). */
const SETTINGS_LAYERS = (root: string, home: string | undefined) => [
  path.join(root, '.claude', 'settings.local.json'),
  path.join(root, '.claude', 'settings.json'),
  ...(home ? [path.join(home, '.claude', 'settings.json')] : []),
];
const MAX_SETTINGS_BYTES = 4 * 1024 * 1024;

/**
 * The `autoCompactWindow` the person or their team chose in Claude Code's settings, as Claude Code
 * merges them (the first layer that sets a number wins; measured on 2.1.332, where the object form
 * `{"byModel": …, "default": N}` did not change the window, so only a number counts); null when none
 * is set or the winning one is the value rawr wrote (`rawrWrote`, the largest window: no cap). Read at
 * hook time (the person may have set it after rawr's install); unreadable files say nothing.
 */
export async function settingsWindow(root: string, home: string | undefined, rawrWrote: number | null): Promise<number | null> {
  for (const [i, file] of SETTINGS_LAYERS(root, home).entries()) {
    let value: unknown;
    try {
      const text = await safeReadTextIfExists(file, { maxBytes: MAX_SETTINGS_BYTES });
      if (text === undefined) continue;
      const parsed = parseJsonc(text);
      value = parsed.ok && typeof parsed.value === 'object' && parsed.value !== null ? (parsed.value as Record<string, unknown>).autoCompactWindow : undefined;
    } catch {
      continue;
    }
    if (typeof value !== 'number') continue;
    if (i === 0 && value === rawrWrote) return null;
    return Number.isFinite(value) && value > 0 ? Math.round(value) : null;
  }
  return null;
}
