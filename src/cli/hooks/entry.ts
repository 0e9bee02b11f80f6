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
import { residentSocket, startResident } from './resident';
import type { serveHooks } from './server';

type EngineModule = HookEngine & { serveHooks: typeof serveHooks };

// A computed path: esbuild leaves these requires alone, so neither bundle is copied into this one.
const beside = (name: string) => path.join(__dirname, name);
const engine = (tag: string) => requireWithCodeCache(beside('hookEngine.js'), path.join(rawrCacheDir(), 'code-cache'), tag) as EngineModule;
const command = readCommand(process.argv.slice(2));
switch (command.kind) {
  case 'hookEvent': {
    const { hookArgs } = command;
    const resident = () => {
      const socket = residentSocket(rawrCacheDir(), beside('hookEngine.js'));
      // The bash client (hook.sh) finds the engine by its folder as the hook command names it (argv, not
      // the real path Node resolves __dirname to).
      const clientDir = path.dirname(path.resolve(process.argv[1] ?? __filename));
      return socket ? { socket, start: () => startResident(__filename, socket, clientDir) } : null;
    };
    void hookProcess(hookArgs, () => engine(hookArgs[1]), resident).then(finishHook);
    break;
  }
  case 'hookServer': {
    // The resident hook engine (server.ts), started by a hook run (resident.ts startResident).
    const e = engine('server');
    const { socket, clientDir } = command;
    // Current while a Node hook would still come to this socket: the same key (Node, engine file, its size
    // and time) names it, so a rebuilt or upgraded rawr, which hooks reach elsewhere, answers "again".
    // Computed from this process's own start, not a run's environment (a run replaces it while it runs).
    const cacheDir = rawrCacheDir();
    const current = () => residentSocket(cacheDir, beside('hookEngine.js'), {}) === socket;
    e.serveHooks(socket, e, clientDir ? { tcp: { cacheDir, clientDir, current } } : {});
    break;
  }
  case 'hooks':
  case 'cli':
    // Install, uninstall, usage and the other commands: the full CLI beside this bundle reads the same
    // command line.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require(beside('cli.js'));
    break;
  default: {
    const never: never = command;
    throw new Error(`unhandled command ${JSON.stringify(never)}`);
  }
}
