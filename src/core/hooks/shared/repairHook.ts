/**
 * The handoff repair in the hooks (repair.ts does the comparing). PostCompact, once the agent's own
 * summary is known (`compact_summary`), computes the repair against rawr's trail at the compaction and
 * keeps it beside the snapshot (`<snapshot>.repair`), with a receipt line in the session's
 * `hook-log.jsonl`. The next hook the model reads (PostToolUse, UserPromptSubmit) injects the repair,
 * exactly once: the run that creates `<snapshot>.repair-injected` (O_EXCL) prints it. Claude Code runs
 * SessionStart(compact) before PostCompact, so the snapshot handoff goes first and the repair after it.
 *
 * The session log, `<root>/.rawr/<agent>/<session>/hook-log.jsonl` (one JSON object a line, rotated once
 * to `.1` past 1 MiB), holds what the hooks did besides PreCompact's verdicts (those are in
 * steer-log.jsonl): `{kind:"receipt", …}` after each compaction, `{kind:"injected", what, event}` for
 * each heads-up, handoff and repair given to the model. Shapes: HookLogEntry below.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import type { Prompts } from '../../prompts/promptSet';
import type { Settings } from '../../settings/schema';
import { importClaude } from '../../replay/import/claude';
import { importCodex } from '../../replay/import/codex';
import { stateBefore } from '../../replay/handoffAt';
import { estimateTokens } from '../../sequence/recentTail';
import { safeReadText, safeReadTextIfExists } from '../../io/safeRead';
import { repairOf, type Repair, type RepairClass } from '../../sequence/repair';
import { nativeSummaryAt } from './repair';
import { linesOfText } from '../../io/lines';
import type { Snapshot } from './snapshot';
import { claimNow, createExclusive, latestSnapshotFile, writeFileAtomic, type AgentId, type Delivery } from './store';
import { appendSessionLog } from './sessionLog';

const MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024;
const MAX_REPAIR_FILE = 64 * 1024;
export const HOOK_LOG = 'hook-log.jsonl';

export type HookLogEntry =
  | {
      kind: 'receipt';
      at: string;
      trigger: string | null;
      snapshot: string;
      /** Claude Code's own count before the compaction (compact_boundary's preTokens), else the last recorded context before it. */
      tokensBefore: number | null;
      /**
       * Claude Code's own size of what the compaction left (compact_boundary's postTokens) where it records
       * one, so the receipt says what Claude Code measured; else estimated: the summary + rawr's repair
       * (characters / 4). `tokensAfterMeasured` says which.
       */
      tokensAfter: number;
      tokensAfterMeasured?: boolean;
      summaryTokens: number;
      repairTokens: number;
      /** Per fact class of rawr's trail: how many facts, how many the summary kept, how many rawr re-injects. */
      facts: Partial<Record<RepairClass, { facts: number; kept: number; added: number }>>;
    }
  | { kind: 'injected'; at: string; what: 'heads_up' | 'handoff' | 'repair'; event: string; chars: number };

export function hookLog(dir: string, entry: HookLogEntry): void {
  try {
    appendSessionLog(path.join(dir, HOOK_LOG), entry);
  } catch {
    /* the log never fails a hook */
  }
}

const Saved = z.object({ at: z.string(), text: z.string().max(MAX_REPAIR_FILE), repairTokens: z.number() });

/** The repair of the agent's summary at the compaction the snapshot was taken for; written beside it and logged as a receipt. */
export async function saveRepair(o: {
  agent: AgentId;
  dir: string;
  root: string;
  snapshotFile: string;
  snapshot: Snapshot;
  /** The agent's summary from its hook payload (Claude Code's compact_summary); absent: read from the transcript's compaction record (Codex). */
  summary?: string;
  trigger: string | null;
  settings: Settings;
  prompts: Prompts;
  now: Date;
}): Promise<Repair | null> {
  const tp = o.snapshot.transcript.path;
  if (!tp) return null;
  const text = await safeReadText(path.resolve(o.root, tp), { maxBytes: MAX_TRANSCRIPT_BYTES, tail: true });
  const rec = o.agent === 'codex' ? importCodex(text) : importClaude(text);
  const natives = rec.items.filter((i) => i.type === 'native_compaction');
  const last = natives.at(-1);
  const line = last && last.line > (o.snapshot.transcript.lines ?? 0) ? last.line : rec.lines + 1;
  // Codex's PostCompact carries no summary: its rollout's `compacted` record does (message + replacement history).
  const summary = o.summary ?? (last && last.line === line ? nativeSummaryAt(linesOfText(text), line)?.summary : undefined);
  if (summary === undefined) return null; // no compaction recorded after the snapshot yet: nothing to compare
  const { state } = stateBefore(rec, line, o.settings, o.prompts);
  const repair = repairOf(summary, state, o.snapshot.packet);
  const repairTokens = estimateTokens(repair.text);
  writeFileAtomic(`${o.snapshotFile}.repair`, `${JSON.stringify({ at: o.now.toISOString(), text: repair.text, repairTokens, classes: repair.classes })}\n`);
  const summaryTokens = estimateTokens(summary);
  // The compaction record this repair is for, when the transcript has it (Claude Code's own counts).
  const atLine = last && last.line === line && last.type === 'native_compaction' ? last : undefined;
  hookLog(o.dir, {
    kind: 'receipt',
    at: o.now.toISOString(),
    trigger: o.trigger,
    snapshot: path.basename(o.snapshotFile),
    tokensBefore: tokensBefore(rec.items, line, atLine?.preTokens),
    tokensAfter: atLine?.postTokens ?? summaryTokens + repairTokens,
    tokensAfterMeasured: atLine?.postTokens !== undefined,
    summaryTokens,
    repairTokens,
    facts: repair.classes,
  });
  return repair;
}

/** Claude Code's own count before the compaction (preTokens), else the last recorded context before it. */
function tokensBefore(
  items: ReadonlyArray<{ type: string; line: number; contextTokens?: number }>,
  line: number,
  preTokens: number | undefined,
): number | null {
  if (preTokens !== undefined) return preTokens;
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i]!;
    if (it.line < line && it.type === 'usage' && typeof it.contextTokens === 'number') return it.contextTokens;
  }
  return null;
}

/** Whether the repair of the compaction this snapshot was taken for has been computed. */
export function hasRepair(snapshotFile: string): boolean {
  return fs.existsSync(`${snapshotFile}.repair`);
}

/** The latest snapshot's repair, for the one hook run that claims it; null when there is none, it is empty, or it was given already. */
export async function claimRepair(dir: string, event: string, now: Date, delivery: Delivery = claimNow): Promise<string | null> {
  const latest = latestSnapshotFile(dir);
  if (!latest) return null;
  const file = `${latest.file}.repair`;
  const given = `${latest.file}.repair-injected`;
  if (fs.existsSync(given)) return null;
  let saved: z.infer<typeof Saved>;
  try {
    const text = await safeReadTextIfExists(file, { maxBytes: MAX_REPAIR_FILE * 2 });
    if (text === undefined) return null;
    const parsed = Saved.safeParse(JSON.parse(text));
    if (!parsed.success || !parsed.data.text) return null;
    saved = parsed.data;
  } catch {
    return null;
  }
  const claimed = delivery(() => {
    if (!createExclusive(given, `${JSON.stringify({ event, at: now.toISOString() })}\n`)) return false;
    hookLog(dir, { kind: 'injected', at: now.toISOString(), what: 'repair', event, chars: saved.text.length });
    return true;
  });
  return claimed ? saved.text : null;
}
