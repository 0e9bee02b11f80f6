/**
 * Continuation packets (seed 000). Variant A — the agent writes it — is accepted only when it is
 * non-trivial and has the required sections; otherwise Variant B — rawr assembles it from the structured
 * trail, then appends the recent-activity tail verbatim.
 */
import type { Trail } from '../engine/types';
import type { PlanState } from '../signals/plan';
import { defang, quoteBlock } from '../text/quote';

/** Headings the packet request asks for; matched loosely (any heading level, bold, or a "Label:" line). */
export const PACKET_SECTIONS: Array<{ name: string; pattern: RegExp }> = [
  { name: 'What just completed', pattern: /(just\s+)?complete|what (i|we) did|done so far|accomplished/i },
  { name: 'Where we are now', pattern: /where (we|i) are|current state|status/i },
  { name: "What's next", pattern: /next( steps)?|to do|remaining/i },
  { name: 'Decisions, invariants and traps', pattern: /decision|invariant|trap|constraint|pitfall|gotcha|caveat/i },
];

const HEADING = /^\s{0,3}(?:#{1,6}\s+(.+?)\s*#*\s*$|\*\*(.+?)\*\*:?\s*$|([A-Z][^:\n]{2,60}):\s*$)/gm;

export function validateAgentPacket(text: string, minChars: number): { ok: true } | { ok: false; why: string } {
  const body = text.trim();
  if (body.length < minChars) return { ok: false, why: `too short (${body.length} < ${minChars} characters)` };
  const headings: string[] = [];
  for (const m of body.matchAll(HEADING)) headings.push(m[1] ?? m[2] ?? m[3] ?? '');
  const missing = PACKET_SECTIONS.filter((s) => !headings.some((h) => s.pattern.test(h))).map((s) => s.name);
  // Three of four sections is a usable packet; "decisions" is the one agents most often fold into others.
  if (missing.length > 1) return { ok: false, why: `missing sections: ${missing.join(', ')}` };
  return { ok: true };
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}… [${s.length - n} more characters]` : s);

export function assembleWatcherPacket(trail: Trail, plan: PlanState | null, tailCount: number): string {
  const out: string[] = ['_Continuation packet assembled by the rawr watcher (Variant B), not written by the agent._', ''];
  out.push('## User request chain');
  const reqs = trail.userRequests;
  if (reqs.length === 0) out.push('- (no user request recorded)');
  reqs.forEach((r, k) => {
    const current = k === reqs.length - 1;
    out.push(`${k + 1}. ${current ? '**Current ask:** ' : ''}${defang(clip(r.text.replace(/\s+/g, ' ').trim(), current ? 1500 : 300))}`);
  });
  out.push('', '## Agent plan and action chain');
  if (plan && plan.steps.length) {
    for (const st of plan.steps) out.push(`- [${st.status === 'completed' ? 'x' : st.status === 'in_progress' ? '~' : ' '}] ${defang(st.text)}`);
  } else out.push('- (no structured plan)');
  const actions = trail.actions.slice(-15);
  if (actions.length) {
    out.push('', 'Recent actions, in order:');
    for (const a of actions) out.push(`- turn ${a.turn}: ${defang(a.text)}`);
  }
  out.push('', '## Where we are now');
  const inProgress = plan?.steps.find((s) => s.status === 'in_progress');
  if (inProgress) out.push(`- In progress: ${defang(inProgress.text)}`);
  if (trail.commits.length) out.push(`- Latest commits: ${defang(trail.commits.slice(-5).join('; '))}`);
  if (trail.files.length) out.push(`- Files touched recently: ${defang(trail.files.slice(-12).join(', '))}`);
  out.push(`- Last agent message: ${defang(clip((trail.lastAgentMessage || '(none)').replace(/\s+/g, ' ').trim(), 800))}`);
  out.push('', "## What's next");
  const nextSteps = plan?.steps.filter((s) => s.status !== 'completed') ?? [];
  if (nextSteps.length) for (const st of nextSteps.slice(0, 8)) out.push(`- ${defang(st.text)}`);
  else out.push('- Continue the current ask above; check the last actions below before repeating any of them.');
  out.push('', '## Decisions, invariants and traps');
  const errors = trail.toolTail.filter((t) => t.isError);
  if (errors.length) for (const e of errors.slice(-3)) out.push(`- A recent ${defang(e.name)} call failed: ${defang(clip(e.output ?? '', 200).replace(/\s+/g, ' '))}`);
  out.push('- Do not redo work that the commits and completed plan steps above show as done.');
  if (tailCount > 0 && trail.toolTail.length) {
    out.push('', `## Recent activity (last ${Math.min(tailCount, trail.toolTail.length)} tool calls, verbatim)`);
    for (const t of trail.toolTail.slice(-tailCount)) {
      // Tool input and output are untrusted: fenced so they cannot close the block, markers defanged.
      out.push('', `### ${defang(t.name.replace(/\s+/g, ' '))}`, quoteBlock(clip(t.input, 1200)));
      if (t.output !== undefined) out.push(`Result${t.isError ? ' (error)' : ''}:`, quoteBlock(clip(t.output, 1200)));
    }
  }
  return out.join('\n');
}
