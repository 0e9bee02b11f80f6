/**
 * Calibrates the provider's token estimate against what the server itself reports.
 *
 * No tokenizer for an arbitrary OpenAI-compatible server's model is available offline, so
 * `estimateTokens` counts about 4 characters per token. That is close for English text and code and
 * far off for CJK text or dense JSON. The server knows better: with `stream_options.include_usage` it
 * reports `usage.prompt_tokens` for the exact request it just read. The ratio of that number to rawr's
 * estimate of the same request (messages plus tool definitions) is a per-model correction factor.
 *
 * The factor in use changes only when a new sample differs from it by more than CHANGE_THRESHOLD, and
 * each change bumps an epoch: whoever caches per-message counts (the participant's TokenCounter) keys
 * its cache by that epoch, so a thread is never summed from counts made with two different factors.
 * vscode-free, so it is unit-tested on its own.
 */

/** Samples smaller than this are dominated by per-message overheads and chat-template tokens: ignored. */
export const MIN_SAMPLE_ESTIMATE = 256;
/** The factor is kept within these bounds: a server reporting something wilder is not believed. */
export const MIN_FACTOR = 0.25;
export const MAX_FACTOR = 4;
/** A new sample replaces the factor in use only when it differs by more than this (relative). */
export const CHANGE_THRESHOLD = 0.1;

export interface Calibration {
  /** Multiply rawr's estimate by this. */
  factor: number;
  /** New whenever `factor` changes; never reused, even after reset (0 = uncalibrated, factor 1). */
  epoch: number;
  /** The sample that set the factor: the server's prompt tokens and rawr's estimate of that request. */
  from?: { promptTokens: number; estimate: number };
}

export type ObserveResult = { changed: true; calibration: Calibration } | { changed: false; why: string };

export class TokenCalibration {
  private readonly byModel = new Map<string, Calibration>();
  private lastEpoch = 0;

  get(modelId: string): Calibration {
    return this.byModel.get(modelId) ?? { factor: 1, epoch: 0 };
  }

  /** rawr's estimate for `modelId`, corrected by the model's factor. */
  scale(modelId: string, estimate: number): number {
    return Math.ceil(estimate * this.get(modelId).factor);
  }

  /** One request's evidence: rawr estimated `estimate` tokens, the server counted `promptTokens`. */
  observe(modelId: string, estimate: number, promptTokens: unknown): ObserveResult {
    if (typeof promptTokens !== 'number' || !Number.isFinite(promptTokens) || promptTokens <= 0) {
      return { changed: false, why: `no usable prompt_tokens (${JSON.stringify(promptTokens)})` };
    }
    if (estimate < MIN_SAMPLE_ESTIMATE) return { changed: false, why: `request too small to calibrate (${estimate} estimated tokens)` };
    const sample = Math.min(MAX_FACTOR, Math.max(MIN_FACTOR, promptTokens / estimate));
    const current = this.get(modelId);
    if (Math.abs(sample / current.factor - 1) <= CHANGE_THRESHOLD) return { changed: false, why: `within ${CHANGE_THRESHOLD * 100}% of the factor in use` };
    const next: Calibration = { factor: sample, epoch: ++this.lastEpoch, from: { promptTokens, estimate } };
    this.byModel.set(modelId, next);
    return { changed: true, calibration: next };
  }

  /** Settings changed (another server, other models): what was learnt no longer applies. */
  reset(): void {
    this.byModel.clear();
  }
}
