/**
 * dist/hook.js, the command the installed agent hooks run (bundle only: scripts/bundle.mjs). Small: it
 * holds hookMain.ts's fast entry and loads the hook engine (dist/hookEngine.js, bundled from
 * ./hookEngine.ts: one hook event, nothing else) only when there is something to do. Any other command
 * (install, usage) runs the full CLI beside it (dist/cli.js), which reads the same command line.
 */
import * as path from 'node:path';
import { requireWithCodeCache } from './codeCache';
import { hookProcess, isHookRun, rawrCacheDir, type HookEngine } from './hookMain';

const args = process.argv.slice(2);
const hookArgs = args.slice(1);
// A computed path: esbuild leaves these requires alone, so neither bundle is copied into this one.
const beside = (name: string) => path.join(__dirname, name);
if (args[0] === 'hooks' && isHookRun(hookArgs)) {
  void hookProcess(hookArgs, () => requireWithCodeCache(beside('hookEngine.js'), path.join(rawrCacheDir(), 'code-cache'), hookArgs[1]) as HookEngine).then(
    (code) => {
      process.exitCode = code;
    },
  );
} else {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require(beside('cli.js'));
}
