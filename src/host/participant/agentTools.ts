/**
 * Which tools the @rawr agent is offered on each model call: rawr_update_plan and rawr_write_scratch
 * always, plus every registered tool `rawr.tools.allowed` names (default: rawr's own tool set, catalog.ts;
 * globs add Copilot's or MCP tools, or a shorter list restricts). In Restricted Mode only the tools that
 * neither write nor execute are offered, and the chat says why and how to trust (docs/TOOLS.md).
 */
import * as vscode from 'vscode';
import { allowedInRestrictedMode, specOf } from '../tools/catalog';
import { RESTRICTED_HINT } from '../tools/toolHost';
import { RAWR_TOOL_INFOS } from '../tools/rawrTools';
import { toolAllowed } from '../settingsMerge';
import { workspaceTrusted } from '../trust';

const INTERNAL = new Set(RAWR_TOOL_INFOS.map((t) => t.name));

/** Whether a registered tool may be offered in the current trust state. */
export function offeredInTrust(name: string, trusted: boolean): boolean {
  if (trusted) return true;
  const spec = specOf(name);
  // Tools of other extensions and MCP servers say nothing reliable about what they do: none in Restricted Mode.
  return !!spec && allowedInRestrictedMode(spec);
}

export function agentTools(globs: readonly string[], trusted = workspaceTrusted()): vscode.LanguageModelChatTool[] {
  const extra = vscode.lm.tools.filter((t) => !INTERNAL.has(t.name) && toolAllowed(t.name, globs) && offeredInTrust(t.name, trusted));
  return [...RAWR_TOOL_INFOS, ...extra.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }))];
}

/** Said once per request in Restricted Mode, before the agent starts. */
export function restrictedModeNotice(stream: vscode.ChatResponseStream): void {
  if (workspaceTrusted()) return;
  stream.markdown(
    `_[rawr] **Restricted Mode**: this workspace is not trusted, so the agent can read and search files but cannot edit files, run commands or run git. ${RESTRICTED_HINT}_\n\n`,
  );
  stream.button({ command: 'workbench.trust.manage', title: 'Manage Workspace Trust' });
}
