/**
 * Live follow of an external agent's session (Claude Code transcript or Codex rollout) while it is being
 * written: the panel's reader hands over the text appended since its last read; complete lines are fed
 * to the format's record importer (the same interpretation as `rawr replay`) and the new recording items
 * to the same arbiter run (Replayer, live mode). Nothing already read is parsed again.
 *
 * What it keeps is bounded: the importer's items (small structs), the decisions that did or could do
 * something (the last MAX_DECISIONS), at most one partial line of MAX_LINE_CHARS, and the problems as
 * the replay keeps them (ProblemTally: every skipped line counted, the first few in detail) — a line
 * that is not JSON, too long, or a record the importer rejects (a wrong-typed field) alike.
 * Pure: no I/O, no vscode (docs/ARCHITECTURE.md, "Replay").
 */
import { savedFields } from '../replay/savedFields';
import { Replayer, type ReplayDecision, type ReplayOptions, type SavedReplayer } from '../replay/driver';
import { claudeImporter, type SavedClaudeImporter } from '../replay/import/claude';
import { codexImporter } from '../replay/import/codex';
import { detectFormat } from '../replay/import/detect';
import type { RecordImporter, RecordingFormat, RecordingItem } from '../replay/recording';
import { ProblemTally } from '../replay/stream';
import { chooseWindow, type WindowChoice } from '../replay/windows';
import { tierOf } from '../arbiter/tiers';
import type { Tier } from '../settings/schema';

/** A longer line is dropped (and reported): a transcript line is one record, never megabytes of JSON. */
export const MAX_LINE_CHARS = 8 * 1024 * 1024;
const MAX_DECISIONS = 200;

export interface FollowDecision {
  line: number;
  point: string;
  action: ReplayDecision['action'];
  tier: string | null;
  percentRemaining: number | null;
  boundaries: string[];
  reason: string;
  contextTokens: number;
}

export interface FollowState {
  format: RecordingFormat | null;
  lines: number;
  window: WindowChoice;
  /** The agent's context now (last reported + what was appended since), and its share of the window. */
  contextTokens: number;
  percentRemaining: number | null;
  tier: Tier | null;
  /** Boundaries waiting for the next evaluation point, as "kind detail". */
  pending: string[];
  plan: Array<{ text: string; status: string }> | null;
  /** Evaluation points that did or could have done something, oldest first. */
  decisions: FollowDecision[];
  nativeCompactions: Array<{ line: number; trigger: string; preTokens?: number }>;
  /** The latest decision says rawr would compact (or suggest) now: one line for the person. */
  wouldCompact: { line: number; text: string; instructions: string } | null;
  /** The first skipped lines, with why (MAX_PROBLEM_DETAIL, as `rawr replay` lists them). */
  problems: Array<{ line: number; message: string }>;
  /** Every line skipped so far (what `rawr replay` reports as its problems). */
  problemCount: number;
}

/**
 * A follower of a Claude Code transcript as plain JSON (SessionFollower.save), for a reader that is a
 * new process each time (the Claude Code hooks, src/core/hooks/claude/steerState.ts).
 */
export interface SavedFollower {
  importer: SavedClaudeImporter | null;
  replayer: SavedReplayer | null;
  partial: string;
  skipping: boolean;
  lineNo: number;
  fed: number;
  window: WindowChoice;
  evidence: RecordingItem[];
  problems: { count: number; first: Array<{ line: number; message: string }> };
  decisions: FollowDecision[];
  lastEvaluatedLine: number;
  lastDecision: ReplayDecision | null;
  modelCalls: number;
  lastUsage: number | null;
  lastItemLine: number;
}

/** What a follower saves as it is (the rest: its importer, replay, evidence, problems and decisions, below). */
const followerFields = savedFields<SavedFollower, Exclude<keyof SavedFollower, 'importer' | 'replayer' | 'evidence' | 'problems' | 'decisions'>>({
  partial: true,
  skipping: true,
  lineNo: true,
  fed: true,
  window: true,
  lastEvaluatedLine: true,
  lastDecision: true,
  modelCalls: true,
  lastUsage: true,
  lastItemLine: true,
});

