/**
 * The panel's live-follow section on the wire (zod, vscode-free): the view of an external agent's session
 * that the host posts (`{type: 'follow', view}`), and the webview's follow actions. Validated like the
 * rest of the panel's messages (messages.ts); every string is rendered with textContent.
 */
import * as z from 'zod';
import { TIERS } from '../../core/settings/schema';
import { HOOK_EVENT_KINDS } from '../follow/discover';

const text = (max: number) => z.string().max(max);
const count = z.number().finite().nonnegative();

export const FollowViewSchema = z
  .object({
    /** Absolute path and the kind of agent that writes it. */
    path: text(4_000),
    agent: z.enum(['claude', 'codex']),
    /** How it was chosen ("newest Claude Code transcript for this folder", "picked by you"). */
    how: text(200),
    lines: count,
    window: z.object({ tokens: count, why: text(1_000) }).strict(),
    gauge: z
      .object({
        usedTokens: count,
        percentRemaining: z.number().min(0).max(100).nullable(),
        tier: z.enum(TIERS).nullable(),
        thresholds: z.array(z.object({ tier: z.enum(TIERS), below: z.number().min(0).max(100) }).strict()).length(4),
      })
      .strict(),
    pending: z.array(text(400)).max(50),
    plan: z
      .array(z.object({ text: text(400), status: text(20) }).strict())
      .max(100)
      .nullable(),
    decisions: z
      .array(
        z
          .object({
            line: count,
            point: text(20),
            action: z.enum(['compact', 'suggest', 'none']),
            tier: text(20).nullable(),
            percentRemaining: z.number().nullable(),
            boundaries: z.array(text(400)).max(20),
            reason: text(2_000),
          })
          .strict(),
      )
      .max(50),
    nativeCompactions: z.array(z.object({ line: count, trigger: text(20), preTokens: count.nullable() }).strict()).max(20),
    /** "rawr would compact here: commit 3f2a1c9, 31% left", and the command to copy (suggest mode). */
    wouldCompact: z
      .object({ line: count, text: text(300), command: text(1_100).nullable() })
      .strict()
      .nullable(),
    hooks: z.array(z.object({ at: text(40), kind: z.enum(HOOK_EVENT_KINDS), file: text(300) }).strict()).max(20),
    /**
     * Claude Code sessions rawr steers: its PreCompact hook's newest answers, newest last ("deferred to the
     * next boundary (64% used; waiting for a commit or a completed task)", "compacting at commit 3f2a1c9").
     */
    steering: z.array(z.object({ at: text(40), allow: z.boolean(), why: text(40), text: text(1_000), trigger: text(20).nullable() }).strict()).max(20),
    /**
     * After each compaction of the agent, what the hooks logged: tokens before/after, and per fact class of
     * rawr's trail how many facts there were, how many the agent's summary kept and how many rawr re-injected.
     */
    receipts: z
      .array(
        z
          .object({
            at: text(40),
            trigger: text(20).nullable(),
            tokensBefore: count.nullable(),
            tokensAfter: count,
            repairTokens: count,
            facts: z.array(z.object({ cls: text(40), facts: count, kept: count, added: count }).strict()).max(20),
          })
          .strict(),
      )
      .max(10),
    mode: text(20),
    /** The first skipped lines of the session, with why; `problemCount` counts them all. */
    problems: z.array(text(500)).max(20),
    problemCount: count,
    updatedAt: z.number().finite(),
  })
  .strict();
export type FollowView = z.infer<typeof FollowViewSchema>;

/** Host → webview: the followed session, or null when nothing is followed. */
export const FollowMessageSchema = z.object({ type: z.literal('follow'), view: FollowViewSchema.nullable() }).strict();

/** Webview → host. */
export const FollowActionSchema = z.discriminatedUnion('type', [
  /** Choose a session to follow (quick pick). */
  z.object({ type: z.literal('followPick') }).strict(),
  z.object({ type: z.literal('followStop') }).strict(),
  /** Copy the offered `/compact …` text (the host holds it; the webview sends nothing else). */
  z.object({ type: z.literal('followCopy') }).strict(),
]);
export type FollowAction = z.infer<typeof FollowActionSchema>;
