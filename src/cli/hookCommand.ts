/**
 * The start of the hook commands `rawr hooks <agent> install` writes (`hooks <agent> <Event>` follows).
 * Where the bundled hooks entry has its bash client beside it (dist/hook.sh: why there) and bash is
 * installed (not Windows), the command runs that client, which hands each run to the resident engine
 * and runs the Node hook when none answers; otherwise the Node hook itself.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nodeCommandPrefix, shellQuote } from '../core/hooks/shared/hooksConfig';

/** `entry`: the CLI or hooks entry the command runs (dist/hook.js, or a checkout's out/src/cli/main.js). */
export function hookCommandPrefix(entry: string, node: string = process.execPath, env: Record<string, string | undefined> = process.env): string {
  const client = path.join(path.dirname(entry), 'hook.sh');
  const bash = path.basename(entry) === 'hook.js' && isFile(client) ? findBash(env) : null;
  return bash ? `${shellQuote(bash)} ${shellQuote(client)} ${shellQuote(node)}` : nodeCommandPrefix(node, entry);
}

/** /bin/bash where it is (Linux, macOS), else the first bash on PATH (NixOS); none on Windows. */
export function findBash(env: Record<string, string | undefined> = process.env): string | null {
  if (process.platform === 'win32') return null;
  const dirs = ['/bin', ...(env.PATH ?? '').split(path.delimiter).filter((d) => path.isAbsolute(d))];
  for (const dir of dirs) {
    const candidate = path.join(dir, 'bash');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
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
