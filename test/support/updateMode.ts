/**
 * Update modes of tests that compare against checked-in files (RAWR_UPDATE_GOLDEN=1,
 * RAWR_UPDATE_SNAPSHOTS=1): they write the files from what the code does now. Such a run checks nothing,
 * so it never passes — it fails after writing, naming what it wrote, and the files are then checked by a
 * plain run after a person has read the diff (issue 35: a blind regenerate must not look green). Under
 * CI (`CI` set, as .ci/run does) an update mode refuses to run at all.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface UpdateMode {
  /** Whether the variable asks for an update (and CI does not forbid it: then this throws). */
  readonly on: boolean;
  /** Writes `text` to `file` when it differs (update mode only); remembered for the failure at the end. */
  write(file: string, text: string): void;
  /** Call in an `after` hook: in update mode, fails with what was written. */
  failIfUpdating(): void;
}

export function updateMode(variable: string): UpdateMode {
  const on = process.env[variable] === '1';
  if (on && process.env.CI)
    throw new Error(`${variable}=1 under CI (CI=${process.env.CI}): update modes rewrite expectations and are for a person's machine only`);
  const written: string[] = [];
  let same = 0;
  return {
    on,
    write(file, text) {
      assert.ok(on, `${variable} is not set: nothing may be written`);
      if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === text) {
        same++;
        return;
      }
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
      written.push(path.relative(process.cwd(), file));
    },
    failIfUpdating() {
      if (!on) return;
      assert.fail(
        `${variable}=1 wrote ${written.length} file(s) (${same} unchanged)${written.length ? `: ${written.join(', ')}` : ''}. ` +
          `An update run checks nothing: read the diff (git diff), then run again without ${variable}.`,
      );
    },
  };
}
