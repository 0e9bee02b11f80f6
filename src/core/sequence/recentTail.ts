/**
 * The recent turns a compaction keeps verbatim (knob `keep_recent_tokens`): the last person messages,
 * agent messages and tool exchanges of the thread, newest first until the budget is spent, never a tool
 * call without its result or a result without its call. rawr's own synthetic turns (heads-up, scratch
 * and packet requests, the packet, an earlier summary or handoff) are not part of it: they are what the
 * compaction replaces. Pure: the host (turn.ts), overflow recovery and `rawr handoff` share it.
 */
import type { ThreadMessage } from '../thread/thread';

/** rawr's estimate where no model counts: about 4 characters a token (the provider's uncalibrated rule). */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4);

export function messageTokens(m: ThreadMessage): number {
  const calls = m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => `${c.name} ${safeJson(c.input)}`).join('\n') : '';
  return estimateTokens(m.text) + estimateTokens(calls) + 4; // + role/turn framing
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return String(v);
  }
}

/**
 * The tail may take at most this share of the window and of the context before the compaction, whatever
 * the knob says: a compaction must free room (min_gain_percent), and in a small window a few big tool
 * results would otherwise be all that is kept.
 */
export const TAIL_MAX_WINDOW_SHARE = 0.1;
export const TAIL_MAX_USED_SHARE = 0.25;

export function tailBudget(keepRecentTokens: number, window: number | null | undefined, used?: number | null): number {
  let b = keepRecentTokens;
  if (window) b = Math.min(b, window * TAIL_MAX_WINDOW_SHARE);
  if (used) b = Math.min(b, used * TAIL_MAX_USED_SHARE);
  return Math.max(0, Math.floor(b));
}

/** Units that stay together: a person message; an agent message with all its tool calls' results. */
function units(messages: readonly ThreadMessage[]): ThreadMessage[][] {
  const syntheticCalls = new Set<string>();
  const out: ThreadMessage[][] = [];
  const callUnit = new Map<string, ThreadMessage[]>();
  for (const m of messages) {
    if (m.role === 'tool') {
      if (syntheticCalls.has(m.toolCallId)) continue;
      const unit = callUnit.get(m.toolCallId);
      if (unit) unit.push(m); // an orphan result (its call was compacted away) is dropped
      continue;
    }
    if (m.synthetic) {
      if (m.role === 'assistant') for (const c of m.toolCalls ?? []) syntheticCalls.add(c.id);
      continue;
    }
    const unit = [m];
    out.push(unit);
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) callUnit.set(c.id, unit);
  }
  // A call still waiting for its result cannot be sent: its unit is left out.
  return out.filter((u) => {
    const first = u[0]!;
    if (first.role !== 'assistant' || !first.toolCalls?.length) return true;
    const answered = new Set(u.slice(1).map((m) => (m.role === 'tool' ? m.toolCallId : '')));
    return first.toolCalls.every((c) => answered.has(c.id));
  });
}

const clipMiddle = (s: string, n: number) =>
  s.length > n ? `${s.slice(0, Math.ceil(n * 0.6))}\n… [${s.length - n} characters omitted by rawr] …\n${s.slice(-Math.floor(n * 0.4))}` : s;

/** Shrinks one unit to `budget` by clipping the middle of its long texts; its calls and results stay paired. */
function shrink(unit: ThreadMessage[], budget: number): ThreadMessage[] | undefined {
  const fixed = unit.reduce((n, m) => n + messageTokens({ ...m, text: '' }), 0);
  const room = (budget - fixed) * 4;
  if (room < 400 * unit.length) return undefined;
  const per = Math.floor(room / unit.length);
  return unit.map((m) => ({ ...m, text: clipMiddle(m.text, per) }));
}

/**
 * Where the messages a recent tail of at most `maxBudget` tokens can take begin (an index into
 * `messages`), now and however the thread goes on: the start of the newest unit that, with the sent
 * units after it, is over `maxBudget`. selectRecentTail stops at that unit at the latest, and a thread
 * only grows at its end (a unit only gains results, a waiting unit counts once answered), so the
 * messages before it can be dropped — how `rawr handoff` keeps a 1 GB recording's thread bounded.
 */
export function tailHorizon(messages: readonly ThreadMessage[], maxBudget: number): number {
  const all = units(messages);
  let used = 0;
  for (let k = all.length - 1; k >= 0; k--) {
    used += all[k]!.reduce((n, m) => n + messageTokens(m), 0);
    if (used > maxBudget) return messages.indexOf(all[k]![0]!);
  }
  return 0;
}

/** The newest whole units that fit in `budget` tokens, oldest first. The newest unit is clipped if it alone is too big. */
export function selectRecentTail(messages: readonly ThreadMessage[], budget: number): ThreadMessage[] {
  if (budget <= 0) return [];
  const all = units(messages);
  const kept: ThreadMessage[][] = [];
  let used = 0;
  for (let k = all.length - 1; k >= 0; k--) {
    const unit = all[k]!;
    const t = unit.reduce((n, m) => n + messageTokens(m), 0);
    if (used + t <= budget) {
      kept.unshift(unit);
      used += t;
      continue;
    }
    if (kept.length === 0) {
      const small = shrink(unit, budget);
      if (small) kept.unshift(small);
    }
    break;
  }
  return kept.flat();
}

/**
 * The replacement thread of a compaction: the summary and the packet (when an LM wrote a summary), then
 * the recent turns verbatim behind a one-line introduction. The handoff (texts.ts) is appended after it
 * by the executor, so the thread always ends with the instruction to continue. Without a summary (overflow
 * recovery, `rawr handoff`) the packet is not repeated as its own message: the handoff carries it.
 */
export function compactedThread(summary: string | null, packet: string, tail: readonly ThreadMessage[]): ThreadMessage[] {
  const out: ThreadMessage[] = [];
  if (summary !== null) {
    out.push({ role: 'user', text: `[rawr] Summary of this thread before it was compacted:\n\n${summary}`, synthetic: true, kind: 'summary' });
    out.push({ role: 'assistant', text: packet, synthetic: true, kind: 'packet' });
  }
  if (tail.length) {
    const tokens = tail.reduce((n, m) => n + messageTokens(m), 0);
    out.push({ role: 'user', text: recentIntroText(tail.length, tokens), synthetic: true, kind: 'recent_intro' });
    out.push(...tail);
  }
  return out;
}

export function recentIntroText(count: number, tokens: number): string {
  return `[rawr] The last ${count} messages before the compaction follow, kept verbatim (about ${tokens} tokens). They are newer than anything summarised above; the handoff after them says how to continue.`;
}
