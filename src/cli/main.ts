#!/usr/bin/env node
/**
 * The `rawr` command line. Built on the core library only (no vscode), like the core process.
 *   rawr replay FILE [--json] [--format claude|codex|rawr] [--window N] [--post-tokens N] [--prompts DIR]
 *   rawr hooks claude <PreCompact|UserPromptSubmit|SessionStart|install>   (see ./hooks.ts)
 */
import { parseArgs } from 'node:util';
import { assertPromptDir, loadPromptDirs, shippedPromptsDir } from '../core/prompts/fs';
import { openAIJudge } from './judge';
import { replayFile, replayFileWithJudge } from './replayCommand';
import { HOOKS_USAGE, hooksMain } from './hooks';

const USAGE = `usage: rawr replay FILE [--json] [--format claude|codex|rawr] [--window TOKENS] [--post-tokens TOKENS] [--prompts DIR]
                   [--judge-url URL --judge-model ID]
  Runs rawr's arbiter over a recorded Claude Code session, Codex rollout or rawr event log and shows
  where it would have compacted and why. --prompts DIR: a folder whose rawr-auto-compact.md overrides
  the shipped settings. --judge-url/--judge-model: answer the judgment calls with an OpenAI-compatible
  endpoint (key from RAWR_JUDGE_API_KEY); without them the deterministic fallback decides.
${HOOKS_USAGE.replace(/^usage: /, '       ')}`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'replay') {
    process.stderr.write(`${USAGE}\n`);
    return command === '--help' || command === '-h' ? 0 : 2;
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
    if (judgeUrl !== undefined && judgeModel !== undefined) {
      const out = await replayFileWithJudge(input, options, openAIJudge(judgeUrl, judgeModel), (n) => process.stderr.write(`rawr replay: judgment ${n} answered by ${judgeModel}\n`));
      process.stdout.write(out);
      return 0;
    }
    process.stdout.write(replayFile(input, options));
    return 0;
  } catch (err) {
    process.stderr.write(`rawr replay: ${(err as Error).message}\n`);
    return 1;
  }
}

const args = process.argv.slice(2);
if (args[0] === 'hooks') {
  // Async (reads the hook input from stdin); never exits 2, which Claude Code reads as "block".
  void hooksMain(args.slice(1)).then((code) => { process.exitCode = code; });
} else {
  void main(args).then((code) => { process.exitCode = code; });
}
