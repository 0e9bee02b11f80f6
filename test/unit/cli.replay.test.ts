import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as z from 'zod';
import { EventLog } from '../../src/core/log/eventLog';
import type { EngineEvent } from '../../src/core/engine/types';
import { needShared } from '../support/sharedData';

// Compiled to out/test/unit/; the CLI is out/src/cli/main.js; the shared data sits beside the repo.
const CLI = path.resolve(__dirname, '../../src/cli/main.js');
const DIR = process.env.RAWR_TRANSCRIPTS ?? path.resolve(__dirname, '../../../../shared/data/transcripts');

function rawr(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, timeout: 120_000 });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const Tier = z.enum(['early', 'ready', 'asap', 'emergency']);
const DecisionLine = z.object({
  type: z.literal('decision'),
  line: z.number().int().positive(),
  percentRemaining: z.number().min(0).max(100).nullable(),
  tier: Tier.nullable(),
  boundaries: z.array(z.string().min(1)),
  action: z.enum(['compact', 'none', 'suggest']),
  reason: z.string().min(1),
  code: z.string().min(1),
  forecast: z
    .object({ nextPhaseTokens: z.number(), roomTokens: z.number(), verdict: z.enum(['compact', 'fits', 'plan_done', 'defer']), drove: z.boolean() })
    .optional(),
});
const SummaryLine = z.object({
  type: z.literal('summary'),
  format: z.enum(['claude', 'codex', 'rawr']),
  lines: z.number().int().nonnegative(),
  window: z.number().positive(),
  compactions: z.array(
    z.object({
      line: z.number().int().positive(),
      tier: Tier.nullable(),
      percentRemaining: z.number().nullable(),
      boundaries: z.array(z.string()),
      code: z.string(),
    }),
  ),
  nativeCompactions: z.array(z.object({ line: z.number().int().positive(), trigger: z.enum(['auto', 'manual', 'unknown']), preTokens: z.number().optional() })),
  counterfactualOverflows: z.number().int().nonnegative(),
  problems: z.number().int().nonnegative(),
});
type Decision = z.infer<typeof DecisionLine>;
/** The tier of a percent remaining under the shipped thresholds (prompts/rawr-auto-compact.md). */
const tierFor = (p: number) => (p < 12 ? 'emergency' : p < 25 ? 'asap' : p < 35 ? 'ready' : p < 45 ? 'early' : null);
type Summary = z.infer<typeof SummaryLine>;

/** Parses `--json` output: every line JSON, decisions then exactly one summary last. */
function parseJsonOutput(stdout: string): { decisions: Decision[]; summary: Summary } {
  assert.ok(stdout.endsWith('\n'), 'output ends with a newline');
  const lines = stdout.slice(0, -1).split('\n');
  const objs = lines.map((l, k) => {
    try {
      return JSON.parse(l) as unknown;
    } catch {
      throw new assert.AssertionError({ message: `stdout line ${k + 1} is not JSON: ${l.slice(0, 200)}` });
    }
  });
  const decisions = objs.slice(0, -1).map((o, k) => {
    const p = DecisionLine.safeParse(o);
    assert.ok(p.success, `stdout line ${k + 1}: ${p.success ? '' : p.error.message}`);
    return p.data;
  });
  const s = SummaryLine.safeParse(objs[objs.length - 1]);
  assert.ok(s.success, `last line is not a summary: ${s.success ? '' : s.error.message}`);
  return { decisions, summary: s.data };
}

/** Facts read straight from a raw recording, independently of rawr's importers. */
interface RawFacts {
  lineCount: number;
  /** Native compactions: Claude `system/compact_boundary`, Codex top-level `compacted`. */
  native: Array<{ line: number; trigger?: string; preTokens?: number }>;
  /** Successful `git commit` shell calls: the line of the result, and the sha git printed (if any). */
  commits: Array<{ resultLine: number; sha?: string }>;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((b) => (b && typeof b === 'object' && typeof (b as { text?: unknown }).text === 'string' ? (b as { text: string }).text : ''))
      .join('\n');
  return '';
}
const COMMIT_CMD = /\bgit\b[^\n]*\bcommit\b/;
/** git's own success line: `[branch sha] subject` (also `[branch (root-commit) sha]`). */
const COMMIT_SUMMARY = /^\[[^\]\n]* ([0-9a-f]{7,40})\] \S/m;

