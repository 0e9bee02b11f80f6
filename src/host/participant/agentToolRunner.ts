/**
 * The tool calls of a chat request (a `ToolPort`): rawr's own tools (the plan, the scratch notes) and the
 * workspace tools the settings allow, through VS Code's tool API; each call's line in the chat and its
 * result in the thread. Telling the engine is the caller's part (the agent loop reports what the agent
 * did; rawr's own turns report nothing), so running a tool never steps the engine.
 */
import * as vscode from 'vscode';
import type { PlanStep } from '../../core/signals/plan';
import { PLAN_TOOL, SCRATCH_TOOL, parsePlan, writeScratch } from '../tools/rawrTools';
import type { ChatOutput, ThreadPort, ToolCall, ToolOutcome, ToolPort } from './ports';
import { DECLINED_RESULT, isSkippedResult, showPlan, toolLine } from './toolDisplay';

export interface AgentToolDeps {
  thread: Pick<ThreadPort, 'agentName' | 'append'>;
  out: ChatOutput;
  workspace: () => vscode.Uri | undefined;
  /** The tools offered to the agent now (rawr's own plus the allowed workspace tools). */
  tools: () => readonly vscode.LanguageModelChatTool[];
  /** The request's own cancellation: a tool cancelled while it goes on was declined (Skip), not stopped. */
  requestToken: vscode.CancellationToken;
  toolInvocationToken: vscode.ChatParticipantToolToken | undefined;
}

export class AgentToolRunner implements ToolPort {
  constructor(private readonly deps: AgentToolDeps) {}

  async run(call: ToolCall, token: vscode.CancellationToken, offered?: readonly string[]): Promise<ToolOutcome> {
    const { thread, out } = this.deps;
    let output: string;
    let isError = false;
    let plan: readonly PlanStep[] | undefined;
    try {
      // A model may call a tool it was not offered (rawr's own turns offer one or none): answered, never run.
      if (offered && !offered.includes(call.name)) throw new Error(`tool "${call.name}" was not offered in this turn; only ${offered.join(', ') || 'no tool'}`);
      if (call.name === PLAN_TOOL) {
        const parsed = parsePlan(call.input);
        if (!parsed.ok) throw new Error(`invalid plan: ${parsed.error}`);
        plan = parsed.steps;
        const done = plan.filter((s) => s.status === 'completed').length;
        output = `Plan recorded (${done}/${plan.length} steps completed).`;
        out.progress(`Plan: ${done}/${plan.length} steps completed`); // a step of the response (VS Code folds finished steps)
        out.markdown(showPlan(thread, plan));
      } else if (call.name === SCRATCH_TOOL) {
        const r = await writeScratch(this.deps.workspace(), thread.agentName, call.input);
        if (!r.ok) throw new Error(r.error);
        output = `Scratch notes written to ${r.path}.`;
      } else if (this.deps.tools().some((t) => t.name === call.name)) {
        const result = await vscode.lm.invokeTool(
          call.name,
          { input: (call.input ?? {}) as object, toolInvocationToken: this.deps.toolInvocationToken },
          token,
        );
        output = result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
        const skipped = isSkippedResult(output);
        if (skipped) output = DECLINED_RESULT;
        out.markdown(toolLine(call.name, call.input, output, skipped ? 'skipped' : 'ok'));
      } else {
        throw new Error(`tool "${call.name}" is not available to @rawr (see the rawr.tools.allowed setting)`);
      }
    } catch (err) {
      isError = true;
      plan = undefined;
      // Skip in VS Code's confirmation arrives as a cancellation while the request itself goes on.
      const declined = (err instanceof vscode.CancellationError || (err as Error)?.name === 'Canceled') && !this.deps.requestToken.isCancellationRequested;
      output = declined ? DECLINED_RESULT : `Error: ${(err as Error).message}`;
      if (call.name !== PLAN_TOOL && call.name !== SCRATCH_TOOL) out.markdown(toolLine(call.name, call.input, output, declined ? 'skipped' : 'error'));
    }
    await thread.append({ role: 'tool', toolCallId: call.id, name: call.name, text: output, ...(isError ? { isError } : {}) });
    return { output, isError, ...(plan ? { plan } : {}) };
  }
}
