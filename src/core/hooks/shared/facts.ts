/**
 * What a PreCompact snapshot needs from an agent's transcript (a Claude Code transcript or a Codex
 * rollout), read with the replay importers (zod-validated, same rules for what counts as a person's
 * prompt and for plan updates). Pure: no I/O.
 */
import { importClaude } from '../../replay/import/claude';
import { importCodex } from '../../replay/import/codex';
import type { Recording } from '../../replay/recording';
import type { PlanStep } from '../../signals/plan';

/** Tools whose `file_path` (NotebookEdit: `notebook_path`) puts a file in scope. */
export const FILE_TOOLS = ['Read', 'Edit', 'MultiEdit', 'Write', 'NotebookEdit'] as const;

export interface TranscriptFacts {
  /** Every person prompt, oldest first (callers keep the last few). */
  userRequests: Array<{ line: number; at: number; text: string }>;
  /** Files touched by FILE_TOOLS (Codex: apply_patch), each once, ordered by its last touch (most recent last). */
  files: string[];
  /**
   * The latest non-empty plan: a TodoWrite list, the Task tools' list (TaskCreate / TaskUpdate /
   * TaskList, Claude Code 2.1, rebuilt by the importer), or Codex's update_plan. An empty list is a
   * transient clear, as in signals/plan.
   */
  todos: PlanStep[] | null;
  /** File paths a tool touched with their line, and the text a Write gave them. */
  fileTouches: Array<{ line: number; path: string; written?: string }>;
  /** Lines of the transcript and how many could not be read. */
  lines: number;
  problems: number;
}

/** `*** Add File: p` / `*** Update File: p` / `*** Delete File: p` lines of a Codex apply_patch. */
const PATCH_FILE_RE = /^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm;

function touchedBy(name: string, input: unknown): Array<{ path: string; written?: string }> {
  if ((FILE_TOOLS as readonly string[]).includes(name)) {
    const i = (input ?? {}) as Record<string, unknown>;
    const p = typeof i.file_path === 'string' ? i.file_path : typeof i.notebook_path === 'string' ? i.notebook_path : undefined;
    if (p === undefined || p.trim() === '') return [];
    return [{ path: p, ...(name === 'Write' && typeof i.content === 'string' ? { written: i.content } : {}) }];
  }
  if (name === 'apply_patch') {
    const text = typeof input === 'string' ? input : typeof (input as { input?: unknown } | null)?.input === 'string' ? (input as { input: string }).input : '';
    return [...text.matchAll(PATCH_FILE_RE)].map((m) => ({ path: m[1]!.trim() })).filter((t) => t.path !== '');
  }
  return [];
}

export function factsOf(rec: Recording): TranscriptFacts {
  const userRequests: TranscriptFacts['userRequests'] = [];
  const order = new Map<string, true>();
  const fileTouches: TranscriptFacts['fileTouches'] = [];
  let todos: PlanStep[] | null = null;
  for (const item of rec.items) {
    if (item.type === 'user_prompt') userRequests.push({ line: item.line, at: item.at, text: item.text });
    else if (item.type === 'plan') {
      if (item.steps.length > 0) todos = item.steps.map((s) => ({ text: s.text, status: s.status }));
    } else if (item.type === 'tool_call') {
      for (const t of touchedBy(item.name, item.input)) {
        order.delete(t.path);
        order.set(t.path, true);
        fileTouches.push({ line: item.line, ...t });
      }
    }
  }
  return { userRequests, files: [...order.keys()], todos, fileTouches, lines: rec.lines, problems: rec.problems.length };
}

/** A Claude Code transcript. */
export const readTranscriptFacts = (text: string): TranscriptFacts => factsOf(importClaude(text));
/** A Codex rollout. */
export const readRolloutFacts = (text: string): TranscriptFacts => factsOf(importCodex(text));
