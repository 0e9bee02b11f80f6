/**
 * Continuation packets (docs/ARCHITECTURE.md#packets). The agent packet — the agent writes it — is
 * accepted only when it is non-trivial and has the required sections; otherwise the watcher packet —
 * rawr assembles it from the structured trail, then appends the recent-activity tail verbatim.
 */
import type { Trail } from '../engine/types';
import type { PlanState } from '../signals/plan';
import { assembleWatcherPacketText } from './watcherPacket';
import { defang } from '../text/quote';

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

/** The watcher packet (watcherPacket.ts): rawr's packet from the session trail. */
export function assembleWatcherPacket(trail: Trail, plan: PlanState | null, tailCount: number): string {
  // The trail is untrusted (tool output, file names, the model's words): rawr's markers and container
  // tags inside it are quoted, so the packet cannot close <continuation-packet> or speak as rawr.
  return defang(assembleWatcherPacketText(trail, plan, { tailCount }));
}

/**
 * The agent's packet standing in for the summary (knob agent_packet_replaces_summary): the facts rawr
 * recorded from the trail (commits, files edited, last command, errors…) are appended, at no model cost,
 * so what a summary would have kept is still there.
 */
export function withTrailFacts(agentPacket: string, trail: Trail, plan: PlanState | null): string {
  const facts = assembleWatcherPacketText(trail, plan, { tailCount: 0 })
    .split('\n')
    .slice(1)
    .map((l) => l.replace(/^## /, '### '))
    .join('\n');
  return `${agentPacket.trim()}\n\n## Facts rawr recorded from the session trail (no summary was written)\n${facts}`;
}
