/**
 * What ANY causal policy can reach on a generated family (`node out/test/bench/phased.js --bound`): the
 * Bayes-optimal causal compaction policy, computed by dynamic programming, and its frontier (count against
 * aligned share) as the weight lambda of a compaction outside a close is swept. BENCH ONLY: it knows each
 * family's generating distribution (phasedGen.ts), which the product never does; nothing in src/ may import it.
 *
 * What the policy may know (more than any real policy, so that it bounds them all): everything the session
 * has shown so far (each model call's context, where each phase's close window begins and ends, whether the
 * close ran straight on), the family's generating distribution, and the session's own drawn parameters —
 * its number of phases, its per-call growth (mean and spread), its window, and the per-session parameters
 * of its phase sizes (the mean of `steady`, the growth rate and start of `growing`, the current size of a
 * walk; see MODELS) — read from the generator's own draws (paramsOf records them while family.shape runs).
 * It never knows a future phase's draw (not where one-huge's huge phase is, not the next random size).
 * (Being told the mean of a steady family's phases is more than any causal policy knows: phasedLearn.ts is the
 * bound that learns it from the phases seen instead, `--bound --learn`, on PhaseDP below.)
 * Its actions: compact at any model call. The constraint is rawr's: a call whose modelled context
 * reaches the emergency line (88% of the window, the judge's optimum's limit) is compacted at that call,
 * and never an overflow (no call reaches the window). (The judge's hindsight optimum keeps every call under
 * the line; a causal policy cannot see the next call's growth, so the call that crosses it is allowed, as
 * rawr's emergency does: hindsightSameRule is the hindsight optimum under this same rule.)
 *
 * Which decision points suffice (so the DP over closes is the optimum over all causal policies):
 * 1. The value from any point is non-decreasing in the context there: from a lower context a policy can
 *    compact wherever the higher one does (emergencies included) at the same cost and alignment, and its
 *    context stays lower or equal at every later call.
 * 2. Within a close window (todo → commit → closing message → up to 2 lines on, judge's isAligned) a
 *    compaction at its LAST aligned call A_k dominates one earlier in the window: the same cost (aligned),
 *    a lower context after it (1.), and the policy knows more by then. (If the line is reached inside the
 *    window first, that emergency is itself aligned.)
 * 3. A voluntary compaction mid-phase (outside a window, below the line) is dominated by waiting: either
 *    the line is reached before the close (an emergency: same cost, later, so a lower context after it) or
 *    the close comes first (compact at its A_k: cheaper — aligned — and later). So mid-phase, only the
 *    forced emergency at the call reaching the line remains.
 * Hence state = (k: the close just reached, c: the context at A_k after the decision, z: what the phase
 * sizes so far say about the next — nothing for independent phases, "has the huge phase come" for
 * one-huge, the current size for walks — and whether close k ran straight on, which decides how the next
 * phase's first call grows); decision at each A_k: compact (cost 1, context → post) or wait; transition:
 * the next phase from A_k to A_{k+1} drawn from the generator (its size from the family's conditional
 * distribution, its calls exactly as generateSession grows them: per-call growth perCall·U(1±spread), the
 * close's calls, a 30% amend, the 50% run-on), with an emergency at every call reaching the line, costing
 * 1 + lambda (1 inside a close window), and an overflow (a call past the window: only the call after a close
 * that ran on can jump that far) priced out (OVERFLOW_COST). Objective: E[compactions + lambda · compactions
 * outside a close].
 *
 * How the transition is computed: by sampling (RESOLUTION.trajectories draws per (phase, z, run-on), a fixed seed),
 * with common random numbers across the context grid (RESOLUTION.grid points per window), then exactly for each grid
 * context (where the first emergency lands, the emergencies after it, the context at A_{k+1}); values
 * between grid points are linearly interpolated. Discretization and sampling error are measured in
 * docs/benchmarks.md (`--grid N --draws M`: the same bench at twice the grid and twice the draws).
 *
 * Known approximations (each small; the bound is exact up to them):
 * - the judge drops the call whose growth triggered the recorded tool's own 83.5% compaction (its step is a
 *   drop); the DP's phase keeps that growth (it would need the recorded context as a second state), so it
 *   plans for slightly more growth than the judged session has: about one call per 0.7 windows of growth;
 * - a phase's first call, drawn at the close before it when that close ends the turn, is drawn untruncated
 *   and independently of the call the state has already seen;
 * - walks (shrinking, drifting) know their current size to one of WALK_BINS log-spaced bins (a state each:
 *   these two families take about ten times as long as the others).
 */
