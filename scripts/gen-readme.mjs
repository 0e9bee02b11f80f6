// Rewrites the settings table in README.md from package.json (see scripts/settingsTable.cjs).
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { withTable } = require('./settingsTable.cjs');
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const before = readFileSync('README.md', 'utf8');
const after = withTable(before, pkg);
if (process.argv.includes('--check')) {
  if (after !== before) {
    console.error('README.md settings table is stale: run `npm run gen-readme`');
    process.exit(1);
  }
} else writeFileSync('README.md', after);
