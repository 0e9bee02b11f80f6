/**
 * The summary prepared in the background (docs/ARCHITECTURE.md#the-prepared-summary). When a compaction
 * that will need a summary call is likely (a tier entered, the forecast says the next close compacts, a
 * judgment is asked), the host summarises the thread as it stands, off the critical path. At the
 * boundary only what came after it is left: when that fits in the verbatim tail (keep_recent_tokens), the
 * prepared summary is used as it is and no model call remains; otherwise one call summarises the prepared
 * summary plus the new part. A prepared summary whose thread changed under it (a swap, an undo, another
 * prompt or /compact instructions) is stale: it is discarded, never used.
 */
import { createHash } from 'node:crypto';
import type { ThreadMessage } from '../thread/thread';
import { messageTokens } from './recentTail';

export interface PreparedSummary {
  /** How many messages of the thread it summarises (the first `covers`). */
  covers: number;
  /** Fingerprint of those messages: the thread they are the start of must still begin with them. */
  fingerprint: string;
  /** The summary prompt it was written with. */
  prompt: string;
  text: string;
}

export type SummaryPlan =
  /** No usable prepared summary: summarise the whole thread (one call). */
  | { kind: 'full'; why: 'none' | 'stale' }
  /** The prepared summary covers everything but what the verbatim tail keeps: no call. */
  | { kind: 'prepared'; summary: string; newMessages: number }
  /** One call over the prepared summary and the messages after it. */
  | { kind: 'incremental'; thread: ThreadMessage[]; newMessages: number };

/** A fingerprint of the first `count` messages (sha-256 of their JSON, hashed message by message: no big string). */
export function fingerprintOf(messages: readonly ThreadMessage[], count: number): string {
  const h = createHash('sha256');
  for (const m of messages.slice(0, count)) h.update(JSON.stringify(m)).update('\u0000');
  return `${count}:${h.digest('hex')}`;
}

export function prepareSummaryOf(messages: readonly ThreadMessage[], prompt: string, text: string): PreparedSummary {
  return { covers: messages.length, fingerprint: fingerprintOf(messages, messages.length), prompt, text };
}

/** The stale check: same prompt, and the thread still starts with the messages that were summarised. */
export function isFresh(p: PreparedSummary, messages: readonly ThreadMessage[], prompt: string): boolean {
  return p.prompt === prompt && p.covers <= messages.length && fingerprintOf(messages, p.covers) === p.fingerprint;
}

export function earlierSummaryMessage(text: string): ThreadMessage {
  return {
    role: 'user',
    text: `[rawr] Summary of the earlier part of this thread, prepared before this compaction (the messages after it follow):\n\n${text}`,
    synthetic: true,
    kind: 'summary',
  };
}

/**
 * What to do at the boundary. `tailBudget` is the budget of the verbatim tail the replacement thread keeps:
 * new person/agent/tool messages within it reach the next thread verbatim, so they need no summary.
 * rawr's own sequence turns (heads-up, packet request…) are replaced anyway and never count.
 */
export function planSummary(p: PreparedSummary | undefined, messages: readonly ThreadMessage[], prompt: string, tailBudget: number): SummaryPlan {
  if (!p) return { kind: 'full', why: 'none' };
  if (!isFresh(p, messages, prompt)) return { kind: 'full', why: 'stale' };
  const after = messages.slice(p.covers);
  const work = after.filter((m) => m.role === 'tool' || !m.synthetic);
  const tokens = work.reduce((n, m) => n + messageTokens(m), 0);
  if (tokens <= tailBudget) return { kind: 'prepared', summary: p.text, newMessages: work.length };
  return { kind: 'incremental', thread: [earlierSummaryMessage(p.text), ...after], newMessages: work.length };
}