import { DEFAULT_POST_TOKENS, OPTIMUM_LIMIT_FRACTION, isAligned, type PhaseLabels } from '../../src/core/replay/schedule';
import { rng, type Family, type SessionShape } from './phasedGen';

type Rand = () => number;
const between = (r: Rand, lo: number, hi: number) => lo + (hi - lo) * r();

/** What the policy knows of one session's phase sizes: the conditional law of the next one. */
export interface PhaseModel {
  /** The hidden state after phase k (what the sizes so far say), from the session's own phases. */
  zAfter: (k: number) => number;
  /** Phase j's size and the hidden state after it, drawn given the state after phase j - 1. */
  draw: (j: number, z: number, r: Rand) => { size: number; z: number };
  /** Phases j whose law (given z) is the same share one key: their transitions are computed once. */
  key: (j: number) => number;
}

/** A session as the policy knows it: its shape's parameters (not its future phases) and its phase model. */
export interface SessionModel {
  window: number;
  perCall: number;
  spread: number;
  n: number;
  phases: PhaseModel;
}

const iid = (size: (r: Rand) => number): PhaseModel => ({ zAfter: () => 0, draw: (_j, _z, r) => ({ size: Math.round(size(r)), z: 0 }), key: () => 0 });

/** Walk bins: log-spaced sizes between 1% and 150% of the window. */
export const WALK_BINS = 96;
const walkBin = (size: number, w: number) => Math.max(0, Math.min(WALK_BINS - 1, Math.floor((Math.log(size / w / 0.01) / Math.log(150)) * WALK_BINS)));
const walkSize = (bin: number, w: number) => w * 0.01 * Math.exp(((bin + 0.5) / WALK_BINS) * Math.log(150));

/** A walk's unrounded sizes from its first size and the draws of `next` (the generator calls next after each phase). */
const walk = (w: number, first: number, n: number, draws: readonly number[], next: (s: number, d: number) => number): PhaseModel => {
  const sizes = [first];
  for (let k = 1; k < n; k++) sizes.push(next(sizes[k - 1]!, draws[k - 1]!));
  return {
    zAfter: (k) => walkBin(sizes[k]!, w),
    draw: (_j, z, r) => {
      const s = next(walkSize(z, w), r());
      return { size: Math.round(s), z: walkBin(s, w) };
    },
    key: () => 0,
  };
};

const W200 = 200_000;
/**
 * Per family (by name): the session's phase model from the generator's draws (`d`, in the order
 * family.shape draws them) and its shape. The draw order follows phasedGen.ts; paramsOf checks that the
 * model's reading reproduces the shape's phases where they are deterministic given the parameters.
 */
