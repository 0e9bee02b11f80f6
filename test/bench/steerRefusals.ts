/**
 * Refusals per compaction when rawr steers Claude Code (issue 34), over the bench's generated session
 * families. Claude Code asks rawr's PreCompact hook before every model request once its context passes
 * the ask line rawr installs (steerConfig.ts askLineFor: 54% of the effective window), and shows every
 * call, refused or not, as a "compacting" status (measured on 2.1.332). Counted here from the replay of
 * each session (the same arbiter the hook answers with, at every evaluation point, in the context as
 * rawr's own compactions leave it): a point at or past the ask line where rawr does not compact is one
 * refusal; a compaction at a boundary with the golden path (the model writes its packet first) costs one
 * more, the request that writes the packet (real-agent S1: one refusal before the commit, one while the
 * packet is written, then the compaction). An emergency compaction asks for no packet.
 */
import { loadRecording } from '../../src/cli/replay/replayCommand';
import { askLineFor, askPercentOf, claudeAsksFrom } from '../../src/core/hooks/claude/steerConfig';
import type { Prompts } from '../../src/core/prompts/promptSet';
import { replay } from '../../src/core/replay/driver';
import { DEFAULT_POST_TOKENS } from '../../src/core/replay/schedule';
import type { Settings } from '../../src/core/settings/schema';
import { generateFamilies } from './phasedGen';

export interface RefusalTally {
  family: string;
  sessions: number;
  compactions: number;
  refusals: number;
  /** The most refusals before one compaction, in any session of the family. */
  worst: number;
}

/** Refusals before each compaction of one session's replay (and after the last one: asked, never allowed). */
function refusalsOf(text: string, window: number, settings: Settings, prompts: Prompts): { compactions: number; refusals: number; worst: number } {
  const line = askLineFor(window, settings);
  const asksFrom = claudeAsksFrom(Math.min(window, line.autoCompactWindow), askPercentOf(line.percent));
  const { decisions } = replay(loadRecording(text), { settings, prompts, window, postTokens: DEFAULT_POST_TOKENS });
  const golden = settings.packet_author === 'agent';
  let compactions = 0;
  let refusals = 0;
  let worst = 0;
  let run = 0;
  for (const d of decisions) {
    if (d.contextTokens < asksFrom) continue; // Claude Code does not ask below its line
    if (d.action === 'compact') {
      compactions++;
      if (golden && d.code !== 'emergency') run++; // the request that writes the packet
      refusals += run;
      worst = Math.max(worst, run);
      run = 0;
    } else run++;
  }
  return { compactions, refusals: refusals + run, worst: Math.max(worst, run) };
}

export function runSteerRefusals(settings: Settings, prompts: Prompts, seed: number, count: number): RefusalTally[] {
  return generateFamilies(seed, count).map(({ family, sessions }) => {
    const t: RefusalTally = { family: family.name, sessions: sessions.length, compactions: 0, refusals: 0, worst: 0 };
    for (const s of sessions) {
      const r = refusalsOf(s.text, s.labels.window, settings, prompts);
      t.compactions += r.compactions;
      t.refusals += r.refusals;
      t.worst = Math.max(t.worst, r.worst);
    }
    return t;
  });
}

export function formatSteerRefusals(rows: RefusalTally[], seed: number, count: number): string {
  const per = (t: { refusals: number; compactions: number }) => (t.compactions ? (t.refusals / t.compactions).toFixed(2) : '-');
  const all = rows.reduce((a, r) => ({ refusals: a.refusals + r.refusals, compactions: a.compactions + r.compactions }), { refusals: 0, compactions: 0 });
  return [
    `Claude Code steering: refusals per compaction (each PreCompact call is a visible "compacting" status; Claude Code asks from rawr's ask line; seed ${seed}, ${count} per family):`,
    `  family                 compactions  refusals  per compaction  worst before one`,
    ...rows.map(
      (r) =>
        `  ${r.family.padEnd(22)} ${String(r.compactions).padStart(11)}  ${String(r.refusals).padStart(8)}  ${per(r).padStart(14)}  ${String(r.worst).padStart(16)}`,
    ),
    `  ${'all'.padEnd(22)} ${String(all.compactions).padStart(11)}  ${String(all.refusals).padStart(8)}  ${per(all).padStart(14)}`,
  ].join('\n');
}
