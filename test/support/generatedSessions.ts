/**
 * Generated Claude Code sessions written to a folder, for the tests that also run on the shared recordings:
 * a clone without ../shared still tests the same behaviour on sessions the project makes itself (issue 31).
 * One session of every family of test/bench/phasedGen.ts (even, one huge phase, growing, tiny, noisy, long
 * first phase, 1M window), seed 1: phases, plan steps, commits and the recorded tool's own compactions.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { generateFamilies } from '../bench/phasedGen';

/** Writes the sessions into `dir` (once) and returns their paths. */
export function generatedSessions(dir: string): string[] {
  return generateFamilies(1, 1).flatMap(({ sessions }) =>
    sessions.map((s) => {
      const file = path.join(dir, `${s.name}.jsonl`);
      if (!fs.existsSync(file)) fs.writeFileSync(file, s.text);
      return file;
    }),
  );
}
