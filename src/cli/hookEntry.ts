/**
 * dist/hook.js, the command the installed agent hooks run (bundle only: scripts/bundle.mjs). Small: it
 * holds hookMain.ts's fast entry and loads the hook engine (dist/hookEngine.js, bundled from
 * ./hookEngine.ts: one hook event, nothing else) only when there is something to do. Any other command
 * (install, usage) runs the full CLI beside it (dist/cli.js), which reads the same command line.
 */
import * as path from 'node:path';
import { requireWithCodeCache } from './codeCache';
import { finishHook, hookProcess, isHookRun, rawrCacheDir, type HookEngine } from './hookMain';
import { RESIDENT_FLAG, residentSocket, startResident } from './hookResident';
import type { serveHooks } from './hookServer';

type EngineModule = HookEngine & { serveHooks: typeof serveHooks };

const args = process.argv.slice(2);
const hookArgs = args.slice(1);
// A computed path: esbuild leaves these requires alone, so neither bundle is copied into this one.
const beside = (name: string) => path.join(__dirname, name);
const engine = (tag: string) => requireWithCodeCache(beside('hookEngine.js'), path.join(rawrCacheDir(), 'code-cache'), tag) as EngineModule;
if (args[0] === 'hooks' && isHookRun(hookArgs)) {
  const resident = () => {
    const socket = residentSocket(rawrCacheDir(), beside('hookEngine.js'));
    return socket ? { socket, start: () => startResident(__filename, socket) } : null;
  };
  void hookProcess(hookArgs, () => engine(hookArgs[1]), resident).then(finishHook);
} else if (args[0] === RESIDENT_FLAG && args[1]) {
  // The resident hook engine (hookServer.ts), started by a hook run (hookResident.ts startResident).
  const e = engine('server');
  e.serveHooks(args[1], e);
} else {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require(beside('cli.js'));
}
