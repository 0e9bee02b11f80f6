#!/usr/bin/env node
// `npm test`: every tier in order — unit + property (mocha), then the real-VS-Code suites when the
// harness is installed — printing how long each tier took. Fails if any tier fails.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tiers = [
  { name: 'unit + property', cmd: process.execPath, args: [join(root, 'node_modules/mocha/bin/mocha.js'), '--config', 'test/.mocharc.json'] },
];
const vscodeRunner = join(root, 'test/vscode/run.mjs');
if (existsSync(vscodeRunner)) {
  tiers.push({ name: 'real VS Code (extension host + e2e)', cmd: process.execPath, args: [vscodeRunner] });
}

const results = [];
for (const tier of tiers) {
  const t0 = Date.now();
  console.log(`\n=== tier: ${tier.name}`);
  const r = spawnSync(tier.cmd, tier.args, { cwd: root, stdio: 'inherit' });
  const seconds = ((Date.now() - t0) / 1000).toFixed(1);
  results.push({ name: tier.name, ok: r.status === 0, seconds, status: r.status });
}
console.log('\n=== tier timings');
for (const r of results) console.log(`${r.ok ? 'PASS' : 'FAIL'}  ${r.name}: ${r.seconds}s${r.ok ? '' : ` (exit ${r.status})`}`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