function scanRaw(file: string): RawFacts {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const facts: RawFacts = { lineCount: lines.length, native: [], commits: [] };
  const calls = new Set<string>();
  lines.forEach((raw, i) => {
    const line = i + 1;
    let r: Record<string, any>;
    try {
      r = JSON.parse(raw);
    } catch {
      return;
    }
    // Claude Code
    if (r.type === 'system' && r.subtype === 'compact_boundary') {
      facts.native.push({ line, trigger: r.compactMetadata?.trigger, preTokens: r.compactMetadata?.preTokens });
    }
    if (r.type === 'assistant' && Array.isArray(r.message?.content)) {
      for (const b of r.message.content) if (b?.type === 'tool_use' && b.name === 'Bash' && COMMIT_CMD.test(String(b.input?.command ?? ''))) calls.add(b.id);
    }
    if (r.type === 'user' && Array.isArray(r.message?.content)) {
      for (const b of r.message.content) {
        if (b?.type !== 'tool_result' || !calls.has(b.tool_use_id)) continue;
        const out = textOf(b.content);
        const m = COMMIT_SUMMARY.exec(out);
        if (m) facts.commits.push({ resultLine: line, sha: m[1] });
        else if (b.is_error !== true && !/nothing to commit|error:|fatal:/i.test(out)) facts.commits.push({ resultLine: line });
      }
    }
    // Codex
    if (r.type === 'compacted' && 'payload' in r) facts.native.push({ line });
    const p = r.payload;
    if (
      r.type === 'response_item' &&
      p?.type === 'function_call' &&
      ['shell', 'exec_command', 'local_shell'].includes(p.name) &&
      COMMIT_CMD.test(String(p.arguments ?? ''))
    )
      calls.add(p.call_id);
    if (r.type === 'response_item' && p?.type === 'function_call_output' && calls.has(p.call_id)) {
      const out = typeof p.output === 'string' ? p.output : JSON.stringify(p.output);
      const m = COMMIT_SUMMARY.exec(out.replace(/\\n/g, '\n'));
      if (m) facts.commits.push({ resultLine: line, sha: m[1] });
      else if (/"exit_code"\s*:\s*0\b|Exit code: 0\b|exited with code 0\b/.test(out)) facts.commits.push({ resultLine: line });
    }
  });
  return facts;
}

