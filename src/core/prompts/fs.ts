/** Node file-system readers for prompt files (core may use node:fs; it must not use vscode). */
import { readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { PromptReader } from './promptSet';

export function dirReader(dir: string): PromptReader {
  return (fileName) => {
    const path = join(dir, fileName);
    if (!existsSync(path)) return undefined;
    return { path, text: readFileSync(path, 'utf8') };
  };
}

/** The prompts/ folder shipped with rawr (works from src/, compiled out/src/ and the bundled dist/). */
export function shippedPromptsDir(): string {
  for (const candidate of [resolve(__dirname, '../../../prompts'), resolve(__dirname, '../../../../prompts'), resolve(__dirname, '../prompts')]) {
    if (existsSync(join(candidate, 'rawr-auto-compact.md'))) return candidate;
  }
  return resolve(__dirname, '../../../prompts');
}