export const MODELS: Record<string, (d: readonly number[], s: SessionShape) => PhaseModel> = {
  // steady(r, n, mean, jitter): n, mean, then the jitters.
  even: (d) => iid((r) => W200 * (0.25 + 0.2 * d[1]!) * between(r, 0.88, 1.12)),
  'one-huge': (d, s) => {
    const m = W200 * (0.2 + 0.2 * d[1]!);
    const n = s.phases.length;
    const h = s.phases.findIndex((x) => x >= W200 * 0.8 - 1);
    return {
      zAfter: (k) => (h <= k ? 1 : 0),
      // The huge phase is at a uniform place in 1..n-2: given it has not come by j - 1, it is phase j with 1/(n-1-j).
      draw: (j, z, r) => {
        const huge = z === 0 && j >= 1 && j <= n - 2 && r() < 1 / (n - 1 - j);
        return huge ? { size: Math.round(W200 * between(r, 0.8, 1.3)), z: 1 } : { size: Math.round(m * between(r, 0.88, 1.12)), z };
      },
      key: (j) => j,
    };
  },
  growing: (d, s) => {
    const g = 1.1 + 0.2 * d[1]!;
    const nominal = [W200 * (0.1 + 0.1 * d[2]!)];
    for (let k = 1; k < s.phases.length; k++) nominal.push(Math.min(W200 * 1.1, nominal[k - 1]! * g));
    return { zAfter: () => 0, draw: (j, _z, r) => ({ size: Math.round(nominal[j]! * between(r, 0.95, 1.05)), z: 0 }), key: (j) => j };
  },
  tiny: () => iid((r) => W200 * between(r, 0.05, 0.12)),
  noisy: (d) => iid((r) => W200 * (0.25 + 0.15 * d[1]!) * between(r, 0.65, 1.35)),
  // The rest are drawn before the first phase: d[0] their count, d[1] their mean.
  'long-first': (d) => iid((r) => W200 * (0.2 + 0.15 * d[1]!) * between(r, 0.88, 1.12)),
  'window-1M': (d) => iid((r) => 1_000_000 * (0.15 + 0.25 * d[1]!) * between(r, 0.85, 1.15)),
  random: () => iid((r) => W200 * between(r, 0.05, 0.7)),
  'near-full': () => iid((r) => W200 * between(r, 0.58, 0.82)),
  'rare-large': () => iid((r) => W200 * (r() < 1 / 6 ? between(r, 0.45, 0.7) : between(r, 0.06, 0.18))),
  // walk(r, first, n, next): first size d[0], count d[1], then one draw of `next` per phase.
  shrinking: (d, s) => walk(W200, W200 * (0.45 + 0.3 * d[0]!), s.phases.length, d.slice(2), (x, u) => Math.max(W200 * 0.05, x * (0.75 + 0.15 * u))),
  drifting: (d, s) =>
    walk(W200, W200 * (0.1 + 0.35 * d[0]!), s.phases.length, d.slice(2), (x, u) => Math.min(W200 * 0.75, Math.max(W200 * 0.05, x * (0.6 + u)))),
  'big-steps': (d) => iid((r) => W200 * (0.2 + 0.25 * d[1]!) * between(r, 0.8, 1.2)),
};

/** The session's shape and the generator's draws that made it (in order). */
export function recordedDraws(family: Family, shapeSeed: number): { d: number[]; shape: SessionShape } {
  const base = rng(shapeSeed);
  const d: number[] = [];
  const shape = family.shape(() => {
    const x = base();
    d.push(x);
    return x;
  });
  return { d, shape };
}

/** The session's model from its shape seed: family.shape runs on a recording stream, the model reads the draws. */
export function paramsOf(family: Family, shapeSeed: number): SessionModel | null {
  const make = MODELS[family.name];
  if (!make) return null;
  const { d, shape } = recordedDraws(family, shapeSeed);
  return { window: shape.window, perCall: shape.perCall, spread: shape.spread, n: shape.phases.length, phases: make(d, shape) };
}

/** One phase as the judge sees it from the call after A_{j-1} to A_j (or the session's end): each call's growth and alignment. */
export interface Trajectory {
  /** Cumulative growth at each call (non-decreasing). */
  grown: Float64Array;
  aligned: Uint8Array;
  z: number;
  runOn: boolean;
}

/**
 * Phase j's calls as generateSession grows them (phasedGen.ts), given its size: the work calls (the first
 * one already seen at A_{j-1} when that close ended the turn; the run-on call's growth carried into the first
 * when it ran on), the close's calls (todo, commit, a 30% amend, the closing message: aligned), then, unless
 * it is the last phase, the call A_j: the run-on call (no growth) or the next phase's first call (its growth).
 */
function phaseCalls(m: SessionModel, size: number, runOnBefore: boolean, last: boolean, r: Rand): { steps: number[]; aligned: boolean[]; runOn: boolean } {
  const pc = m.perCall;
  const perCall = () => pc * between(r, 1 - m.spread, 1 + m.spread);
  const steps: number[] = [];
  const aligned: boolean[] = [];
  let carry = runOnBefore ? perCall() : 0;
  let left = size - 3 * pc;
  if (!runOnBefore && left > 0) left -= Math.min(left, perCall()); // A_{j-1} was this phase's first call
  while (left > 0) {
    const g = Math.min(left, perCall());
    left -= g;
    steps.push(g + carry);
    aligned.push(false);
    carry = 0;
  }
  for (const [lo, hi] of [
    [0.3, 1],
    [0.3, 1],
  ] as const) {
    steps.push(pc * between(r, lo, hi) + carry);
    aligned.push(true);
    carry = 0;
  }
  if (r() < 0.3) {
    steps.push(pc * between(r, 0.2, 0.5));
    aligned.push(true);
  }
  steps.push(pc * between(r, 0.1, 0.3));
  aligned.push(true);
  if (last) return { steps, aligned, runOn: false };
  const runOn = r() >= 0.5;
  steps.push(runOn ? 0 : perCall());
  aligned.push(true);
  return { steps, aligned, runOn };
}

