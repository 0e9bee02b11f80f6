/**
 * Every way in installs the same fast hook, steers the real Claude Code, and goes away without a trace
 * (issue 29 items 1 and 3). In a demo repository with its own committed `.claude/settings.json` (a
 * comment, its own hook), for each way in:
 *   - the packed CLI package (`npm pack` of build/cli, scripts/cli-package.mjs) installed into a fresh
 *     npm prefix: `rawr hooks claude install --write`;
 *   - the Claude Code plugin, installed offline from the local marketplace build/claude-plugin with the
 *     real CLI, plus its one command for what a plugin cannot carry (`… install --write --no-hooks`);
 *   - the extension's launcher (launcher.ts) with the install call its command makes;
 *   - a checkout: `npm run rawr -- hooks claude install --write` typed in the project;
 * then one steered session (a commit at 70% of a 1M window: refused before it, compacted at it), the
 * agent's own `git add -A` commit holding only its work, and uninstall: `git status` and every settings
 * file byte for byte as before.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { filesUnder, project, REPO, run, baseEnv, scenarioSuite } from './support';
import { CLAUDE, facts, turn, type Scenario } from './claude';
import { startScriptedAnthropic } from '../support/scriptedAnthropic';
import { ensureLauncher } from '../../src/host/hooks/launcher';
import { installClaude } from '../../src/core/hooks/shared/installer';
import { uninstallClaude } from '../../src/core/hooks/shared/uninstaller';
import { shellQuote } from '../../src/core/hooks/shared/hooksConfig';

const TEAM_SETTINGS = `{
  // the team's settings: keep the formatter hook
  "permissions": { "allow": ["Bash(npm test)"] },
  "hooks": {
    "Stop": [{ "hooks": [{ "type": "command", "command": "echo team-stop-hook" }] }],
  },
}
`;
const FAST = /bash'? -p '?\S*\/dist\/hook\.sh/;

interface Way {
  name: string;
  install(s: Scenario): Promise<string>; // the installed PreCompact command (or the launcher's script)
  uninstall(s: Scenario): Promise<void>;
}

async function sh(cmd: string, args: string[], s: Scenario, env: Record<string, string> = {}): Promise<string> {
  const r = await run(cmd, args, { cwd: s.repo, env: baseEnv(s.home, env), timeoutMs: 180_000 });
  assert.equal(r.code, 0, `${cmd} ${args.join(' ')}: ${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

const localCommand = (s: Scenario) => {
  const text = fs.readFileSync(path.join(s.repo, '.claude/settings.local.json'), 'utf8');
  return /"command": "([^"]*hooks claude PreCompact)"/.exec(text)?.[1] ?? '';
};

let prefix = '';
const WAYS: Way[] = [
  {
    name: 'the packed CLI package in a fresh npm prefix',
    install: async (s) => {
      await sh(path.join(prefix, 'bin/rawr'), ['hooks', 'claude', 'install', '--write'], s);
      return localCommand(s);
    },
    uninstall: async (s) => void (await sh(path.join(prefix, 'bin/rawr'), ['hooks', 'claude', 'uninstall', '--purge'], s)),
  },
  {
    name: 'the Claude Code plugin from the local marketplace, and its one command for steering',
    install: async (s) => {
      await sh(CLAUDE, ['plugin', 'marketplace', 'add', path.join(REPO, 'build/claude-plugin')], s);
      await sh(CLAUDE, ['plugin', 'install', 'rawr@rawr'], s);
      const cli = pluginCli(s);
      await sh(process.execPath, [cli, 'hooks', 'claude', 'install', '--write', '--no-hooks'], s);
      assert.ok(!fs.readFileSync(path.join(s.repo, '.claude/settings.local.json'), 'utf8').includes('hooks claude'), 'the hooks come from the plugin alone');
      const hooks = JSON.parse(fs.readFileSync(path.join(path.dirname(path.dirname(cli)), 'hooks/hooks.json'), 'utf8')) as {
        hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>>;
      };
      return hooks.hooks.PreCompact![0]!.hooks[0]!.command;
    },
    uninstall: async (s) => {
      await sh(process.execPath, [pluginCli(s), 'hooks', 'claude', 'uninstall', '--purge'], s);
      await sh(CLAUDE, ['plugin', 'uninstall', 'rawr@rawr'], s);
      await sh(CLAUDE, ['plugin', 'marketplace', 'remove', 'rawr'], s);
    },
  },
  {
    name: "the extension's launcher, with the install its command makes",
    install: async (s) => {
      const launcher = ensureLauncher({ storageDir: path.join(s.dir, 'storage'), extensionPath: REPO, extensionId: 'rawr.rawr', runtime: process.execPath });
      const r = await installClaude({ projectDir: s.repo, commandPrefix: shellQuote(launcher), write: true, followSymlinks: false, home: s.home });
      assert.ok(r.ok, r.lines.join('\n'));
      assert.ok(localCommand(s).startsWith(launcher));
      // the launcher execs the bash client beside the CLI it points at, for hook events
      const script = fs.readFileSync(launcher, 'utf8');
      const cli = /^RAWR_CLI=(\S+)$/m.exec(script)?.[1] ?? '';
      assert.match(script, /exec \/bin\/bash -p "\$\{RAWR_CLI%\/\*\}\/hook\.sh"/);
      return `/bin/bash -p ${path.dirname(cli)}/hook.sh`;
    },
    uninstall: async (s) => {
      const r = await uninstallClaude({ projectDir: s.repo, purge: true, followSymlinks: false });
      assert.ok(r.ok, r.lines.join('\n'));
    },
  },
  {
    name: 'a checkout: npm run rawr -- hooks claude install --write, typed in the project',
    install: async (s) => {
      await sh('npm', ['run', '--silent', '--prefix', REPO, 'rawr', '--', 'hooks', 'claude', 'install', '--write'], s);
      return localCommand(s);
    },
    uninstall: async (s) => void (await sh('npm', ['run', '--silent', '--prefix', REPO, 'rawr', '--', 'hooks', 'claude', 'uninstall', '--purge'], s)),
  },
];

/** The CLI inside the installed plugin (Claude Code's plugin cache under HOME). */
function pluginCli(s: Scenario): string {
  const found = filesUnder(path.join(s.home, '.claude/plugins'), /^cli\.js$/).filter((f) => f.includes(`${path.sep}rawr${path.sep}`));
  assert.equal(found.length, 1, `the plugin's CLI in the cache: ${found.join(', ')}`);
  return found[0]!;
}

