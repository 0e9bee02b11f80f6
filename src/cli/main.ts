#!/usr/bin/env node
/**
 * The `rawr` command line. Built on the core library only (no vscode), like the core process.
 *   rawr --help | --version
 *   rawr replay FILE [--json] [--format claude|codex|rawr] [--window N] [--post-tokens N] [--prompts DIR]
 *   rawr handoff FILE --line N [--json] [--native] [--format claude|codex|rawr] [--prompts DIR]   (see ./handoffCommand.ts)
 *   rawr hooks <claude|codex> <PreCompact|PostCompact|UserPromptSubmit|SessionStart|PostToolUse|install>   (see ./hooks.ts)
 *
 * This file only dispatches, loading what the command needs: an agent hook runs on every prompt and tool
 * call, so `rawr hooks <agent> <Event>` goes through hookMain.ts's fast entry, which loads the hook engine
 * (./hooks) only when the session's state says there is something to do; the other commands are in
 * ./commands.ts.
 */
import { finishHook, hookProcess, isHookRun } from './hooks/main';
import type { HookEngine } from './hooks/types';

const args = process.argv.slice(2);
const hookArgs = args.slice(1);
if (args[0] === 'hooks' && isHookRun(hookArgs)) {
  // Async (reads the hook input from stdin); never exits 2, which Claude Code reads as "block".
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  void hookProcess(hookArgs, () => require('./hooks/event') as HookEngine).then(finishHook);
} else if (args[0] === 'hooks') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  void (require('./hooks') as typeof import('./hooks')).hooksMain(hookArgs).then((code) => {
    process.exitCode = code;
  });
} else {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  void (require('./commands') as typeof import('./commands')).main(args).then((code) => {
    process.exitCode = code;
  });
}