/**
 * What an overflow costs in the DP: the constraint (0 overflows) as a price no compaction saving outweighs.
 * Every overflow a phase can make is avoidable (only the call after a close that ran on can jump past the
 * window's last 12%: compacting at that close prevents it), so the optimal policy never pays it; the
 * expected count includes it only where a policy would accept the risk.
 */
export const OVERFLOW_COST = 1000;

/** The grid and the sampling: points per window, draws per transition. */
export interface Resolution {
  grid: number;
  trajectories: number;
}
export const RESOLUTION: Resolution = { grid: 600, trajectories: 300 };

/**
 * One phase's outcomes from every grid context c at A_{j-1}, per draw (row t: entries t·cells … t·cells + cells − 1):
 * the emergencies in the phase (all, outside a close) and the context at A_j; and the state after it per draw.
 */
export interface Outcomes {
  emerg: Uint8Array;
  /** 1 when the first call past the line is past the window too (an overflow: a run-on close's next call can jump that far). */
  overflow: Uint8Array;
  unaligned: Uint8Array;
  end: Float32Array;
  z: Int32Array;
  runOn: Uint8Array;
}

export interface Sampler {
  /** Phase j's trajectory given the state after phase j - 1. */
  sample: (j: number, z: number, runOnBefore: boolean, r: Rand) => Trajectory;
  key: (j: number) => number;
}

/** Phase j's trajectory (its calls' cumulative growth and alignment) as generateSession grows a phase of this size. */
export function trajectoryOf(m: SessionModel, j: number, size: number, z: number, runOnBefore: boolean, r: Rand): Trajectory {
  const t = phaseCalls(m, size, runOnBefore, j === m.n - 1, r);
  const grown = new Float64Array(t.steps.length);
  t.steps.forEach((s, i) => (grown[i] = (i ? grown[i - 1]! : 0) + s));
  return { grown, aligned: Uint8Array.from(t.aligned, Number), z, runOn: t.runOn };
}

/** The generator's phases as a sampler (the DP's transition law for a generated session). */
export function generatorSampler(m: SessionModel): Sampler {
  return {
    key: (j) => m.phases.key(j) * 2 + (j === m.n - 1 ? 1 : 0),
    sample: (j, z, runOnBefore, r) => {
      const next = m.phases.draw(j, z, r);
      return trajectoryOf(m, j, next.size, next.z, runOnBefore, r);
    },
  };
}

/** Empty outcomes for `draws` draws over `cells` grid contexts. */
export const emptyOutcomes = (draws: number, cells: number): Outcomes => ({
  emerg: new Uint8Array(cells * draws),
  overflow: new Uint8Array(cells * draws),
  unaligned: new Uint8Array(cells * draws),
  end: new Float32Array(cells * draws),
  z: new Int32Array(draws),
  runOn: new Uint8Array(draws),
});

/** One draw of a phase from a state: its outcomes (row `row` of `o`) and the state after it. */
export interface Draw {
  o: Outcomes;
  row: number;
  z: number;
  runOn: boolean;
}

/**
 * The DP over closes (the header's argument): V(k, c, z, runOn) by backward induction, lazily, on a grid of
 * contexts; what a phase does from a state is the subclass's `draws` (equally likely draws of the next phase).
 */
export abstract class PhaseDP {
  readonly line: number;
  readonly step: number;
  readonly cells: number;
  private readonly values = new Map<string, Value>();

