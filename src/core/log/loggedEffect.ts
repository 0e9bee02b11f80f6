/**
 * Which engine effects the event log keeps, and in what form (`kind: "effect"` records). The log is the
 * history the compaction panel reads (src/host/panel/viewModel.ts `ThreadJournal`) and what an exported
 * log explains: where each message went, what became of each boundary, how each sequence and judgment
 * went. Bulky texts the log already holds elsewhere (thread messages, the packet record, the judgment
 * request) are left out; pure display and timer bookkeeping is not logged at all.
 *
 * `loggedEffect` switches over every effect kind: a new kind is a compile error here until someone
 * decides whether the log keeps it. The schema validates what is read back (the log is untrusted input).
 */
import { z } from 'zod';
import type { Effect } from '../engine/types';
import { BOUNDARY_KINDS } from '../signals/types';

const id = z.string().max(200);
const text = z.string();

export const LoggedEffectSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('annotate'), level: z.enum(['info', 'warning']), text }),
  z.object({ type: z.literal('append_user_message') }),
  z.object({ type: z.literal('hold_user_message'), reason: z.enum(['sequence_running', 'preflight']) }),
  z.object({ type: z.literal('deliver_queued_input') }),
  z.object({
    type: z.literal('boundary_noted'),
    boundary: z.object({
      id,
      kind: z.enum(BOUNDARY_KINDS),
      strength: z.enum(['strong', 'weak']),
      source: z.string().max(40),
      at: z.number(),
      turn: z.number(),
      detail: text,
    }),
    status: z.enum(['pending', 'ignored']),
    why: z.enum(['new', 'duplicate', 'during_sequence']),
  }),
  z.object({ type: z.literal('boundaries_consumed'), ids: z.array(id).max(1_000), by: id, why: z.enum(['decision', 'compaction']) }),
  z.object({ type: z.literal('sequence_started'), seqId: id, decisionId: id, reason: text, packetAuthor: z.enum(['agent', 'watcher']) }),
  z.object({ type: z.literal('judgment_ended'), corrId: id, outcome: z.enum(['answered', 'invalid', 'timed_out', 'cancelled']) }),
  z.object({ type: z.literal('inject_heads_up'), seqId: id }),
  z.object({ type: z.literal('request_scratch_write'), seqId: id, path: z.string().max(400) }),
  z.object({ type: z.literal('request_packet'), seqId: id, scratchPath: z.string().max(400).optional() }),
  z.object({ type: z.literal('compact'), seqId: id }),
  z.object({ type: z.literal('abort_compaction'), seqId: id }),
  z.object({ type: z.literal('compacted'), seqId: id, tokensBefore: z.number(), tokensAfter: z.number(), text }),
  z.object({ type: z.literal('inject_handoff'), seqId: id }),
  z.object({ type: z.literal('sequence_ended'), seqId: id, outcome: z.enum(['compacted', 'failed', 'cancelled', 'vetoed']) }),
]);
export type LoggedEffect = z.infer<typeof LoggedEffectSchema>;

/**
 * The log's form of an effect, or null when the log does not keep it as an effect record: decisions,
 * judgment requests and packets have records of their own (records.ts); suggest repeats its decision;
 * timers and progress lines are bookkeeping and display.
 */
export function loggedEffect(fx: Effect): LoggedEffect | null {
  switch (fx.type) {
    case 'decision':
    case 'request_judgment':
    case 'prepare_summary': // the host logs whether the prepared summary was used (effectExecutor.ts)
    case 'show_packet':
    case 'suggest':
    case 'start_timer':
    case 'arm_idle': // the decision it leads to, if any, is logged
    case 'cancel_timer':
    case 'progress':
      return null;
    case 'annotate':
      return { type: fx.type, level: fx.level, text: fx.text };
    case 'append_user_message':
    case 'deliver_queued_input':
      return { type: fx.type }; // the text is in the thread's message record
    case 'hold_user_message':
      return { type: fx.type, reason: fx.reason };
    case 'boundary_noted': {
      const b = fx.boundary;
      return {
        type: fx.type,
        boundary: { id: b.id, kind: b.kind, strength: b.strength, source: b.source, at: b.at, turn: b.turn, detail: b.detail },
        status: fx.status,
        why: fx.why,
      };
    }
    case 'boundaries_consumed':
      return { type: fx.type, ids: fx.ids, by: fx.by, why: fx.why };
    case 'sequence_started':
      return { type: fx.type, seqId: fx.seqId, decisionId: fx.decisionId, reason: fx.reason, packetAuthor: fx.packetAuthor };
    case 'judgment_ended':
      return { type: fx.type, corrId: fx.corrId, outcome: fx.outcome };
    case 'request_packet':
      return { type: fx.type, seqId: fx.seqId, ...(fx.scratchPath ? { scratchPath: fx.scratchPath } : {}) };
    case 'inject_heads_up':
    case 'compact':
    case 'abort_compaction':
    case 'inject_handoff':
      return { type: fx.type, seqId: fx.seqId };
    case 'request_scratch_write':
      return { type: fx.type, seqId: fx.seqId, path: fx.path };
    case 'compacted':
      return { type: fx.type, seqId: fx.seqId, tokensBefore: fx.tokensBefore, tokensAfter: fx.tokensAfter, text: fx.text };
    case 'sequence_ended':
      return { type: fx.type, seqId: fx.seqId, outcome: fx.outcome };
    default: {
      const unknown: never = fx;
      throw new Error(`unknown effect ${JSON.stringify(unknown)}`);
    }
  }
}
