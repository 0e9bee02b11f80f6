/**
 * One agent hook event, its input already read (main.ts's fast exit did not answer). Apart from ../hooks.ts
 * (usage, install) so that the engine bundle (dist/hookEngine.js, ./engine.ts), loaded before every model
 * request while Claude Code is over its threshold, holds only this path: no installer, no JSONC or TOML editor.
 */
import * as path from 'node:path';
import type { HookEvent } from '../../core/hooks/shared/input';
import { rawrCacheDir, writeHookOutput } from './main';
import { buildKey } from './resident';
import type { HookEventOutput, HookRun, RunHandoffs } from './types';
import { lostPreCompact, runHook, type AgentSpec } from '../../core/hooks/shared/run';
import { untrustedCacheNotes } from '../../core/io/ownedCache';
import { CLAUDE } from '../../core/hooks/claude/agent';
import { CODEX } from '../../core/hooks/codex/agent';

export const AGENTS: Record<string, AgentSpec> = { claude: CLAUDE, codex: CODEX };

/** One hook event with its stdin already read, run here; `env` is the hook process's environment. Never rejects. */
export async function hookEventOutput(
  agentName: HookRun['agent'],
  event: HookEvent,
  stdin: string,
  env: HookRun['env'],
  run: RunHandoffs = {},
): Promise<HookEventOutput> {
  const agent = AGENTS[agentName]!;
  try {
    const r = await runHook(agent, event, stdin, {
      env,
      // Keyed by this code's build (core/prompts/cache.ts): a rebuilt or upgraded rawr parses the prompt files again.
      promptCache: { dir: path.join(rawrCacheDir(env), 'prompt-sets'), codeKey: buildKey(__filename, '') ?? `${Date.now()}` },
      ...(run.later ? { later: run.later } : {}),
      ...(run.delivered ? { delivered: run.delivered } : {}),
    });
    return { stdout: r.stdout, stderr: [...r.stderr, ...untrustedCacheNotes()] };
  } catch (err) {
    return { stdout: '', stderr: [`rawr hooks ${agent.id} ${event}: ${(err as Error).message.replace(/\s+/g, ' ')}; nothing done`] };
  }
}

/**
 * Claude Code's automatic PreCompact whose answer the resident engine took and never gave (`why`): the
 * verdict from the transcript's tail only (run.ts lostPreCompact), never the run again. Never rejects.
 */
export async function lostPreCompactOutput(stdin: string, why: string, env: HookRun['env']): Promise<HookEventOutput> {
  try {
    const r = await lostPreCompact(stdin, why, { env });
    return { stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    return { stdout: '', stderr: [`rawr hooks claude PreCompact: ${(err as Error).message.replace(/\s+/g, ' ')}; nothing done`] };
  }
}

/**
 * One hook event with its stdin already read (main.ts reads it first for its fast exit), printed; always
 * 0. What it gives the model is claimed before it prints (run.ts claimNow): hook processes for one session
 * may race (the resident engine's busy fallback beside it), and only the one that made the claim prints.
 */
export async function runHookEvent(agentName: 'claude' | 'codex', event: HookEvent, stdin: string): Promise<number> {
  writeHookOutput(await hookEventOutput(agentName, event, stdin, process.env));
  return 0;
}
