/**
 * The one classification of an agent's tools (docs/ARCHITECTURE.md#the-agent-adapter): which tool runs
 * a shell command, which changes files, and where a call's command is. Every source — @rawr's live turn,
 * a Claude Code transcript, a Codex rollout, rawr's own log — is read with these, so the replay, the
 * hooks and the live product cannot disagree about what a tool is.
 */

/**
 * Tools that run a shell command: Claude Code's Bash, Codex's shell / exec_command / local_shell, VS
 * Code's run_in_terminal (runInTerminal) and rawr's own rawr_run_in_terminal (any name with "terminal").
 */
const SHELL_TOOL = /^(bash|shell|exec_command|local_shell|run_in_terminal|runinterminal)$|terminal/i;
/** Tools that change files: Claude Code's Edit/Write/MultiEdit/NotebookEdit, Codex apply_patch, VS Code's edit tools. */
const EDIT_TOOL = /edit|write|patch|create_?file|replace|insert/i;
const NOT_EDIT = /read|view|search|list|get|find|grep|glob|scratch|todo|plan|task/i;

export const isShellTool = (name: string): boolean => SHELL_TOOL.test(name);
export const isEditTool = (name: string): boolean => EDIT_TOOL.test(name) && !NOT_EDIT.test(name);

/**
 * The command line of a shell call's input: a string, `{command: "…"}`, Codex's argv `{command: [...]}`
 * (as JSON, which the shell analysis reads back as argv) or `{cmd: "…"}`; undefined for anything else.
 */
export function commandOf(input: unknown): string | undefined {
  if (typeof input === 'string') return input;
  if (!input || typeof input !== 'object') return undefined;
  const o = input as Record<string, unknown>;
  if (typeof o.command === 'string') return o.command;
  if (Array.isArray(o.command)) return JSON.stringify(o.command);
  if (typeof o.cmd === 'string') return o.cmd;
  return undefined;
}
