/**
 * The model-facing thread @rawr owns (docs/ARCHITECTURE.md#the-thread-rawr-owns): what is sent to the model, as opposed to what
 * the Chat view shows. Compaction replaces it as a whole (`swap`), never piecemeal.
 */
import * as z from 'zod';

export const ThreadMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('user'), text: z.string(), synthetic: z.boolean().optional(), kind: z.string().optional() }),
  z.object({
    role: z.literal('assistant'),
    text: z.string(),
    synthetic: z.boolean().optional(),
    kind: z.string().optional(),
    toolCalls: z.array(z.object({ id: z.string(), name: z.string(), input: z.unknown() })).optional(),
  }),
  z.object({ role: z.literal('tool'), toolCallId: z.string(), name: z.string(), text: z.string(), isError: z.boolean().optional() }),
]);
export type ThreadMessage = z.infer<typeof ThreadMessageSchema>;

/** A thread is valid to send when every tool call is answered by a result before the next user/assistant turn. */
export function unansweredToolCalls(messages: readonly ThreadMessage[]): string[] {
  const open = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) open.add(c.id);
    else if (m.role === 'tool') open.delete(m.toolCallId);
  }
  return [...open];
}

/** What rawr's own golden-path turns are marked with (`kind`), from the heads-up to the agent's packet. */
const SEQUENCE_KINDS = new Set(['heads_up', 'scratch_request', 'scratch', 'packet_request', 'packet']);

/**
 * The thread as it was before the running compaction sequence: without the heads-up and everything
 * after it (the scratch-notes turn with its tool calls and results, the packet request and the packet).
 * That is what a compaction archives, so an undo gives back the context the agent had, not more.
 * Earlier compactions' summary and packet (before the last handoff) are kept.
 */
export function threadBeforeSequence(messages: readonly ThreadMessage[]): ThreadMessage[] {
  let start = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'tool' && (m.kind === 'handoff' || m.kind === 'summary')) break;
    if (m.role === 'user' && m.kind === 'heads_up') {
      start = i;
      break;
    }
  }
  if (start < 0) return messages.slice();
  // Only rawr's sequence turns (and the results of the tool calls made in them) follow the heads-up; anything
  // else found there is kept, so nothing a person or the agent's work added is ever lost.
  const calls = new Set<string>();
  const kept = messages.slice(start).filter((m) => {
    if (m.role === 'tool') return !calls.has(m.toolCallId);
    if (m.synthetic && m.kind && SEQUENCE_KINDS.has(m.kind)) {
      if (m.role === 'assistant') for (const c of m.toolCalls ?? []) calls.add(c.id);
      return false;
    }
    return true;
  });
  return [...messages.slice(0, start), ...kept];
}
