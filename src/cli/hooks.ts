/**
 * `rawr hooks claude <PreCompact|UserPromptSubmit|SessionStart|install>`: compaction detection for
 * Claude Code sessions (docs/ARCHITECTURE.md#claude-code-hooks) through Claude Code's command hooks.
 *
 * Exit codes: a hook event always exits 0 (a problem is one line on stderr, nothing on stdout); a usage
 * error exits 1, never 2, because Claude Code treats exit 2 from a hook as "block".
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isHookEvent } from '../core/hooks/claude/input';
import { runHook } from '../core/hooks/claude/run';
import { hooksConfig, mergeHooks, shellQuote } from '../core/hooks/claude/install';
import { writeFileAtomic } from '../core/hooks/claude/store';

export const HOOKS_USAGE = `usage: rawr hooks claude <PreCompact|UserPromptSubmit|SessionStart>   (hook input JSON on stdin)
       rawr hooks claude install [--write]
  Compaction detection for Claude Code: PreCompact snapshots the session to .rawr/claude/<session>/;
  the next UserPromptSubmit (or SessionStart after a compaction) injects the CONTEXT COMPACTION DETECTED
  warning with the recovery steps and the snapshot, exactly once. install prints the hook configuration;
  --write merges it into ./.claude/settings.json, keeping every other setting and hook.`;

/** Hook input is small; anything beyond this is not a hook input. */
const MAX_STDIN = 16 * 1024 * 1024;
const STDIN_TIMEOUT_MS = 5_000;

function readStdin(): Promise<string> {
  return new Promise((resolve) => {
    if (process.stdin.isTTY) return resolve('');
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => { clearTimeout(timer); process.stdin.destroy(); resolve(Buffer.concat(chunks).toString('utf8')); };
    const timer = setTimeout(done, STDIN_TIMEOUT_MS);
    process.stdin.on('data', (c: Buffer) => { size += c.length; if (size <= MAX_STDIN) chunks.push(c); else done(); });
    process.stdin.on('end', done);
    process.stdin.on('error', done);
  });
}

/**
 * The command Claude Code runs: this Node binary and this CLI by absolute path. Chosen over
 * `npx --no-install rawr …` because rawr is not a dependency of the projects it watches (npx would
 * fail or resolve another package), and npx adds start-up time to every prompt. Re-run install after
 * moving rawr or upgrading Node.
 */
function commandPrefix(): string {
  return `${shellQuote(process.execPath)} ${shellQuote(path.resolve(__dirname, 'main.js'))}`;
}

function install(args: string[]): number {
  const write = args.includes('--write');
  const unknown = args.filter((a) => a !== '--write');
  if (unknown.length) {
    process.stderr.write(`rawr hooks claude install: unknown argument ${unknown[0]}\n${HOOKS_USAGE}\n`);
    return 1;
  }
  const config = hooksConfig(commandPrefix());
  if (!write) {
    process.stdout.write(`${JSON.stringify(config, null, 2)}\n`);
    return 0;
  }
  const file = path.join(process.cwd(), '.claude', 'settings.json');
  let existing: unknown = {};
  let text: string | undefined;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      process.stderr.write(`rawr hooks claude install: cannot read ${file}: ${(err as Error).message}\n`);
      return 1;
    }
  }
  if (text !== undefined && text.trim() !== '') {
    try {
      existing = JSON.parse(text);
    } catch (err) {
      process.stderr.write(`rawr hooks claude install: ${file} is not valid JSON (${(err as Error).message}); fix it or merge this by hand:\n${JSON.stringify(config, null, 2)}\n`);
      return 1;
    }
  }
  const merged = mergeHooks(existing, config);
  if (!merged.ok) {
    process.stderr.write(`rawr hooks claude install: ${file}: ${merged.reason}; nothing written\n`);
    return 1;
  }
  const out = `${JSON.stringify(merged.settings, null, 2)}\n`;
  if (out !== text) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    writeFileAtomic(file, out);
  }
  const parts = [
    merged.added.length ? `added ${merged.added.join(', ')}` : '',
    merged.updated.length ? `updated ${merged.updated.join(', ')}` : '',
    merged.unchanged.length ? `already present: ${merged.unchanged.join(', ')}` : '',
  ].filter(Boolean);
  process.stdout.write(`rawr: Claude Code hooks in ${file}: ${parts.join('; ')}\n`);
  return 0;
}

export async function hooksMain(argv: string[]): Promise<number> {
  const [agent, event, ...rest] = argv;
  if (agent === '--help' || agent === '-h' || event === '--help' || event === '-h') {
    process.stdout.write(`${HOOKS_USAGE}\n`);
    return 0;
  }
  if (agent !== 'claude') {
    process.stderr.write(`rawr hooks: unknown agent ${agent === undefined ? '(none)' : JSON.stringify(agent)}\n${HOOKS_USAGE}\n`);
    return 1;
  }
  if (event === 'install') return install(rest);
  if (!isHookEvent(event)) {
    process.stderr.write(`rawr hooks claude: unknown event ${event === undefined ? '(none)' : JSON.stringify(event)}\n${HOOKS_USAGE}\n`);
    return 1;
  }
  try {
    const stdin = await readStdin();
    const r = runHook(event, stdin, { env: process.env });
    for (const line of r.stderr) process.stderr.write(`${line}\n`);
    if (r.stdout) process.stdout.write(r.stdout);
  } catch (err) {
    process.stderr.write(`rawr hooks claude ${event}: ${(err as Error).message.replace(/\s+/g, ' ')}; nothing done\n`);
  }
  return 0;
}
