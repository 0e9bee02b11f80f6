/**
 * `rawr hooks <claude|codex> install|uninstall`: the command line of installer.ts and uninstaller.ts.
 * The hook command written is the fast one whichever way rawr was started (hookCommand.ts). Nothing is
 * written outside the project (Claude Code) or `$CODEX_HOME` (Codex); with neither CODEX_HOME nor HOME
 * set, the Codex commands refuse rather than guess the account's home.
 */
import { codexHome } from '../core/hooks/codex/home';
import { installClaude, installCodex } from '../core/hooks/shared/installer';
import { uninstallClaude, uninstallCodex } from '../core/hooks/shared/uninstaller';
import { hookCommandPrefix, installedHookEntry } from './hookCommand';

export const INSTALL_USAGE = `       rawr hooks claude install [--write [--move]] [--no-steer] [--no-hooks] [--window N] [--follow-symlinks]
       rawr hooks claude uninstall [--purge] [--follow-symlinks]
       rawr hooks codex install [--write [--trust]] [--follow-symlinks]
       rawr hooks codex uninstall [--purge] [--follow-symlinks]`;

type Env = Record<string, string | undefined>;

/** A command line install or uninstall cannot run (a person typed it: no agent runs these), as the CLI's other usage errors. */
const USAGE_ERROR = 2;

/** Codex's home for `verb`, or a refusal on stderr (null) when neither CODEX_HOME nor HOME says where. */
function codexHomeFor(agent: 'claude' | 'codex', verb: string, env: Env): string | null | undefined {
  const home = codexHome(env);
  if (agent !== 'codex' || home !== undefined) return home;
  process.stderr.write(`rawr hooks codex ${verb}: neither CODEX_HOME nor HOME is set: rawr does not guess where Codex keeps its hooks (set CODEX_HOME)\n`);
  return null;
}

/**
 * The result's lines (stdout when it went well, stderr when not) and the exit code. What install or
 * uninstall throws (a `.rawr` that is a file, a folder rawr may not write) is one line, as the editor
 * says it, never a stack trace.
 */
async function printed(what: string, run: () => Promise<{ ok: boolean; lines: string[] }>): Promise<number> {
  let r: { ok: boolean; lines: string[] };
  try {
    r = await run();
  } catch (err) {
    r = { ok: false, lines: [`${what}: ${(err as Error).message}; nothing more done`] };
  }
  (r.ok ? process.stdout : process.stderr).write(`${r.lines.join('\n')}\n`);
  return r.ok ? 0 : 1;
}

export async function installMain(agent: 'claude' | 'codex', args: string[], usage: string, env: Env = process.env): Promise<number> {
  const allowed =
    agent === 'codex' ? ['--write', '--trust', '--follow-symlinks'] : ['--write', '--follow-symlinks', '--no-steer', '--no-hooks', '--move', '--window'];
  const windowAt = agent === 'claude' ? args.indexOf('--window') : -1;
  const windowArg = windowAt >= 0 ? args[windowAt + 1] : undefined;
  if (windowAt >= 0 && !(windowArg !== undefined && /^\d+$/.test(windowArg) && Number(windowArg) >= 50_000 && Number(windowArg) <= 100_000_000)) {
    process.stderr.write(`rawr hooks claude install: --window needs a number of tokens (50000 to 100000000), got ${windowArg ?? 'nothing'}\n${usage}\n`);
    return USAGE_ERROR;
  }
  const unknown = args.filter((a, i) => !allowed.includes(a) && !(windowAt >= 0 && i === windowAt + 1));
  if (unknown.length) {
    process.stderr.write(`rawr hooks ${agent} install: unknown argument ${unknown[0]}\n${usage}\n`);
    return USAGE_ERROR;
  }
  const write = args.includes('--write');
  const followSymlinks = args.includes('--follow-symlinks');
  if (args.includes('--trust') && !write) {
    process.stderr.write(`rawr hooks codex install: --trust needs --write (the trust entries name hooks.json positions)\n${usage}\n`);
    return USAGE_ERROR;
  }
  if (args.includes('--no-hooks') && args.includes('--no-steer')) {
    process.stderr.write(`rawr hooks claude install: --no-hooks with --no-steer leaves nothing to install (keep the hooks, the steering, or both)\n${usage}\n`);
    return USAGE_ERROR;
  }
  const commandPrefix = hookCommandPrefix(installedHookEntry(), process.execPath, env);
  const home = codexHomeFor(agent, 'install', env);
  if (home === null) return 1;
  return printed(`rawr hooks ${agent} install`, () =>
    agent === 'codex'
      ? installCodex({ codexHome: home!, commandPrefix, write, trust: args.includes('--trust'), followSymlinks })
      : installClaude({
          projectDir: process.cwd(),
          commandPrefix,
          write,
          followSymlinks,
          steer: !args.includes('--no-steer'),
          move: args.includes('--move'),
          hooks: !args.includes('--no-hooks'),
          ...(env.HOME ? { home: env.HOME } : {}),
          env,
          ...(windowArg !== undefined ? { window: Number(windowArg) } : {}),
        }),
  );
}

export async function uninstallMain(agent: 'claude' | 'codex', args: string[], usage: string, env: Env = process.env): Promise<number> {
  const unknown = args.filter((a) => !['--purge', '--follow-symlinks'].includes(a));
  if (unknown.length) {
    process.stderr.write(`rawr hooks ${agent} uninstall: unknown argument ${unknown[0]}\n${usage}\n`);
    return USAGE_ERROR;
  }
  const purge = args.includes('--purge');
  const followSymlinks = args.includes('--follow-symlinks');
  const home = codexHomeFor(agent, 'uninstall', env);
  if (home === null) return 1;
  return printed(`rawr hooks ${agent} uninstall`, () =>
    agent === 'codex'
      ? uninstallCodex({ codexHome: home!, followSymlinks, ...(purge ? { purgeProjects: [process.cwd()] } : {}) })
      : uninstallClaude({ projectDir: process.cwd(), purge, followSymlinks }),
  );
}
