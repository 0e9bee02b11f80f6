/**
 * The commands that change the thread, as the message each puts into it. The core applies them itself
 * when it steps (CoreService.apply) and returns the messages it appended: the host shows them in the chat
 * and never sends them back (docs/ARCHITECTURE.md#one-owner-of-the-thread).
 */
import type { Command } from '../engine/types';
import type { ThreadMessage } from './thread';

/** The message `c` appends to the thread, or null when `c` does not change it. */
export function messageOf(c: Command): ThreadMessage | null {
  switch (c.type) {
    case 'append_user_message':
    case 'deliver_queued_input':
      return { role: 'user', text: c.text };
    case 'inject_heads_up':
      return { role: 'user', text: c.text, synthetic: true, kind: 'heads_up' };
    case 'inject_handoff':
      return { role: 'user', text: c.text, synthetic: true, kind: 'handoff' };
    // The request turns' messages (scratch and packet requests) are the host's: it adds one only when it
    // has a model to make the call with, and sends it with the call's answer.
    case 'request_judgment':
    case 'start_timer':
    case 'arm_idle':
    case 'request_scratch_write':
    case 'request_packet':
    case 'compact':
    case 'abort_compaction':
    case 'hold_user_message':
    case 'annotate':
    case 'suggest':
    case 'prepare_summary':
    case 'cancel_timer':
    case 'progress':
    case 'show_packet':
    case 'show_compacted':
      return null;
    default: {
      const unknown: never = c;
      throw new Error(`unknown command ${JSON.stringify(unknown)}`);
    }
  }
}
