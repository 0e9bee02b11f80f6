/**
 * `npm run bench:handoff` (also a section of `npm run bench`): what survives a compaction. At every
 * native compaction of the recordings in ../shared/data/transcripts and ../shared/data/claude-code-2.1
 * (enumerated, whatever they hold), the probe facts of the records before it (probes.ts) are looked up in
 * (a) the tool's own summary, (b) rawr's handoff at the same line (`rawr handoff`, no LM: watcher packet +
 * handoff text) and (c) the same plus the recent turns rawr keeps verbatim. Tokens are estimated alike
 * for all three (~4 characters a token). Goal: (b) ≥ (a) in every class and overall, in ≤ 2× its tokens.
 *
 * Caveat, printed with the table: (b) and (c) score the watcher packet, whose sections are built from the
 * same trail the probe classes are drawn from — a favourable comparison. The default path is the agent
 * packet (packet_author: agent), written by the model; with no model here its packet cannot be scored, so
 * (d) scores what that path carries besides it — the handoff frame (plan, files, recovery steps) and the
 * verbatim tail: a floor for the default, not its score.
 *
 *   node out/test/bench/handoff.js [--verbose] [DIR_OR_FILE …]
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { dirReader, shippedPromptsDir } from '../../src/core/prompts/fs';
import { loadPromptSet } from '../../src/core/prompts/promptSet';
import { handoffAt, stateBefore } from '../../src/core/replay/handoffAt';
import { handoffText } from '../../src/core/sequence/texts';
import { estimateTokens } from '../../src/core/sequence/recentTail';
import { loadRecording } from '../../src/cli/replay/replayCommand';
import { renderMessage } from '../../src/cli/replay/handoffCommand';
import { formatCostBench, runCostBench } from './cost';
import { repairOf } from '../../src/core/sequence/repair';
import { CLASSES, extractProbes, formatOf, nativeCompactions, present, words, type Probe, type ProbeClass } from './probes';

export const DEFAULT_DIRS = ['transcripts', 'claude-code-2.1'].map((d) => resolve(__dirname, '../../../../shared/data', d));

type Tally = Record<ProbeClass, { found: number; total: number }>;
const emptyTally = (): Tally => Object.fromEntries(CLASSES.map((c) => [c, { found: 0, total: 0 }])) as Tally;

export interface CompactionRow {
  file: string;
  line: number;
  trigger: string;
  probes: number;
  tool: { found: number; tokens: number; missed: Probe[] };
  rawr: { found: number; tokens: number; missed: Probe[] };
  withTail: { found: number; tokens: number; missed: Probe[] };
  /** The default (agent-packet) path without its packet: the handoff frame plus the verbatim tail. */
  agentFloor: { found: number; tokens: number; missed: Probe[] };
  /** The tool's summary + rawr's repair (src/core/hooks/shared/repair.ts); `tokens` is what the repair added. */
  repaired: { found: number; tokens: number; missed: Probe[] };
}

export interface HandoffBench {
  rows: CompactionRow[];
  classes: { tool: Tally; rawr: Tally; withTail: Tally; tailOnly: Tally; agentFloor: Tally; repaired: Tally };
}

export function recordings(paths: string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    if (!existsSync(p)) continue;
    if (statSync(p).isDirectory()) for (const n of readdirSync(p).sort()) if (n.endsWith('.jsonl')) out.push(join(p, n));
    if (statSync(p).isFile()) out.push(p);
  }
  return out;
}

