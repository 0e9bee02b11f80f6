// `npm run package`: minified bundles, then a .vsix with only what .vscodeignore lets through; prints its
// size. Fails when vsce warns (a marketplace-ready package has none): its output is checked for WARNING.
// README images stay relative links (--no-rewrite-relative-links): the images it shows inline are in the
// package (.vscodeignore), so its page in VS Code's Extensions view renders from the .vsix itself.
import { spawnSync, execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';

process.env.RAWR_MINIFY = '1';
execFileSync(process.execPath, ['scripts/bundle.mjs'], { stdio: 'inherit' });
const vsce = spawnSync(
  process.execPath,
  ['node_modules/@vscode/vsce/vsce', 'package', '--no-dependencies', '--no-rewrite-relative-links', '--out', 'rawr.vsix'],
  {
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  },
);
process.stdout.write(vsce.stdout);
process.stderr.write(vsce.stderr);
const warnings = `${vsce.stdout}\n${vsce.stderr}`.split('\n').filter((l) => /\bWARNING\b/i.test(l));
if (vsce.status !== 0 || warnings.length) {
  console.error(`package: vsce ${vsce.status !== 0 ? `failed (exit ${vsce.status})` : `warned:\n${warnings.join('\n')}`}`);
  process.exit(1);
}
// The README as the package shows it (Marketplace page, Extensions view): every relative link must be an
// entry of the .vsix (scripts/linkCheck.cjs; e.g. vsce ships LICENSE as LICENSE.txt).
const links = spawnSync(process.execPath, ['scripts/linkCheck.cjs', '--vsix', 'rawr.vsix'], { stdio: 'inherit' });
if (links.status !== 0) {
  console.error('package: a link in the packaged README does not resolve (above)');
  process.exit(1);
}
const kb = (statSync('rawr.vsix').size / 1024).toFixed(0);
console.log(`rawr.vsix: ${kb} KB`);
for (const f of readdirSync('dist')) if (f.endsWith('.js')) console.log(`  dist/${f}: ${(statSync(`dist/${f}`).size / 1024).toFixed(0)} KB`);
// Leave dist/ as `npm run build` does (readable, with source maps): the development copy and its tests
// run from it (the .vsix keeps the minified ones).
delete process.env.RAWR_MINIFY;
execFileSync(process.execPath, ['scripts/bundle.mjs'], { stdio: 'inherit' });
