/**
 * Overflow recovery: when the agent's model request is rejected as too long for the model's context, the
 * arbiter runs an emergency compaction with the watcher packet and no model call (engine event
 * `overflow`), then the request is made once more. A second rejection stops the turn with a clear message;
 * the thread stays as it is (compacted, and /undo still restores what was there before).
 */

/**
 * How servers say "too long": OpenAI and vLLM `context_length_exceeded` / "maximum context length",
 * Anthropic "prompt is too long", llama.cpp "exceeds the available context size", LM Studio / Ollama
 * "context length" / "context window"; rawr's own provider names the code in its message (openaiProvider.ts).
 */
const TOO_LONG =
  /context[_ ]length[_ ]exceeded|prompt is too long|maximum context length|exceeds? (the )?(available |maximum )?context|context (window|size|length) (is )?(exceeded|too small|overflow)|too many (input )?tokens|input is too long|request too large for model|reduce the length of the messages/i;

/** True when `err` (a LanguageModelError, an Error from a provider, or its cause chain) says the request was too long. */
export function isContextOverflow(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const o = e as { message?: unknown; code?: unknown };
    if (typeof o.code === 'string' && TOO_LONG.test(o.code)) return true;
    if (typeof o.message === 'string' && TOO_LONG.test(o.message)) return true;
    if (typeof e === 'string' && TOO_LONG.test(e)) return true;
  }
  return false;
}

const firstLine = (err: unknown) =>
  String((err as { message?: unknown })?.message ?? err)
    .split('\n')[0]!
    .slice(0, 400);

export interface OverflowPort {
  /** Tells the arbiter (event `overflow`) and runs what it says; true when the thread was compacted. */
  compact(error: string): Promise<boolean>;
  /** A line in the chat. */
  say(markdown: string): void;
}

export type Recovered<T> = { ok: true; value: T } | { ok: false; message: string };

/** Runs `call`; on a too-long rejection compacts (no LM) and runs it once more. Other errors propagate. */
export async function callWithOverflowRecovery<T>(call: () => Promise<T>, port: OverflowPort): Promise<Recovered<T>> {
  let error: string;
  try {
    return { ok: true, value: await call() };
  } catch (err) {
    if (!isContextOverflow(err)) throw err;
    error = firstLine(err);
  }
  port.say(
    `\n\n_[rawr] The model rejected the request as too long for its context (${error}). Compacting now with rawr's own packet (no model call), then sending it again once._\n\n`,
  );
  const compacted = await port.compact(error);
  if (!compacted) {
    return {
      ok: false,
      message: `\n\n_[rawr] Stopped: the model rejected the request as too long and the emergency compaction did not happen. The thread is unchanged; use **Rawr: Compact Now** or start a new thread._\n\n`,
    };
  }
  try {
    return { ok: true, value: await call() };
  } catch (err) {
    if (!isContextOverflow(err)) throw err;
    return {
      ok: false,
      message: `\n\n_[rawr] Stopped: the model rejected the request as too long again, even after the emergency compaction (${firstLine(err)}). The thread is intact (compacted; /undo restores it as it was). Lower \`rawr.keepRecentTokens\`, pick a model with a larger context, or check the model's configured context window._\n\n`,
    };
  }
}
