/**
 * What the event log keeps of a step's facts and commands, and in what form (`kind: "effect"` records,
 * the name from when both were one list). The log is the
 * history the compaction panel reads (src/host/panel/viewModel.ts `ThreadJournal`) and what an exported
 * log explains: where each message went, what became of each boundary, how each sequence and judgment
 * went. Bulky texts the log already holds elsewhere (thread messages, the packet record, the judgment
 * request) are left out; pure display and timer bookkeeping is not logged at all.
 *
 * `stepRecords` covers every fact (a switch) and every command (a table): a new kind is a compile error
 * here until someone decides whether the log keeps it. The schema validates what is read back (the log is untrusted input).
 */
import * as z from 'zod';
import type { Command, Fact, StepOutput } from '../engine/types';
import type { NewLogRecord } from '../logformat/records';
import { BOUNDARY_KINDS } from '../signals/types';

const id = z.string().max(200);
const text = z.string();

/** The facts in the log's form (every fact but the decision, which has a record of its own). */
const FACTS = [
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
  z.object({
    type: z.literal('compacted'),
    seqId: id,
    tokensBefore: z.number(),
    tokensAfter: z.number(),
    text,
    // Logs written before the receipt have none.
    receipt: z
      .record(
        z.string().max(40),
        z.object({ facts: z.number().int().nonnegative(), kept: z.number().int().nonnegative(), added: z.number().int().nonnegative() }),
      )
      .optional(),
  }),
  z.object({ type: z.literal('sequence_ended'), seqId: id, outcome: z.enum(['compacted', 'failed', 'cancelled', 'vetoed']) }),
] as const;

/** The commands the log keeps, in its form (bulky texts left out). */
const COMMANDS = [
  z.object({ type: z.literal('annotate'), level: z.enum(['info', 'warning']), text }),
  z.object({ type: z.literal('append_user_message') }),
  z.object({ type: z.literal('hold_user_message'), reason: z.enum(['sequence_running', 'preflight']) }),
  z.object({ type: z.literal('deliver_queued_input') }),
  z.object({ type: z.literal('inject_heads_up'), seqId: id }),
  z.object({ type: z.literal('request_scratch_write'), seqId: id, path: z.string().max(400) }),
  z.object({ type: z.literal('request_packet'), seqId: id, scratchPath: z.string().max(400).optional() }),
  z.object({ type: z.literal('compact'), seqId: id }),
  z.object({ type: z.literal('abort_compaction'), seqId: id }),
  z.object({ type: z.literal('inject_handoff'), seqId: id }),
] as const;

export const LoggedEffectSchema = z.discriminatedUnion('type', [...FACTS, ...COMMANDS]);
export type LoggedFact = z.infer<(typeof FACTS)[number]>;
export type LoggedCommand = Exclude<LoggedEffect, LoggedFact>;

const FACT_TYPES: ReadonlySet<string> = new Set(FACTS.map((f) => f.shape.type.value));

/** A logged fact (what happened), as opposed to a logged command (what the host was asked to do). */
export function isLoggedFact(e: LoggedEffect): e is LoggedFact {
  return FACT_TYPES.has(e.type);
}

export type LoggedEffect = z.infer<typeof LoggedEffectSchema>;

/** What a step adds to the log besides its event: one record per fact, then the commands the log keeps. */
export function stepRecords(out: StepOutput, at: number): NewLogRecord[] {
  const records = out.facts.map((f) => factRecord(f, at));
  for (const c of out.commands) {
    const r = commandRecord(c, at);
    if (r) records.push(r);
  }
  return records;
}

/** Every fact is logged: a decision as a record of its own, the others as effect records. */
function factRecord(f: Fact, at: number): NewLogRecord {
  switch (f.type) {
    case 'decision':
      // The record is the decision's fields as they are (a DecisionRecord is what a log may hold).
      return { kind: 'decision', at: f.decision.at, decision: { ...f.decision } };
    case 'boundary_noted': {
      const b = f.boundary;
      const boundary = { id: b.id, kind: b.kind, strength: b.strength, source: b.source, at: b.at, turn: b.turn, detail: b.detail };
      return effect(at, { type: f.type, boundary, status: f.status, why: f.why });
    }
    case 'boundaries_consumed':
      return effect(at, { type: f.type, ids: f.ids, by: f.by, why: f.why });
    case 'sequence_started':
      return effect(at, { type: f.type, seqId: f.seqId, decisionId: f.decisionId, reason: f.reason, packetAuthor: f.packetAuthor });
    case 'judgment_ended':
      return effect(at, { type: f.type, corrId: f.corrId, outcome: f.outcome });
    case 'compacted':
      return effect(at, {
        type: f.type,
        seqId: f.seqId,
        tokensBefore: f.tokensBefore,
        tokensAfter: f.tokensAfter,
        text: f.text,
        ...(f.receipt ? { receipt: f.receipt } : {}),
      });
    case 'sequence_ended':
      return effect(at, { type: f.type, seqId: f.seqId, outcome: f.outcome });
    default: {
      const unknown: never = f;
      throw new Error(`unknown fact ${JSON.stringify(unknown)}`);
    }
  }
}

const effect = (at: number, e: LoggedEffect): NewLogRecord => ({ kind: 'effect', at, effect: e });
type CommandOf<K extends Command['type']> = Extract<Command, { type: K }>;

/**
 * How the log keeps each command: a record, or null with the reason. A table, not a switch: every kind
 * must have its entry (a new one does not compile until someone decides whether the log keeps it).
 */
const COMMAND_RECORD: { readonly [K in Command['type']]: ((c: CommandOf<K>, at: number) => NewLogRecord) | null } = {
  request_judgment: (c, at) => ({ kind: 'judgment', at, corrId: c.corrId, phase: 'request', text: c.user }),
  show_packet: (c, at) => ({ kind: 'packet', at, seqId: c.seqId, author: c.author, text: c.packet }),
  annotate: (c, at) => effect(at, { type: c.type, level: c.level, text: c.text }),
  // The text is in the thread's message record.
  append_user_message: (c, at) => effect(at, { type: c.type }),
  deliver_queued_input: (c, at) => effect(at, { type: c.type }),
  hold_user_message: (c, at) => effect(at, { type: c.type, reason: c.reason }),
  request_packet: (c, at) => effect(at, { type: c.type, seqId: c.seqId, ...(c.scratchPath ? { scratchPath: c.scratchPath } : {}) }),
  request_scratch_write: (c, at) => effect(at, { type: c.type, seqId: c.seqId, path: c.path }),
  inject_heads_up: (c, at) => effect(at, { type: c.type, seqId: c.seqId }),
  compact: (c, at) => effect(at, { type: c.type, seqId: c.seqId }),
  abort_compaction: (c, at) => effect(at, { type: c.type, seqId: c.seqId }),
  inject_handoff: (c, at) => effect(at, { type: c.type, seqId: c.seqId }),
  suggest: null, // repeats its decision, which has its record
  prepare_summary: null, // the host logs whether the prepared summary was used (effectExecutor.ts)
  show_compacted: null, // the compacted fact has the same text
  start_timer: null, // bookkeeping
  arm_idle: null, // bookkeeping: the idle decision it may lead to has its record
  cancel_timer: null, // bookkeeping
  progress: null, // display
};

function commandRecord<K extends Command['type']>(c: CommandOf<K>, at: number): NewLogRecord | null {
  const write = COMMAND_RECORD[c.type as K];
  return write ? write(c, at) : null;
}
