/**
 * The command line of the bench's per-family diagnoses (phasedExplain.ts, phasedEmergencies.ts): the shipped
 * settings and prompts, the seeds and session count as the schedule bench reads them (`--seed N --to M
 * --count K`), and a flag's value.
 */
import { dirReader, shippedPromptsDir } from '../../src/core/prompts/fs';
import { loadPromptSet } from '../../src/core/prompts/promptSet';
import { generatedOptions } from './phased';

export function familyArgs(argv: readonly string[]) {
  const set = loadPromptSet([dirReader(shippedPromptsDir())]);
  const { seed, to, count } = generatedOptions(argv);
  const seeds = Array.from({ length: to - seed + 1 }, (_, k) => seed + k);
  const value = (flag: string, dflt: string) => (argv.includes(flag) ? (argv[argv.indexOf(flag) + 1] ?? dflt) : dflt);
  return { set, seeds, count, value, has: (flag: string) => argv.includes(flag) };
}
