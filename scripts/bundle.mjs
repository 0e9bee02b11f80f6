// Bundles the extension, the core process, the CLI and the search worker with esbuild (one file each,
// `vscode` external), so the .vsix ships a few small files instead of node_modules. dist/hook.js (with dist/hookEngine.js) is what the agent hooks run
// (through the launcher the extension writes; see src/host/hooks/launcher.ts): no clone of rawr needed.
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
await Promise.all([
  build({ ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js' }),
  build({ ...common, entryPoints: ['src/server/main.ts'], outfile: 'dist/server.js' }),
  build({ ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js' }),
  // What the installed hooks run: a small entry (its fast exit loads no engine) and the engine it loads
  // when a hook has something to do (src/cli/hookEntry.ts, hookMain.ts).
  build({ ...common, entryPoints: ['src/cli/hookEntry.ts'], outfile: 'dist/hook.js' }),
  build({ ...common, entryPoints: ['src/cli/hookEngine.ts'], outfile: 'dist/hookEngine.js' }),
  // rawr_search_text's worker thread, loaded from next to dist/extension.js (src/host/tools/textSearch.ts).
  build({ ...common, entryPoints: ['src/host/tools/searchWorker.ts'], outfile: 'dist/searchWorker.js' }),
]);
