/** The synthetic messages of the golden path, filled from the editable prompt files. */
import { fillTemplate, type Prompts } from '../prompts/promptSet';
import type { Decision, Trail } from '../engine/types';
import type { PlanState } from '../signals/plan';
import { defang } from '../text/quote';

export function headsUpText(prompts: Prompts, d: Decision): string {
  const matched = d.boundaries.filter((b) => d.matched.includes(b.id));
  const boundary = matched.length ? matched.map((b) => `${b.kind} ${b.detail}`.trim()).join('; ') : d.code === 'manual' ? 'requested by the user' : 'emergency: no boundary needed';
  return fillTemplate(prompts.headsUp, {
    reason: d.reason,
    tier: d.tier ?? 'manual',
    percentRemaining: d.percentRemaining ?? '?',
    boundary,
  });
}

/** `.scratch/agent-<name>.scratch.md`; the name is reduced to [a-z0-9-] so it can never leave .scratch/. */
export function scratchPathFor(agentName: string): string {
  const safe = agentName.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'rawr';
  return `.scratch/agent-${safe}.scratch.md`;
}

/** Who produced the packet the handoff gives back: the agent (Variant A), the watcher (Variant B), or a hook snapshot. */
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
  const planLine = plan && plan.steps.length
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
