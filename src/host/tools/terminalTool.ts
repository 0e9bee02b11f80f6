/** rawr_run_in_terminal: one shell command in rawr's terminal (terminalRunner.ts), asked for first. */
import { TOOL_SPECS } from './catalog';
import type { TerminalRunner } from './terminalRunner';
import { fence, type ToolImpl } from './toolHost';
import { ToolError } from './workspacePath';

const DEFAULT_TIMEOUT_S = 120;

export function runInTerminalTool(runner: TerminalRunner): ToolImpl<typeof TOOL_SPECS.runInTerminal.schema> {
  return {
    spec: TOOL_SPECS.runInTerminal,
    message: (i) => `Running \`${i.command.split('\n')[0]!.slice(0, 80)}\``,
    async confirm(input, ctx) {
      return {
        title: 'Run this command?',
        message: `In \`${ctx.roots()[0] ?? '?'}\` (rawr's terminal, stopped after ${input.timeoutSeconds ?? DEFAULT_TIMEOUT_S} s):\n\n${fence(input.command, 'sh')}`,
      };
    },
    async run(input, ctx, token) {
      const cwd = ctx.roots()[0];
      if (!cwd) throw new ToolError('No workspace folder is open.');
      const timeout = input.timeoutSeconds ?? DEFAULT_TIMEOUT_S;
      const r = await runner.run(input.command, cwd, timeout * 1000, token);
      const output = r.output.trim() ? `\n${r.output.trimEnd()}` : '\n(no output)';
      const via = r.via === 'process' ? ' (ran in a child process: the terminal has no shell integration)' : '';
      if (r.interrupted === 'timeout') throw new ToolError(`The command did not finish within ${timeout} s and was interrupted${via}. Output so far:${output}`);
      if (r.interrupted === 'cancelled') throw new ToolError(`The command was interrupted because the request was cancelled${via}. Output so far:${output}`);
      return `exit code ${r.exitCode ?? 'unknown'}${via}${output}`;
    },
  };
}
