/**
 * Code comments explain themselves with pointers into docs/ARCHITECTURE.md (`docs/ARCHITECTURE.md#tiers`),
 * never with documents outside the repository. This fails when a pointer names a section that does not
 * exist (a heading was renamed) or when a comment cites the original design documents again.
 */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(__dirname, '../../..');
const SCANNED = ['src', 'test', 'scripts', 'media', 'prompts'];
const SKIP = new Set(['node_modules', 'out', 'dist', '.vscode-test', 'test-artifacts', 'codicons']);

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else if (/\.(ts|js|mjs|cjs|md|css|sh)$/.test(name)) out.push(p);
  }
  return out;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

describe('docs/ARCHITECTURE.md pointers', () => {
  const doc = readFileSync(join(root, 'docs/ARCHITECTURE.md'), 'utf8');
  const anchors = new Set([...doc.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1]!)));
  const sources = SCANNED.flatMap((d) => files(join(root, d))).filter((f) => !f.endsWith('architecture.links.test.ts'));

  it('slugs headings the way GitHub does', () => {
    assert.equal(slug('The golden path'), 'the-golden-path');
    assert.equal(slug('Where each decision is made'), 'where-each-decision-is-made');
    assert.equal(slug('Settings and prompt files'), 'settings-and-prompt-files');
  });

  it('every docs/ARCHITECTURE.md#anchor in the code names an existing section', () => {
    const broken: string[] = [];
    let pointers = 0;
    for (const f of [...sources, join(root, 'README.md')]) {
      for (const m of readFileSync(f, 'utf8').matchAll(/ARCHITECTURE\.md#([a-z0-9-]+)/g)) {
        pointers++;
        if (!anchors.has(m[1]!)) broken.push(`${relative(root, f)}: #${m[1]}`);
      }
    }
    assert.ok(pointers > 0, 'no pointers found at all: the scan is broken');
    assert.deepEqual(broken, []);
  });

  it('no comment cites the design documents outside the repository', () => {
    const outside = /\bseed 0\d\d\b|\bSEP-\d{3}\b|ARCHITECTURE §|shared\/design/i;
    const hits: string[] = [];
    for (const f of sources) {
      readFileSync(f, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (outside.test(line)) hits.push(`${relative(root, f)}:${i + 1}: ${line.trim()}`);
        });
    }
    assert.deepEqual(hits, []);
  });
});
