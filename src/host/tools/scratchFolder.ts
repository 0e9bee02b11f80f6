/**
 * The `.scratch/` folder the agent's scratch notes live in (rawr_write_scratch). It is rawr's working
 * space, not the project's: rawr keeps it out of git with `.scratch/.gitignore` containing `*`, so the
 * agent's own `git add -A` does not commit its notes. A `.gitignore` that is already there (the person's
 * own, e.g. to commit the notes after all) is never overwritten.
 *
 * Safety as for every rawr write: only inside the workspace folder, no symlink followed (a `.scratch`
 * that is a symlink is refused; the ignore file is created exclusively, which never follows a link).
 * vscode-free (node:fs only): unit-tested with real temporary folders and symlinks.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

export const SCRATCH_DIR = '.scratch';
export const SCRATCH_GITIGNORE = '*\n';

export interface ScratchFolder {
  /** Absolute path of `<workspace>/.scratch`. */
  dir: string;
  created: boolean;
  /** `written`: rawr created `.scratch/.gitignore` now; `kept`: something was already there. */
  gitignore: 'written' | 'kept';
}

/** Makes `<root>/.scratch/` (a real directory) and its `.gitignore` if absent; throws with a clear message otherwise. */
export async function ensureScratchFolder(root: string): Promise<ScratchFolder> {
  const dir = path.join(root, SCRATCH_DIR);
  let created = false;
  try {
    await fs.mkdir(dir); // not recursive: the workspace folder itself must exist
    created = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const st = await fs.lstat(dir);
  if (st.isSymbolicLink()) throw new Error(`${dir} is a symlink; rawr does not write its scratch notes through a symlink`);
  if (!st.isDirectory()) throw new Error(`${dir} exists and is not a folder; rawr needs it for its scratch notes`);
  let gitignore: ScratchFolder['gitignore'] = 'kept';
  try {
    // 'wx' = O_CREAT|O_EXCL: fails on anything already there, a (dangling) symlink included.
    const fh = await fs.open(path.join(dir, '.gitignore'), 'wx', 0o644);
    try {
      await fh.writeFile(SCRATCH_GITIGNORE);
    } finally {
      await fh.close();
    }
    gitignore = 'written';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return { dir, created, gitignore };
}

/** The scratch file may be replaced only if it is absent or a regular file (never through a symlink). */
export async function checkScratchTarget(file: string): Promise<string | null> {
  try {
    const st = await fs.lstat(file);
    if (st.isSymbolicLink()) return `${file} is a symlink; rawr does not write its scratch notes through a symlink`;
    if (!st.isFile()) return `${file} exists and is not a regular file`;
    return null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
