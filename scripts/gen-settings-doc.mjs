// Rewrites the settings reference in docs/settings.md from package.json (see scripts/settingsTable.cjs).
//   node scripts/gen-settings-doc.mjs           write docs/settings.md
//   node scripts/gen-settings-doc.mjs --check   exit 1 if docs/settings.md is stale (writes nothing)
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { withTable, DOC } = require('./settingsTable.cjs');
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const before = readFileSync(DOC, 'utf8');
const after = withTable(before, pkg);
if (process.argv.includes('--check')) {
  if (after !== before) {
    console.error(`${DOC}: the settings reference is stale: run \`npm run gen-settings-doc\``);
    process.exit(1);
  }
} else writeFileSync(DOC, after);
