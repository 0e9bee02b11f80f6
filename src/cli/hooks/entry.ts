/**
 * dist/hook.js, the command the installed agent hooks run (bundle only: scripts/bundle.mjs). Small: it
 * holds main.ts's fast entry and loads the hook engine (dist/hookEngine.js, bundled from
 * ./engine.ts: one hook event, nothing else) only when there is something to do. Any other command
 * (install, usage) runs the full CLI beside it (dist/cli.js), which reads the same command line.
 */
import * as path from 'node:path';
import { requireWithCodeCache } from './codeCache';
import { readCommand } from './command';
import { finishHook, hookProcess, rawrCacheDir } from './main';
import type { HookEngine } from './types';
import { buildKey, engineLock, residentDoor, startResident } from './resident';
import type { serveHooks } from './server';

type EngineModule = HookEngine & { serveHooks: typeof serveHooks };

// A computed path: esbuild leaves these requires alone, so neither bundle is copied into this one.
const beside = (name: string) => path.join(__dirname, name);
const engine = (tag: string) => requireWithCodeCache(beside('hookEngine.js'), path.join(rawrCacheDir(), 'code-cache'), tag) as EngineModule;
const command = readCommand(process.argv.slice(2));
switch (command.kind) {
  case 'hookEvent': {
    const { hookArgs } = command;
    // hook.sh and this hook find the engine by the folder as the hook command names it (argv, not __dirname's real path).
    const clientDir = path.dirname(path.resolve(process.argv[1] ?? __filename));
    const resident = () => {
      const cacheDir = rawrCacheDir();
      const door = residentDoor(cacheDir, clientDir);
      return door ? { door, start: () => startResident(__filename, clientDir, cacheDir) } : null;
    };
    void hookProcess(hookArgs, () => engine(hookArgs[1]), resident).then(finishHook);
    break;
  }
  case 'hookServer': {
    // The resident hook engine (server.ts): one per build of rawr and client folder (the lock), answering
    // "again" once its code changed on disk (a rebuilt rawr: the hook runs alone and starts the new one).
    // The key is computed from this process's own start, not a run's environment (a run replaces it).
    const { clientDir } = command;
    const cacheDir = rawrCacheDir();
    const key = () => buildKey(beside('hookEngine.js'), clientDir);
    const started = key();
    const unlock = started && residentDoor(cacheDir, clientDir, {}) ? engineLock(path.join(cacheDir, `hooks-${started}.lock`), started) : null;
    if (!unlock) process.exit(0);
    const e = engine('server');
    e.serveHooks(e, {
      door: { cacheDir, clientDir, current: () => key() === started },
      exit: () => {
        unlock();
        process.exit(0);
      },
    });
    break;
  }
  case 'hooks':
  case 'cli':
    // Install, uninstall, usage and the rest: the full CLI beside this bundle reads the same command line.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require(beside('cli.js'));
    break;
  default: {
    const never: never = command;
    throw new Error(`unhandled command ${JSON.stringify(never)}`);
  }
}
