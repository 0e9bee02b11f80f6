/**
 * `rawr hooks <claude|codex> <PreCompact|PostCompact|UserPromptSubmit|SessionStart|install>`:
 * compaction detection for Claude Code and Codex sessions through their command hooks (see
 * docs/ARCHITECTURE.md#claude-code-and-codex-hooks).
 *
 * Exit codes: a hook event always exits 0 (a problem is one line on stderr, nothing on stdout); a usage
 * error exits 2, as the CLI's others do, except one an agent ran as a hook (usageExit): 1 there.
 */
import * as fs from 'node:fs';
import { isHookEvent } from '../core/hooks/shared/input';
import { readStdin, stdinAbandoned } from './hooks/stdio';
import { INSTALL_USAGE, installMain, uninstallMain } from './installCommand';
import { AGENTS, runHookEvent } from './hooks/event';

export const HOOKS_USAGE = `usage: rawr hooks <claude|codex> <PreCompact|PostCompact|UserPromptSubmit|SessionStart|PostToolUse>   (hook input JSON on stdin)
${INSTALL_USAGE}
  Compaction detection for Claude Code and Codex: PreCompact snapshots the session to
  .rawr/<agent>/<session>/; once the compaction is confirmed (PostCompact, SessionStart after a
  compaction, or the compaction record in the transcript) the next SessionStart or UserPromptSubmit
  injects the CONTEXT COMPACTION DETECTED warning with the recovery steps and the snapshot, exactly once.
  A PreCompact whose compaction never happened (failed or abandoned) injects nothing. After a compaction,
  the repair of the agent's own summary (what it lost of rawr's trail) is injected once by the next hook
  the model reads (PostToolUse, UserPromptSubmit, SessionStart); PostToolUse also carries the golden
  path's heads-up, and exits at once when nothing is pending.
  install prints the hook configuration; --write merges it into ./.claude/settings.local.json (Claude
  Code: personal, not committed; git-ignored through .git/info/exclude) or $CODEX_HOME/hooks.json
  (Codex), editing the file's text (JSONC: comments kept): every other setting and hook keeps its text as
  written, the file keeps its mode, and the previous version is kept under .rawr/claude/backup/
  ($CODEX_HOME/.rawr/backup/). A team's autoCompactWindow or CLAUDE_AUTOCOMPACT_PCT_OVERRIDE in .claude/settings.json
  (or yours, in ~/.claude/settings.json or the environment) is kept, and said so.
  uninstall removes exactly what install added (a file nobody else changed gets its earlier bytes back);
  --purge also removes rawr's session state (.rawr/<agent>/). A symlinked file is refused unless --follow-symlinks; a read-only file is
  refused (exit 1). Claude Code: rawr steers its automatic compaction to phase boundaries
  (autoCompactWindow 1000000 with env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: Claude Code asks from just before
  rawr's early line in every model's window, a 200k one included; --window N for a model above 1M;
  PreCompact refuses until a boundary); --no-steer leaves Claude Code's own threshold. --move moves
  rawr's hooks an earlier rawr wrote into the shared ./.claude/settings.json. --no-hooks: steering only
  (the hooks come from rawr's Claude Code plugin).
  Codex skips untrusted hooks silently: --trust writes their trust entries into $CODEX_HOME/config.toml,
  through a TOML parser; a file it cannot edit safely (malformed, an inline [hooks] state table) is left
  as it is and the entries to add are shown (exit 1).`;

export async function hooksMain(argv: string[]): Promise<number> {
  const [agentName, event, ...rest] = argv;
  if (agentName === '--help' || agentName === '-h' || event === '--help' || event === '-h') {
    process.stdout.write(`${HOOKS_USAGE}\n`);
    return 0;
  }
  const agent = agentName !== undefined ? AGENTS[agentName] : undefined;
  if (!agent) return usageError(`rawr hooks: unknown agent ${agentName === undefined ? '(none)' : JSON.stringify(agentName)}`);
  if (event === 'install') return installMain(agent.id, rest, HOOKS_USAGE);
  if (event === 'uninstall') return uninstallMain(agent.id, rest, HOOKS_USAGE);
  if (!isHookEvent(event)) return usageError(`rawr hooks ${agent.id}: unknown event ${event === undefined ? '(none)' : JSON.stringify(event)}`);
  return runHookEvent(agent.id, event, await readStdin());
}

/** A hook's input: a JSON object naming its session or its event (what Claude Code and Codex send every hook). */
function isHookInput(text: string): boolean {
  try {
    const o = JSON.parse(text) as unknown;
    if (typeof o !== 'object' || o === null || Array.isArray(o)) return false;
    const { session_id, hook_event_name } = o as Record<string, unknown>;
    return typeof session_id === 'string' || typeof hook_event_name === 'string';
  } catch {
    return false;
  }
}

/**
 * The message and the usage on stderr, and the exit code: 2, as every other usage error of the CLI, unless
 * an agent ran the line as a hook (a hook entry naming an event this rawr does not handle: its input on
 * stdin). Both agents read a hook's exit 2 as "block": a Stop hook's would keep Claude Code from stopping,
 * a UserPromptSubmit's would drop the person's prompt. There it is 1, an error the agent reports and goes past.
 */
async function usageError(message: string): Promise<number> {
  fs.writeSync(2, `${message}\n${HOOKS_USAGE}\n`);
  const code = isHookInput(await readStdin()) ? 1 : 2;
  // A stdin that never ended holds the process open while its read is pending (stdio.ts).
  if (stdinAbandoned()) process.exit(code);
  return code;
}