describe('rawr replay (CLI) on the real recordings', function () {
  this.timeout(180_000);
  const files = fs.existsSync(DIR)
    ? fs
        .readdirSync(DIR)
        .filter((f) => f.endsWith('.jsonl'))
        .sort()
    : [];
  const runs = new Map<string, { decisions: Decision[]; summary: Summary; raw: RawFacts; stderr: string }>();
  before(function () {
    needShared(this, DIR);
    for (const f of files) {
      const file = path.join(DIR, f);
      const r = rawr('replay', file, '--json');
      assert.equal(r.code, 0, `${f}: ${r.stderr}`);
      runs.set(f, { ...parseJsonOutput(r.stdout), raw: scanRaw(file), stderr: r.stderr });
    }
  });
  const get = (f: string) => {
    const r = runs.get(f);
    assert.ok(r, `${f} missing from ${DIR}`);
    return r;
  };

  // The folder grows: every recording these tests were written against is still found (more may come).
  it('finds the recordings these tests know', () => {
    for (const f of [
      'claude-spotter-258c7280.jsonl',
      'claude-spotter-8463c716.jsonl',
      'claude-spotter-ae4a77f8-acompact.jsonl',
      'claude-spotter-ae4a77f8.jsonl',
      'codex-acidicsoil-lmstudio.jsonl',
      'codex-localpush-compacted.jsonl',
      'codex-localpush-plan.jsonl',
    ])
      assert.ok(files.includes(f), `${f} in ${files.join(', ')}`);
  });

  it('every file: JSON lines, decisions with non-decreasing lines within the file, summary last with the right format and line count', () => {
    for (const [f, { decisions, summary, raw, stderr }] of runs) {
      assert.equal(stderr, '', `${f}: unexpected stderr`);
      assert.equal(summary.format, f.startsWith('claude') ? 'claude' : 'codex', f);
      assert.equal(summary.lines, raw.lineCount, f);
      assert.equal(summary.problems, 0, f);
      let prev = 0;
      for (const d of decisions) {
        assert.ok(d.line >= prev, `${f}: line ${d.line} after ${prev}`);
        assert.ok(d.line <= raw.lineCount, `${f}: line ${d.line} beyond ${raw.lineCount}`);
        // The tier follows the shipped thresholds (45/35/25/12); the printed percent is rounded to 0.1.
        const p = d.percentRemaining;
        if (p !== null && ![45, 35, 25, 12].some((t) => Math.abs(p - t) <= 0.05)) assert.equal(d.tier, tierFor(p), `${f} line ${d.line}: ${p}%`);
        // A compaction needs a tier or the phase forecast, and (outside emergency) a boundary.
        if (d.action === 'compact') {
          if (d.tier === null)
            assert.ok(
              d.forecast?.verdict === 'compact' && d.forecast.drove && d.forecast.roomTokens < d.forecast.nextPhaseTokens * 1.05 + 1,
              `${f} line ${d.line}`,
            );
          if (d.tier !== 'emergency') assert.ok(d.boundaries.length > 0, `${f} line ${d.line}`);
        }
        prev = d.line;
      }
      // Each summarised rawr compaction is a decision at that line that compacted (or preflighted).
      for (const c of summary.compactions) {
        const at = decisions.filter((d) => d.line === c.line);
        assert.ok(
          at.some((d) => d.action === 'compact' || /before the next prompt/.test(d.reason)),
          `${f}: compaction at ${c.line} has no decision`,
        );
      }
      assert.equal(summary.compactions.length, decisions.filter((d) => d.action === 'compact' || /before the next prompt/.test(d.reason)).length, f);
    }
    // Non-trivial: the long sessions produce many evaluation points.
    assert.ok(get('claude-spotter-258c7280.jsonl').decisions.length > 100);
    assert.ok(get('codex-localpush-compacted.jsonl').decisions.length > 100);
    assert.equal(get('claude-spotter-ae4a77f8-acompact.jsonl').decisions.length, 0); // a two-line summariser call
  });

  it('native compactions are exactly the compaction records found in each file', () => {
    for (const [f, { summary, raw }] of runs) {
      assert.deepEqual(
        summary.nativeCompactions.map((n) => n.line),
        raw.native.map((n) => n.line),
        f,
      );
    }
  });

  for (const [f, trigger] of [
    ['claude-spotter-258c7280.jsonl', 'auto'],
    ['claude-spotter-8463c716.jsonl', 'auto'],
    ['claude-spotter-ae4a77f8.jsonl', 'manual'],
  ] as const) {
    it(`${f}: one native ${trigger} compaction, at the line of the compact_boundary record`, () => {
      const { summary, raw } = get(f);
      assert.equal(raw.native.length, 1);
      assert.equal(raw.native[0]!.trigger, trigger);
      assert.deepEqual(summary.nativeCompactions, [{ line: raw.native[0]!.line, trigger, preTokens: raw.native[0]!.preTokens }]);
    });
  }

  it('codex-localpush-compacted: one native compaction, at the line of the top-level `compacted` record', () => {
    const { summary, raw } = get('codex-localpush-compacted.jsonl');
    assert.equal(raw.native.length, 1);
    assert.equal(summary.nativeCompactions.length, 1);
    assert.equal(summary.nativeCompactions[0]!.line, raw.native[0]!.line);
    assert.equal(summary.nativeCompactions[0]!.line, 1788); // cross-check of the scanner itself
  });

  it('every rawr compaction cites a boundary; a cited commit was made by a successful git commit before that line', () => {
    let citedCommits = 0;
    for (const [f, { summary, raw }] of runs) {
      for (const c of summary.compactions) {
        assert.ok(c.boundaries.length >= 1, `${f}: compaction at line ${c.line} cites no boundary (${c.code})`);
        for (const b of c.boundaries.filter((x) => x.startsWith('commit '))) {
          citedCommits++;
          const sha = /^commit ([0-9a-f]{7,40})\b/.exec(b)?.[1];
          const before = raw.commits.filter((k) => k.resultLine <= c.line);
          if (sha)
            assert.ok(
              before.some((k) => k.sha && (k.sha.startsWith(sha) || sha.startsWith(k.sha))),
              `${f}: line ${c.line} cites ${b} but no successful commit ${sha} precedes it`,
            );
          else assert.ok(before.length > 0, `${f}: line ${c.line} cites ${b} with no successful git commit before it`);
        }
      }
    }
    assert.ok(citedCommits >= 1, 'no compaction cited a commit: the check above proved nothing');
  });

  it('the scanner agrees with the recordings: successful commits per file', () => {
    // 8463c716 has 5 `git commit` calls, one rejected (ignored paths); ae4a77f8 has 14, eight rejected by hooks.
    assert.deepEqual(
      ['claude-spotter-258c7280.jsonl', 'claude-spotter-8463c716.jsonl', 'claude-spotter-ae4a77f8.jsonl'].map((f) => get(f).raw.commits.length),
      [5, 4, 6],
    );
  });

  it('zero counterfactual overflows on every file', () => {
    for (const [f, { summary }] of runs) assert.equal(summary.counterfactualOverflows, 0, f);
  });

  it('where the recorded tool compacted automatically (it ran out of room), rawr had compacted earlier', () => {
    let checked = 0;
    for (const [f, { summary }] of runs) {
      const auto = summary.nativeCompactions.find((n) => n.trigger === 'auto');
      if (!auto) continue;
      checked++;
      assert.ok(summary.compactions.length >= 1, f);
      assert.ok(summary.compactions[0]!.line < auto.line, `${f}: first rawr compaction at ${summary.compactions[0]!.line}, native at ${auto.line}`);
    }
    assert.equal(checked, 3); // 258c7280, 8463c716, codex-localpush-compacted
  });
});

