#!/usr/bin/env node
// Writes package.json `contributes.configuration` from the core settings schema (the Settings UI can then
// never drift from what the core validates). Run after `npx tsc -p .`: it reads the compiled
// out/src/host/configSchema.js. Only rawr's own object (id "rawr") in the configuration array is
// replaced or appended; other objects (e.g. the rawr.openai.* one) and every other key of package.json
// are left as they are.
//
//   node scripts/gen-config.mjs           write package.json
//   node scripts/gen-config.mjs --check   exit 1 if package.json is not up to date (writes nothing)
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const compiled = path.join(ROOT, 'out/src/host/configSchema.js');
if (!fs.existsSync(compiled)) {
  console.error(`gen-config: ${path.relative(ROOT, compiled)} is missing: run \`npx tsc -p .\` first.`);
  process.exit(2);
}
const { withRawrConfiguration } = require(compiled);
const { languageModelToolsContribution } = require(path.join(ROOT, 'out/src/host/tools/catalog.js'));

const file = path.join(ROOT, 'package.json');
const text = fs.readFileSync(file, 'utf8');
const pkg = JSON.parse(text);
pkg.contributes ??= {};
pkg.contributes.configuration = withRawrConfiguration(pkg.contributes.configuration);
// rawr's agent tools (src/host/tools/catalog.ts): declared here, registered by the extension at activation.
pkg.contributes.languageModelTools = languageModelToolsContribution();
const indent = /^\{\r?\n([ \t]+)"/.exec(text)?.[1] ?? '  ';
const out = JSON.stringify(pkg, null, indent) + '\n';

if (process.argv.includes('--check')) {
  if (out !== text) {
    console.error('gen-config: package.json contributes.configuration is out of date: run `npm run gen-config`.');
    process.exit(1);
  }
  console.log('gen-config: package.json is up to date.');
} else if (out === text) {
  console.log('gen-config: package.json already up to date.');
} else {
  fs.writeFileSync(file, out);
  const props = Object.keys(pkg.contributes.configuration.find((o) => o.id === 'rawr').properties);
  console.log(`gen-config: wrote ${props.length} rawr.* settings to package.json contributes.configuration.`);
}
