/**
 * What a PreCompact snapshot needs from a Claude Code transcript, read with the replay importer
 * (`importClaude`, zod-validated, same rules for what counts as a person's prompt). Pure: no I/O.
 */
import { importClaude } from '../../replay/import/claude';
import type { PlanStep } from '../../signals/plan';

/** Tools whose `file_path` (NotebookEdit: `notebook_path`) puts a file in scope. */
export const FILE_TOOLS = ['Read', 'Edit', 'MultiEdit', 'Write', 'NotebookEdit'] as const;

export interface TranscriptFacts {
  /** Every person prompt, oldest first (callers keep the last few). */
  userRequests: Array<{ line: number; at: number; text: string }>;
  /** Files touched by FILE_TOOLS, each once, ordered by its last touch (most recent last). */
  files: string[];
  /**
   * The latest non-empty plan: a TodoWrite list, or the Task tools' list (TaskCreate / TaskUpdate /
   * TaskList, Claude Code 2.1), rebuilt by the importer's ClaudePlanTracker. An empty list is a
   * transient clear, as in signals/plan.
   */
  todos: PlanStep[] | null;
  /** File paths a Write/Edit/MultiEdit/Read touched with their line, and the text a Write gave them. */
  fileTouches: Array<{ line: number; path: string; written?: string }>;
  /** Lines of the transcript and how many could not be read. */
  lines: number;
  problems: number;
}

export function readTranscriptFacts(text: string): TranscriptFacts {
  const rec = importClaude(text);
  const userRequests: TranscriptFacts['userRequests'] = [];
  const order = new Map<string, true>();
  const fileTouches: TranscriptFacts['fileTouches'] = [];
  let todos: PlanStep[] | null = null;
  for (const item of rec.items) {
    if (item.type === 'user_prompt') userRequests.push({ line: item.line, at: item.at, text: item.text });
    else if (item.type === 'plan') {
      if (item.steps.length > 0) todos = item.steps.map((s) => ({ text: s.text, status: s.status }));
    } else if (item.type === 'tool_call' && (FILE_TOOLS as readonly string[]).includes(item.name)) {
      const input = (item.input ?? {}) as Record<string, unknown>;
      const p = typeof input.file_path === 'string' ? input.file_path : typeof input.notebook_path === 'string' ? input.notebook_path : undefined;
      if (p === undefined || p.trim() === '') continue;
      order.delete(p);
      order.set(p, true);
      fileTouches.push({ line: item.line, path: p, ...(item.name === 'Write' && typeof input.content === 'string' ? { written: input.content } : {}) });
    }
  }
  return { userRequests, files: [...order.keys()], todos, fileTouches, lines: rec.lines, problems: rec.problems.length };
}
