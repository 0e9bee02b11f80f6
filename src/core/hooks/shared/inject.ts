/**
 * The text injected after a compaction. It is rawr's own handoff (`handoffText`, filled from
 * prompts/rawr-handoff.md or a workspace override): the same "⚠️ CONTEXT COMPACTION DETECTED" first
 * line and the same mandatory recovery steps (re-read the plan, `git diff --stat`, review the in-scope
 * files, reconstruct the position), with the PreCompact snapshot in place of the continuation packet.
 * The snapshot is laid out under the packet's headings, so step 1's pointer to "What's next" holds;
 * when the snapshot names a plan file, step 1 also names it. Pure: no I/O.
 */
import type { Prompts } from '../../prompts/promptSet';
import type { Trail } from '../../engine/types';
import type { PlanState } from '../../signals/plan';
import { handoffText } from '../../sequence/texts';
import type { Snapshot } from './snapshot';
import { clip as clipText } from '../../text/clip';

/** Claude Code shortens hook context above ~10,000 characters; stay under it (Codex too). */
export const MAX_INJECTION_CHARS = 9500;

const LEVELS = [
  { request: 800, files: 30, changed: 20, todo: 200, packet: 5000 },
  { request: 300, files: 15, changed: 10, todo: 120, packet: 3500 },
  { request: 120, files: 8, changed: 5, todo: 80, packet: 2000 },
];

/** The agent's own packet (golden path), cut at `n` characters with a pointer to its file; newlines kept. */
function agentPacket(p: { file: string; text: string }, n: number): string {
  const t = p.text.trim();
  return t.length <= n ? t : `${t.slice(0, n)}\n… (cut; the whole packet is in ${p.file})`;
}

/** One line of at most n characters. */
const clip = (s: string, n: number) => clipText(s.replace(/\s+/g, ' ').trim(), n, { total: true });

/** Where Claude Code kept the agent's packet in the context itself: the handoff names it instead of a second copy. */
const carriedPointer = (file: string) =>
  `Your own continuation packet (${file}) is already in your context, right above: Claude Code kept it through the compaction. Start from its "What's next"; it is not repeated here.`;

/** The snapshot as the handoff's "packet": plain Markdown, bounded per level. */
export function snapshotPacket(s: Snapshot, snapshotFile: string, level = LEVELS[0]!): string {
  const out: string[] = [];
  out.push(
    `(Snapshot written by rawr's ${s.agent === 'codex' ? 'Codex' : 'Claude Code'} PreCompact hook at ${s.takenAt}${s.trigger ? `, just before the ${s.trigger} compaction` : ''}. Full data: ${snapshotFile})`,
  );
  if (s.plan) {
    out.push('', '## Plan');
    if (s.plan.file) out.push(`Plan file: ${s.plan.file}  (found via ${s.plan.source})`);
    if (s.plan.objective) out.push(`Objective: ${s.plan.objective}`);
  }
  out.push('', '## Where we are now');
  if (s.git) {
    const g = s.git;
    const head = g.head ? `HEAD ${g.head.slice(0, 12)}` : 'no commits yet';
    out.push(
      `Git: ${g.branch ? `branch ${g.branch}` : 'detached HEAD'}, ${head}, ${g.dirty ? `dirty (${g.changedTotal} changed path${g.changedTotal === 1 ? '' : 's'} at the snapshot):` : 'clean at the snapshot'}`,
    );
    for (const c of g.changed.slice(0, level.changed)) out.push(`    ${c}`);
    if (g.changedTotal > Math.min(level.changed, g.changed.length)) out.push(`    … ${g.changedTotal - Math.min(level.changed, g.changed.length)} more`);
  } else {
    out.push('Git: not available for this project.');
  }
  if (s.files.length) {
    const shown = s.files.slice(-level.files);
    out.push(`In-scope files (touched by Read/Edit/Write, most recent last${s.filesTotal > shown.length ? `; last ${shown.length} of ${s.filesTotal}` : ''}):`);
    for (const f of shown) out.push(`- ${f}`);
  } else if (s.transcript.error) {
    out.push(`In-scope files: unknown (${s.transcript.error}).`);
  } else {
    out.push('In-scope files: none touched yet.');
  }
  out.push('', "## What's next");
  if (s.todos && s.todos.length) {
    out.push('Todo list at the snapshot:');
    for (const t of s.todos) out.push(`- [${t.status === 'completed' ? 'x' : t.status === 'in_progress' ? 'in progress' : ' '}] ${clip(t.text, level.todo)}`);
  } else {
    out.push('Todo list: none recorded.');
  }
  if (s.userRequests.length) {
    out.push('Last user requests (oldest first):');
    s.userRequests.forEach((r, i) => out.push(`${i + 1}. ${clip(r, level.request)}`));
  } else {
    out.push(`Last user requests: ${s.transcript.error ? `unknown (${s.transcript.error})` : 'none found'}.`);
  }
  if (s.customInstructions) out.push(`Compaction instructions given: ${clip(s.customInstructions, level.request)}`);
  return out.join('\n');
}

/**
 * The full injected text. `snapshotFile` is shown as the place of the full data (a path relative to
 * the project is best).
 */
export function injectionText(prompts: Prompts, s: Snapshot, snapshotFile: string): string {
  const plan: PlanState | null = s.todos && s.todos.length ? { steps: s.todos, completed: [] } : null;
  const trail: Trail = { userRequests: [], actions: [], toolTail: [], files: s.files, lastAgentMessage: '', excerpt: [], commits: [] };
  let text = '';
  for (const level of LEVELS) {
    const facts = snapshotPacket(s, snapshotFile, level);
    // With the golden path the agent wrote its packet (quoted by handoffText); rawr's snapshot follows it.
    // Where Claude Code carries the packet over by itself, it is named, not quoted a second time.
    const quoted = s.packet && !s.packet.carried;
    const packet = !s.packet
      ? facts
      : quoted
        ? `${agentPacket(s.packet, level.packet)}\n\n---\nrawr's snapshot at the compaction:\n${facts}`
        : `${carriedPointer(s.packet.file)}\n\n---\nrawr's snapshot at the compaction:\n${facts}`;
    text = handoffText(prompts, packet, s.packet?.file, plan, trail, {
      origin: quoted ? 'agent' : 'snapshot',
      ...(s.plan?.file ? { planFile: s.plan.file } : {}),
    });
    if (text.length <= MAX_INJECTION_CHARS) return text;
  }
  return `${text.slice(0, MAX_INJECTION_CHARS - 80)}\n… (cut; the full snapshot is in ${snapshotFile})`;
}
