// Bundles the extension and the core process with esbuild (one file each, `vscode` external), so the
// .vsix ships two small files instead of node_modules.
import { build } from 'esbuild';

// RAWR_MINIFY=1 (npm run package): minified, no source maps; otherwise readable with maps for debugging.
const minify = process.env.RAWR_MINIFY === '1';
const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', sourcemap: !minify, minify, logLevel: 'warning', external: ['vscode'] };
await Promise.all([
  build({ ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js' }),
  build({ ...common, entryPoints: ['src/server/main.ts'], outfile: 'dist/server.js' }),
]);
