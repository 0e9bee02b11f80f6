/**
 * Loads a bundle with a V8 code cache where Node has no compile cache of its own (before 22.1): the
 * hooks' engine (dist/hookEngine.js, 1.4 MB) is compiled on every hook process otherwise. The cache
 * file, under rawr's per-user cache folder, is keyed by the Node version and the bundle's path and
 * content and what the process runs (the hook event), and written at exit (with the functions this run
 * compiled) when there was none or V8 rejected it. Any problem loads the bundle with plain require; Node ≥ 22.1 uses its own cache (hookMain.ts).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as nodeModule from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';

/** Node's Module class with the (long-standing, untyped) helper that gives a module its node_modules search paths. */
type ModuleCtor = typeof nodeModule.Module & { _nodeModulePaths(dir: string): string[] };

/** `tag`: what this process runs (the hook event): each kind of run keeps the functions it compiles in its own cache file. */
export function requireWithCodeCache(file: string, cacheDir: string, tag: string): unknown {
  const Module = nodeModule.Module as ModuleCtor;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  if (typeof (Module as { enableCompileCache?: unknown }).enableCompileCache === 'function' || process.env.NODE_DISABLE_COMPILE_CACHE) return require(file);
  let source: string;
  try {
    source = fs.readFileSync(file, 'utf8');
  } catch {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(file);
  }
  const key = createHash('sha256').update(`${process.version}\0${process.arch}\0${file}\0`).update(source).digest('hex').slice(0, 32);
  const cacheFile = path.join(cacheDir, `${path.basename(file)}-${key}-${tag.replace(/[^A-Za-z0-9]/g, '') || 'run'}.bin`);
  let cachedData: Buffer | undefined;
  try {
    const st = fs.lstatSync(cacheFile);
    if (st.isFile()) cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  let script: vm.Script;
  try {
    script = new vm.Script(Module.wrap(source), { filename: file, ...(cachedData ? { cachedData } : {}) });
  } catch {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(file);
  }
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(path.dirname(file));
  const fn = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
  fn.call(mod.exports, mod.exports, Module.createRequire(file), mod, file, path.dirname(file));
  mod.loaded = true;
  if (!cachedData || script.cachedDataRejected) {
    process.once('exit', () => {
      try {
        fs.mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
        const tmp = `${cacheFile}.${process.pid}.tmp`;
        fs.writeFileSync(tmp, script.createCachedData(), { flag: 'wx' });
        fs.renameSync(tmp, cacheFile);
      } catch {
        /* a cache only */
      }
    });
  }
  return mod.exports;
}
