/**
 * The `rawr` command line (everything but a hook event, which main.ts runs through hookMain.ts's fast
 * entry). Built on the core library only (no vscode), like the core process.
 *   rawr --help | --version
 *   rawr replay FILE [--json] [--format claude|codex|rawr] [--window N] [--post-tokens N] [--prompts DIR]
 *   rawr handoff FILE --line N [--json] [--native] [--format claude|codex|rawr] [--prompts DIR]   (see ./handoffCommand.ts)
 *   rawr hooks <claude|codex> <PreCompact|PostCompact|UserPromptSubmit|SessionStart|install>   (see ./hooks.ts)
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { assertPromptDir, dirReader, loadPromptDirs, shippedPromptsDir } from '../core/prompts/fs';
import { loadPromptSet } from '../core/prompts/promptSet';
import { SafeReadError } from '../core/io/safeRead';
import { openAIJudge } from './replay/judge';
import { replayTo, replayToWithJudge } from './replay/replayCommand';
import { handoffFile } from './replay/handoffCommand';
import { HOOKS_USAGE } from './hooks';

/** The npm name of the self-contained CLI package (scripts/cli-package.mjs): `rawr` on npm is someone else's. */
export const CLI_PACKAGE = '@rawr-ai/cli';

const USAGE = `usage: rawr replay FILE [--json] [--format claude|codex|rawr] [--window TOKENS] [--post-tokens TOKENS] [--prompts DIR]
                   [--judge-url URL --judge-model ID]
  Runs rawr's arbiter over a recorded Claude Code session, Codex rollout or rawr event log and shows
  where it would have compacted and why. --prompts DIR: a folder whose rawr-auto-compact.md overrides
  the shipped settings. --judge-url/--judge-model: answer the judgment calls with an OpenAI-compatible
  endpoint (key from RAWR_JUDGE_API_KEY); without them the deterministic fallback decides.
       rawr handoff FILE --line N [--json] [--native] [--format claude|codex|rawr] [--prompts DIR]
  Prints the model-facing thread rawr would continue with if it compacted the recorded session before
  line N, with no language model: the recent turns kept verbatim, then the handoff with the packet rawr
  assembles from the session trail. --json adds the parts and their token counts (estimated, ~4 chars).
  --native: line N is a compaction the tool recorded itself (Claude Code compact_boundary, Codex
  compacted); prints what rawr's hooks would inject after it: the repair of the tool's own summary
  (read from the transcript there) — the facts of rawr's trail it lost, bounded to half its size.
${HOOKS_USAGE.replace(/^usage: /, '       ')}
       rawr --help | --version`;