type FollowerOptions = Omit<ReplayOptions, 'live' | 'needJudgments' | 'judgments'> & { format?: RecordingFormat };

export class SessionFollower {
  private importer: RecordImporter | null = null;
  private replayer: Replayer | null = null;
  private partial = '';
  private skipping = false;
  private lineNo = 0;
  private fed = 0;
  private window: WindowChoice;
  private evidence: RecordingItem[] = [];
  private readonly problems = new ProblemTally();
  private readonly decisions: FollowDecision[] = [];
  private seenDecisions = 0;
  private lastEvaluatedLine = -1;
  /** The newest evaluation point's decision, whatever it said (the hooks answer with it). */
  private lastDecision: ReplayDecision | null = null;
  /** Model responses read (usage items): a PreCompact with none since the previous one follows a failed request. */
  private modelCalls = 0;
  /** The newest recorded context, in tokens (null before the first model response). */
  private lastUsage: number | null = null;

  constructor(private readonly opts: FollowerOptions) {
    this.window = chooseWindow({ format: opts.format ?? 'claude' }, opts.window, opts.windowCap);
  }

  /**
   * Everything this follower holds, as plain JSON: a follower restored from it and given the rest of the
   * file decides exactly as one given the whole file (a property test checks it). Claude Code only.
   */
  save(): SavedFollower {
    const imp = this.importer;
    if (imp && imp.format !== 'claude') throw new Error(`a ${imp.format} follower cannot be saved`);
    return {
      importer: imp?.save ? (imp.save() as SavedClaudeImporter) : null,
      replayer: this.replayer ? this.replayer.save() : null,
      evidence: structuredClone(this.evidence),
      problems: { count: this.problems.count, first: this.problems.first.slice() },
      decisions: structuredClone(this.decisions),
      ...followerFields(this),
    };
  }

  static restore(saved: SavedFollower, opts: FollowerOptions): SessionFollower {
    const f = new SessionFollower({ ...opts, format: 'claude' });
    if (saved.importer) f.importer = claudeImporter(saved.importer);
    if (saved.replayer) f.replayer = Replayer.restore(saved.replayer, { ...opts, live: true });
    f.evidence = saved.evidence;
    f.problems.count = saved.problems.count;
    f.problems.first.push(...saved.problems.first);
    f.decisions.push(...saved.decisions);
    Object.assign(f, followerFields(saved));
    return f;
  }

  /**
   * The decision at the point the transcript is at now, as `rawr replay` makes it there: the tool-loop
   * point after the newest batch of tool results (due, evaluated on a copy), else the newest evaluation
   * point's decision when nothing was read after it (a prompt: the previous turn's completion), else null.
   */
  decisionNow(): ReplayDecision | null {
    const peek = this.replayer?.peekToolLoop() ?? null;
    if (peek) return peek;
    return this.lastDecision && this.lastDecision.line >= this.lastItemLine ? this.lastDecision : null;
  }

  /**
   * The newest evaluation point's decision when it compacts and was made past `afterLine` (the line a
   * previous caller had read to), though more was read after it: the steering hook, asked only now,
   * honours it (claude/steer.ts). Null when a later point decided otherwise or it was already offered.
   */
  unactedCompaction(afterLine: number): ReplayDecision | null {
    const d = this.lastDecision;
    return d && d.action === 'compact' && d.line > afterLine ? d : null;
  }

  /** Model responses read so far, and the newest recorded context (the hooks' reactive-compaction test). */
  get calls(): { modelCalls: number; lastUsage: number | null } {
    return { modelCalls: this.modelCalls, lastUsage: this.lastUsage };
  }

  private lastItemLine = 0;

