/**
 * What a `rawr` command line asks for, read in one place (issue 32: one dispatch) for both entry points:
 * the CLI (../main.ts: out/ and dist/cli.js) and the installed hooks' small bundle (./entry.ts: dist/hook.js),
 * which differ only in how they load what the command needs. Node built-ins only: the fast exit stays light.
 */
import { isHookEvent, type HookEvent } from '../../core/hooks/shared/events';

/** The resident hook engine's command line (`<entry> --rawr-hook-server <client folder>`). */
export const RESIDENT_FLAG = '--rawr-hook-server';

export type RawrCommand =
  /** `rawr hooks <claude|codex> <Event>`: what the agents run on every prompt and tool call. */
  | { kind: 'hookEvent'; hookArgs: ['claude' | 'codex', HookEvent, ...string[]] }
  /** The resident hook engine, started detached by a hook run (resident.ts startResident). */
  | { kind: 'hookServer'; clientDir: string }
  /** `rawr hooks …` that is not an event: install, uninstall, usage (../hooks.ts hooksMain). */
  | { kind: 'hooks'; hookArgs: string[] }
  /** Everything else: replay, handoff, --help, --version (../commands.ts). */
  | { kind: 'cli'; args: string[] };

export function readCommand(args: readonly string[]): RawrCommand {
  const rest = args.slice(1);
  if (args[0] === 'hooks') return isHookRun(rest) ? { kind: 'hookEvent', hookArgs: rest } : { kind: 'hooks', hookArgs: rest };
  if (args[0] === RESIDENT_FLAG && args[1]) return { kind: 'hookServer', clientDir: args[1] };
  return { kind: 'cli', args: [...args] };
}

/** `rawr hooks <claude|codex> <Event>`, what the agents run (`argv`: what follows `hooks`); anything else (install, --help, a usage error) is the CLI's. */
export function isHookRun(argv: readonly string[]): argv is ['claude' | 'codex', HookEvent, ...string[]] {
  return (argv[0] === 'claude' || argv[0] === 'codex') && isHookEvent(argv[1]);
}
