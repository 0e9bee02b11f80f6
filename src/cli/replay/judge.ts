/**
 * `rawr replay --judge-url URL --judge-model ID`: the judgment calls of a replay answered by a real
 * OpenAI-compatible endpoint (the only network the CLI ever uses, and only when asked). The key comes
 * from the RAWR_JUDGE_API_KEY environment variable, never from a flag (flags end up in shell history).
 */
import OpenAI from 'openai';
import type { Judge } from './replayCommand';

export function openAIJudge(baseURL: string, model: string, apiKey = process.env.RAWR_JUDGE_API_KEY): Judge {
  // Local servers accept any key; the SDK insists on one.
  const client = new OpenAI({ baseURL, apiKey: apiKey || 'not-needed', maxRetries: 1, timeout: 60_000 });
  return async (system, user) => {
    const r = await client.chat.completions.create({
      model,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
      temperature: 0,
    });
    return r.choices[0]?.message?.content ?? '';
  };
}
