#!/usr/bin/env node
// What `npm start` and `npm test` need before anything else, on a fresh clone (issue 18): the locked
// dependencies (`npm ci`, only when node_modules/ lacks them) and the build (tsc + bundle). Node
// built-ins only: this runs before node_modules exists. `npm test` runs it as its `pretest`;
// scripts/start.mjs calls ensureDependencies() itself (it can skip the build with --no-build).
//
//   node scripts/setup.mjs            # dependencies if missing, then build
//   node scripts/setup.mjs --no-build # dependencies only
import fs from 'node:fs';
import path from 'node:path';
import cp from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const secs = (t) => ((Date.now() - t) / 1000).toFixed(1) + 's';

/** Runs a command with its output passed through; exits the process when it fails. */
export function run(cmd, args, what, log = (m) => console.log(`[rawr setup] ${m}`)) {
  const t = Date.now();
  const r = cp.spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`\n[rawr setup] ${what} failed (exit ${r.status ?? r.signal}).`);
    process.exit(1);
  }
  log(`${what}: ${secs(t)}`);
}

/** Whether the locked dependencies are there: the packages the build and the tests start with. */
function dependenciesInstalled() {
  return ['typescript/bin/tsc', 'openai/package.json', 'mocha/bin/mocha.js', 'playwright-core/package.json'].every((f) =>
    fs.existsSync(path.join(ROOT, 'node_modules', f)),
  );
}

/** `npm ci` when node_modules/ lacks the dependencies (a fresh clone); nothing otherwise. */
export function ensureDependencies(log) {
  if (dependenciesInstalled()) return;
  (log ?? console.log)('[rawr setup] installing the locked dependencies (npm ci) ...');
  // The npm that runs us (npm_execpath) when there is one, so `npm test` and `npm start` use the same npm.
  const npm = process.env.npm_execpath && /\.c?js$/.test(process.env.npm_execpath) ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
  run(npm[0], [...npm[1], 'ci', '--no-audit', '--no-fund'], 'npm ci', log);
}

/** tsc + the extension bundle, as `npm run build`. */
export function build(log) {
  run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', ROOT], 'tsc', log);
  run(process.execPath, [path.join(ROOT, 'scripts/bundle.mjs')], 'bundle', log);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  ensureDependencies();
  if (!process.argv.includes('--no-build')) build();
}
