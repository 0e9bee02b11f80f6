/**
 * The instructions message that starts every @rawr thread: the rawr-agent prompt (prompts/rawr-agent.md,
 * overridable in .rawr/prompts/) with this machine's environment — workspace folders, OS, shell, git
 * branch, the tools offered. It lives in the thread (so it is counted like everything the model sees) and
 * is kept through compaction (turn.ts).
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { safeReadText } from '../../core/io/safeRead';
import { assembleAgentPrompt, AGENT_INSTRUCTIONS_HEADER } from '../../core/prompts/agentPrompt';
import type { ThreadMessage } from '../../core/thread/thread';

export const INSTRUCTIONS_KIND = 'instructions';

/**
 * `.git` as a file ("gitdir: <path>") and `HEAD` ("ref: refs/heads/<name>" or a hash) hold one line each.
 * Both come from the repository (untrusted): read through safeRead within this cap, so a FIFO named
 * HEAD cannot hang every @rawr turn's prompt and a huge one cannot fill memory.
 */
export const MAX_GIT_POINTER_BYTES = 8 * 1024;

/**
 * Where a `gitdir:` line may lead: inside the folder, or into git's own layouts for a linked worktree
 * (`<repo>/.git/worktrees/<name>`) or a submodule (`<super>/.git/modules/<path>`), which lie outside the
 * checkout. Anything else (`gitdir: /home/you/secret`) is not followed: rawr would read a file named
 * HEAD wherever a committed `.git` file points.
 */
function gitDirAllowed(folder: string, gitDir: string): boolean {
  const rel = path.relative(folder, gitDir);
  if (rel.split(path.sep)[0] !== '..' && !path.isAbsolute(rel)) return true;
  return gitDir.split(path.sep).some((seg) => seg === 'worktrees' || seg === 'modules');
}

/** The branch HEAD names, read from .git/HEAD (no git process: safe in an untrusted workspace too). */
export async function gitBranchOf(folder: string): Promise<string | undefined> {
  try {
    let gitDir = path.join(folder, '.git');
    const st = await fs.stat(gitDir); // a stat opens nothing: a FIFO cannot hang it
    if (st.isFile()) {
      // a worktree or submodule: ".git" is a file "gitdir: <path>"
      const m = /^gitdir:\s*(.+)$/m.exec(await safeReadText(gitDir, { maxBytes: MAX_GIT_POINTER_BYTES }));
      if (!m) return undefined;
      gitDir = path.resolve(folder, m[1]!.trim());
      if (!gitDirAllowed(folder, gitDir)) return undefined;
    } else if (!st.isDirectory()) return undefined;
    const head = (await safeReadText(path.join(gitDir, 'HEAD'), { maxBytes: MAX_GIT_POINTER_BYTES })).trim();
    const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
    return ref ? ref[1] : /^[0-9a-f]{7,64}$/.test(head) ? `(detached at ${head.slice(0, 8)})` : undefined;
  } catch {
    // not a repository, or HEAD is not a regular file within the cap (SafeReadError): no branch shown
    return undefined;
  }
}

export async function instructionsMessage(template: string, tools: readonly vscode.LanguageModelChatTool[]): Promise<ThreadMessage> {
  const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => (f.uri.scheme === 'file' ? f.uri.fsPath : f.uri.toString()));
  const first = vscode.workspace.workspaceFolders?.[0];
  const text = assembleAgentPrompt(template, {
    workspaceFolders: folders,
    os: `${os.type()} ${os.release()} (${os.arch()})`,
    shell: vscode.env.shell || process.env.SHELL || 'unknown',
    gitBranch: first?.uri.scheme === 'file' ? await gitBranchOf(first.uri.fsPath) : undefined,
    tools: tools.map((t) => t.name),
  });
  return { role: 'user', text, synthetic: true, kind: INSTRUCTIONS_KIND };
}

/** Whether a thread message is the instructions message (kept when the thread is compacted). */
export function isInstructions(m: ThreadMessage): boolean {
  return m.role === 'user' && (m.kind === INSTRUCTIONS_KIND || m.text.startsWith(AGENT_INSTRUCTIONS_HEADER));
}