  constructor(
    readonly window: number,
    readonly n: number,
    readonly lambda: number,
    readonly res: Resolution,
    readonly post: number,
  ) {
    this.line = OPTIMUM_LIMIT_FRACTION * window;
    this.step = window / res.grid;
    this.cells = Math.ceil(this.line / this.step);
  }

  /** Phase k + 1's draws given the state (z, runOn) after phase k. */
  protected abstract draws(k: number, z: number, runOn: boolean): readonly Draw[];

  /** Row t of `out` from one trajectory: per grid context, the first emergency, the ones after it, the context at its end. */
  protected fill(out: Outcomes, t: number, tr: Trajectory): void {
    const C = this.cells;
    out.z[t] = tr.z;
    out.runOn[t] = tr.runOn ? 1 : 0;
    const G = tr.grown;
    const last = G.length - 1;
    // The chain of emergencies after one at call e (context post there): computed from the end.
    const chainE = new Uint8Array(G.length);
    const chainU = new Uint8Array(G.length);
    const chainEnd = new Float64Array(G.length);
    for (let e = last; e >= 0; e--) {
      let nx = e + 1;
      while (nx <= last && this.post + G[nx]! - G[e]! < this.line) nx++;
      const own = tr.aligned[e] ? 0 : 1;
      if (nx > last) {
        chainE[e] = 1;
        chainU[e] = own;
        chainEnd[e] = this.post + G[last]! - G[e]!;
      } else {
        chainE[e] = Math.min(255, 1 + chainE[nx]!);
        chainU[e] = Math.min(255, own + chainU[nx]!);
        chainEnd[e] = chainEnd[nx]!;
      }
    }
    // From grid context c: the first call reaching the line (none when c + G[last] stays under it).
    let e1 = last;
    for (let i = 0; i < C; i++) {
      const c = i * this.step;
      const at = t * C + i;
      if (c + G[last]! < this.line) {
        out.end[at] = c + G[last]!;
        continue;
      }
      while (e1 > 0 && c + G[e1 - 1]! >= this.line) e1--;
      out.emerg[at] = chainE[e1]!;
      out.overflow[at] = c + G[e1]! >= this.window ? 1 : 0;
      out.unaligned[at] = chainU[e1]!;
      out.end[at] = chainEnd[e1]!;
    }
  }

  /**
   * V(k, ·, z, runOn) after the decision at A_k, on the grid, split in its two parts: the expected
   * compactions of phases k+1… (`count`) and those outside a close (`unaligned`); its cost is count + lambda · unaligned.
   */
  value(k: number, z: number, runOn: boolean): Value {
    const id = `${k}|${z}|${runOn ? 1 : 0}`;
    const hit = this.values.get(id);
    if (hit) return hit;
    const C = this.cells;
    const v: Value = { count: new Float64Array(C), unaligned: new Float64Array(C) };
    if (k < this.n - 1) {
      const ds = this.draws(k, z, runOn);
      const lastPhase = k + 1 === this.n - 1;
      for (const d of ds) {
        const o = d.o;
        // The next decision's parts at each grid context, min(wait, compact) taken (null after the last phase).
        const w = lastPhase ? null : this.best(k + 1, d.z, d.runOn);
        const base = d.row * C;
        for (let i = 0; i < C; i++) {
          let count = o.emerg[base + i]! + OVERFLOW_COST * o.overflow[base + i]!;
          let unaligned = o.unaligned[base + i]!;
          if (w) {
            const x = Math.min(C - 1, o.end[base + i]! / this.step);
            const j = Math.min(C - 2, Math.floor(x));
            count += w.count[j]! + (w.count[j + 1]! - w.count[j]!) * (x - j);
            unaligned += w.unaligned[j]! + (w.unaligned[j + 1]! - w.unaligned[j]!) * (x - j);
          }
          v.count[i] = v.count[i]! + count;
          v.unaligned[i] = v.unaligned[i]! + unaligned;
        }
      }
      for (let i = 0; i < C; i++) {
        v.count[i] = v.count[i]! / ds.length;
        v.unaligned[i] = v.unaligned[i]! / ds.length;
      }
    }
    this.values.set(id, v);
    return v;
  }

