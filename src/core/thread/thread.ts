/**
 * The model-facing thread @rawr owns (docs/ARCHITECTURE.md#the-thread-rawr-owns): what is sent to the model, as opposed to what
 * the Chat view shows. Compaction replaces it as a whole (`swap`), never piecemeal.
 */
import { z } from 'zod';

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
