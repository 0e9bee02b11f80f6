/** The synthetic messages of the golden path, filled from the editable prompt files. */
import { fillTemplate, type Prompts } from '../prompts/promptSet';
import type { Decision, Trail } from '../engine/types';
import type { PlanState } from '../signals/plan';
import { defang } from '../text/quote';

const JUDGMENT_SPLIT = ' — judgment: ';

/**
 * Why the sequence starts now, without what the heads-up already says (boundary, tier, percent): the
 * decision's full reason repeats those, and the chat would show them twice in one block.
 */
export function whyNow(d: Decision): string {
  if (d.code === 'manual') return d.reason;
  const j = d.reason.lastIndexOf(JUDGMENT_SPLIT);
  if (j >= 0) return `judgment: ${d.reason.slice(j + JUDGMENT_SPLIT.length)}`;
  if (d.code === 'emergency') return 'the context is nearly full (emergency tier): compacting at this safe point without waiting for a boundary';
  if (d.code === 'preflight') return 'the last turn ended low on context: compacting before the next message is sent';
  return 'the context is in a compaction tier and a phase boundary was reached';
}

export function headsUpText(prompts: Prompts, d: Decision): string {
  const matched = d.boundaries.filter((b) => d.matched.includes(b.id));
  const boundary = matched.length
    ? matched.map((b) => `${b.kind} ${b.detail}`.trim()).join('; ')
    : d.code === 'manual'
      ? 'requested by the user'
      : 'emergency: no boundary needed';
  return fillTemplate(prompts.headsUp, {
    reason: whyNow(d),
    tier: d.tier ?? 'manual',
    percentRemaining: d.percentRemaining ?? '?',
    boundary,
  });
}

/** `.scratch/agent-<name>.scratch.md`; the name is reduced to [a-z0-9-] so it can never leave .scratch/. */
export function scratchPathFor(agentName: string): string {
  const safe =
    agentName
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'rawr';
  return `.scratch/agent-${safe}.scratch.md`;
}

/** Who produced the packet the handoff gives back: the agent, the rawr watcher, or a hook snapshot. */
export type PacketOrigin = 'agent' | 'watcher' | 'snapshot';
const ORIGIN_TEXT: Record<PacketOrigin, string> = {
  agent: 'you wrote before the compaction',
  watcher: 'rawr assembled from the session trail before the compaction (you did not write it)',
  snapshot: 'rawr saved as a snapshot just before the compaction (you did not write it)',
};

export function handoffText(
  prompts: Prompts,
  packet: string,
  scratchPath: string | undefined,
  plan: PlanState | null,
  trail: Trail,
  opts: { origin?: PacketOrigin; planFile?: string } = {},
): string {
  const steps: string[] = [];
  const planLine =
    plan && plan.steps.length
      ? `Re-read the plan: ${plan.steps.map((s) => `${s.status === 'completed' ? '✓' : '•'} ${s.text}`).join(' | ')}`
      : 'Re-read the plan (the "What\'s next" section of the packet, and any plan file it names)';
  steps.push(`1. ${planLine}${opts.planFile ? ` — plan file: ${opts.planFile}` : ''}`);
  steps.push('2. Run: git diff --stat');
  steps.push(`3. Review the in-scope files for changes already made${trail.files.length ? `: ${trail.files.slice(-10).join(', ')}` : ''}`);
  steps.push('4. Reconstruct your position from the packet below before taking the next step');
  return fillTemplate(prompts.handoff, {
    // The packet is quoted inside <continuation-packet>: it cannot close the tag or speak as rawr.
    packet: defang(packet.trim()),
    scratchLine: scratchPath ? `\nYour scratch notes from before the compaction are in \`${scratchPath}\` — read them when you need the details.\n` : '',
    recoverySteps: steps.join('\n'),
    packetOrigin: ORIGIN_TEXT[opts.origin ?? 'agent'],
  });
}
