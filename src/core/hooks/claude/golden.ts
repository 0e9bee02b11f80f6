/**
 * The golden path in Claude Code (issue 20, item 2): at the boundary where rawr decides to compact, the
 * PreCompact hook does not allow at once. It refuses once more, and leaves a heads-up for the model in
 * `<session>/golden.json`; the next hook the model reads (PostToolUse after the next tool call, or
 * UserPromptSubmit when the turn ended) injects it as `additionalContext` — exactly once, by the run that
 * creates the `headsup-<n>.delivered` claim. The heads-up asks for the continuation packet in `.scratch/`
 * (the scratch-write convention: rawr's working space, git-ignored by its own `.scratch/.gitignore`).
 * PreCompact then refuses until the packet file is written (after the heads-up, non-empty, a regular
 * file) or PACKET_DEADLINE_REQUESTS model responses have passed, and allows with summary instructions
 * that name the packet. The packet goes into the PreCompact snapshot, so the handoff gives it back
 * (quoted: model-written text cannot forge rawr's markers) after the compaction.
 *
 * Whatever is pending here, steer.ts still allows first on a manual /compact, a reactive compaction,
 * rawr's emergency line and Claude Code's blocking level: the golden path never ends a turn.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { fillTemplate, type Prompts } from '../../prompts/promptSet';
import { safeReadTextIfExists } from '../../io/safeRead';
import { claimNow, createExclusive, writeFileAtomic, type Delivery } from '../shared/store';
import { hookLog } from '../shared/repairHook';

export const GOLDEN_FILE = 'golden.json';
/** Model responses after the heads-up was asked for before rawr allows without a packet. */
export const PACKET_DEADLINE_REQUESTS = 4;
/** The most of a packet rawr reads (and hands back; the handoff clips further). */
export const MAX_PACKET_BYTES = 64 * 1024;
const MAX_GOLDEN_BYTES = 64 * 1024;
const SCRATCH_DIR = '.scratch';

export const Golden = z.object({
  version: z.literal(1),
  /** Where rawr decided to compact: "commit 3f2a1c9". */
  boundary: z.string().max(500),
  askedAt: z.string().max(64),
  /** The follower's model-call count when the heads-up was asked for (the deadline counts from it). */
  askedAtCalls: z.number().int().nonnegative(),
  /** The packet file, relative to the project: `.scratch/claude-<session>.packet.md`. */
  packet: z.string().max(300),
  headsUp: z.string().max(16_000),
});
export type Golden = z.infer<typeof Golden>;

/** `.scratch/claude-<session, reduced to [a-z0-9-], 12 chars>.packet.md`: it can never leave `.scratch/`. */
export function packetPathFor(sessionId: string): string {
  const safe =
    sessionId
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 12) || 'session';
  return `${SCRATCH_DIR}/claude-${safe}.packet.md`;
}

export function headsUpFor(prompts: Prompts, o: { boundary: string; tier: string | null; percentRemaining: number | null; packet: string }): string {
  const banner = fillTemplate(prompts.headsUp, {
    reason: 'the context is in a compaction tier and a phase boundary was reached',
    tier: o.tier ?? 'early',
    percentRemaining: o.percentRemaining ?? '?',
    boundary: o.boundary,
  });
  return [
    banner.trim(),
    '',
    `Write your continuation packet now, with your file-writing tool, to \`${o.packet}\` (replace the file if it exists), with these Markdown sections in this order: ` +
      "## What just completed (outputs, file paths, commits by short sha) · ## Where we are now (done, half-done, verified how) · ## What's next (the next concrete steps, the very next action first) · ## Decisions, invariants and traps.",
    'Write it for yourself arriving cold: after the compaction it is given back to you. Do nothing else in that step; Claude Code compacts right after it, then you continue.',
  ].join('\n');
}

export async function readGolden(dir: string): Promise<Golden | null> {
  try {
    const text = await safeReadTextIfExists(path.join(dir, GOLDEN_FILE), { maxBytes: MAX_GOLDEN_BYTES });
    if (text === undefined) return null;
    const parsed = Golden.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function writeGolden(dir: string, g: Golden): void {
  writeFileAtomic(path.join(dir, GOLDEN_FILE), `${JSON.stringify(g)}\n`);
}

export function clearGolden(dir: string): void {
  try {
    fs.unlinkSync(path.join(dir, GOLDEN_FILE));
  } catch {
    /* none */
  }
}

/** `<root>/.scratch/` as a real folder with its `.gitignore` (`*`); false when something else is there (then no packet is asked for). */
export function ensureScratch(root: string): boolean {
  const dir = path.join(root, SCRATCH_DIR);
  try {
    try {
      fs.mkdirSync(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    if (!fs.lstatSync(dir).isDirectory()) return false;
    createExclusive(path.join(dir, '.gitignore'), '*\n');
    return true;
  } catch {
    return false;
  }
}

/** The packet the model wrote after the heads-up, or null: a regular file (no link followed), written since, not empty. */
export function readPacket(root: string, g: Golden): { file: string; text: string } | null {
  const dir = path.join(root, SCRATCH_DIR);
  const file = path.join(root, g.packet);
  if (path.dirname(file) !== dir) return null;
  try {
    if (!fs.lstatSync(dir).isDirectory()) return null;
    const st = fs.lstatSync(file);
    if (!st.isFile() || st.size === 0) return null;
    // A packet from an earlier boundary does not count (1 s of slack for coarse file-system clocks).
    if (st.mtimeMs < Date.parse(g.askedAt) - 1000) return null;
    // Non-blocking and checked again on the descriptor: a file swapped for a FIFO after the lstat neither hangs the hook nor counts.
    const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
    try {
      if (!fs.fstatSync(fd).isFile()) return null;
      const buf = Buffer.alloc(Math.min(st.size, MAX_PACKET_BYTES));
      const n = fs.readSync(fd, buf, 0, buf.length, 0);
      const text = buf.subarray(0, n).toString('utf8').trim();
      return text ? { file: g.packet, text } : null;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
}

/** The heads-up for the next hook the model reads, once: the run that creates the claim gets it (with its boundary and packet file). */
export async function claimHeadsUp(
  dir: string,
  event: string,
  now: Date,
  delivery: Delivery = claimNow,
): Promise<{ text: string; boundary: string; packet: string } | null> {
  const g = await readGolden(dir);
  if (!g) return null;
  const given = path.join(dir, `headsup-${g.askedAtCalls}.delivered`);
  if (fs.existsSync(given)) return null;
  const claimed = delivery(() => {
    if (!createExclusive(given, `${JSON.stringify({ at: now.toISOString() })}\n`)) return false;
    hookLog(dir, { kind: 'injected', at: now.toISOString(), what: 'heads_up', event, chars: g.headsUp.length });
    return true;
  });
  return claimed ? { text: g.headsUp, boundary: g.boundary, packet: g.packet } : null;
}
