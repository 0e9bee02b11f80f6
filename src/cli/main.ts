#!/usr/bin/env node
/**
 * The `rawr` command line. Built on the core library only (no vscode), like the core process.
 *   rawr replay FILE [--json] [--format claude|codex|rawr] [--window N] [--post-tokens N] [--prompts DIR]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadPromptSet } from '../core/prompts/promptSet';
import { dirReader, shippedPromptsDir } from '../core/prompts/fs';
import { replayFile } from './replayCommand';

const USAGE = `usage: rawr replay FILE [--json] [--format claude|codex|rawr] [--window TOKENS] [--post-tokens TOKENS] [--prompts DIR]
  Runs rawr's arbiter over a recorded Claude Code session, Codex rollout or rawr event log and shows
  where it would have compacted and why. --prompts DIR: a folder whose rawr-auto-compact.md overrides
  the shipped settings.`;

function main(argv: string[]): number {
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
  try {
    const readers = values.prompts ? [dirReader(values.prompts), dirReader(shippedPromptsDir())] : [dirReader(shippedPromptsDir())];
    const promptSet = loadPromptSet(readers);
    for (const p of promptSet.problems) process.stderr.write(`${p.file}:${p.line}:${p.column}: ${p.severity}: ${p.message}\n`);
    const text = readFileSync(positionals[0]!, 'utf8');
    const out = replayFile(text, {
      settings: promptSet.settings,
      prompts: promptSet.prompts,
      format: format as 'claude' | 'codex' | 'rawr' | undefined,
      window,
      postTokens,
      json: values.json ?? false,
      file: positionals[0]!,
    });
    process.stdout.write(out);
    return 0;
  } catch (err) {
    process.stderr.write(`rawr replay: ${(err as Error).message}\n`);
    return 1;
  }
}

process.exitCode = main(process.argv.slice(2));
