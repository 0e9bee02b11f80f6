// `npm run package`: minified bundles, then a .vsix with only what .vscodeignore lets through; prints its size.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';

process.env.RAWR_MINIFY = '1';
execFileSync(process.execPath, ['scripts/bundle.mjs'], { stdio: 'inherit' });
execFileSync(process.execPath, ['node_modules/@vscode/vsce/vsce', 'package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '--skip-license', '--out', 'rawr.vsix'], { stdio: 'inherit' });
const kb = (statSync('rawr.vsix').size / 1024).toFixed(0);
console.log(`rawr.vsix: ${kb} KB`);
for (const f of readdirSync('dist')) if (f.endsWith('.js')) console.log(`  dist/${f}: ${(statSync(`dist/${f}`).size / 1024).toFixed(0)} KB`);
