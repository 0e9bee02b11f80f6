/**
 * Read-only git for the agent: `git status --short --branch` and `git diff`. Run with the repository's
 * command-running configuration switched off (no fsmonitor, no external diff, no textconv) and bounded in
 * time and output; refused in Restricted Mode all the same (see catalog.ts `needsTrust`).
 */
import * as cp from 'node:child_process';
import { TOOL_SPECS } from './catalog';
import { capText } from './fileText';
import type { ToolContext, ToolImpl } from './toolHost';
import { resolveInWorkspace, ToolError } from './workspacePath';

const MAX_OUTPUT = 60_000;
const GIT_TIMEOUT_MS = 15_000;

export function git(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    cp.execFile(
      'git',
      ['-c', 'core.fsmonitor=false', '-c', 'core.quotepath=off', '--no-pager', ...args],
      {
        cwd,
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: 8 * 1024 * 1024,
        env: { ...process.env, GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' },
      },
      (err, stdout, stderr) => {
        if (err) {
          const e = err as NodeJS.ErrnoException & { killed?: boolean };
          if (e.code === 'ENOENT') return reject(new ToolError('git is not installed (or not on PATH).'));
          if (e.killed) return reject(new ToolError(`git ${args[0]} did not finish within ${GIT_TIMEOUT_MS / 1000} s.`));
          return reject(new ToolError(`git ${args[0]} failed: ${(stderr || e.message).trim().slice(0, 2000)}`));
        }
        resolve(stdout);
      },
    );
  });
}

function root(ctx: ToolContext): string {
  const r = ctx.roots()[0];
  if (!r) throw new ToolError('No workspace folder is open.');
  return r;
}

export const gitStatusTool: ToolImpl<typeof TOOL_SPECS.gitStatus.schema> = {
  spec: TOOL_SPECS.gitStatus,
  message: () => 'git status',
  async run(_input, ctx) {
    const out = await git(['status', '--short', '--branch'], root(ctx));
    return capText(out.trim() || '(clean)', MAX_OUTPUT);
  },
};

export const gitDiffTool: ToolImpl<typeof TOOL_SPECS.gitDiff.schema> = {
  spec: TOOL_SPECS.gitDiff,
  message: (i) => `git diff${i.staged ? ' --cached' : ''}${i.path ? ` ${i.path}` : ''}`,
  async run(input, ctx) {
    const cwd = root(ctx);
    const args = ['diff', '--no-ext-diff', '--no-textconv', '--no-color'];
    if (input.staged) args.push('--cached');
    if (input.path) args.push('--', (await resolveInWorkspace(ctx.roots(), input.path)).abs);
    const out = await git(args, cwd);
    return capText(out.trim() || `(no ${input.staged ? 'staged' : 'unstaged'} changes)`, MAX_OUTPUT);
  },
};
