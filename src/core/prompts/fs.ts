/**
 * Node file-system readers for prompt files (core may use node:fs; it must not use vscode). Prompt
 * overrides come from the workspace (`.rawr/prompts/`), i.e. from whatever repository was cloned: every
 * file goes through the safe reader (regular file after resolving symlinks, MAX_PROMPT_BYTES), so a
 * committed symlink to /dev/zero or a FIFO is a located problem, not a hang or an out-of-memory.
 */
import { existsSync, promises as fsp } from 'node:fs';
import { join, resolve } from 'node:path';
import { MAX_PROMPT_BYTES, safeReadTextIfExists, safeReadTextIfExistsSync } from '../io/safeRead';
import { loadPromptSet, PROMPT_FILES, type PromptReader, type PromptSet } from './promptSet';

/** Synchronous reader of one folder (the CLI, hooks and tests; never the extension host). */
export function dirReader(dir: string): PromptReader {
  return (fileName) => {
    const path = join(dir, fileName);
    const text = safeReadTextIfExistsSync(path, { maxBytes: MAX_PROMPT_BYTES });
    return text === undefined ? undefined : { path, text };
  };
}

/**
 * Reads a folder's prompt files asynchronously (all at once), then serves them to loadPromptSet like
 * dirReader does: the extension host never blocks on a prompt file. A file that cannot be read is
 * reported by loadPromptSet as "cannot read: …" and the next folder's file is used.
 */
export async function readPromptDir(dir: string): Promise<PromptReader> {
  const files = new Map<string, { path: string; text: string } | Error | undefined>();
  await Promise.all(
    Object.values(PROMPT_FILES).map(async (fileName) => {
      const path = join(dir, fileName);
      try {
        const text = await safeReadTextIfExists(path, { maxBytes: MAX_PROMPT_BYTES });
        files.set(fileName, text === undefined ? undefined : { path, text });
      } catch (err) {
        files.set(fileName, err as Error);
      }
    }),
  );
  return (fileName) => {
    const got = files.get(fileName);
    if (got instanceof Error) throw got;
    return got;
  };
}

/** loadPromptSet over folders (first wins, file by file), read without blocking. */
export async function loadPromptDirs(dirs: readonly string[]): Promise<PromptSet> {
  return loadPromptSet(await Promise.all(dirs.map(readPromptDir)));
}

/** Throws a clear error when `dir` (a folder the user named, e.g. `--prompts DIR`) is not a folder. */
export async function assertPromptDir(dir: string): Promise<void> {
  let st;
  try {
    st = await fsp.stat(dir);
  } catch {
    throw new Error(`prompt folder ${dir} does not exist`);
  }
  if (!st.isDirectory()) throw new Error(`${dir} is not a folder (expected a folder of rawr prompt files)`);
}

/** The prompts/ folder shipped with rawr (works from src/, compiled out/src/ and the bundled dist/). */
export function shippedPromptsDir(): string {
  for (const candidate of [resolve(__dirname, '../../../prompts'), resolve(__dirname, '../../../../prompts'), resolve(__dirname, '../prompts')]) {
    if (existsSync(join(candidate, 'rawr-auto-compact.md'))) return candidate;
  }
  return resolve(__dirname, '../../../prompts');
}