  /** The parts of min(wait, compact) at A_k on the grid: what the decision there is worth. */
  private best(k: number, z: number, runOn: boolean): Value {
    const id = `b${k}|${z}|${runOn ? 1 : 0}`;
    const hit = this.values.get(id);
    if (hit) return hit;
    const v = this.value(k, z, runOn);
    const now = { count: 1 + this.at(v.count, this.post), unaligned: this.at(v.unaligned, this.post) };
    const w: Value = { count: new Float64Array(this.cells), unaligned: new Float64Array(this.cells) };
    for (let i = 0; i < this.cells; i++) {
      const compact = now.count + this.lambda * now.unaligned < v.count[i]! + this.lambda * v.unaligned[i]! - 1e-9;
      w.count[i] = compact ? now.count : v.count[i]!;
      w.unaligned[i] = compact ? now.unaligned : v.unaligned[i]!;
    }
    this.values.set(id, w);
    return w;
  }

  private at(v: Float64Array, c: number): number {
    const x = Math.max(0, Math.min(this.cells - 1, c / this.step));
    const i = Math.min(this.cells - 2, Math.floor(x));
    const f = x - i;
    return v[i]! * (1 - f) + v[i + 1]! * f;
  }

  /**
   * At A_k with context c: compact (one compaction, then V at post) or wait (V at c); ties wait. With the
   * expected compactions and unaligned ones from here on under the policy.
   */
  decide(k: number, z: number, runOn: boolean, c: number): { compact: boolean; count: number; unaligned: number } {
    if (k >= this.n - 1) return { compact: false, count: 0, unaligned: 0 };
    const v = this.value(k, z, runOn);
    const wait = { count: this.at(v.count, c), unaligned: this.at(v.unaligned, c) };
    const now = { count: 1 + this.at(v.count, this.post), unaligned: this.at(v.unaligned, this.post) };
    const compact = now.count + this.lambda * now.unaligned < wait.count + this.lambda * wait.unaligned - 1e-9;
    return { compact, ...(compact ? now : wait) };
  }
}

/** The Bayes-optimal causal policy for one session whose phase law the sampler gives (the family's, told its drawn parameters). */
export class BayesPolicy extends PhaseDP {
  private readonly outcomes: Map<string, Outcomes> = new Map();
  private readonly drawn = new Map<string, Draw[]>();

  constructor(
    window: number,
    n: number,
    private readonly sampler: Sampler,
    lambda: number,
    res: Resolution = RESOLUTION,
    post = DEFAULT_POST_TOKENS,
    shared?: BayesPolicy,
  ) {
    super(window, n, lambda, res, post);
    if (shared) this.outcomes = shared.outcomes; // the same transitions, another lambda
  }

  /** The outcomes of phase j from every grid context, sampled with a seed of its own (common numbers across c). */
  private outcomesOf(j: number, z: number, runOnBefore: boolean): Outcomes {
    const id = `${this.sampler.key(j)}|${z}|${runOnBefore ? 1 : 0}`;
    const hit = this.outcomes.get(id);
    if (hit) return hit;
    const M = this.res.trajectories;
    const out = emptyOutcomes(M, this.cells);
    const r = rng(0x0b4e5 + this.sampler.key(j) * 7919 + z * 104_729 + (runOnBefore ? 15_485_863 : 0));
    for (let t = 0; t < M; t++) this.fill(out, t, this.sampler.sample(j, z, runOnBefore, r));
    this.outcomes.set(id, out);
    return out;
  }

  protected draws(k: number, z: number, runOn: boolean): readonly Draw[] {
    const id = `${k}|${z}|${runOn ? 1 : 0}`;
    let ds = this.drawn.get(id);
    if (!ds) {
      const o = this.outcomesOf(k + 1, z, runOn);
      ds = Array.from(o.z, (zt, t) => ({ o, row: t, z: zt, runOn: o.runOn[t] === 1 }));
      this.drawn.set(id, ds);
    }
    return ds;
  }
}

/** A value function's two parts on the grid. */
interface Value {
  count: Float64Array;
  unaligned: Float64Array;
}

/**
 * The policy run on a judged session (its labels), as the judge models the context: an emergency at every
 * call reaching the line, and at each close's last aligned call A_k the policy's decision. Returns the
 * compaction lines (scoreSchedule judges them) and what the DP expects the session to make — what it made up
 * to the first close's decision, then the expectation from there under the family's law: the bound in
 * expectation, free of the noise of this session's later draws.
 */
