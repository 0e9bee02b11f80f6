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
  const firstLine = output.replace(/^Error:\s*/, '').split('\n')[0]!.slice(0, 200);
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
const PRESENT: Record<string, string> = { Ran: 'run', Edited: 'edit', Created: 'create', Overwrote: 'overwrite', Read: 'read', Listed: 'list', Searched: 'search', Checked: 'check', Used: 'use' };

/** The line as Markdown for the chat (one paragraph of its own). */
export function toolLine(name: string, input: unknown, output: string, outcome: ToolOutcome): string {
  return `\n\n${describeToolCall(name, input, output, outcome)}\n\n`;
}

/** VS Code answers a call the person skipped with this text instead of running the tool (1.139). */
export function isSkippedResult(output: string): boolean {
  return /^The user chose to skip the tool call/.test(output.trim());
}

/** The plan as a checklist (one line per step). */
export function planChecklist(steps: readonly PlanStep[]): string {
  const done = steps.filter((s) => s.status === 'completed').length;
  const mark = (s: PlanStep) => (s.status === 'completed' ? '☑' : s.status === 'in_progress' ? '▶' : '☐');
  // Escape Markdown in the model's step text so it cannot restructure the list.
  const esc = (t: string) => t.replace(/[\\`*_[\]<>#|]/g, '\\$&').replace(/\s+/g, ' ');
  return `\n\n**Plan** (${done}/${steps.length} done)\n\n${steps.map((s) => `- ${mark(s)} ${s.status === 'completed' ? `~~${esc(s.text)}~~` : esc(s.text)}`).join('\n')}\n\n`;
}

/** What the model gets when the person chose Skip on a confirmation (VS Code reports it as a cancellation). */
export const DECLINED_RESULT =
  'The user declined this tool call (they chose Skip in the confirmation). It did not run. Do not repeat it unchanged: continue without it, or explain what you need and why.';