/** What the person's repository shows: git status, and every file under .claude/ and .git/info/ with its bytes. */
function snapshot(repo: string, status: string): Record<string, string> {
  const out: Record<string, string> = { 'git status': status };
  for (const dir of ['.claude', '.git/info']) for (const f of filesUnder(path.join(repo, dir), /./)) out[path.relative(repo, f)] = fs.readFileSync(f, 'utf8');
  out['.gitignore'] = fs.existsSync(path.join(repo, '.gitignore')) ? fs.readFileSync(path.join(repo, '.gitignore'), 'utf8') : '(none)';
  out['.rawr'] = String(fs.existsSync(path.join(repo, '.rawr')));
  return out;
}

describe('real Claude Code: every way in installs the fast hook, steers, and uninstalls without a trace', function () {
  this.timeout(1_800_000);
  const setup = scenarioSuite(CLAUDE, 'Claude Code', async (name: string) => {
    const p = await project(`rawr-cc-install-${name}-`);
    fs.mkdirSync(path.join(p.repo, '.claude'));
    fs.writeFileSync(path.join(p.repo, '.claude/settings.json'), TEAM_SETTINGS);
    const env = baseEnv(p.home, {});
    for (const args of [
      ['add', '-A'],
      ['commit', '-qm', 'team settings'],
    ])
      assert.equal((await run('git', args, { cwd: p.repo, env })).code, 0);
    const server = await startScriptedAnthropic({ cwd: p.repo, usageSchedule: [300_000, 380_000, 460_000, 540_000, 600_000, 700_000, 740_000, 780_000] });
    return { ...p, server, turns: 0, env: {} } as Scenario;
  });

  before(async function () {
    // The CLI package and the plugin folder from this build (npm run build first), the package packed and
    // installed from its tarball into a fresh prefix, offline.
    const built = await run(process.execPath, [path.join(REPO, 'scripts/cli-package.mjs')], { cwd: REPO, env: process.env });
    assert.equal(built.code, 0, built.stderr);
    const tgz = fs.readdirSync(path.join(REPO, 'build')).find((f) => f.endsWith('.tgz'))!;
    prefix = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'rawr-prefix-'));
    const inst = await run('npm', ['install', '-g', '--offline', '--prefix', prefix, path.join(REPO, 'build', tgz)], { cwd: prefix, env: process.env });
    assert.equal(inst.code, 0, inst.stderr);
    assert.equal(fs.existsSync(path.join(prefix, 'lib/node_modules/@rawr-ai/cli/node_modules')), false, 'no dependencies: it runs from dist/ alone');
  });
  after(() => prefix && fs.rmSync(prefix, { recursive: true, force: true }));

  WAYS.forEach((way, k) => {
    it(way.name, async () => {
      const s = await setup(`w${k}`);
      const status = async () => (await run('git', ['status', '--porcelain'], { cwd: s.repo, env: baseEnv(s.home, {}) })).stdout;
      const before = snapshot(s.repo, await status());
      const command = await way.install(s);
      assert.match(command, FAST, `the fast hook (bash client + resident engine) is what runs: ${command}`);
      assert.equal(await status(), before['git status'], 'install changes nothing git shows');

      await turn(s, 'MULTI_BASH 7 COMMIT_AT 5 please run the steps');
      const f = facts(s);
      const log = filesUnder(path.join(s.repo, '.rawr/claude'), /^steer-log\.jsonl$/).flatMap((file) =>
        fs
          .readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { allow: boolean; why: string }),
      );
      const report = `${f.report}; steer log ${JSON.stringify(log.map((l) => `${l.allow}:${l.why}`))}`;
      assert.equal(f.boundaries, 1, `compacted once: ${report}`);
      assert.ok(
        log.some((l) => !l.allow && l.why === 'deferred'),
        `refused before the commit: ${report}`,
      );
      assert.equal(log.find((l) => l.allow)?.why, 'boundary', `compacted at the commit: ${report}`);
      const cache = path.join(s.home, '.cache', 'rawr');
      assert.ok(fs.existsSync(cache) && fs.readdirSync(cache).some((e) => e.endsWith('.tcp')), `the resident engine answered the bash client: ${report}`);
      const committed = await run('git', ['show', '--name-only', '--format=', 'HEAD'], { cwd: s.repo, env: baseEnv(s.home, {}) });
      assert.equal(committed.stdout.trim(), 'work.txt', "the agent's git add -A commit holds only its work, nothing of rawr's");

      await way.uninstall(s);
      assert.deepEqual(snapshot(s.repo, await status()), before, 'git status and every settings file as before');
    });
  });
});
