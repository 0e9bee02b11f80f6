/**
 * `rawr hooks <claude|codex> <PreCompact|PostCompact|UserPromptSubmit|SessionStart|install>`:
 * compaction detection for Claude Code and Codex sessions through their command hooks (see
 * docs/ARCHITECTURE.md#claude-code-and-codex-hooks).
 *
 * Exit codes: a hook event always exits 0 (a problem is one line on stderr, nothing on stdout); a usage
 * error exits 1, never 2, because the agents treat exit 2 from a hook as "block".
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isHookEvent } from '../core/hooks/shared/input';
import { readStdin } from './hooks/stdio';
import { hookCommandPrefix } from './hookCommand';
import { installClaude, installCodex } from '../core/hooks/shared/installer';
import { AGENTS, runHookEvent } from './hooks/event';

export const HOOKS_USAGE = `usage: rawr hooks <claude|codex> <PreCompact|PostCompact|UserPromptSubmit|SessionStart|PostToolUse>   (hook input JSON on stdin)
       rawr hooks claude install [--write [--move]] [--no-steer] [--window N] [--follow-symlinks]
       rawr hooks codex install [--write [--trust]] [--follow-symlinks]
  Compaction detection for Claude Code and Codex: PreCompact snapshots the session to
  .rawr/<agent>/<session>/; once the compaction is confirmed (PostCompact, SessionStart after a
  compaction, or the compaction record in the transcript) the next SessionStart or UserPromptSubmit
  injects the CONTEXT COMPACTION DETECTED warning with the recovery steps and the snapshot, exactly once.
  A PreCompact whose compaction never happened (failed or abandoned) injects nothing. After a compaction,
  the repair of the agent's own summary (what it lost of rawr's trail) is injected once by the next hook
  the model reads (PostToolUse, UserPromptSubmit, SessionStart); PostToolUse also carries the golden
  path's heads-up, and exits at once when nothing is pending.
  install prints the hook configuration; --write merges it into ./.claude/settings.local.json (Claude
  Code: personal, not committed) or $CODEX_HOME/hooks.json (Codex), editing the file's text: every other
  setting and hook keeps its text as written, the file keeps its mode, and the previous version is kept
  as <file>.rawr-backup. A symlinked file is refused unless --follow-symlinks; a read-only file is
  refused (exit 1). Claude Code: rawr steers its automatic compaction to phase boundaries
  (autoCompactWindow at rawr's early line for a --window N model, default the settings' model or 1M;
  PreCompact refuses until a boundary); --no-steer leaves Claude Code's own threshold. --move moves
  rawr's hooks an earlier rawr wrote into the shared ./.claude/settings.json.
  Codex skips untrusted hooks silently: --trust writes their trust entries into $CODEX_HOME/config.toml,
  through a TOML parser; a file it cannot edit safely (malformed, an inline [hooks] state table) is left
  as it is and the entries to add are shown (exit 1).`;

/**
 * The command the agent runs: this Node binary and this CLI by absolute path (out/src/cli/main.js of a
 * checkout, or the bundled hooks entry beside dist/cli.js, through its bash client: hookCommand.ts). Chosen over `npx --no-install rawr …` because
 * rawr is not a dependency of the projects it watches, and npx adds start-up time to every prompt.
 * Re-run install after moving rawr or upgrading Node; the extension's commands use a stable launcher.
 */
function commandPrefix(): string {
  const script = require.main?.filename ?? path.resolve(__dirname, 'main.js');
  // The bundled CLI installs its small hooks entry beside it (dist/hook.js, hookEntry.ts) when there is one.
  const hook = path.join(path.dirname(script), 'hook.js');
  const entry = path.basename(script) === 'cli.js' && fs.existsSync(hook) ? hook : script;
  return hookCommandPrefix(entry);
}

async function install(agent: string, args: string[]): Promise<number> {
  const allowed = agent === 'codex' ? ['--write', '--trust', '--follow-symlinks'] : ['--write', '--follow-symlinks', '--no-steer', '--move', '--window'];
  const windowAt = agent === 'claude' ? args.indexOf('--window') : -1;
  const windowArg = windowAt >= 0 ? args[windowAt + 1] : undefined;
  if (windowAt >= 0 && !(windowArg !== undefined && /^\d+$/.test(windowArg) && Number(windowArg) >= 50_000 && Number(windowArg) <= 100_000_000)) {
    process.stderr.write(`rawr hooks claude install: --window needs a number of tokens (50000 to 100000000), got ${windowArg ?? 'nothing'}\n`);
    return 1;
  }
  const unknown = args.filter((a, i) => !allowed.includes(a) && !(windowAt >= 0 && i === windowAt + 1));
  if (unknown.length) {
    process.stderr.write(`rawr hooks ${agent} install: unknown argument ${unknown[0]}\n${HOOKS_USAGE}\n`);
    return 1;
  }
  const write = args.includes('--write');
  const followSymlinks = args.includes('--follow-symlinks');
  if (args.includes('--trust') && !write) {
    process.stderr.write('rawr hooks codex install: --trust needs --write (the trust entries name hooks.json positions)\n');
    return 1;
  }
  const r =
    agent === 'codex'
      ? await installCodex({
          codexHome: process.env.CODEX_HOME ? path.resolve(process.env.CODEX_HOME) : path.join(os.homedir(), '.codex'),
          commandPrefix: commandPrefix(),
          write,
          trust: args.includes('--trust'),
          followSymlinks,
        })
      : await installClaude({
          projectDir: process.cwd(),
          commandPrefix: commandPrefix(),
          write,
          followSymlinks,
          steer: !args.includes('--no-steer'),
          move: args.includes('--move'),
          home: os.homedir(),
          ...(windowArg !== undefined ? { window: Number(windowArg) } : {}),
        });
  (r.ok ? process.stdout : process.stderr).write(`${r.lines.join('\n')}\n`);
  return r.ok ? 0 : 1;
}

export async function hooksMain(argv: string[]): Promise<number> {
  const [agentName, event, ...rest] = argv;
  if (agentName === '--help' || agentName === '-h' || event === '--help' || event === '-h') {
    process.stdout.write(`${HOOKS_USAGE}\n`);
    return 0;
  }
  const agent = agentName !== undefined ? AGENTS[agentName] : undefined;
  if (!agent) {
    process.stderr.write(`rawr hooks: unknown agent ${agentName === undefined ? '(none)' : JSON.stringify(agentName)}\n${HOOKS_USAGE}\n`);
    return 1;
  }
  if (event === 'install') return install(agent.id, rest);
  if (!isHookEvent(event)) {
    process.stderr.write(`rawr hooks ${agent.id}: unknown event ${event === undefined ? '(none)' : JSON.stringify(event)}\n${HOOKS_USAGE}\n`);
    return 1;
  }
  return runHookEvent(agent.id, event, await readStdin());
}
