/**
 * Generated phased sessions (issue 21): families of Claude Code transcripts of the same kind as
 * `../shared/data/phased-sessions/` (its README describes the shape), made from a seed so that the
 * schedule is judged on sessions the policy was never tuned on. Each family varies one thing — how the
 * phase sizes run (even, one huge, growing, many tiny, a long first phase), how noisy the growth per
 * model call is, and the window (200k, 1M). The labels are written as the generator makes the session,
 * so the judge (src/core/replay/schedule.ts) needs nothing from the policy.
 *
 * A phase: work calls (Read/Edit/Grep/Bash) with noise between them (todo updates that complete
 * nothing, failing commits, `git log --grep commit`, loose "done" wording), then the close: a TodoWrite
 * that completes the step, a successful `git commit`, sometimes `--amend`, and a message saying the phase
 * is complete; half the phases end the turn there (the person asks for the next one), half run on in
 * the same response (the closing text and the next call are one model response). The recorded tool
 * compacts on its own at 83.5% (compact_boundary), as there, and only as Claude Code does: before a
 * request, never inside a response (test/unit/replay.generatedFormat.test.ts checks the format).
 */
import type { PhaseLabels } from '../../src/core/replay/schedule';

/** A seeded PRNG (mulberry32): the same seed gives the same sessions on every machine. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const between = (r: Rand, lo: number, hi: number) => lo + (hi - lo) * r();
const intBetween = (r: Rand, lo: number, hi: number) => Math.floor(between(r, lo, hi + 1));

export interface SessionShape {
  window: number;
  /** Tokens each phase adds, in order. */
  phases: number[];
  /** Mean growth per model call. */
  perCall: number;
  /** Spread of the growth per call: each call adds perCall × U(1 − spread, 1 + spread) (spread ≤ 1). */
  spread: number;
  /** Context at the first call (system prompt, tools, the first ask). */
  first: number;
}

export interface Family {
  name: string;
  /** What the family varies, for the bench's table. */
  what: string;
  shape: (r: Rand) => SessionShape;
  /**
   * Its phases that fit a fresh context are drawn alike, independently of their order (any of them could
   * have come next): the bench's bound for policies without avoidable emergencies holds (phasedLimits.ts
   * guardSchedule). Not where phases grow or the first one differs.
   */
  exchangeable: boolean;
}

const W200 = 200_000;
const W1M = 1_000_000;
const steady = (r: Rand, n: number, mean: number, jitter: number) => Array.from({ length: n }, () => Math.round(mean * between(r, 1 - jitter, 1 + jitter)));

/** A session of the given phases in a 200k window; the calls add 2-4k each unless told otherwise. */
const in200k = (r: Rand, phases: number[], perCall: [number, number] = [2000, 4000], spread = 0.5): SessionShape => ({
  window: W200,
  phases,
  perCall: between(r, perCall[0], perCall[1]),
  spread,
  first: between(r, 15_000, 40_000),
});

/** `n` phases in a 200k window from a first size, each next one drawn from the last (`next`). */
const walk = (r: Rand, first: number, n: number, next: (size: number) => number): SessionShape => {
  const phases: number[] = [];
  for (let k = 0, size = first; k < n; k++, size = next(size)) phases.push(Math.round(size));
  return in200k(r, phases);
};

