/**
 * What idle compaction saves (issue 21; docs/user-guide.md "Compaction while you are away"): on every shared
 * recording, the replay is run with the person's absences played as the live host plays them
 * (ReplayOptions.idle: when a prompt comes more than rawr.idleCompactMinutes after a turn end where the
 * engine armed its watch, the watch fires first). At each such point the person's next request starts on
 * the compacted context (`with`) instead of the whole one (`without`), which after the provider's
 * prompt-cache lifetime is sent again uncached. The golden path's own packet turn reads the whole context
 * once, while the person is away — what that next request would have read anyway; every request after
 * it starts smaller. Counted from the recordings' own timestamps and token counts, never timed.
 */
import { basename } from 'node:path';
import { loadRecording } from '../../src/cli/replayCommand';
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
  const without = points.reduce((a, p) => a + p.tokensWithout, 0);
  const withIt = points.reduce((a, p) => a + p.tokensWith, 0);
  const gaps = rows.reduce((a, r) => a + r.longGaps, 0);
  out.push(
    `  total: ${rows.length} recordings, ${gaps} absences longer than ${minutes} min, ${points.length} idle compaction(s) (the others ended outside a tier, or where rawr compacted anyway); next requests ${k(without)} → ${k(withIt)} tokens` +
      (without > 0
        ? ` (${Math.round((1 - withIt / without) * 100)}% fewer; the background packet turn reads the ${k(without)} once, while the person is away)`
        : ''),
  );
  return out.join('\n');
}
