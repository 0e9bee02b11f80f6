/**
 * The judgment call (docs/ARCHITECTURE.md#judgment): prompt assembly from the two judgment templates,
 * with the plan trail and the user-request chain it needs to tell a phase boundary from a pause, strict
 * JSON validation of the answer, and the deterministic fallback used when the answer is invalid, late
 * or unavailable.
 */
import * as z from 'zod';
import { fillTemplate, type Prompts } from '../prompts/promptSet';
import { describeForecast } from './forecast';
import type { Decision, Trail } from '../engine/types';
import type { PlanState } from '../signals/plan';
import { clip } from '../text/clip';

export const JudgmentSchema = z.object({ should_compact: z.boolean(), reason: z.string().min(1).max(2000) }).strict();
export type Judgment = z.infer<typeof JudgmentSchema>;

export function buildJudgmentPrompt(
  prompts: Prompts,
  d: Decision,
  ctx: { threadId: string; turn: number; tokens: { used: number; window: number } | null; trail: Trail; plan: PlanState | null },
): { system: string; user: string } {
  const chain = ctx.trail.userRequests;
  const userRequestChain = chain.length
    ? chain.map((r, k) => `${k + 1}. ${k === chain.length - 1 ? '**[current ask]** ' : ''}${clip(r.text.replace(/\s+/g, ' '), 400)}`).join('\n')
    : '(none recorded)';
  const planTrail = ctx.plan
    ? ctx.plan.steps.map((st) => `- [${st.status === 'completed' ? 'x' : st.status === 'in_progress' ? '~' : ' '}] ${st.text}`).join('\n')
    : '(no plan)';
  const user = fillTemplate(prompts.judgmentContext, {
    tier: d.tier ?? 'none',
    percentRemaining: d.percentRemaining ?? 'unknown',
    boundariesJson: JSON.stringify(d.boundaries.map((b) => ({ kind: b.kind, strength: b.strength, source: b.source, detail: b.detail }))),
    threadId: ctx.threadId,
    turnId: ctx.turn,
    totalUsageTokens: ctx.tokens?.used ?? 'unknown',
    modelContextWindow: ctx.tokens?.window ?? 'unknown',
    phaseForecast: describeDecisionForecast(d),
    lastAgentMessage: clip(ctx.trail.lastAgentMessage || '(none)', 2000),
    transcriptExcerpt: ctx.trail.excerpt.map((e) => `${e.role}: ${clip(e.text.replace(/\s+/g, ' '), 300)}`).join('\n') || '(empty)',
    planTrail,
    userRequestChain,
  });
  return { system: prompts.judgment, user };
}

/** The forecast as the judgment reads it: numbers, what they rest on, and the verdict. */
function describeDecisionForecast(d: Decision): string {
  const f = d.forecast;
  if (!f) return '(none: no token count, the forecast is off, or no strong boundary here)';
  const basis =
    f.basis === 'thread'
      ? `the largest of this thread's recent phases (${f.phases} completed)`
      : f.basis === 'workspace'
        ? 'earlier threads in this workspace (no phase completed here yet)'
        : 'the settings prior (no phase completed yet)';
  const verdict = {
    compact: `compact at this phase close: it ${f.avoids ?? 'avoids an emergency in the next phase'}`,
    fits: 'the next phase fits: a later boundary is enough',
    plan_done: 'the plan is finished: decide at the end of the turn',
    defer: 'no verdict: the tier rule decides',
  }[f.verdict];
  return `- ${describeForecast(f)} (estimate from ${basis})${f.planFinished ? '\n- every step of the plan is completed' : ''}\n- verdict: ${verdict}`;
}

/** Accepts the strict JSON, tolerating only a surrounding code fence (models add them despite the rules). */
export function parseJudgment(text: string): { ok: true; value: Judgment } | { ok: false; error: string } {
  const trimmed = text.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/i, '$1');
  let raw: unknown;
  try {
    raw = JSON.parse(trimmed);
  } catch {
    return { ok: false, error: `not JSON: ${clip(trimmed, 80)}` };
  }
  const parsed = JudgmentSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, error: `schema: ${parsed.error.issues.map((x) => `${x.path.join('.') || '(root)'} ${x.message}`).join('; ')}` };
  return { ok: true, value: parsed.data };
}

/**
 * Without a usable judgment the rule's own verdict stands: the threshold and a tier-appropriate strong
 * boundary already passed, so the fallback approves — except an early-tier boundary that is only a
 * commit or PR step, where the conservative reading of the judgment prompt ("prefer keeping context
 * together in Early") waits for a completed plan step or an agent-done signal (docs/ARCHITECTURE.md#judgment).
 */
export function fallbackJudgment(d: Decision, why: string): Judgment {
  // The phase forecast already weighed the room against the next phase: keeping the context together
  // here means an emergency compaction mid-phase later.
  if (d.forecast?.verdict === 'compact') {
    return {
      should_compact: true,
      reason: `fallback (${why}): compacting now ${d.forecast.avoids ?? `avoids an emergency: the next phase (≈ ${Math.round(d.forecast.nextPhaseTokens / 1000)}k tokens) does not fit in the ${Math.round(d.forecast.roomTokens / 1000)}k left before emergency`}`,
    };
  }
  const kinds = new Set(d.boundaries.filter((b) => d.matched.includes(b.id)).map((b) => b.kind));
  if (d.tier === 'early' && !kinds.has('plan_checkpoint') && !kinds.has('agent_done')) {
    return { should_compact: false, reason: `fallback (${why}): early tier and no completed plan step or done signal — keeping context together` };
  }
  return { should_compact: true, reason: `fallback (${why}): the rule passed with ${[...kinds].join(', ')}` };
}
