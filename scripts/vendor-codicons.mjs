// Copies VS Code's codicon font (@vscode/codicons, pinned below) into media/codicons/ for the compaction
// panel's webview, whose only local resource root is media/. The copied files are committed (about
// 160 KB), so neither the build nor the .vsix (which ships only dist, prompts and media) needs the
// package: run this only to update the pinned version. It fetches the tarball with `npm pack` (the
// ordinary npm client and registry) into a temporary folder; nothing is added to package.json.
//
//   node scripts/vendor-codicons.mjs
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const VERSION = '0.0.45';
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'media', 'codicons');

const tmp = mkdtempSync(join(tmpdir(), 'rawr-codicons-'));
try {
  execFileSync('npm', ['pack', `@vscode/codicons@${VERSION}`, '--silent'], { cwd: tmp, stdio: ['ignore', 'pipe', 'inherit'] });
  const tgz = readdirSync(tmp).find((n) => n.endsWith('.tgz'));
  if (!tgz) throw new Error('npm pack produced no tarball');
  execFileSync('tar', ['xzf', tgz], { cwd: tmp });
  mkdirSync(OUT, { recursive: true });
  for (const [from, to] of [
    ['package/dist/codicon.css', 'codicon.css'],
    ['package/dist/codicon.ttf', 'codicon.ttf'],
    ['package/LICENSE', 'LICENSE'],
  ]) {
    copyFileSync(join(tmp, from), join(OUT, to));
  }
  console.log(`@vscode/codicons ${VERSION} → ${OUT}`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
