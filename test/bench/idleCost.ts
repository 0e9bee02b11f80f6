/**
 * What idle compaction saves (issue 21; docs/user-guide.md "Compaction while you are away"): on every shared
 * recording, the replay is run with the person's absences played as the live host plays them
 * (ReplayOptions.idle: when a prompt comes more than rawr.idleCompactMinutes after a turn end where the
 * engine armed its watch, the watch fires first). At each such point the person's next request starts on
 * the compacted context (`with`) instead of the whole one (`without`), which after the provider's
 * prompt-cache lifetime is sent again uncached. The golden path's own packet turn reads the whole context
 * once, while the person is away, and is counted with the next request (issue 35: leaving it out made
 * the return look cheaper than it is); what idle compaction saves is on every request after it. Counted from the recordings' own timestamps and token counts, never timed.
 */
import { basename } from 'node:path';
import { loadRecording } from '../../src/cli/replay/replayCommand';
import { replay } from '../../src/core/replay/driver';
import type { Prompts } from '../../src/core/prompts/promptSet';
import type { Settings } from '../../src/core/settings/schema';

export interface IdleCostRow {
  file: string;
  /** Gaps between a turn end and the next prompt longer than the setting (whatever the tier). */
  longGaps: number;
  points: Array<{ line: number; awayMinutes: number; tokensWithout: number; tokensWith: number }>;
}

export function runIdleCostBench(files: string[], settings: Settings, prompts: Prompts): IdleCostRow[] {
  const rows: IdleCostRow[] = [];
  for (const file of files) {
    let rec;
    try {
      rec = loadRecording({ path: file });
    } catch {
      continue; // nothing to replay (the handoff bench reports such files)
    }
    const r = replay(rec, { settings, prompts, idle: true });
    const ms = settings.idle_compact_minutes * 60_000;
    let longGaps = 0;
    let last = 0;
    for (const it of rec.items) {
      if (it.type === 'user_prompt' && last > 0 && it.at - last >= ms) longGaps++;
      if (it.at) last = Math.max(last, it.at);
    }
    rows.push({ file: basename(file), longGaps, points: r.summary.idle ?? [] });
  }
  return rows;
}

const k = (n: number) => `${(n / 1000).toFixed(1)}k`;

export function formatIdleCostBench(rows: IdleCostRow[], minutes: number): string {
  const out = [
    `idle compaction (rawr.idleCompactMinutes = ${minutes}): the person's next request after an absence, with and without it (replay of the recordings' own timestamps)`,
  ];
  const points = rows.flatMap((r) => r.points);
  for (const r of rows.filter((x) => x.points.length)) {
    for (const p of r.points)
      out.push(
        `  ${r.file.slice(0, 48).padEnd(48)} line ${String(p.line).padStart(6)}  away ${String(p.awayMinutes).padStart(5)} min  next request ${k(p.tokensWithout).padStart(7)} → ${k(p.tokensWith).padStart(6)} tokens`,
      );
  }
  // Without idle compaction the next request sends the whole context again (uncached after the absence).
  // With it, the background packet turn reads that same whole context once, and the next request then
  // sends the compacted one: both count, so on that request alone idle compaction costs more, never less.
  // What it saves comes after: every later request starts on the compacted context.
  const without = points.reduce((a, p) => a + p.tokensWithout, 0);
  const packetTurns = without;
  const withIt = points.reduce((a, p) => a + p.tokensWith, 0);
  const gaps = rows.reduce((a, r) => a + r.longGaps, 0);
  out.push(
    `  total: ${rows.length} recordings, ${gaps} absences longer than ${minutes} min, ${points.length} idle compaction(s) (the others ended outside a tier, or where rawr compacted anyway)` +
      (without > 0
        ? `; tokens read at the return, without → with: ${k(without)} (next requests) → ${k(packetTurns + withIt)} (${k(packetTurns)} background packet turns + ${k(withIt)} next requests, ${signedPercent(packetTurns + withIt, without)}); every later request starts ${k(without - withIt)} smaller in all`
        : ''),
  );
  return out.join('\n');
}

/** "+18% more" / "-40% fewer" of `after` against `before`. */
function signedPercent(after: number, before: number): string {
  const d = Math.round((after / before - 1) * 100);
  return d >= 0 ? `${d}% more` : `${-d}% fewer`;
}