/**
 * Per phase close k, its decision point A_k: the index in `labels.points` of the last call aligned with it
 * (within [first, last + 2], before the next close's window; -1: none), and whether the close ran straight
 * on (a call right after its last line: the next phase's first call grows from there).
 */
export function closePoints(labels: PhaseLabels): Array<{ a: number; runOn: boolean }> {
  const pts = labels.points;
  const wins = labels.windows;
  return wins.map(([first, last], k) => {
    let a = -1;
    pts.forEach(([l], i) => {
      if (first <= l && l <= last + 2 && (k + 1 >= wins.length || l < wins[k + 1]![0])) a = i;
    });
    return { a, runOn: pts.some(([l]) => l === last + 1) };
  });
}

export function bayesSchedule(
  labels: PhaseLabels,
  policy: PhaseDP,
  zAfter: (k: number) => number,
  postTokens = DEFAULT_POST_TOKENS,
): { lines: number[]; expected: { count: number; unaligned: number } } {
  const pts = labels.points;
  const A = new Map<number, { k: number; runOn: boolean }>();
  closePoints(labels).forEach(({ a, runOn }, k) => a >= 0 && A.set(a, { k, runOn }));
  const lines: number[] = [];
  let expected: { count: number; unaligned: number } | null = null;
  let c = pts[0]![1];
  for (let i = 0; i < pts.length; i++) {
    if (i > 0) c += Math.max(0, pts[i]![1] - pts[i - 1]![1]);
    let compact = c >= policy.line; // the emergency line: compacted at this call
    if (compact) lines.push(pts[i]![0]);
    const a = A.get(i);
    if (a) {
      const d = policy.decide(a.k, zAfter(a.k), a.runOn, compact ? postTokens : c);
      if (!compact && d.compact) lines.push(pts[i]![0]);
      compact ||= d.compact;
      expected ??= { count: lines.length - (d.compact ? 1 : 0) + d.count, unaligned: lines.filter((l) => !isAligned(labels, l)).length + d.unaligned };
    }
    if (compact) c = postTokens;
  }
  return { lines, expected: expected ?? { count: lines.length, unaligned: lines.filter((l) => !isAligned(labels, l)).length } };
}

/**
 * The hindsight optimum under the causal policies' own rule (a call may reach the line if it is compacted
 * there, never the window): the fewest (unaligned, total) by DP over the calls, lexicographic with weight
 * `lambda` (Infinity: unaligned first, as the judge's optimum; 0: the fewest compactions). No causal
 * schedule of that rule can do better on the same session: the sanity check of the bound.
 */
export function hindsightSameRule(labels: PhaseLabels, lambda: number, postTokens = DEFAULT_POST_TOKENS): { compactions: number; unaligned: number } {
  const pts = labels.points;
  const n = pts.length;
  const line = OPTIMUM_LIMIT_FRACTION * labels.window;
  const key = (u: number, t: number) => (lambda === Infinity ? u * 1e6 + t : t + lambda * u);
  const best = Array.from({ length: n }, () => ({ cost: Infinity, u: 0, t: 0 }));
  let end = { cost: Infinity, u: 0, t: 0 };
  for (let j = -1; j < n; j++) {
    const base = j < 0 ? { cost: 0, u: 0, t: 0 } : best[j]!;
    if (base.cost === Infinity) continue;
    let c = 0;
    let reached = j === n - 1;
    for (let i = j + 1; i < n; i++) {
      c = i === 0 ? pts[0]![1] : (i === j + 1 ? postTokens : c) + Math.max(0, pts[i]![1] - pts[i - 1]![1]);
      if (c >= labels.window) break;
      const u = base.u + (isAligned(labels, pts[i]![0]) ? 0 : 1);
      const cand = { cost: key(u, base.t + 1), u, t: base.t + 1 };
      if (cand.cost < best[i]!.cost) best[i] = cand;
      if (c >= line) break; // this call must be compacted: nothing after it is reachable without it
      if (i === n - 1) reached = true;
    }
    if (reached && base.cost < end.cost) end = base;
  }
  return { compactions: end.t, unaligned: end.u };
}
