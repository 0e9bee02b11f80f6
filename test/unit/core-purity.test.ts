/** src/core must never import vscode: it is what the core process, the CLI and these tests run on. */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('core purity', () => {
  const root = resolve(__dirname, '../../../src/core');
  it('no file under src/core imports or requires vscode', () => {
    const all = files(root);
    assert.ok(all.length > 15, `expected the core's files under ${root}`);
    const offenders = all.filter((f) =>
      /(?:from\s+['"]vscode['"]|require\(\s*['"]vscode['"]\s*\)|import\(\s*['"]vscode['"]\s*\))/.test(readFileSync(f, 'utf8')),
    );
    assert.deepEqual(offenders, []);
  });
  it('the compiled core loads in plain Node without vscode', () => {
    // Would throw "Cannot find module 'vscode'" if anything in the graph pulled it in.
    require('../../src/core/engine/step');
    require('../../src/core/replay/driver');
    require('../../src/cli/replay/replayCommand');
  });
});