export const FAMILIES: readonly Family[] = [
  {
    name: 'even',
    what: 'even phases, 25-45% of the window',
    exchangeable: true,
    shape: (r) => in200k(r, steady(r, intBetween(r, 6, 10), W200 * between(r, 0.25, 0.45), 0.12)),
  },
  {
    name: 'one-huge',
    what: 'even phases and one larger than the room (80-130%)',
    exchangeable: true,
    shape: (r) => {
      const phases = steady(r, intBetween(r, 6, 9), W200 * between(r, 0.2, 0.4), 0.12);
      phases[intBetween(r, 1, phases.length - 2)] = Math.round(W200 * between(r, 0.8, 1.3));
      return in200k(r, phases);
    },
  },
  {
    name: 'growing',
    what: 'each phase 10-30% larger than the last',
    exchangeable: false,
    shape: (r) => {
      const n = intBetween(r, 6, 9);
      const g = between(r, 1.1, 1.3);
      let size = W200 * between(r, 0.1, 0.2);
      const phases: number[] = [];
      for (let k = 0; k < n; k++, size = Math.min(W200 * 1.1, size * g)) phases.push(Math.round(size * between(r, 0.95, 1.05)));
      return in200k(r, phases);
    },
  },
  {
    name: 'tiny',
    what: 'many tiny phases, 5-12% of the window',
    exchangeable: true,
    shape: (r) =>
      in200k(
        r,
        Array.from({ length: intBetween(r, 18, 30) }, () => Math.round(W200 * between(r, 0.05, 0.12))),
        [1500, 2500],
      ),
  },
  {
    name: 'noisy',
    what: 'noisy per-call growth (0-2x) and phase sizes (+-35%)',
    exchangeable: true,
    shape: (r) => in200k(r, steady(r, intBetween(r, 6, 10), W200 * between(r, 0.25, 0.4), 0.35), [2000, 4500], 1),
  },
  {
    name: 'long-first',
    what: 'a first phase of 60-90%, the rest 20-35%',
    exchangeable: false,
    shape: (r) => {
      const rest = steady(r, intBetween(r, 5, 8), W200 * between(r, 0.2, 0.35), 0.12);
      return in200k(r, [Math.round(W200 * between(r, 0.6, 0.9)), ...rest]);
    },
  },
  {
    name: 'window-1M',
    what: 'a 1M window, phases 15-40% of it',
    exchangeable: true,
    shape: (r) => ({
      window: W1M,
      phases: steady(r, intBetween(r, 5, 8), W1M * between(r, 0.15, 0.4), 0.15),
      perCall: between(r, 8000, 14_000),
      spread: 0.5,
      first: between(r, 20_000, 60_000),
    }),
  },
  // Issue 33: shapes beyond the first seven, added after them (each family's index seeds its sessions:
  // the first seven keep theirs). Each varies how the phase sizes run, not what the policy knows.
  {
    name: 'random',
    what: 'phases of independent random length, 5-70% of the window',
    exchangeable: true,
    shape: (r) =>
      in200k(
        r,
        Array.from({ length: intBetween(r, 6, 12) }, () => Math.round(W200 * between(r, 0.05, 0.7))),
      ),
  },
  {
    name: 'near-full',
    what: 'every phase nearly fills a fresh context, some overrun it (58-82% of the window)',
    exchangeable: true,
    shape: (r) =>
      in200k(
        r,
        Array.from({ length: intBetween(r, 5, 9) }, () => Math.round(W200 * between(r, 0.58, 0.82))),
      ),
  },
  {
    name: 'rare-large',
    what: 'small phases (6-18%), each one in six large (45-70%) at a random place',
    exchangeable: true,
    shape: (r) =>
      in200k(
        r,
        Array.from({ length: intBetween(r, 10, 18) }, () => Math.round(W200 * (r() < 1 / 6 ? between(r, 0.45, 0.7) : between(r, 0.06, 0.18)))),
      ),
  },
  {
    name: 'shrinking',
    what: 'a first phase of 45-75%, each next one 10-25% smaller (at least 5%)',
    exchangeable: false,
    shape: (r) => walk(r, W200 * between(r, 0.45, 0.75), intBetween(r, 7, 11), (size) => Math.max(W200 * 0.05, size * between(r, 0.75, 0.9))),
  },
  {
    name: 'drifting',
    what: 'a random walk: each phase 0.6-1.6x the last, within 5-75%',
    exchangeable: false,
    shape: (r) =>
      walk(r, W200 * between(r, 0.1, 0.45), intBetween(r, 7, 12), (size) => Math.min(W200 * 0.75, Math.max(W200 * 0.05, size * between(r, 0.6, 1.6)))),
  },
  {
    name: 'big-steps',
    what: 'large reads: 7-14k per call, phases 20-45%',
    exchangeable: true,
    shape: (r) => in200k(r, steady(r, intBetween(r, 6, 10), W200 * between(r, 0.2, 0.45), 0.2), [7000, 14_000]),
  },
];

