import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * SIGKILLs the resident hook engines (`--rawr-hook-server`) a test started: those whose command line,
 * working folder or cache folder (XDG_CACHE_HOME, where the engine keeps its door and cache) lies in
 * `dir`. An engine a hook started in the background can still be writing there when the test removes
 * the folder (ENOTEMPTY, or the folder made again under a removed parent). Linux's /proc; elsewhere
 * nothing to do.
 */
export function stopEnginesUnder(dir: string): void {
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return;
  }
  const inside = (p: string) => p === dir || p.startsWith(`${dir}${path.sep}`);
  for (const pid of pids) {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (!argv.includes('--rawr-hook-server')) continue;
      const cache = fs
        .readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .find((e) => e.startsWith('XDG_CACHE_HOME='))
        ?.slice('XDG_CACHE_HOME='.length);
      if (argv.some(inside) || inside(fs.readlinkSync(`/proc/${pid}/cwd`)) || (cache !== undefined && inside(cache))) process.kill(Number(pid), 'SIGKILL');
    } catch {
      /* gone, or not ours to read */
    }
  }
}