  /** Text appended to the file since the last call (may end in the middle of a line). */
  append(chunk: string): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf('\n', start);
      if (nl < 0) break;
      const piece = chunk.slice(start, nl);
      start = nl + 1;
      if (this.skipping) {
        this.skipping = false; // the rest of an over-long line
        continue;
      }
      const raw = this.partial + piece;
      this.partial = '';
      if (raw.length > MAX_LINE_CHARS) {
        // The same cap as for a line still being written below, so whole and in pieces agree.
        this.lineNo++;
        this.problem(this.lineNo, `line longer than ${MAX_LINE_CHARS} characters: skipped`);
        continue;
      }
      this.line(raw);
    }
    const rest = chunk.slice(start);
    if (this.skipping) return;
    if (this.partial.length + rest.length > MAX_LINE_CHARS) {
      this.lineNo++;
      this.problem(this.lineNo, `line longer than ${MAX_LINE_CHARS} characters: skipped`);
      this.partial = '';
      this.skipping = true;
      return;
    }
    this.partial += rest;
  }

  private problem(line: number, message: string): void {
    this.problems.push({ line, message });
  }

  private line(raw: string): void {
    this.lineNo++;
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') return;
    let rec: unknown;
    try {
      rec = JSON.parse(text);
    } catch (e) {
      return this.problem(this.lineNo, `not JSON (${(e as Error).message})`);
    }
    if (!this.importer) {
      const format = this.opts.format ?? detectFormat(text);
      if (format !== 'claude' && format !== 'codex') return; // not recognisable yet: wait for a record that is
      this.importer = format === 'claude' ? claudeImporter() : codexImporter();
      this.replayer = new Replayer(format, this.window, { ...this.opts, live: true });
    }
    this.importer.onRecord(rec, this.lineNo);
    // A record the importer rejects (JSON, but not a valid record) is skipped like a line that is not
    // JSON, and said so; handed over at once, so the importer never collects them.
    const rejected = this.importer.problems;
    for (const p of rejected) this.problem(p.line, p.message);
    rejected.length = 0;
    // Drained per line, not per appended chunk: the window is chosen from what the records said up to
    // this line, so a file fed whole and fed in pieces gives the arbiter the same events (a window learnt
    // later than a chunk's end would change the forecast's growth count, docs/ARCHITECTURE.md, "Replay").
    this.drain();
  }

  /** New items into the arbiter (after every line); the window is chosen again when the records say more about it. */
  private drain(): void {
    const imp = this.importer;
    const rp = this.replayer;
    if (!imp || !rp) return;
    const items = imp.items;
    if (this.fed === items.length) return; // nothing new: no event for the arbiter
    for (let i = this.fed; i < items.length; i++) {
      const it = items[i]!;
      if (it.type === 'native_compaction' && it.trigger === 'auto' && this.evidence.length < 4) this.evidence.push(it);
      if (it.type === 'usage') {
        this.modelCalls++;
        this.lastUsage = it.contextTokens;
      }
      this.lastItemLine = it.line;
    }
    const meta = imp.meta();
    const choice = chooseWindow({ format: imp.format, ...meta, items: this.evidence }, this.opts.window, this.opts.windowCap);
    if (choice.window !== this.window.window || choice.why !== this.window.why) {
      this.window = choice;
      rp.setWindow(choice);
    }
    for (; this.fed < items.length; this.fed++) rp.push(items[this.fed]!);
    // Every item is in the arbiter now; the importer lets go of those no later record can change, so a
    // session followed for hours holds only its last open responses, not every item it ever had.
    this.fed -= imp.take().length;
    const ds = rp.decisions;
    for (; this.seenDecisions < ds.length; this.seenDecisions++) {
      const d = ds[this.seenDecisions]!;
      this.lastEvaluatedLine = d.line;
      this.lastDecision = d;
      if (d.action === 'none' && (d.tier === null || d.code === 'above_threshold' || d.code === 'no_boundary')) continue;
      this.decisions.push({
        line: d.line,
        point: d.point,
        action: d.action,
        tier: d.tier,
        percentRemaining: d.percentRemaining,
        boundaries: d.boundaries,
        reason: d.reason,
        contextTokens: d.contextTokens,
      });
      if (this.decisions.length > MAX_DECISIONS) this.decisions.shift();
    }
    // The replay keeps every decision; the follower only needs the ones it has not looked at.
    ds.length = 0;
    this.seenDecisions = 0;
  }

  /** Items the importer still holds (its open responses): bounded however long the session (a test counts them). */
  get heldItems(): number {
    return this.importer?.items.length ?? 0;
  }

  state(): FollowState {
    const rp = this.replayer;
    const engine = rp?.engine;
    const used = rp ? rp.modelledTokens() : 0;
    const percent = rp && this.window.window > 0 ? Math.max(0, Math.min(100, (1 - used / this.window.window) * 100)) : null;
    const last = this.decisions.at(-1) ?? null;
    // "Now" only while the latest evaluation point is the one that decided it.
    const wouldCompact =
      last && (last.action === 'compact' || last.action === 'suggest') && this.lastEvaluatedLine === last.line
        ? { line: last.line, text: wouldCompactText(last), instructions: compactInstructions(engine?.plan?.steps ?? null, last) }
        : null;
    return {
      format: this.importer?.format ?? null,
      lines: this.lineNo,
      window: this.window,
      contextTokens: used,
      percentRemaining: percent,
      tier: percent === null ? null : tierOf(percent, this.opts.settings),
      pending: (engine?.pending ?? []).map((b) => `${b.kind} ${b.detail}`.trim()),
      plan: engine?.plan ? engine.plan.steps.map((s) => ({ text: s.text, status: s.status })) : null,
      decisions: this.decisions.slice(),
      nativeCompactions: rp ? rp.summary.nativeCompactions.slice(-20) : [],
      wouldCompact,
      problems: this.problems.first.slice(),
      problemCount: this.problems.count,
    };
  }
}