describe('rawr replay (CLI): options, errors and the table', function () {
  this.timeout(120_000);
  const real = (f: string) => path.join(DIR, f);
  let tmp: string;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-cli-'));
  });
  after(() => {
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  const noStack = (stderr: string) => assert.doesNotMatch(stderr, /\n\s+at .+[:(]\d+/, 'a stack trace leaked to the user');

  it('no arguments: exit 2 with the usage on stderr', () => {
    const r = rawr();
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^usage: rawr replay FILE/);
    assert.equal(r.stdout, '');
  });

  it('--help, -h and help: the usage on stdout, exit 0 (asked-for help is output, not an error)', () => {
    for (const flag of ['--help', '-h', 'help']) {
      const r = rawr(flag);
      assert.equal(r.code, 0, flag);
      assert.match(r.stdout, /^usage: rawr replay FILE/, flag);
      assert.match(r.stdout, /rawr hooks claude/, flag);
      assert.equal(r.stderr, '', flag);
    }
  });

  it('--version prints the version from package.json', () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const r = rawr(flag);
      assert.equal(r.code, 0, flag);
      assert.equal(r.stdout, `rawr ${pkg.version}\n`, flag);
      assert.equal(r.stderr, '', flag);
    }
  });

  it('an unknown command: exit 2, names it, usage on stderr', () => {
    const r = rawr('replya', 'x.jsonl');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^rawr: unknown command "replya"\nusage: rawr replay FILE/);
    assert.equal(r.stdout, '');
  });

  it('`replay` without a FILE: exit 2, says what is missing, shows the usage', () => {
    const r = rawr('replay');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /expected exactly one FILE/);
    assert.match(r.stderr, /usage: rawr replay/);
  });

  it('an unknown option or --format value: exit 2', () => {
    assert.equal(rawr('replay', 'x.jsonl', '--frobnicate').code, 2);
    const r = rawr('replay', 'x.jsonl', '--format', 'gemini');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--format must be claude, codex or rawr/);
  });

  it('a non-existent file: exit 1, a one-line message naming it on stderr, nothing on stdout', () => {
    const missing = path.join(tmp, 'no-such-session.jsonl');
    const r = rawr('replay', missing, '--json');
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^rawr replay: .*no such file.*no-such-session\.jsonl/i);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    noStack(r.stderr);
  });

  it('a garbage file: exit 1 with a clear message, not a stack trace', () => {
    for (const [name, content] of [
      ['garbage.jsonl', 'this is not a transcript\n{ neither is this\n'],
      ['binary.jsonl', Buffer.from([0, 1, 2, 255, 254, 10, 0x7b, 0x7d, 10]).toString('latin1')],
      ['other-json.jsonl', '{"hello":"world"}\n[1,2,3]\n'],
    ] as const) {
      const file = path.join(tmp, name);
      fs.writeFileSync(file, content);
      const r = rawr('replay', file, '--json');
      assert.equal(r.code, 1, name);
      assert.equal(r.stdout, '', name);
      assert.match(r.stderr, /^rawr replay: cannot tell the format .*pass --format\n$/, name);
      noStack(r.stderr);
    }
  });

  it('an empty or blank file: exit 1, says it is empty (not "pass --format", which cannot help)', () => {
    for (const [name, content] of [
      ['empty.jsonl', ''],
      ['blank.jsonl', '\n  \n\r\n'],
    ] as const) {
      const file = path.join(tmp, name);
      fs.writeFileSync(file, content);
      for (const args of [
        ['replay', file],
        ['handoff', file, '--line', '1'],
      ]) {
        const r = rawr(...args);
        assert.equal(r.code, 1, name);
        assert.equal(r.stdout, '', name);
        assert.equal(r.stderr, `rawr ${args[0]}: ${file} is empty or holds only blank lines: nothing to replay\n`, name);
      }
    }
  });

  it('a bad --window / --post-tokens value: exit 2 with a message, checked before the file is read', () => {
    for (const [opt, v] of [
      ['--window', 'lots'],
      ['--window', '-5'],
      ['--post-tokens', '0'],
    ] as const) {
      const r = rawr('replay', path.join(tmp, 'not-read.jsonl'), `${opt}=${v}`);
      assert.equal(r.code, 2, `${opt} ${v}`);
      assert.equal(r.stderr, `rawr replay: ${opt} must be a positive number, got "${v}"\n`);
      assert.equal(r.stdout, '');
    }
  });

  it('--format overrides detection (and the right format gives the same result as detection)', function () {
    needShared(this, DIR);
    const claude = real('claude-spotter-258c7280.jsonl');
    const detected = rawr('replay', claude, '--json');
    const forced = rawr('replay', claude, '--json', '--format', 'claude');
    assert.equal(forced.code, 0);
    assert.equal(forced.stdout, detected.stdout);

    // A Claude session read as Codex: every line is reported as not a Codex record, nothing is evaluated.
    // The wrong format reads no record at all: an error (exit 1), not a clean verdict about nothing.
    const wrong = rawr('replay', claude, '--json', '--format', 'codex');
    assert.equal(wrong.code, 1, wrong.stdout);
    assert.equal(wrong.stdout, '');
    assert.match(wrong.stderr, /^rawr replay: no record could be read as codex \(\d+ problems; first: line 1: Codex record does not match schema/);

    const codex = real('codex-acidicsoil-lmstudio.jsonl');
    const asClaude = rawr('replay', codex, '--json', '--format', 'claude');
    assert.equal(asClaude.code, 1, asClaude.stdout);
    assert.match(asClaude.stderr, /^rawr replay: no record could be read as claude/);
  });

  it('--window changes the modelled window', function () {
    needShared(this, DIR);
    const { summary } = parseJsonOutput(rawr('replay', real('claude-spotter-258c7280.jsonl'), '--json', '--window', '1000000').stdout);
    assert.equal(summary.window, 1_000_000);
    assert.equal(summary.compactions.length, 0); // 167k of 1M never reaches a tier
  });

  it('the readable table ends with a VERDICT line and agrees with --json', function () {
    needShared(this, DIR);
    const file = real('claude-spotter-8463c716.jsonl');
    const r = rawr('replay', file);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^rawr replay .*claude-spotter-8463c716\.jsonl +\(claude, 1593 lines, window 200\.0k/);
    assert.match(lines[lines.length - 1]!, /^VERDICT: /);
    assert.equal(lines.filter((l) => l.startsWith('VERDICT:')).length, 1);
    const { summary } = parseJsonOutput(rawr('replay', file, '--json').stdout);
    assert.ok(
      r.stdout.includes(`rawr would compact ${summary.compactions.length}× at line ${summary.compactions.map((c) => c.line)[0]}`),
      r.stdout.slice(-600),
    );
    assert.ok(r.stdout.includes(`recorded tool compacted by itself at line ${summary.nativeCompactions[0]!.line} (auto`));
    assert.match(lines[lines.length - 1]!, new RegExp(`^VERDICT: \\d+/${summary.compactions.length} compactions at phase boundaries, 0 overflows$`));
  });

  it('--prompts DIR: a folder whose rawr-auto-compact.md overrides the settings (mode off → no compaction)', function () {
    needShared(this, DIR);
    const dir = fs.mkdtempSync(path.join(tmp, 'prompts-'));
    fs.writeFileSync(path.join(dir, 'rawr-auto-compact.md'), '---\nmode: off\n---\nPacket please.\n');
    const r = rawr('replay', real('claude-spotter-258c7280.jsonl'), '--json', '--prompts', dir);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.equal(parseJsonOutput(r.stdout).summary.compactions.length, 0);
    // A broken override is reported file:line:col on stderr, and the run still completes on defaults.
    fs.writeFileSync(path.join(dir, 'rawr-auto-compact.md'), '---\nmode: off\ncooldown_turns: -1\n---\nPacket please.\n');
    const bad = rawr('replay', real('claude-spotter-258c7280.jsonl'), '--json', '--prompts', dir);
    assert.equal(bad.code, 0);
    assert.match(bad.stderr, new RegExp(`rawr-auto-compact\\.md:3:17: error: invalid value for "cooldown_turns"`));
  });

  it('a rawr event log written with EventLog is auto-detected as format "rawr" and replayed', () => {
    const file = path.join(tmp, 'thread-7f3a.jsonl');
    const log = new EventLog(file, 'thread-7f3a');
    let t = Date.parse('2026-03-02T09:00:00.000Z');
    const ev = (event: { type: string } & Record<string, unknown>) =>
      log.append({ kind: 'event', at: (t += 1000), event: { at: t, ...event } as unknown as EngineEvent });
    ev({ type: 'user_message', text: 'Finish phase 2 (codex importer) and commit it.' });
    ev({ type: 'tokens', used: 24_000, window: 200_000 });
    ev({ type: 'assistant_message', text: 'Reading the importer.' });
    ev({ type: 'tool_call', id: 'c1', name: 'Read', input: { file_path: 'src/core/replay/import/codex.ts' } });
    ev({ type: 'tool_result', id: 'c1', output: 'export function importCodex(text: string): Recording {…', isError: false });
    ev({ type: 'tokens', used: 136_000, window: 200_000 });
    ev({ type: 'assistant_message', text: 'Tests pass; committing.' });
    ev({ type: 'tool_call', id: 'c2', name: 'run_in_terminal', input: { command: 'git commit -am "importer: codex rollouts"' } });
    ev({ type: 'tool_result', id: 'c2', output: '[main 3f9e2a1] importer: codex rollouts\n 2 files changed, 120 insertions(+)', isError: false, exitCode: 0 });
    ev({ type: 'assistant_message', text: 'Committed 3f9e2a1. Phase 2 is done; next is the replay CLI.' });
    log.append({ kind: 'compaction', at: (t += 1000), seqId: 's1', tokensBefore: 138_000, tokensAfter: 30_000, archived: [], replacement: [] });
    ev({ type: 'user_message', text: 'Go on with the replay CLI.' });
    ev({ type: 'tokens', used: 30_000, window: 200_000 });
    log.close();
    const lineOf = (needle: string) =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes(needle)) + 1;

    const r = rawr('replay', file, '--json');
    assert.equal(r.code, 0, r.stderr);
    const { decisions, summary } = parseJsonOutput(r.stdout);
    assert.equal(summary.format, 'rawr');
    assert.equal(summary.lines, 13);
    assert.equal(summary.problems, 0);
    assert.equal(summary.window, 200_000);
    assert.deepEqual(summary.nativeCompactions, [{ line: lineOf('"kind":"compaction"'), trigger: 'auto', preTokens: 138_000 }]);
    // The commit at 32% remaining (ready tier) closes a phase of 112k tokens: the next one will not fit
    // in the 40k left before emergency, so rawr compacts at the end of this phase close — the turn end
    // after the commit, before the next message — citing the commit.
    const commitLine = lineOf('[main 3f9e2a1]');
    assert.equal(decisions.find((d) => d.line === commitLine)?.code, 'forecast_held');
    assert.equal(summary.compactions.length, 1, JSON.stringify(decisions));
    assert.equal(summary.compactions[0]!.line, lineOf('Go on with the replay CLI.'));
    assert.equal(summary.compactions[0]!.tier, 'ready');
    assert.ok(
      summary.compactions[0]!.boundaries.some((b) => b.startsWith('commit 3f9e2a1')),
      JSON.stringify(summary.compactions[0]),
    );
    assert.equal(summary.counterfactualOverflows, 0);
    // Forcing the format gives the same answer.
    assert.equal(rawr('replay', file, '--json', '--format', 'rawr').stdout, r.stdout);
  });

  it('a ~10 MB Claude transcript (the 258c7280 session four times, ids renamed) replays to a summary', function () {
    needShared(this, DIR);
    const src = fs.readFileSync(real('claude-spotter-258c7280.jsonl'), 'utf8');
    const srcLines = src.split('\n');
    if (srcLines[srcLines.length - 1] === '') srcLines.pop();
    const COPIES = 4;
    const out: string[] = [];
    for (let k = 0; k < COPIES; k++) {
      const tag = k.toString(16);
      for (const l of srcLines) {
        out.push(
          k === 0
            ? l
            : l
                // uuids, parentUuids, sessionId, logicalParentUuid: change the last hex digits so every copy is distinct
                .replace(/\b([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{11})[0-9a-f]\b/g, `$1${tag}`)
                .replace(/\b(msg_[A-Za-z0-9]+)/g, `$1x${tag}`)
                .replace(/\b(toolu_[A-Za-z0-9]+)/g, `$1x${tag}`)
                .replace(/\b(req_[A-Za-z0-9]+)/g, `$1x${tag}`),
        );
      }
    }
    const big = path.join(tmp, 'claude-big.jsonl');
    fs.writeFileSync(big, `${out.join('\n')}\n`);
    assert.ok(fs.statSync(big).size >= 10_000_000, String(fs.statSync(big).size));
    // The renaming really made the ids distinct (otherwise the importer would dedupe the copies away).
    const ids = out.map((l) => /"message":\{[^{}]*?"id":"(msg_[^"]+)"/.exec(l)?.[1]).filter(Boolean);
    const single = new Set(ids.slice(0, ids.length / COPIES)).size;
    assert.equal(new Set(ids).size, single * COPIES);

    const one = parseJsonOutput(rawr('replay', real('claude-spotter-258c7280.jsonl'), '--json').stdout);
    const r = rawr('replay', big, '--json');
    assert.equal(r.code, 0, r.stderr);
    const { decisions, summary } = parseJsonOutput(r.stdout);
    assert.equal(summary.format, 'claude');
    assert.equal(summary.lines, srcLines.length * COPIES);
    assert.equal(summary.problems, 0);
    const nativeLine = one.summary.nativeCompactions[0]!.line;
    assert.deepEqual(
      summary.nativeCompactions.map((n) => n.line),
      Array.from({ length: COPIES }, (_, k) => nativeLine + k * srcLines.length),
    );
    // Every copy is evaluated as often as the original (nothing was merged or dropped).
    assert.equal(decisions.length, one.decisions.length * COPIES);
    assert.ok(decisions.every((d, k) => k === 0 || d.line >= decisions[k - 1]!.line));
  });
});
