#!/usr/bin/env node
/**
 * The `rawr` command line. Built on the core library only (no vscode), like the core process.
 *   rawr --help | --version
 *   rawr replay FILE [--json] [--format claude|codex|rawr] [--window N] [--post-tokens N] [--prompts DIR]
 *   rawr handoff FILE --line N [--json] [--native] [--format claude|codex|rawr] [--prompts DIR]   (see ./handoffCommand.ts)
 *   rawr hooks <claude|codex> <PreCompact|PostCompact|UserPromptSubmit|SessionStart|PostToolUse|install>   (see ./hooks.ts)
 *
 * This file only dispatches (the command line is read by ./hooks/command.ts, as dist/hook.js reads it), loading what the command needs: an agent hook runs on every prompt and tool
 * call, so `rawr hooks <agent> <Event>` goes through hookMain.ts's fast entry, which loads the hook engine
 * (./hooks) only when the session's state says there is something to do; the other commands are in
 * ./commands.ts.
 */
import { readCommand } from './hooks/command';
import { finishHook, hookProcess } from './hooks/main';
import type { HookEngine } from './hooks/types';

// Loaded on demand: a hook event must not pay for the replay commands, nor a replay for the hook engine.
/* eslint-disable @typescript-eslint/no-require-imports */
const command = readCommand(process.argv.slice(2));
const exitWith = (code: number) => {
  process.exitCode = code;
};
switch (command.kind) {
  case 'hookEvent':
    // Async (reads the hook input from stdin); never exits 2, which Claude Code reads as "block".
    void hookProcess(command.hookArgs, () => require('./hooks/event') as HookEngine).then(finishHook);
    break;
  case 'hookServer':
    // Only the installed hooks' bundle starts the resident engine (entry.ts, beside dist/hookEngine.js).
    process.stderr.write('rawr: the resident hook engine runs from dist/hook.js, not from this command\n');
    exitWith(2);
    break;
  case 'hooks':
    void (require('./hooks') as typeof import('./hooks')).hooksMain(command.hookArgs).then(exitWith);
    break;
  case 'cli':
    void (require('./commands') as typeof import('./commands')).main(command.args).then(exitWith);
    break;
  default: {
    const never: never = command;
    throw new Error(`unhandled command ${JSON.stringify(never)}`);
  }
}