/** "rawr would compact here: commit 3f2a1c9, 31% left" */
export function wouldCompactText(d: FollowDecision): string {
  const b = d.boundaries[0];
  const where = b ? shortBoundary(b) : d.point.replace('_', ' ');
  const left = d.percentRemaining === null ? '' : `, ${Math.floor(d.percentRemaining)}% left`;
  return `rawr would ${d.action === 'suggest' ? 'suggest compacting' : 'compact'} here: ${where}${left}`;
}

/**
 * A boundary in a few words: "commit 3f2a1c9 step 1: hello.txt" → "commit 3f2a1c9"; a commit whose hash
 * the output did not show (`git commit -q`: shell.ts names it "? <subject>") → `commit "step 1: hello.txt"`;
 * plan checkpoints keep their step text; at most 80 characters.
 */
export function shortBoundary(b: string): string {
  const commit = /^commit ([0-9a-f]{7,40})\b/.exec(b);
  if (commit) return `commit ${commit[1]!.slice(0, 7)}`;
  const quiet = /^commit \? (.+)$/s.exec(b);
  return quiet ? `commit "${cut(quiet[1]!, 60)}"` : cut(b, 80);
}

/** `text` in at most `max` characters, an ellipsis where it was cut. */
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The instructions for Claude Code's `/compact <instructions>`: what the summary must keep. */
export function compactInstructions(plan: Array<{ text: string; status: string }> | null, d: FollowDecision): string {
  const parts = ['Keep the objective, the decisions made and the files in scope.'];
  const done = d.boundaries.map(shortBoundary).join('; ');
  if (done) parts.push(`Just completed: ${done}.`);
  if (plan && plan.length) {
    const next = plan.find((s) => s.status === 'in_progress') ?? plan.find((s) => s.status === 'pending');
    parts.push(`Plan: ${plan.filter((s) => s.status === 'completed').length}/${plan.length} steps done${next ? `; next: ${next.text}` : ''}.`);
  }
  parts.push('Drop tool output that is already reflected in the files or commits.');
  return parts.join(' ').replace(/\s+/g, ' ').slice(0, 1_000);
}
