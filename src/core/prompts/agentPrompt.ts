/**
 * The @rawr agent's base instructions: the prompt file prompts/rawr-agent.md (or its workspace override)
 * filled with the environment, as the first message of a thread (docs/TOOLS.md). Pure.
 */
import { fillTemplate } from './promptSet';

export interface AgentEnvironment {
  workspaceFolders: readonly string[];
  /** e.g. "Linux 6.8 (x64)". */
  os: string;
  /** e.g. "/bin/bash". */
  shell: string;
  /** undefined: not a git repository (or git is not available). */
  gitBranch: string | undefined;
  /** Names of the tools the agent is offered. */
  tools: readonly string[];
}

/** First line of the instructions message; rawr and tests recognise it, and it marks the text as rawr's. */
export const AGENT_INSTRUCTIONS_HEADER = '[rawr] Instructions for this session';

export function assembleAgentPrompt(template: string, env: AgentEnvironment): string {
  // Values come from the machine and the workspace (a folder or branch name can hold anything): one line each.
  const line = (s: string) => s.replace(/[\r\n]+/g, ' ').slice(0, 500);
  const body = fillTemplate(template.trim(), {
    workspaceFolders: env.workspaceFolders.length ? env.workspaceFolders.map(line).join(', ') : '(none open)',
    os: line(env.os),
    shell: line(env.shell),
    gitBranch: env.gitBranch ? line(env.gitBranch) : '(not a git repository)',
    tools: env.tools.length ? env.tools.join(', ') : '(none)',
  });
  return `${AGENT_INSTRUCTIONS_HEADER}\n\n${body}`;
}
