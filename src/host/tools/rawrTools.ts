/**
 * rawr's own language-model tools. `rawr_update_plan` turns the agent's structured plan into plan
 * boundaries (a completed step is a plan checkpoint); `rawr_write_scratch` writes the agent's scratch
 * notes to `.scratch/agent-<name>.scratch.md` inside the workspace, never anywhere else.
 */
import * as vscode from 'vscode';
import * as z from 'zod';
import { scratchPathFor } from '../../core/sequence/texts';
import type { PlanStep } from '../../core/signals/plan';
import { inputJsonSchema } from './catalog';
import { checkScratchTarget, ensureScratchFolder } from './scratchFolder';

export const PLAN_TOOL = 'rawr_update_plan';
export const SCRATCH_TOOL = 'rawr_write_scratch';

export const PlanInput = z.object({
  steps: z.array(z.object({ text: z.string().min(1).max(500), status: z.enum(['pending', 'in_progress', 'completed']) })).max(100),
  explanation: z.string().max(2000).optional(),
});
export const ScratchInput = z.object({ content: z.string().max(2_000_000), name: z.string().max(100).optional() });

// The schemas the model sees are generated from the zod validators above, so what is offered and what is
// accepted cannot drift.
export const RAWR_TOOL_INFOS: vscode.LanguageModelChatTool[] = [
  {
    name: PLAN_TOOL,
    description:
      'Record or update your plan for the current task as structured steps. Call it when you make a plan and each time a step changes status. Mark a step "completed" only when it is really done.',
    inputSchema: inputJsonSchema(PlanInput),
  },
  {
    name: SCRATCH_TOOL,
    description: 'Write your working notes verbatim to your scratch file (.scratch/agent-<name>.scratch.md in the workspace), replacing its content.',
    inputSchema: inputJsonSchema(ScratchInput),
  },
];

export function parsePlan(input: unknown): { ok: true; steps: PlanStep[] } | { ok: false; error: string } {
  const r = PlanInput.safeParse(input);
  if (!r.success) return { ok: false, error: r.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ') };
  return { ok: true, steps: r.data.steps };
}

/** Writes the scratch file; the relative path comes only from the sanitised agent name. */
export async function writeScratch(
  workspace: vscode.Uri | undefined,
  agentName: string,
  input: unknown,
): Promise<{ ok: true; path: string } | { ok: false; error: string }> {
  const r = ScratchInput.safeParse(input);
  if (!r.success) return { ok: false, error: r.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ') };
  if (!workspace) return { ok: false, error: 'no workspace folder is open, so there is nowhere to write .scratch/' };
  const rel = scratchPathFor(agentName);
  const target = vscode.Uri.joinPath(workspace, ...rel.split('/'));
  // joinPath normalises '..'; the sanitiser already forbids it — check anyway (defence in depth).
  if (!target.path.startsWith(`${workspace.path.replace(/\/$/, '')}/.scratch/`))
    return { ok: false, error: `refusing to write outside .scratch/: ${target.path}` };
  if (workspace.scheme === 'file') {
    // On disk: no symlink followed, and `.scratch/.gitignore` keeps the notes out of the agent's commits.
    try {
      await ensureScratchFolder(workspace.fsPath);
      const refused = await checkScratchTarget(target.fsPath);
      if (refused) return { ok: false, error: refused };
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
  } else await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(workspace, '.scratch'));
  await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(r.data.content));
  return { ok: true, path: rel };
}
