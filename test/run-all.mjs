#!/usr/bin/env node
// `npm test`: the set-up (installers, below), then every tier in order — format, lint, types, unit + property +
// fuzz (mocha; test/.mocharc.json), the real agents, the real-VS-Code suites and the README smoke test —
// printing how long each tier took. Fails if any tier fails.
// A failed tier's failures are printed again at the very end: CI logs are often read from the tail,
// and the VS Code tier's long log would otherwise bury what the unit tier reported.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// `npm test` sets up everything it needs on a fresh clone, like `npm start` (issue 18): the dependencies
// and the build come first (its `pretest`, scripts/setup.mjs); here the test VS Code (code-server +
// Chromium) and the pinned agent CLIs — each installer is idempotent and cached (.vscode-test/,
// .claude-test/, .codex-test/), so a warm run spends about a second on them.
const setup = [
  { name: 'test VS Code (test/vscode/install.sh)', cmd: 'bash', args: [join(root, 'test/vscode/install.sh')] },
  { name: 'agent CLIs (test/agents/install.sh)', cmd: 'bash', args: [join(root, 'test/agents/install.sh')] },
];
const tiers = [
  // Formatting first (prettier --check with .prettierrc.json; `npm run format` fixes it).
  { name: 'format (prettier --check)', cmd: process.execPath, args: [join(root, 'node_modules/prettier/bin/prettier.cjs'), '--check', '.'] },
  { name: 'lint (eslint)', cmd: process.execPath, args: [join(root, 'node_modules/eslint/bin/eslint.js'), '.'] },
  // tsc checks the plain JavaScript it does not compile: the webview script and the real-VS-Code suites.
  { name: 'types: media/panel.js', cmd: process.execPath, args: [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.checkjs.json'] },
  { name: 'types: VS Code suites', cmd: process.execPath, args: [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'test/vscode/tsconfig.json'] },
  { name: 'unit + property + fuzz', cmd: process.execPath, args: [join(root, 'node_modules/mocha/bin/mocha.js'), '--config', 'test/.mocharc.json'] },
];
// The real agent CLIs (Claude Code, Codex; installed by test/agents/install.sh into .claude-test/ and
// .codex-test/) with rawr's hooks, against the project's scripted model servers. A missing install
// fails the tier in CI and is reported as skipped elsewhere (test/agents/support.ts).
tiers.push({
  name: 'real agents (Claude Code + Codex hooks)',
  cmd: process.execPath,
  args: [join(root, 'node_modules/mocha/bin/mocha.js'), '--config', 'test/agents/.mocharc.json'],
});
tiers.push({ name: 'real VS Code (extension host + e2e)', cmd: process.execPath, args: [join(root, 'test/vscode/run.mjs')] });
// The README itself: `npm start`, the printed URL in Chromium, the README's prompt as the first message of
// a fresh window, the golden path to "All done", then SIGINT and SIGTERM to npm's pid.
tiers.push({ name: 'README smoke (npm start, first message, clean stop)', cmd: process.execPath, args: [join(root, 'test/smoke/readme.mjs')] });

/** Runs a tier with its output passed through, and keeps that output for the recap. */
function run(tier) {
  return new Promise((resolve) => {
    const child = spawn(tier.cmd, tier.args, { cwd: root, stdio: ['inherit', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b) => {
      process.stdout.write(b);
      out += b;
    });
    child.stderr.on('data', (b) => {
      process.stderr.write(b);
      out += b;
    });
    child.on('error', (e) => {
      out += `\ncould not start: ${e.message}\n`;
      resolve({ status: null, out });
    });
    child.on('close', (status, signal) => resolve({ status: status ?? (signal ? `signal ${signal}` : null), out }));
  });
}

/** What a failed tier said about its failures: mocha's "N failing" section, else the last lines. */
function recap(out) {
  const lines = out.split('\n');
  let from = -1;
  for (let i = lines.length - 1; i >= 0; i--)
    if (/^\s*\d+ failing\b/.test(lines[i])) {
      from = i;
      break;
    }
  const picked = from >= 0 ? lines.slice(from) : lines.slice(-60);
  return picked.slice(0, 200).join('\n');
}

const setupT0 = Date.now();
for (const step of setup) {
  console.log(`\n=== setup: ${step.name}`);
  const r = await run(step);
  if (r.status !== 0) {
    console.log(`\n=== setup failed: ${step.name} (exit ${r.status}); no tier can run without it`);
    process.exit(1);
  }
}
console.log(`\n=== setup took ${((Date.now() - setupT0) / 1000).toFixed(1)}s`);

const results = [];
for (const tier of tiers) {
  const t0 = Date.now();
  console.log(`\n=== tier: ${tier.name}`);
  const r = await run(tier);
  const seconds = ((Date.now() - t0) / 1000).toFixed(1);
  results.push({ name: tier.name, ok: r.status === 0, seconds, status: r.status, out: r.out });
}
for (const r of results.filter((x) => !x.ok)) {
  console.log(`\n=== what failed in tier "${r.name}" (repeated from its output above)`);
  console.log(recap(r.out));
}
console.log('\n=== tier timings');
for (const r of results) console.log(`${r.ok ? 'PASS' : 'FAIL'}  ${r.name}: ${r.seconds}s${r.ok ? '' : ` (exit ${r.status})`}`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
