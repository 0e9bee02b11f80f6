/**
 * `.claude/settings.local.json` holds this machine's hook command paths: it must not be committed. When
 * `install --write` writes it in a git work tree where git does not ignore it yet, rawr appends
 * `/.claude/settings.local.json` to the project folder's `.gitignore` (created if absent; a `.gitignore`
 * that is a symlink or not a regular file is left alone and reported). Outside a git work tree, or
 * when git is missing, nothing is done.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const run = (cwd: string, args: string[]) => spawnSync('git', args, { cwd, encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'pipe'] });

/** One line for the person, or null when nothing needed doing. */
export function ignoreLocalSettings(projectDir: string, rel = '.claude/settings.local.json'): string | null {
  const inside = run(projectDir, ['rev-parse', '--is-inside-work-tree']);
  if (inside.error || inside.status !== 0 || inside.stdout.trim() !== 'true') return null;
  // exit 0: ignored; 1: not ignored; anything else: git could not tell (leave it).
  const check = run(projectDir, ['check-ignore', '-q', '--no-index', rel]);
  if (check.status !== 1) return null;
  const file = path.join(projectDir, '.gitignore');
  let text = '';
  try {
    const st = fs.lstatSync(file);
    if (!st.isFile()) return `rawr: ${file} is not a regular file: add /${rel} to your ignore rules yourself (it holds this machine's paths)`;
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return `rawr: could not read ${file} (${(err as Error).message}): add /${rel} to it yourself`;
  }
  try {
    fs.appendFileSync(file, `${text && !text.endsWith('\n') ? '\n' : ''}/${rel}\n`);
  } catch (err) {
    return `rawr: could not add /${rel} to ${file} (${(err as Error).message}): add it yourself`;
  }
  return `rawr: added /${rel} to ${file} (personal settings with this machine's paths: not for the team's repository)`;
}