export function runHandoffBench(paths: string[] = DEFAULT_DIRS): HandoffBench {
  const set = loadPromptSet([dirReader(shippedPromptsDir())]);
  const rows: CompactionRow[] = [];
  const classes = { tool: emptyTally(), rawr: emptyTally(), withTail: emptyTally(), tailOnly: emptyTally(), agentFloor: emptyTally(), repaired: emptyTally() };
  for (const file of recordings(paths)) {
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const format = formatOf(lines);
    if (!format) continue;
    const natives = nativeCompactions(lines, format);
    if (natives.length === 0) continue;
    const rec = loadRecording(text, format);
    for (const n of natives) {
      const probes = extractProbes(lines, format, n.line);
      const h = handoffAt(rec, n.line, set.settings, set.prompts);
      const tailText = h.thread.map(renderMessage).join('\n\n');
      const score = (t: string, tally: Tally) => {
        const ws = new Set(words(t));
        const missed: Probe[] = [];
        let found = 0;
        for (const p of probes) {
          const ok = present(p, t, ws);
          tally[p.cls].total++;
          if (ok) {
            tally[p.cls].found++;
            found++;
          } else missed.push(p);
        }
        return { found, tokens: estimateTokens(t), missed };
      };
      const withTail = score(tailText, classes.withTail);
      // What the verbatim tail knows by itself (the same facts, without the packet).
      score(
        h.thread
          .filter((m) => m.role === 'tool' || m.kind !== 'handoff')
          .map(renderMessage)
          .join('\n\n'),
        classes.tailOnly,
      );
      // The default path: the agent's packet (not scorable without a model) inside the same frame.
      const { state } = stateBefore(rec, n.line, set.settings, set.prompts);
      const frame = handoffText(set.prompts, '', undefined, state.plan, state.trail, { origin: 'agent' });
      const agentFloor = score([...h.tail.map(renderMessage), frame].join('\n\n'), classes.agentFloor);
      // The tool's own summary, repaired by rawr after the compaction (what the hooks inject after PostCompact).
      const repair = repairOf(n.summary, state);
      const repaired = score(`${n.summary}\n\n${repair.text}`, classes.repaired);
      rows.push({
        file: basename(file),
        line: n.line,
        trigger: n.trigger,
        probes: probes.length,
        tool: score(n.summary, classes.tool),
        rawr: score(h.handoff, classes.rawr),
        // Counted as the model gets the messages (text and tool calls), not as rendered for reading.
        withTail: { ...withTail, tokens: h.tokens.total },
        agentFloor,
        repaired: { ...repaired, tokens: estimateTokens(repair.text) },
      });
    }
  }
  return { rows, classes };
}

const pct = (f: number, t: number) => (t === 0 ? '   –' : `${Math.round((100 * f) / t)}%`.padStart(4));
const kt = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));
const cell = (f: number, t: number) => `${f}/${t} ${pct(f, t)}`.padEnd(13);

