/**
 * Boundary signals: typed, timestamped, identified events that say "a meaningful transition
 * might be here" (docs/ARCHITECTURE.md#boundaries).
 * They gate compaction; they never trigger it on their own.
 */

export const BOUNDARY_KINDS = [
  'commit',
  'pr_checkpoint',
  'plan_checkpoint',
  'plan_update',
  'agent_done',
  'concluding',
  'topic_shift',
  'turn_complete',
] as const;
export type BoundaryKind = (typeof BOUNDARY_KINDS)[number];

/** Everything is strong except plan_update, which is noisy (docs/ARCHITECTURE.md#boundaries). */
export type BoundaryStrength = 'strong' | 'weak';

export type BoundarySource = 'git' | 'terminal' | 'plan_tool' | 'agent_message' | 'tool_result' | 'turn' | 'recording';

export interface BoundarySignal {
  /** Stable id, unique per thread (e.g. `commit:a1b2c3d`, `plan:3:2`). */
  id: string;
  kind: BoundaryKind;
  strength: BoundaryStrength;
  source: BoundarySource;
  /** ms since epoch. */
  at: number;
  /** Turn the signal belongs to (user-turn counter of the thread). */
  turn: number;
  /** Signals produced inside a synthetic (rawr-injected) turn never count. */
  synthetic: boolean;
  /** Human-readable detail: commit sha + subject, plan step text, matched marker, … */
  detail: string;
}

export function strengthOf(kind: BoundaryKind): BoundaryStrength {
  return kind === 'plan_update' ? 'weak' : 'strong';
}

/** What a detector returns before the tracker stamps id/time/turn onto it. */
export interface DetectedBoundary {
  kind: BoundaryKind;
  /** Key that makes the id stable, e.g. the commit sha or `amend`. */
  key: string;
  detail: string;
}