const STEPS = [
  'Research the existing code paths',
  'Draft the design notes',
  'Implement the parser',
  'Wire the parser into the CLI',
  'Write the unit tests',
  'Fix the failing edge cases',
  'Add the benchmark',
  'Update the docs',
  'Harden error handling',
  'Ship the release notes',
];
const stepText = (k: number) => `${STEPS[k % STEPS.length]}${k >= STEPS.length ? ` (part ${Math.floor(k / STEPS.length) + 1})` : ''}`;

/** One generated session: the JSONL text and its labels (labels.json's format). */
export interface GeneratedSession {
  name: string;
  text: string;
  labels: PhaseLabels;
}

/** Claude Code's records, with just the fields its transcripts carry and the importer reads. */
class Transcript {
  /** The records, serialized when the session is done (a response's stop_reason is known only at its end). */
  private readonly records: Array<Record<string, unknown>> = [];
  readonly points: Array<[number, number]> = [];
  private parent: string | null = null;
  private clock = Date.UTC(2026, 2, 1, 12, 0, 0);
  private msg = 0;
  private call = 0;
  /**
   * The model response being written: Claude Code writes one response as several records (one content
   * block each) sharing its message id, its usage and its stop_reason. It ends at the next record that is
   * not the model's (a tool result, the person's prompt), or with the session.
   */
  private response: { messages: Array<Record<string, unknown>>; used: number; toolUse: boolean } | null = null;
  /** The context the recorded tool has (its own compactions included). */
  context: number;

  constructor(
    private readonly id: string,
    private readonly r: Rand,
    first: number,
  ) {
    this.context = Math.round(first);
  }

  get line(): number {
    return this.records.length;
  }

  /** `advance`: a fixed clock step (ms) instead of a drawn one (10-40 s). */
  private push(rec: Record<string, unknown>, advance?: number): string {
    if (rec.type !== 'assistant') this.endResponse();
    const uuid = `${this.id}-${String(this.records.length + 1).padStart(6, '0')}`;
    this.clock += advance ?? intBetween(this.r, 10, 40) * 1000;
    this.records.push({
      parentUuid: this.parent,
      isSidechain: false,
      userType: 'external',
      cwd: '/home/USER/work/app',
      sessionId: this.id,
      version: '2.1.39',
      gitBranch: 'main',
      ...rec,
      uuid,
      timestamp: new Date(this.clock).toISOString(),
    });
    this.parent = uuid;
    return uuid;
  }

  /** The response's stop_reason on all its records: tool_use iff it calls a tool, else the turn ends. */
  private endResponse(): void {
    if (!this.response) return;
    for (const m of this.response.messages) m.stop_reason = this.response.toolUse ? 'tool_use' : 'end_turn';
    this.response = null;
  }

  user(text: string, extra: Record<string, unknown> = {}): void {
    this.push({ type: 'user', message: { role: 'user', content: text }, ...extra });
  }

  /**
   * One content block of a model response. A new response (a new message id, the usage of the context it
   * saw) starts only after the last one's tool results or the person's prompt: `continues` adds the block
   * to the response being written (same id, same usage; written a second after the block before it).
   */
  private assistant(block: Record<string, unknown>, continues = false): void {
    if (continues !== (this.response !== null)) throw new Error(continues ? 'no response to continue' : 'a new response inside a response');
    this.response ??= { messages: [], used: this.context, toolUse: false };
    if (!continues) this.msg++;
    const used = this.response.used;
    const cached = Math.max(0, used - 2000);
    const message: Record<string, unknown> = {
      model: 'claude-opus-4-6',
      id: `msg_${this.id}_${this.msg}`,
      type: 'message',
      role: 'assistant',
      content: [block],
      stop_reason: null,
      usage: { input_tokens: 3, cache_creation_input_tokens: used - 3 - cached, cache_read_input_tokens: cached, output_tokens: 300 },
    };
    this.response.messages.push(message);
    if (block.type === 'tool_use') this.response.toolUse = true;
    this.push({ type: 'assistant', message, requestId: `req_${this.id}_${this.msg}` }, continues ? 1000 : undefined);
    this.points.push([this.line, used]);
  }

  /** A text block: a response of its own, or the start of one that goes on with a tool call (`continues` there). */
  text(t: string): void {
    this.assistant({ type: 'text', text: t });
  }