/** rawr's version, from the package.json above this file (out/src/cli/ in the repo, dist/ in the extension or the CLI package `@rawr-ai/cli`). */
function version(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if ((pkg.name === 'rawr' || pkg.name === CLI_PACKAGE) && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no package.json here: look further up
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // Asked-for help is output (stdout, exit 0); help shown because of a usage error goes to stderr (exit 2).
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(`rawr ${version()}\n`);
    return 0;
  }
  if (command === 'handoff') return handoffMain(rest);
  if (command !== 'replay') {
    process.stderr.write(`${command === undefined ? '' : `rawr: unknown command "${command}"\n`}${USAGE}\n`);
    return 2;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        json: { type: 'boolean', default: false },
        format: { type: 'string' },
        window: { type: 'string' },
        'post-tokens': { type: 'string' },
        prompts: { type: 'string' },
        'judge-url': { type: 'string' },
        'judge-model': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    process.stderr.write(`rawr replay: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) {
    process.stderr.write(`rawr replay: expected exactly one FILE\n${USAGE}\n`);
    return 2;
  }
  const num = (name: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got "${v}"`);
    return n;
  };
  const format = values.format;
  if (format !== undefined && !['claude', 'codex', 'rawr'].includes(format)) {
    process.stderr.write(`rawr replay: --format must be claude, codex or rawr\n`);
    return 2;
  }
  const judgeUrl = values['judge-url'];
  const judgeModel = values['judge-model'];
  if ((judgeUrl === undefined) !== (judgeModel === undefined)) {
    process.stderr.write(`rawr replay: --judge-url and --judge-model go together\n`);
    return 2;
  }
  // Option values are checked before any file is read: a bad value is a usage error (exit 2).
  let window: number | undefined;
  let postTokens: number | undefined;
  try {
    window = num('window', values.window);
    postTokens = num('post-tokens', values['post-tokens']);
  } catch (err) {
    process.stderr.write(`rawr replay: ${(err as Error).message}\n`);
    return 2;
  }
  // A --prompts folder that does not exist is a mistake to report, not a silent fall back to the defaults.
  if (values.prompts !== undefined) {
    try {
      await assertPromptDir(values.prompts);
    } catch (err) {
      process.stderr.write(`rawr replay: --prompts: ${(err as Error).message}\n`);
      return 2;
    }
  }
  try {
    const promptSet = await loadPromptDirs(values.prompts ? [values.prompts, shippedPromptsDir()] : [shippedPromptsDir()]);
    for (const p of promptSet.problems) process.stderr.write(`${p.file}:${p.line}:${p.column}: ${p.severity}: ${p.message}\n`);
    // The file is read line by line (a regular file only: a FIFO or a device is an error, not a hang).
    const input = { path: positionals[0]! };
    const options = {
      settings: promptSet.settings,
      prompts: promptSet.prompts,
      format: format as 'claude' | 'codex' | 'rawr' | undefined,
      window,
      postTokens,
      json: values.json ?? false,
      file: positionals[0]!,
    };
    // Written as the replay goes (stream.ts): a long recording's decisions are never all in memory.
    const write = (text: string) => void process.stdout.write(text);
    if (judgeUrl !== undefined && judgeModel !== undefined) {
      await replayToWithJudge(input, options, openAIJudge(judgeUrl, judgeModel), write, (n) =>
        process.stderr.write(`rawr replay: judgment ${n} answered by ${judgeModel}\n`),
      );
      return 0;
    }
    replayTo(input, options, write);
    return 0;
  } catch (err) {
    process.stderr.write(`rawr replay: ${(err as Error).message}\n`);
    return 1;
  }
}

/** Prompt set from the shipped folder, overridden by --prompts DIR; its problems go to stderr. */
function prompts(dir: string | undefined) {
  // A --prompts folder that does not exist is a mistake to report, not a silent fall back to the defaults.
  if (dir !== undefined && !statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`--prompts: ${dir} is not an existing folder`);
  const readers = dir ? [dirReader(dir), dirReader(shippedPromptsDir())] : [dirReader(shippedPromptsDir())];
  const promptSet = loadPromptSet(readers);
  for (const p of promptSet.problems) process.stderr.write(`${p.file}:${p.line}:${p.column}: ${p.severity}: ${p.message}\n`);
  return promptSet;
}

function handoffMain(rest: string[]): number {
  const fail = (msg: string, code: number) => (process.stderr.write(`rawr handoff: ${msg}\n`), code);
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        line: { type: 'string' },
        json: { type: 'boolean', default: false },
        native: { type: 'boolean', default: false },
        format: { type: 'string' },
        prompts: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    return fail((err as Error).message, 2);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) return fail('expected exactly one FILE (usage: rawr handoff FILE --line N [--json])', 2);
  if (values.line === undefined) return fail('--line N is required (the line of the recording to compact at)', 2);
  const line = Number(values.line);
  if (!Number.isInteger(line) || line < 1) return fail(`--line must be a positive whole number, got "${values.line}"`, 2);
  const format = values.format;
  if (format !== undefined && !['claude', 'codex', 'rawr'].includes(format)) return fail('--format must be claude, codex or rawr', 2);
  try {
    const set = prompts(values.prompts);
    // Read line by line like `rawr replay` (a regular file only: a FIFO or /dev/zero is an error, not a
    // hang), and never whole: memory does not grow with the file.
    process.stdout.write(
      handoffFile(
        { path: positionals[0]! },
        {
          settings: set.settings,
          prompts: set.prompts,
          format: format as 'claude' | 'codex' | 'rawr' | undefined,
          line,
          json: values.json ?? false,
          native: values.native ?? false,
          file: positionals[0]!,
        },
      ),
    );
    return 0;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (err instanceof SafeReadError && err.problem === 'not_found') return fail(`cannot read ${positionals[0]}: no such file`, 1);
    return fail(
      e.code === 'ENOENT'
        ? `cannot read ${positionals[0]}: no such file`
        : e.code === 'EISDIR'
          ? `${positionals[0]} is a directory`
          : e.message.split('\n')[0]!,
      1,
    );
  }
}
