/**
 * Tests that read the shared recordings (../shared/data/transcripts, or RAWR_TRANSCRIPTS) never skip
 * silently: in CI (env CI set, or RAWR_REQUIRE_SHARED=1 as .ci/run sets it) a missing data folder is a
 * failure; locally such tests are skipped and the run ends with one line saying how many and for which folder.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const TRANSCRIPTS_DIR = process.env.RAWR_TRANSCRIPTS ?? path.resolve(__dirname, '../../../../shared/data/transcripts');

/** True when shared data must be present (CI). */
export const sharedRequired = (): boolean => !!process.env.CI || process.env.RAWR_REQUIRE_SHARED === '1';

const skipped = new Map<string, number>();

/**
 * Call first in a test or a `before` hook that needs `file` (a shared data file or folder): present →
 * nothing; missing → a failure in CI, else a counted skip (of the whole suite when called in a hook).
 */
export function needShared(ctx: Mocha.Context, file: string = TRANSCRIPTS_DIR): void {
  if (fs.existsSync(file)) return;
  // A file in a missing folder: name the folder (one line for all of them).
  const missing = path.extname(file) && !fs.existsSync(path.dirname(file)) ? path.dirname(file) : file;
  const why = `shared test data missing: ${missing}`;
  if (sharedRequired()) throw new Error(`${why} (required here: CI or RAWR_REQUIRE_SHARED=1; set RAWR_TRANSCRIPTS or provide ../shared)`);
  const runnable = ctx.test;
  const count = runnable && (runnable as { type?: string }).type === 'hook' ? (runnable.parent?.total() ?? 1) : 1;
  skipped.set(why, (skipped.get(why) ?? 0) + count);
  ctx.skip();
}

/**
 * The names in a shared folder that `keep` accepts, sorted — never none: a loop over an empty list asserts
 * nothing and would pass (the folders grow and shrink; how many they hold is never hard-coded).
 */
export function sharedFiles(dir: string, keep: (name: string) => boolean): string[] {
  return nonEmpty(fs.readdirSync(dir).filter(keep).sort(), `no matching file in ${dir}`);
}

/** `list`, or a failure saying what it lacks: for loops whose list is derived from a shared folder. */
export function nonEmpty<T>(list: T[], what: string): T[] {
  if (list.length === 0) throw new Error(`${what}: a loop over nothing would pass without asserting`);
  return list;
}

// One summary line at the end of the run: how many tests were skipped and for which missing folder each.
process.on('exit', () => {
  if (skipped.size === 0) return;
  const total = [...skipped.values()].reduce((a, b) => a + b, 0);
  const what = [...skipped].map(([why, n]) => `${n} × ${why.replace(/^shared test data missing: /, '')}`).join('; ');
  process.stderr.write(
    `\nrawr: ${total} test${total === 1 ? '' : 's'} skipped, shared data missing (${what}) — CI fails instead; set RAWR_TRANSCRIPTS or clone the shared data beside this repository.\n`,
  );
});
