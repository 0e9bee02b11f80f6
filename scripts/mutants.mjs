#!/usr/bin/env node
// The mutation check (CONTRIBUTING.md, "Mutation check"): plants known faults in the core and the host one
// at a time and runs the tests that should notice each. A fault no test catches is a claim nobody checks;
// the script lists which tests failed for every fault and exits 1 if any fault went unnoticed.
//
// How: the sources stay untouched. For each fault the file's TypeScript is changed in memory (one exact
// find → replace, which must match exactly once, so a stale fault fails loudly instead of silently testing
// nothing), compiled alone with esbuild over the file tsc wrote in out/, the named test files run in a
// mocha child process, and the original out/ file is put back (also on Ctrl-C). A first run with every
// touched file compiled by esbuild but unchanged proves the swap itself breaks nothing.
//
// Usage: npm run mutants (builds first), or node scripts/mutants.mjs [fault-id ...] after a build.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';
import { FAULTS } from './mutants/faults.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MARK = '// rawr mutation check: planted fault';
const outOf = (src) => path.join(root, 'out', src.replace(/\.ts$/, '.js'));
const testOut = (t) => path.join(root, 'out', 'test', t.replace(/\.ts$/, '.js'));

const wanted = process.argv.slice(2);
const faults = wanted.length ? FAULTS.filter((f) => wanted.includes(f.id)) : FAULTS;
const unknown = wanted.filter((id) => !FAULTS.some((f) => f.id === id));
if (unknown.length) fail(`unknown fault ids: ${unknown.join(', ')} (known: ${FAULTS.map((f) => f.id).join(', ')})`);

// out/ must be the build of the sources as they are (else a fault would be tested against old code).
const files = [...new Set(faults.map((f) => f.file))];
for (const f of files) {
  const out = outOf(f);
  if (!existsSync(out) || statSync(out).mtimeMs < statSync(path.join(root, f)).mtimeMs)
    fail(`${path.relative(root, out)} is older than ${f}: run npm run build first`);
  if (readFileSync(out, 'utf8').includes(MARK)) fail(`${path.relative(root, out)} still holds a planted fault from an interrupted run: run npm run build`);
}
for (const t of new Set(faults.flatMap((f) => f.tests)))
  if (!existsSync(testOut(t))) fail(`test ${t} has no build (out/test/${t.replace(/\.ts$/, '.js')}): run npm run build`);

const originals = new Map(files.map((f) => [f, readFileSync(outOf(f))]));
const restore = () => {
  for (const [f, bytes] of originals) writeFileSync(outOf(f), bytes);
};
for (const sig of ['SIGINT', 'SIGTERM'])
  process.on(sig, () => {
    restore();
    process.exit(130);
  });

const scratch = mkdtempSync(path.join(tmpdir(), 'rawr-mutants-'));

/** Compiles one source file alone, as tsc would for this project (CommonJS, ES2022), with `text` as its content. */
function compile(file, text, tag) {
  const { code } = transformSync(text, { loader: 'ts', format: 'cjs', target: 'es2022', sourcefile: file, sourcemap: 'inline' });
  return tag ? `${MARK} ${tag}\n${code}` : code;
}

/** Runs test files in a mocha child process; the titles of the tests that failed (none: all passed). */
function runTests(tests, label) {
  const report = path.join(scratch, `${label}.json`);
  const r = spawnSync(
    process.execPath,
    [
      path.join(root, 'node_modules/mocha/bin/mocha.js'),
      '--require',
      path.join(root, 'out/test/support/vscode/register.js'),
      '--timeout',
      '60000',
      '--reporter',
      'json',
      '--reporter-option',
      `output=${report}`,
      ...tests.map(testOut),
    ],
    { cwd: root, encoding: 'utf8', env: { ...process.env, RAWR_MUTANT: label }, timeout: 10 * 60_000 },
  );
  if (!existsSync(report)) return { failed: [`(mocha did not finish: exit ${r.status ?? r.signal}) ${r.stderr.slice(-400)}`], ran: 0 };
  const json = JSON.parse(readFileSync(report, 'utf8'));
  const file = (t) => path.relative(path.join(root, 'out/test'), t.file ?? '').replace(/\.js$/, '.ts');
  return { failed: json.failures.map((t) => `${file(t)}: ${t.fullTitle}`), ran: json.stats.tests };
}

let missed = 0;
const started = Date.now();
try {
  // The swap itself: every touched file compiled alone, unchanged, under all the tests named below.
  for (const f of files) writeFileSync(outOf(f), compile(f, readFileSync(path.join(root, f), 'utf8')));
  const allTests = [...new Set(faults.flatMap((f) => f.tests))];
  const base = runTests(allTests, 'baseline');
  if (base.failed.length) fail(`the tests fail without any fault (fix them first):\n  ${base.failed.join('\n  ')}`);
  console.log(`baseline: ${base.ran} tests in ${allTests.length} files pass with the touched files compiled alone (${secs(started)})\n`);

  for (const fault of faults) {
    const t0 = Date.now();
    let text = readFileSync(path.join(root, fault.file), 'utf8');
    const edits = [fault, ...(fault.also ? [fault.also] : [])];
    const stale = edits.find((e) => text.split(e.find).length !== 2);
    if (stale) {
      console.log(`✗ ${fault.id}: ${JSON.stringify(stale.find)} does not occur exactly once in ${fault.file}: update scripts/mutants/faults.mjs`);
      missed++;
      continue;
    }
    for (const e of edits) text = text.replace(e.find, () => e.replace);
    writeFileSync(outOf(fault.file), compile(fault.file, text, fault.id));
    const { failed } = runTests(fault.tests, fault.id);
    writeFileSync(outOf(fault.file), originals.get(fault.file));
    if (failed.length) {
      console.log(`✓ ${fault.id} (${fault.file}) — ${fault.what}: caught by ${failed.length} test(s) (${secs(t0)})`);
      for (const t of failed.slice(0, 4)) console.log(`    ${t}`);
      if (failed.length > 4) console.log(`    … and ${failed.length - 4} more`);
    } else {
      console.log(`✗ ${fault.id} (${fault.file}) — ${fault.what}: NOT caught by ${fault.tests.join(', ')} (${secs(t0)})`);
      missed++;
    }
  }
} finally {
  restore();
  rmSync(scratch, { recursive: true, force: true });
}
console.log(`\n${faults.length - missed}/${faults.length} planted faults caught (${secs(started)})`);
process.exit(missed ? 1 : 0);

function secs(t) {
  return `${((Date.now() - t) / 1000).toFixed(1)} s`;
}

function fail(msg) {
  console.error(`mutants: ${msg}`);
  process.exit(2);
}
