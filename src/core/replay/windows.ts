/**
 * Context windows for `rawr replay` and the panel's live follow: which window a recorded session ran
 * with, and why that one.
 *
 * Transcripts rarely say. Codex rollouts do (`model_context_window`, already the effective window: 95%
 * of the model's catalog window, e.g. 258,400 of 272,000). Claude Code transcripts name the model
 * (`message.model`, e.g. `claude-opus-4-6`) but not the window, and the `[1m]` suffix a user picks
 * (`/model opus[1m]`) is not written into the transcript. So, first match wins:
 *   1. `--window N` (the person knows better);
 *   2. the window the recording states;
 *   3. the model table below, for the model of most main-thread model calls;
 *   4. 200,000 (the smallest window of a current Claude model, the historical default).
 * Then one correction from the recording itself: Claude Code compacts automatically ~33k below the window
 * (167,094 of 200k and 990,092 of 1M in the recordings we have), and never lets the context reach it,
 * so an automatic compaction at ≤ 200k under a 1M table entry means the session ran with 200k (1M is
 * opt-in on some plans and Claude Code versions), and a recorded context above the table's window
 * means the larger window.
 */
import type { Recording } from './recording';

export interface ModelWindow {
  /** Matched against the lowercased model name. */
  pattern: RegExp;
  window: number;
  /** Human name of the row, for the "why" text. */
  label: string;
}

/**
 * Input context windows by model, from the vendors' model pages (Anthropic: platform.claude.com/docs/en/models,
 * "Context windows"; OpenAI/Codex: the Codex model catalog), as of November 2026. First match wins.
 * Claude Sonnet 4.5 and Sonnet 4 have 1M only behind a beta header, so 200k here.
 */
export const MODEL_WINDOWS: readonly ModelWindow[] = [
  { pattern: /\[1m\]/, window: 1_000_000, label: 'a [1m] model (1M context chosen explicitly)' },
  { pattern: /^(?:anthropic\.|us\.anthropic\.)?claude-(?:fable|mythos)-\d/, window: 1_000_000, label: 'Claude Fable / Mythos 5.x: 1M' },
  { pattern: /^(?:anthropic\.|us\.anthropic\.)?claude-(?:opus|sonnet)-5(?:\b|[-.])/, window: 1_000_000, label: 'Claude Opus / Sonnet 5.x: 1M' },
  { pattern: /^(?:anthropic\.|us\.anthropic\.)?claude-haiku-5-5\b/, window: 1_000_000, label: 'Claude Haiku 5.5: 1M' },
  { pattern: /^(?:anthropic\.|us\.anthropic\.)?claude-opus-4-[678]\b/, window: 1_000_000, label: 'Claude Opus 4.6–4.8: 1M' },
  { pattern: /^(?:anthropic\.|us\.anthropic\.)?claude-sonnet-4-6\b/, window: 1_000_000, label: 'Claude Sonnet 4.6: 1M' },
  { pattern: /^(?:anthropic\.|us\.anthropic\.)?claude-/, window: 200_000, label: 'Claude models before 4.6 (Opus 4.5, Sonnet 4.5, Haiku 4.5, 3.x): 200k' },
  { pattern: /^(?:opus|sonnet|haiku)$/, window: 200_000, label: 'a Claude Code alias without [1m]: 200k' },
  { pattern: /^gpt-5\.3-codex-spark\b/, window: 128_000, label: 'GPT-5.3 Codex Spark: 128k' },
  { pattern: /^gpt-5/, window: 272_000, label: 'GPT-5.x in Codex: 272k (Codex reports 95% of it)' },
  { pattern: /^gpt-4\.1/, window: 1_047_576, label: 'GPT-4.1: 1,047,576' },
  { pattern: /^(?:gpt-4o|o[134])/, window: 128_000, label: 'GPT-4o / o-series: 128k' },
];

export const DEFAULT_WINDOW = 200_000;

export type WindowSource = 'option' | 'recording' | 'model' | 'evidence' | 'default';
export interface WindowChoice {
  window: number;
  source: WindowSource;
  /** One sentence: which window and why, e.g. "model claude-opus-5-5: Claude Opus / Sonnet 5.x: 1M". */
  why: string;
  model?: string;
}

/** The table row for a model name, or undefined. */
export function modelWindow(model: string): ModelWindow | undefined {
  const m = model.trim().toLowerCase();
  return MODEL_WINDOWS.find((row) => row.pattern.test(m));
}

const k = (n: number) => (n >= 1_000_000 && n % 1_000_000 === 0 ? `${n / 1_000_000}M` : n >= 1000 ? `${Math.round(n / 1000)}k` : String(n));

/**
 * See the module comment for the order. `rec` may be a partial recording (live follow). `cap`: the
 * compaction window the person chose for the agent (ReplayOptions.windowCap): never more than that.
 */
export function chooseWindow(
  rec: Pick<Recording, 'window' | 'models' | 'format'> & { items?: Recording['items'] },
  override?: number,
  cap?: number,
): WindowChoice {
  const choice = chooseUncapped(rec, override);
  return cap !== undefined && cap > 0 && cap < choice.window
    ? { ...choice, window: cap, why: `${choice.why}; capped at ${k(cap)} (the compaction window the person set: CLAUDE_CODE_AUTO_COMPACT_WINDOW)` }
    : choice;
}

function chooseUncapped(rec: Pick<Recording, 'window' | 'models' | 'format'> & { items?: Recording['items'] }, override?: number): WindowChoice {
  if (override !== undefined) return { window: override, source: 'option', why: `--window ${override}` };
  if (rec.window !== undefined) {
    const stated = rec.format === 'codex' ? 'Codex recorded model_context_window' : 'the recording states it';
    return { window: rec.window, source: 'recording', why: `${stated} (${rec.window})` };
  }
  const models = rec.models ?? [];
  const main = models[0];
  const others =
    models.length > 1
      ? `; also used: ${models
          .slice(1)
          .map((m) => `${m.name} (${m.calls} calls)`)
          .join(', ')}`
      : '';
  const row = main ? modelWindow(main.name) : undefined;
  let choice: WindowChoice =
    main && row
      ? { window: row.window, source: 'model', why: `model ${main.name} (${main.calls} calls): ${row.label}${others}`, model: main.name }
      : {
          window: DEFAULT_WINDOW,
          source: 'default',
          why: main ? `model ${main.name} is not in the window table: default 200k${others}` : 'no model named in the recording: default 200k',
          ...(main ? { model: main.name } : {}),
        };
  for (const it of rec.items ?? []) {
    if (
      it.type === 'native_compaction' &&
      it.trigger === 'auto' &&
      it.preTokens !== undefined &&
      rec.format === 'claude' &&
      choice.window > DEFAULT_WINDOW &&
      it.preTokens <= DEFAULT_WINDOW
    ) {
      choice = {
        ...choice,
        window: DEFAULT_WINDOW,
        source: 'evidence',
        why: `${choice.why}; but Claude Code compacted by itself at ${k(it.preTokens)} tokens (line ${it.line}), so this session ran with 200k`,
      };
      break;
    }
  }
  let peak = 0;
  for (const it of rec.items ?? []) if (it.type === 'usage' && it.contextTokens > peak) peak = it.contextTokens;
  if (peak > choice.window) {
    const bigger = peak <= 1_000_000 ? 1_000_000 : Math.ceil(peak / 100_000) * 100_000;
    choice = {
      ...choice,
      window: bigger,
      source: 'evidence',
      why: `${choice.why}; but the recorded context reached ${k(peak)}, so the window is ${k(bigger)}`,
    };
  }
  return choice;
}
