/**
 * Splits what a step said into commands (for the host to execute) and facts (for the log, the panel and
 * the status bar), keeping the order within each. step.ts builds one list as it reduces, so a feature
 * added there needs no thought about which list an effect goes to: the table below decides, and it is
 * total and checked — every kind is listed, and the sort it gets must be the union it belongs to (a fact,
 * or a command: a request the engine waits on, or a directive).
 */
import type { Command, Effect, Fact, Request, StepOutput } from './types';

type Sort<K> = K extends Fact['type'] ? 'fact' : K extends Request['type'] ? 'request' : 'directive';
const SORT: { readonly [K in Effect['type']]: Sort<K> } = {
  request_judgment: 'request',
  start_timer: 'request',
  arm_idle: 'request',
  request_scratch_write: 'request',
  request_packet: 'request',
  compact: 'request',
  abort_compaction: 'request',
  append_user_message: 'directive',
  hold_user_message: 'directive',
  annotate: 'directive',
  suggest: 'directive',
  prepare_summary: 'directive',
  cancel_timer: 'directive',
  progress: 'directive',
  inject_heads_up: 'directive',
  show_packet: 'directive',
  show_compacted: 'directive',
  inject_handoff: 'directive',
  deliver_queued_input: 'directive',
  // facts
  decision: 'fact',
  boundary_noted: 'fact',
  boundaries_consumed: 'fact',
  sequence_started: 'fact',
  judgment_ended: 'fact',
  compacted: 'fact',
  sequence_ended: 'fact',
};

export function isFact(e: Effect): e is Fact {
  return SORT[e.type] === 'fact';
}

/** A command the engine waits on (answered by an event); the replay answers only these. */
export function isRequest(c: Command): c is Request {
  return SORT[c.type] === 'request';
}

export function partition(effects: readonly Effect[]): StepOutput {
  const commands: Command[] = [];
  const facts: Fact[] = [];
  for (const e of effects) {
    if (isFact(e)) facts.push(e);
    else commands.push(e);
  }
  return { commands, facts };
}
