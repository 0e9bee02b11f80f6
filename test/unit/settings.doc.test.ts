/** docs/settings.md's reference is generated from package.json; this fails when someone forgets to regenerate it. */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const { withTable, settingsTable, DOC } = require('../../../scripts/settingsTable.cjs') as {
  withTable: (doc: string, pkg: unknown) => string;
  settingsTable: (pkg: unknown) => string;
  DOC: string;
};

describe('settings reference (docs/settings.md)', () => {
  const root = resolve(__dirname, '../../..');
  const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as {
    contributes: { configuration: Array<{ title: string; properties: Record<string, unknown> }> };
  };
  const doc = readFileSync(resolve(root, DOC), 'utf8');

  it('is up to date with package.json (npm run gen-settings-doc)', () => {
    assert.equal(doc, withTable(doc, pkg));
  });
  it('lists every contributed setting under its category', () => {
    const table = settingsTable(pkg);
    for (const g of pkg.contributes.configuration) {
      const section = table.slice(table.indexOf(`### ${g.title}\n`)).split(/\n### /)[0]!;
      for (const [key, p] of Object.entries(g.properties)) {
        const deprecated = Boolean((p as { markdownDeprecationMessage?: string }).markdownDeprecationMessage);
        assert.equal(section.includes(`\`${key}\``), !deprecated, `${key}${deprecated ? ' is deprecated: not listed' : ` under ${g.title}`}`);
      }
    }
  });
  it('a changed description makes the committed reference stale', () => {
    const changed = structuredClone(pkg);
    const first = changed.contributes.configuration[0]!.properties as Record<string, { markdownDescription?: string }>;
    first[Object.keys(first)[0]!]!.markdownDescription = 'something else';
    assert.notEqual(withTable(doc, changed), doc);
  });
});