  /**
   * A tool call and its result; Bash results carry Claude Code's result object (its exit code).
   * `continues`: the call is in the response being written (after its text). `resultAdvance`: a fixed
   * clock step for the result instead of a drawn one.
   */
  tool(name: string, input: Record<string, unknown>, output: string, opts: { error?: boolean; continues?: boolean; resultAdvance?: number } = {}): void {
    const id = `toolu_${this.id}_${++this.call}`;
    this.assistant({ type: 'tool_use', id, name, input }, opts.continues);
    const bash =
      name === 'Bash'
        ? { toolUseResult: opts.error ? { stdout: '', stderr: output, interrupted: false } : { stdout: output, stderr: '', interrupted: false } }
        : {};
    this.push(
      {
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output, is_error: opts.error === true }] },
        ...bash,
      },
      opts.resultAdvance,
    );
  }

  todo(steps: readonly string[], done: number): void {
    const todos = steps.map((s, k) => ({ content: s, status: k < done ? 'completed' : k === done ? 'in_progress' : 'pending', activeForm: s }));
    this.tool('TodoWrite', { todos }, 'Todos have been modified successfully.');
  }

  /**
   * The recorded tool's own compaction (a threshold compactor): not a phase signal. Claude Code compacts
   * before it sends a request, so only between responses: after tool results or the person's prompt.
   */
  nativeCompaction(post: number): void {
    if (this.response) throw new Error(`a compaction inside a model response (line ${this.line})`);
    this.push({
      type: 'system',
      message: null,
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      isMeta: false,
      level: 'info',
      compactMetadata: { trigger: 'auto', preTokens: this.context },
    });
    this.user('This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nSummary line.\n', {
      isCompactSummary: true,
      isVisibleInTranscriptOnly: true,
    });
    this.context = Math.round(post);
  }

  /** The JSONL text (ends the last response). */
  jsonl(): string {
    this.endResponse();
    return this.records.map((rec) => JSON.stringify(rec)).join('\n') + '\n';
  }
}

/** The Read of the parser: a work call, and the call a response that starts with text goes on with. */
const readParser = (t: Transcript, opts: { continues?: boolean; resultAdvance?: number } = {}) =>
  t.tool('Read', { file_path: '/home/USER/work/app/src/parser.ts' }, '     1\t// file body\n'.repeat(20), opts);

const WORK: Array<(t: Transcript) => void> = [
  (t) => readParser(t),
  (t) => t.tool('Edit', { file_path: '/home/USER/work/app/src/lexer.ts', old_string: 'a', new_string: 'b' }, 'The file has been updated.'),
  (t) => t.tool('Grep', { pattern: 'token' }, 'src/lexer.ts:12: match'),
  (t) => t.tool('Bash', { command: 'npm test', description: 'run' }, 'ok '.repeat(15)),
  (t) => t.tool('Bash', { command: 'git status --short', description: 'run' }, ' M src/lexer.ts'),
];

/** How often a work call is noise instead (one of NOISE, each as likely). */
export const NOISE_SHARE = 0.12;

/** Noise a phase signal must not take for a close (README of the shared sessions). */
const NOISE: Array<(t: Transcript, steps: readonly string[], phase: number) => void> = [
  (t, steps, k) => t.todo(steps, k),
  (t) =>
    t.tool('Bash', { command: 'git commit -m "wip"', description: 'run' }, 'Exit code 1\nOn branch main\nnothing to commit, working tree clean', {
      error: true,
    }),
  (t) => t.tool('Bash', { command: 'git log --oneline --grep "commit" | head', description: 'run' }, 'a1b2c3d fix commit parsing'),
  (t) => t.tool('Bash', { command: 'echo "git commit is documented in CONTRIBUTING"', description: 'run' }, 'git commit is documented in CONTRIBUTING'),
  // Loose "done" wording: the text and the Read it announces are one response (one model call, one
  // usage). The Read's records draw nothing (fixed clock steps): the session's later draws stay as they were.
  (t) => {
    t.text("I'm done reading the lexer; next I'll look at how tokens flow into the parser.");
    readParser(t, { continues: true, resultAdvance: 15_000 });
  },
];

/** The share of work calls that are a text and a Read in one response (two records, one model call). */
export const TEXT_NOISE_SHARE = NOISE_SHARE / NOISE.length;

