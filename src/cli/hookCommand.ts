/**
 * The start of the hook commands `rawr hooks <agent> install` writes (`hooks <agent> <Event>` follows).
 * Where the bundled hooks entry has its bash client beside it (dist/hook.sh: why there) and bash is
 * installed (not Windows), the command runs that client, which hands each run to the resident engine
 * and runs the Node hook when none answers; otherwise the Node hook itself.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nodeCommandPrefix, shellQuote } from '../core/hooks/shared/hooksConfig';

/**
 * The entry `rawr hooks <agent> install` writes, whichever way rawr was started: the bundled hooks entry
 * (dist/hook.js, with its bash client) beside the bundled CLI (the CLI package, the extension, a
 * checkout's `dist/`); from a checkout's compiled CLI (out/src/cli/main.js, `npm run rawr -- …`) the
 * checkout's `dist/hook.js` too (scripts/rawr.js bundles it first), so every way in installs the same
 * fast hook; the compiled CLI itself only when there is no bundle.
 */
export function installedHookEntry(here: string = __dirname): string {
  for (const candidate of [path.join(here, 'hook.js'), path.resolve(here, '../../../dist/hook.js')])
    if (isFile(candidate) && isFile(path.join(path.dirname(candidate), 'hookEngine.js'))) return candidate;
  return path.join(here, 'main.js');
}

/** `entry`: the CLI or hooks entry the command runs (dist/hook.js, or a checkout's out/src/cli/main.js). */
export function hookCommandPrefix(entry: string, node: string = process.execPath, env: Record<string, string | undefined> = process.env): string {
  const client = path.join(path.dirname(entry), 'hook.sh');
  const bash = path.basename(entry) === 'hook.js' && isFile(client) ? findBash(env) : null;
  // -p: the caller's BASH_ENV, SHELLOPTS and exported functions do not reach the client (a BASH_ENV
  // script's output would land before the answer; SHELLOPTS=errexit would end it at its first read).
  return bash ? `${shellQuote(bash)} -p ${shellQuote(client)} ${shellQuote(node)}` : nodeCommandPrefix(node, entry);
}

/**
 * The bash the client runs with: /bin/bash where it is, else the first bash on PATH (NixOS; Homebrew's
 * on macOS, whose /bin/bash is 3.2) that is 4.4 or later (hook.sh needs it); none on Windows. Asked once,
 * at install.
 */
export function findBash(env: Record<string, string | undefined> = process.env): string | null {
  if (process.platform === 'win32') return null;
  const dirs = ['/bin', ...(env.PATH ?? '').split(path.delimiter).filter((d) => path.isAbsolute(d))];
  for (const dir of dirs) {
    const candidate = path.join(dir, 'bash');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (!fs.statSync(candidate).isFile()) continue;
      const v = spawnSync(candidate, ['-p', '-c', 'echo "${BASH_VERSINFO[0]} ${BASH_VERSINFO[1]}"'], { encoding: 'utf8', timeout: 5000 });
      const [major = 0, minor = 0] = (v.stdout ?? '').trim().split(' ').map(Number);
      if (major > 4 || (major === 4 && minor >= 4)) return candidate;
    } catch {
      /* not there */
    }
  }
  return null;
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}
