// Bundles the extension, the core process, the CLI and the search worker with esbuild (one file each,
// `vscode` external), so the .vsix ships a few small files instead of node_modules. dist/hook.js (with dist/hookEngine.js) is what the agent hooks run
// (through the launcher the extension writes; see src/host/hooks/launcher.ts): no clone of rawr needed.
import { chmodSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

// RAWR_MINIFY=1 (npm run package): minified, no source maps; otherwise readable with maps for debugging.
const minify = process.env.RAWR_MINIFY === '1';
// jsonc-parser's "main" is a UMD build whose requires esbuild cannot follow (dist/cli.js would fail with
// "Cannot find module './impl/format'"): its ES module build is bundled instead.
const alias = { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' };
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !minify,
  minify,
  logLevel: 'warning',
  external: ['vscode'],
  alias,
};
const outputs = [
  build({ ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js' }),
  build({ ...common, entryPoints: ['src/server/main.ts'], outfile: 'dist/server.js' }),
  build({ ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js' }),
  // What the installed hooks run: a small entry (its fast exit loads no engine) and the engine it loads
  // when a hook has something to do (src/cli/hooks/entry.ts, main.ts).
  build({ ...common, entryPoints: ['src/cli/hooks/entry.ts'], outfile: 'dist/hook.js' }),
  build({ ...common, entryPoints: ['src/cli/hooks/engine.ts'], outfile: 'dist/hookEngine.js' }),
  // rawr_search_text's worker thread, loaded from next to dist/extension.js (src/host/tools/textSearch.ts).
  build({ ...common, entryPoints: ['src/host/tools/searchWorker.ts'], outfile: 'dist/searchWorker.js' }),
];
await Promise.all(outputs);
for (const file of ['dist/hook.js', 'dist/hookEngine.js']) unwrapBuiltins(file);
// Node looks up the nearest package.json of every CommonJS entry it runs to read its "type": without this
// one it is rawr's own manifest (37 KB, read and parsed by each hook process, ~2 ms of a PreCompact hook).
writeFileSync('dist/package.json', '{ "type": "commonjs" }\n');
// The bash hook client the installed hook commands run where bash is (src/cli/hooks/hook.sh: why there).
copyFileSync('src/cli/hooks/hook.sh', 'dist/hook.sh');
chmodSync('dist/hook.sh', 0o755);

/**
 * `import * as fs from 'node:fs'` becomes `__toESM(require("node:fs"))` in a CommonJS bundle: a copy of
 * the module's every property as a getter, once per importing file. In the hook bundles, which Claude Code
 * starts before every model request while rawr defers a compaction, that was ~2.5 ms of each process
 * (measured on this project's machine). A namespace import only reads the module's own properties, so
 * the module itself serves: the call is replaced by the bare require, padded to the same length so the
 * source map's columns still hold. A default import (`name.default`) needs the wrapper and keeps it.
 */
function unwrapBuiltins(file) {
  const text = readFileSync(file, 'utf8');
  const out = text.replace(/\b([\w$]+) = __toESM\((require\("node:[\w/]+"\))\)/g, (whole, name, req) =>
    text.includes(`${name}.default`) ? whole : `${name} = ${' '.repeat(whole.length - name.length - 3 - req.length)}${req}`,
  );
  if (out !== text) writeFileSync(file, out);
}