export function formatHandoffBench(b: HandoffBench, verbose = false): string {
  const out: string[] = [];
  out.push(`handoff probes at ${b.rows.length} native compactions (tokens estimated as characters / 4, the same for all columns)`);
  out.push(
    'caveat: "rawr handoff" is the WATCHER packet (packet_author: watcher), whose sections are assembled from the same trail the probe classes are drawn from — a comparison in its favour.',
  );
  out.push(
    '        The default is the AGENT packet, written by the model: with no model here it is not scored; "agent path floor" is what that path carries besides it (handoff frame + verbatim tail).',
  );
  out.push('');
  out.push(
    `${'recording'.padEnd(46)} ${'line'.padStart(5)} trigger  ${'tool summary'.padEnd(22)} ${'rawr handoff'.padEnd(22)} ${'rawr + verbatim tail'.padEnd(22)} ${'agent path floor'.padEnd(22)} tool summary + rawr repair (+tokens)`,
  );
  for (const r of b.rows) {
    out.push(
      `${r.file.padEnd(46)} ${String(r.line).padStart(5)} ${r.trigger.padEnd(8)} ${`${cell(r.tool.found, r.probes)} ${kt(r.tool.tokens)}`.padEnd(22)} ${`${cell(r.rawr.found, r.probes)} ${kt(r.rawr.tokens)}`.padEnd(22)} ${`${cell(r.withTail.found, r.probes)} ${kt(r.withTail.tokens)}`.padEnd(22)} ${`${cell(r.agentFloor.found, r.probes)} ${kt(r.agentFloor.tokens)}`.padEnd(22)} ${cell(r.repaired.found, r.probes)} +${kt(r.repaired.tokens)}`,
    );
    if (verbose) {
      for (const [who, m] of [
        ['tool', r.tool.missed],
        ['rawr', r.rawr.missed],
        ['repaired', r.repaired.missed],
      ] as const)
        for (const p of m) out.push(`      ${who} missed ${p.cls}: ${p.label}`);
    }
  }
  out.push('');
  out.push(
    `${'class'.padEnd(16)} ${'tool summary'.padEnd(13)} ${'rawr handoff'.padEnd(13)} ${'rawr + tail'.padEnd(13)} ${'tail alone'.padEnd(13)} ${'agent floor'.padEnd(13)} tool summary + rawr repair`,
  );
  const total = (t: Tally) => CLASSES.reduce((a, c) => ({ found: a.found + t[c].found, total: a.total + t[c].total }), { found: 0, total: 0 });
  for (const c of CLASSES)
    out.push(
      `${c.padEnd(16)} ${cell(b.classes.tool[c].found, b.classes.tool[c].total)} ${cell(b.classes.rawr[c].found, b.classes.rawr[c].total)} ${cell(b.classes.withTail[c].found, b.classes.withTail[c].total)} ${cell(b.classes.tailOnly[c].found, b.classes.tailOnly[c].total)} ${cell(b.classes.agentFloor[c].found, b.classes.agentFloor[c].total)} ${cell(b.classes.repaired[c].found, b.classes.repaired[c].total)}`,
    );
  const [tt, tr, tw, to, ta, tp] = [
    total(b.classes.tool),
    total(b.classes.rawr),
    total(b.classes.withTail),
    total(b.classes.tailOnly),
    total(b.classes.agentFloor),
    total(b.classes.repaired),
  ];
  out.push(
    `${'overall'.padEnd(16)} ${cell(tt.found, tt.total)} ${cell(tr.found, tr.total)} ${cell(tw.found, tw.total)} ${cell(to.found, to.total)} ${cell(ta.found, ta.total)} ${cell(tp.found, tp.total)}`,
  );
  const tokens = (k: 'tool' | 'rawr' | 'withTail' | 'agentFloor' | 'repaired') => b.rows.reduce((n, r) => n + r[k].tokens, 0);
  out.push(
    `${'tokens (sum)'.padEnd(16)} ${kt(tokens('tool')).padEnd(13)} ${kt(tokens('rawr')).padEnd(13)} ${kt(tokens('withTail')).padEnd(13)} ${''.padEnd(13)} ${`${kt(tokens('agentFloor'))} + packet`.padEnd(13)} ${kt(tokens('tool'))} + ${kt(tokens('repaired'))} added`,
  );
  out.push('');
  const share = (t: { found: number; total: number }) => (t.total ? t.found / t.total : 1);
  const classOk = CLASSES.every((c) => share(b.classes.rawr[c]) >= share(b.classes.tool[c]));
  const overallOk = share(tr) >= share(tt);
  const worst = Math.max(...b.rows.map((r) => r.rawr.tokens / Math.max(1, r.tool.tokens)));
  out.push(
    `goal rawr ≥ tool summary in every class: ${classOk ? 'PASS' : 'FAIL'}; overall (${pct(tr.found, tr.total).trim()} vs ${pct(tt.found, tt.total).trim()}): ${overallOk ? 'PASS' : 'FAIL'}`,
  );
  out.push(
    `goal rawr tokens ≤ 2× the tool summary's: worst compaction ${worst.toFixed(2)}×, all together ${(tokens('rawr') / Math.max(1, tokens('tool'))).toFixed(2)}× — ${worst <= 2 ? 'PASS' : 'FAIL'}`,
  );
  const repairClassesOk = CLASSES.every((c) => share(b.classes.repaired[c]) >= 0.95);
  const worstRepair = Math.max(0, ...b.rows.map((r) => r.repaired.tokens / Math.max(1, r.tool.tokens)));
  out.push(
    `goal tool summary + rawr repair ≥ 95% of the probes in every class: ${repairClassesOk ? 'PASS' : 'FAIL'} (per class: ${CLASSES.map((c) => `${c} ${pct(b.classes.repaired[c].found, b.classes.repaired[c].total).trim()}`).join(', ')})`,
  );
  out.push(
    `goal rawr repair adds ≤ 0.5× the summary's tokens: worst compaction ${worstRepair.toFixed(2)}×, all together ${(tokens('repaired') / Math.max(1, tokens('tool'))).toFixed(2)}× — ${worstRepair <= 0.5 ? 'PASS' : 'FAIL'}`,
  );
  out.push(
    `the verbatim tail (keep_recent_tokens) adds ${tw.found - tr.found} probe hits to the handoff for ${kt(tokens('withTail') - tokens('rawr'))} tokens; by itself it holds ${pct(to.found, to.total).trim()} of the probes (the exact recent tool output and wording, which the packet only excerpts)`,
  );
  return out.join('\n');
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const verbose = args.includes('--verbose');
  const paths = args.filter((a) => !a.startsWith('--'));
  const dirs = paths.length ? paths.map((p) => resolve(p)) : DEFAULT_DIRS;
  process.stdout.write(`${formatHandoffBench(runHandoffBench(dirs), verbose)}\n\n`);
  void runCostBench(recordings(dirs)).then((rows) => process.stdout.write(`${formatCostBench(rows)}\n`));
}
