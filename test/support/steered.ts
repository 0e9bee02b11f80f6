/** What the steering hooks' tests share: the shipped prompt set, a steering config for a window, a steered session. */
import type { SteeredSession } from '../../src/core/hooks/claude/steer';
import { askLineFor, type SteerConfig } from '../../src/core/hooks/claude/steerConfig';
import { loadPromptSet } from '../../src/core/prompts/promptSet';
import { dirReader, shippedPromptsDir } from '../../src/core/prompts/fs';

/** The shipped prompts and settings (the defaults a person who changed nothing has). */
export const SHIPPED = loadPromptSet([dirReader(shippedPromptsDir())]);

/** The steering config `rawr hooks claude install` writes for a model of `window` tokens. */
export function steerConfigFor(window: number): SteerConfig {
  const { autoCompactWindow, percent } = askLineFor(window, SHIPPED.settings);
  return { steer: true, window, autoCompactWindow, askPercent: percent, settingsFile: '.claude/settings.local.json' };
}

/** A session as the hooks give it to steer.ts (run.ts steerSession), with the shipped settings, at a fixed time. */
export function steeredSession(o: Pick<SteeredSession, 'dir' | 'root' | 'transcript'> & Partial<SteeredSession>): SteeredSession {
  return {
    sessionId: 'sess',
    config: steerConfigFor(1_000_000),
    settings: SHIPPED.settings,
    prompts: SHIPPED.prompts,
    env: {},
    settingsWindow: null,
    now: new Date('2026-11-20T11:00:00Z'),
    ...o,
  };
}
