/**
 * Plan checkpoints (docs/ARCHITECTURE.md#boundaries): a step newly `completed` in the active, non-empty plan is a strong
 * `plan_checkpoint`; any other real change is a weak `plan_update`. Transient clears (an empty plan) and
 * re-sent identical plans produce nothing, and a clear does not make the next re-send look "new".
 */
import { handOnMemberSet, memberSet } from '../text/memberSet';
import type { DetectedBoundary } from './types';

export type PlanStatus = 'pending' | 'in_progress' | 'completed';
export interface PlanStep {
  text: string;
  status: PlanStatus;
}
export interface PlanState {
  steps: PlanStep[];
  /** Normalised texts of the steps seen completed in this plan lineage (the last MAX_COMPLETED). */
  completed: string[];
}

const norm = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * Completed steps remembered, the most recent: the engine state stays small in a session of any length
 * (each plan update reads this list). A step completed again after this many others counts as new.
 */
export const MAX_COMPLETED = 200;

export function applyPlan(prev: PlanState | null, steps: PlanStep[]): { plan: PlanState | null; boundary: DetectedBoundary | null } {
  if (steps.length === 0) {
    // A transient clear: keep the previous plan as the active one.
    return { plan: prev, boundary: null };
  }
  const same =
    prev !== null &&
    prev.steps.length === steps.length &&
    prev.steps.every((p, i) => p.status === steps[i]!.status && (p.text === steps[i]!.text || norm(p.text) === norm(steps[i]!.text)));
  if (same) return { plan: prev, boundary: null };

  const before = prev?.completed ?? [];
  const already = memberSet(before);
  const newly = steps.filter((s) => s.status === 'completed' && !already.has(norm(s.text)));
  let completed = before;
  if (newly.length > 0) {
    // The Set's items in its order: the list itself when the list holds no repeats (the usual case).
    const grown = already.size === before.length ? before.slice() : [...already];
    const added = newly.map((s) => norm(s.text));
    for (const t of added) grown.push(t);
    completed = grown.length > MAX_COMPLETED ? grown.slice(grown.length - MAX_COMPLETED) : grown;
    handOnMemberSet(before, completed, added);
  }
  const plan: PlanState = { steps, completed };
  if (newly.length > 0) {
    const done = steps.filter((s) => s.status === 'completed').length;
    const texts = newly.map((s) => s.text.trim());
    return {
      plan,
      boundary: {
        kind: 'plan_checkpoint',
        key: `${done}/${steps.length}:${norm(texts[texts.length - 1]!).slice(0, 60)}`,
        detail: `completed ${texts.map((t) => `"${t.slice(0, 80)}"`).join(', ')} (${done}/${steps.length} done)`,
      },
    };
  }
  return {
    plan,
    boundary: { kind: 'plan_update', key: `u${steps.length}:${steps.map((s) => s.status[0]).join('')}`, detail: `plan updated (${steps.length} steps)` },
  };
}