export function generateSession(name: string, shape: SessionShape, seed: number): GeneratedSession {
  const r = rng(seed);
  const t = new Transcript(name.replace(/\W/g, ''), r, shape.first);
  const steps = shape.phases.map((_, k) => stepText(k));
  const windows: Array<[number, number]> = [];
  const originalCompactions: number[] = [];
  // The recorded tool's compactor: 83.5% (Claude Code's auto-compact), back to about where it started.
  const native = 0.835 * shape.window;
  const grow = (tokens: number) => {
    t.context += Math.round(tokens);
    if (t.context >= native) {
      t.nativeCompaction(shape.first + between(r, 5000, 12_000));
      originalCompactions.push(t.line - 1);
    }
  };
  const perCall = () => shape.perCall * between(r, 1 - shape.spread, 1 + shape.spread);
  t.user('Plan and carry out the parser overhaul end to end; commit after each phase.');
  t.todo(steps, 0);
  shape.phases.forEach((size, k) => {
    // The close itself (todo, commit, amend, message) adds a few calls' worth; the work adds the rest.
    let left = size - 3 * shape.perCall;
    while (left > 0) {
      const g = Math.min(left, perCall());
      grow(g);
      left -= g;
      if (r() < NOISE_SHARE) NOISE[intBetween(r, 0, NOISE.length - 1)]!(t, steps, k);
      else WORK[intBetween(r, 0, WORK.length - 1)]!(t);
    }
    grow(shape.perCall * between(r, 0.3, 1));
    t.todo(steps, k + 1);
    const first = t.line - 1;
    grow(shape.perCall * between(r, 0.3, 1));
    const hash = Math.floor(r() * 0xfffffff)
      .toString(16)
      .padStart(7, '0');
    t.tool(
      'Bash',
      { command: `git add -A && git commit -m "phase ${k + 1}: ${steps[k]!.toLowerCase()}"`, description: 'run' },
      `[main ${hash}] phase ${k + 1}: ${steps[k]!.toLowerCase()}\n 3 files changed, 120 insertions(+)`,
    );
    if (r() < 0.3) {
      grow(shape.perCall * between(r, 0.2, 0.5));
      t.tool(
        'Bash',
        { command: 'git commit --amend --no-edit', description: 'run' },
        `[main ${hash.slice(0, 6)}9] phase ${k + 1}: ${steps[k]!.toLowerCase()}\n Date: today\n 3 files changed`,
      );
    }
    grow(shape.perCall * between(r, 0.1, 0.3));
    const last = k + 1 < shape.phases.length;
    t.text(
      `Phase ${k + 1} (${steps[k]!.toLowerCase()}) is complete and committed. ${last ? `Next I'll ${steps[k + 1]!.toLowerCase()}.` : 'All phases are done.'}`,
    );
    windows.push([first, t.line]);
    if (!last) return;
    // Half the phases end the turn (the person asks for the next); half run straight on: the closing
    // response goes on with the next phase's first call (same message id, one usage). That call's growth
    // comes with its results, before the next request (so does the recorded tool's compaction if it is
    // due): the phase grows as much as before. Its record continues the response (a fixed clock step);
    // the clock draw of earlier versions is still drawn, unused, so the session's later draws stay as they were.
    if (r() < 0.5) t.user(`Good. Go on with phase ${k + 2}.`);
    else {
      const g = perCall();
      r();
      readParser(t, { continues: true });
      grow(g);
    }
  });
  return { name, text: t.jsonl(), labels: { window: shape.window, points: t.points, windows, original_compactions: originalCompactions } };
}

/** The seed of session k of family f (its shape; the session's own draws use the next one). */
export const sessionSeed = (seed: number, f: number, k: number) => seed * 7919 + f * 104_729 + k * 15_485_863;

/** `count` sessions of every family from one seed (the family's index and the session's vary it). */
export function generateFamilies(seed: number, count: number): Array<{ family: Family; sessions: GeneratedSession[] }> {
  return FAMILIES.map((family, f) => ({
    family,
    sessions: Array.from({ length: count }, (_, k) => {
      const s = sessionSeed(seed, f, k);
      return generateSession(`${family.name}-${k + 1}`, family.shape(rng(s)), s + 1);
    }),
  }));
}
