/**
 * The short line each tool call leaves in the chat ("Edited src/limiter.ts", "Ran npm test — exit 0")
 * and the plan as a checklist: what the person sees of the agent's work. Pure (no vscode), unit-tested.
 */
import type { PlanStep } from '../../core/signals/plan';
import { TOOL_NAMES } from '../tools/catalog';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
/** Inline code that the text cannot break out of. */
export function code(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim().slice(0, 120);
  const ticks = t.includes('`') ? '``' : '`';
  return `${ticks}${t.includes('`') ? ` ${t} ` : t}${ticks}`;
}

export type ToolOutcome = 'ok' | 'error' | 'skipped';

/** What the call did, in a few words (past tense), from its input and its output. */
export function describeToolCall(name: string, input: unknown, output: string, outcome: ToolOutcome): string {
  const isError = outcome !== 'ok';
  const i = (input && typeof input === 'object' ? input : {}) as Record<string, unknown>;
  const firstLine = output
    .replace(/^Error:\s*/, '')
    .split('\n')[0]!
    .slice(0, 200);
  let what: string;
  switch (name) {
    case TOOL_NAMES.readFile: {
      const range = /\(lines (\d+)-(\d+) of (\d+)\)/.exec(output);
      what = `Read ${code(str(i.path))}${range ? ` (lines ${range[1]}–${range[2]} of ${range[3]})` : ''}`;
      break;
    }
    case TOOL_NAMES.listFiles:
      what = `Listed ${code(str(i.glob) || '**/*')}${isError ? '' : ` — ${/^No files match/.test(output) ? 'no files' : `${output.split('\n').filter((l) => l && !l.startsWith('[')).length} files`}`}`;
      break;
    case TOOL_NAMES.searchText:
      what = `Searched for ${code(str(i.query))}${isError ? '' : ` — ${/^No matches/.test(output) ? 'no matches' : `${output.split('\n').filter((l) => l && !l.startsWith('[')).length} matches`}`}`;
      break;
    case TOOL_NAMES.createFile:
      what = `${/^Overwrote/.test(output) ? 'Overwrote' : 'Created'} ${code(str(i.path))}`;
      break;
    case TOOL_NAMES.editFile:
      what = `Edited ${code(str(i.path))}`;
      break;
    case TOOL_NAMES.gitStatus:
      what = 'Checked `git status`';
      break;
    case TOOL_NAMES.gitDiff:
      what = `Read ${code(`git diff${i.staged ? ' --cached' : ''}${str(i.path) ? ` ${str(i.path)}` : ''}`)}`;
      break;
    case TOOL_NAMES.runInTerminal: {
      const exit = /^exit code (\S+)/.exec(output)?.[1];
      what = `Ran ${code(str(i.command))}${!isError && exit ? ` — exit ${exit}` : ''}`;
      break;
    }
    default:
      what = `Used ${code(name)}`;
  }
  if (outcome === 'skipped') return `⊘ Skipped: ${what.replace(/^(\S+)/, (v) => PRESENT[v] ?? v)} (you chose Skip)`;
  return isError ? `✗ ${what} — ${firstLine}` : `✓ ${what}`;
}

/** "Ran npm test" reads wrong for a call that did not run. */
const PRESENT: Record<string, string> = {
  Ran: 'run',
  Edited: 'edit',
  Created: 'create',
  Overwrote: 'overwrite',
  Read: 'read',
  Listed: 'list',
  Searched: 'search',
  Checked: 'check',
  Used: 'use',
};

/** The line as Markdown for the chat (one paragraph of its own). */
export function toolLine(name: string, input: unknown, output: string, outcome: ToolOutcome): string {
  return `\n\n${describeToolCall(name, input, output, outcome)}\n\n`;
}

/** VS Code answers a call the person skipped with this text instead of running the tool (1.139). */
export function isSkippedResult(output: string): boolean {
  return /^The user chose to skip the tool call/.test(output.trim());
}

/**
 * What the chat shows for a plan update: the whole checklist when the plan is new, its steps changed or a
 * step was completed; a one-line "now working on" when only the step in progress moved (keeps long
 * sessions readable). `previous` is the plan before this update (undefined: none yet).
 */
export function planUpdate(steps: readonly PlanStep[], previous: readonly PlanStep[] | undefined): string {
  const sameSteps = !!previous && previous.length === steps.length && previous.every((p, i) => p.text === steps[i]!.text);
  const completedMore = sameSteps && steps.filter((s) => s.status === 'completed').length > previous!.filter((s) => s.status === 'completed').length;
  if (!sameSteps || completedMore) return planChecklist(steps);
  const k = steps.findIndex((s) => s.status === 'in_progress');
  if (k < 0) return planChecklist(steps);
  return `\n\n▶ Plan step ${k + 1}/${steps.length}: ${escapeStep(steps[k]!.text)}\n\n`;
}

const escapeStep = (t: string) => t.replace(/[\\`*_[\]<>#|~]/g, '\\$&').replace(/\s+/g, ' ');

/** The plan as a checklist (one line per step). */
export function planChecklist(steps: readonly PlanStep[]): string {
  const done = steps.filter((s) => s.status === 'completed').length;
  const mark = (s: PlanStep) => (s.status === 'completed' ? '☑' : s.status === 'in_progress' ? '▶' : '☐');
  // Markdown in the model's step text is escaped so it cannot restructure the list.
  return `\n\n**Plan** (${done}/${steps.length} done)\n\n${steps.map((s) => `- ${mark(s)} ${s.status === 'completed' ? `~~${escapeStep(s.text)}~~` : escapeStep(s.text)}`).join('\n')}\n\n`;
}

/** What the model gets when the person chose Skip on a confirmation (VS Code reports it as a cancellation). */
export const DECLINED_RESULT =
  'The user declined this tool call (they chose Skip in the confirmation). It did not run. Do not repeat it unchanged: continue without it, or explain what you need and why.';

/** The last plan shown per thread (keyed by its session object), so each update shows what changed. */
const shownPlans = new WeakMap<object, readonly PlanStep[]>();

/** planUpdate against the plan last shown for `thread`, remembering this one. */
export function showPlan(thread: object, steps: readonly PlanStep[]): string {
  const text = planUpdate(steps, shownPlans.get(thread));
  shownPlans.set(thread, steps);
  return text;
}
