/**
 * Loads a bundle with a V8 code cache where Node has no compile cache of its own (before 22.1; main.ts):
 * the hooks' engine (dist/hookEngine.js, 1.4 MB) is compiled on every hook process otherwise. The cache
 * file, in rawr's per-user cache folder, is keyed by the Node version, the bundle's path, size and mtime
 * and what the process runs (the hook event), and written at exit when there was none or V8 rejected it.
 * Not a hash of the content: that cost ~20 ms per hook, and V8 itself rejects a cache whose source
 * differs (cachedDataRejected: written again). Any problem loads the bundle with plain require.
 */
import * as fs from 'node:fs';
import type * as NodeModule from 'node:module';
import * as path from 'node:path';
import type * as Vm from 'node:vm';
import { fnv1a } from './resident';
import { sayUntrusted } from './main';
import { untrustedCache } from '../../core/io/ownedCache';

/** Node's Module class with the (long-standing, untyped) helper that gives a module its node_modules search paths. */
type ModuleCtor = typeof NodeModule.Module & { _nodeModulePaths(dir: string): string[] };

/** `tag`: what this process runs (the hook event): each kind of run keeps the functions it compiles in its own cache file. */
export function requireWithCodeCache(file: string, cacheDir: string, tag: string): unknown {
  // Loaded here, not with the hooks entry that imports this file: a run the resident engine answers never needs them.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const Module = (require('node:module') as typeof NodeModule).Module as ModuleCtor;
  const vm = require('node:vm') as typeof Vm;
  const plain = () => require(file) as unknown;
  /* eslint-enable @typescript-eslint/no-require-imports */
  if (typeof (Module as { enableCompileCache?: unknown }).enableCompileCache === 'function' || process.env.NODE_DISABLE_COMPILE_CACHE) return plain();
  let source: string;
  let key: string;
  try {
    const st = fs.statSync(file);
    source = fs.readFileSync(file, 'utf8');
    key = fnv1a(`${process.version}\0${process.arch}\0${st.size}\0${st.mtimeMs}`);
  } catch {
    return plain();
  }
  const kind = tag.replace(/[^A-Za-z0-9]/g, '') || 'run';
  // The bundle's path in the name, apart from its build: two installed rawrs keep a cache each.
  const prefix = `${path.basename(file)}-${fnv1a(file)}-`;
  const cacheFile = path.join(cacheDir, `${prefix}${key}-${kind}.bin`);
  let cachedData: Buffer | undefined;
  try {
    const st = fs.lstatSync(cacheFile);
    // V8 runs what the cache holds: only one no other user could have written (issue 30). The cache
    // folder is `<rawr cache>/code-cache`, checked from rawr's folder down.
    const why = st.isFile() ? untrustedCache(path.dirname(cacheDir), cacheFile) : 'not a file';
    if (why === null) cachedData = fs.readFileSync(cacheFile);
    else if (st.isFile()) sayUntrusted(path.dirname(cacheDir), why);
  } catch {
    /* no cache yet */
  }
  let script: Vm.Script;
  try {
    script = new vm.Script(Module.wrap(source), { filename: file, ...(cachedData ? { cachedData } : {}) });
  } catch {
    return plain();
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
        prune(cacheDir, prefix, `-${kind}.bin`, cacheFile);
      } catch {
        /* a cache only */
      }
    });
  }
  return mod.exports;
}

/**
 * Removes the caches of earlier builds of the same bundle for the same kind of run (`keep` replaced
 * them): each rebuild or Node upgrade would otherwise leave ~0.6 MB behind for good.
 */
function prune(dir: string, prefix: string, suffix: string, keep: string): void {
  for (const name of fs.readdirSync(dir)) {
    const full = path.join(dir, name);
    if (full !== keep && name.startsWith(prefix) && name.endsWith(suffix)) fs.rmSync(full, { force: true });
  }
}
