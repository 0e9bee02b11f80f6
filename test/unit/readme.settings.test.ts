/** The README's settings table is generated from package.json; this fails when someone forgets to regenerate it. */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const { withTable, settingsTable } = require('../../../scripts/settingsTable.cjs') as {
  withTable: (readme: string, pkg: unknown) => string;
  settingsTable: (pkg: unknown) => string;
};

describe('README settings table', () => {
  const root = resolve(__dirname, '../../..');
  const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as {
    contributes: { configuration: Array<{ properties: Record<string, unknown> }> };
  };
  const readme = readFileSync(resolve(root, 'README.md'), 'utf8');

  it('is up to date with package.json (npm run gen-readme)', () => {
    assert.equal(readme, withTable(readme, pkg));
  });
  it('lists every contributed setting', () => {
    const table = settingsTable(pkg);
    for (const g of pkg.contributes.configuration) {
      for (const [key, p] of Object.entries(g.properties)) {
        const deprecated = Boolean((p as { markdownDeprecationMessage?: string }).markdownDeprecationMessage);
        assert.equal(table.includes(`\`${key}\``), !deprecated, `${key}${deprecated ? ' is deprecated: not listed' : ''}`);
      }
    }
  });
});
