/**
 * The stable agent-hook launcher the extension writes (src/host/hooks/launcher.ts): it runs the CLI
 * bundled in this version of the extension, keeps working when the extension is updated and the old
 * folder removed before the next activation, and is re-pointed (rewritten) by the next activation.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensureLauncher, launcherScript } from '../../src/host/hooks/launcher';

const BUNDLED_CLI = path.resolve(__dirname, '../../../dist/cli.js');
const PROMPTS = path.resolve(__dirname, '../../../prompts');

describe('agent-hook launcher (extension update safe)', function () {
  this.timeout(60_000);
  let tmp = '';
  before(() => {
    tmp = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'rawr-launcher-'));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  /** A fake installed extension version: the real bundled CLI and prompts in `<extensions>/<id>-<version>/`. */
  const installVersion = (version: string) => {
    const ext = path.join(tmp, 'extensions', `rawr-dev.rawr-${version}`);
    fs.mkdirSync(path.join(ext, 'dist'), { recursive: true });
    // What the .vsix ships in dist/ for the hooks (.vscodeignore): the CLI, the hooks entry, its engine
    // and its bash client.
    for (const f of ['cli.js', 'hook.js', 'hookEngine.js', 'hook.sh', 'package.json'])
      fs.copyFileSync(path.join(path.dirname(BUNDLED_CLI), f), path.join(ext, 'dist', f));
    fs.chmodSync(path.join(ext, 'dist/hook.sh'), 0o755);
    fs.cpSync(PROMPTS, path.join(ext, 'prompts'), { recursive: true });
    return ext;
  };
  const runLauncher = (launcher: string, args: string[], stdin = '', cwd = tmp) =>
    spawnSync('/bin/sh', ['-c', `${launcher} ${args.join(' ')}`], {
      input: stdin,
      encoding: 'utf8',
      cwd,
      // The resident engine a hook starts: in this test's cache folder, gone soon after the test.
      env: {
        ...process.env,
        PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
        XDG_CACHE_HOME: path.join(tmp, 'cache'),
        RAWR_HOOK_SERVER_IDLE_MS: '3000',
      },
    });

  it('runs the bundled CLI, survives an update that removed the old folder, and is re-pointed on activation', () => {
    assert.ok(fs.existsSync(BUNDLED_CLI), 'npm run build writes dist/cli.js');
    const storage = path.join(tmp, 'globalStorage');
    const v1 = installVersion('0.1.0');
    const target = { storageDir: storage, extensionPath: v1, extensionId: 'rawr-dev.rawr', runtime: process.execPath };
    const launcher = ensureLauncher(target);
    assert.equal(launcher, path.join(storage, 'bin/rawr-hooks'));
    assert.equal(fs.statSync(launcher).mode & 0o111, 0o111, 'executable');
    const printed = runLauncher(launcher, ['hooks', 'claude', 'install']);
    assert.equal(printed.status, 0, printed.stderr);
    assert.ok(JSON.parse(printed.stdout).hooks.PostCompact);

    // a hook event through the launcher, as Claude Code runs it: PreCompact, PostCompact, then the injection
    const project = fs.mkdtempSync(path.join(tmp, 'project-'));
    const event = (e: string) => runLauncher(launcher, ['hooks', 'claude', e], JSON.stringify({ session_id: 's1', cwd: project, hook_event_name: e }), project);
    assert.equal(event('PreCompact').status, 0);
    // That first run found no engine: it ran in Node and started one, whose door the bash client uses next.
    const door = () => fs.existsSync(path.join(tmp, 'cache', 'rawr')) && fs.readdirSync(path.join(tmp, 'cache', 'rawr')).some((f) => f.endsWith('.tcp'));
    for (let i = 0; i < 100 && !door(); i++) spawnSync('sleep', ['0.1']);
    assert.ok(door(), 'the resident engine opened its door for the bash client');
    assert.equal(event('PostCompact').status, 0);
    const inj = event('UserPromptSubmit');
    assert.match(inj.stdout, /CONTEXT COMPACTION DETECTED/, inj.stderr);

    // update: v2 installed, v1's folder removed, no activation yet -> the newest installed version runs
    const v2 = installVersion('0.2.0');
    fs.rmSync(v1, { recursive: true });
    const afterUpdate = runLauncher(launcher, ['hooks', 'claude', 'install']);
    assert.equal(afterUpdate.status, 0, afterUpdate.stderr);
    // the next activation re-points it at v2
    ensureLauncher({ ...target, extensionPath: v2 });
    assert.ok(fs.readFileSync(launcher, 'utf8').includes(path.join(v2, 'dist/cli.js')));
    assert.equal(runLauncher(launcher, ['hooks', 'claude', 'install']).status, 0);
  });

  it('the bundled CLI installs through its bundled parsers (jsonc-parser, smol-toml): --write and --trust work from dist/cli.js', () => {
    assert.ok(fs.existsSync(BUNDLED_CLI), 'npm run build writes dist/cli.js');
    const project = fs.mkdtempSync(path.join(tmp, 'bundled-'));
    fs.mkdirSync(path.join(project, '.claude'));
    fs.writeFileSync(path.join(project, '.claude/settings.local.json'), '{\n  "n": 12345678901234567890\n}\n');
    const cli = (args: string[], env: Record<string, string> = {}) =>
      spawnSync(process.execPath, [BUNDLED_CLI, ...args], { encoding: 'utf8', cwd: project, env: { ...process.env, ...env } });
    const claude = cli(['hooks', 'claude', 'install', '--write']);
    assert.equal(claude.status, 0, claude.stderr);
    assert.match(fs.readFileSync(path.join(project, '.claude/settings.local.json'), 'utf8'), /"n": 12345678901234567890,/);
    const home = path.join(project, 'codex');
    fs.mkdirSync(home);
    fs.writeFileSync(path.join(home, 'config.toml'), 'model = "o4"\n');
    const codex = cli(['hooks', 'codex', 'install', '--write', '--trust'], { CODEX_HOME: home });
    assert.equal(codex.status, 0, codex.stderr);
    assert.ok(fs.readFileSync(path.join(home, 'config.toml'), 'utf8').startsWith('model = "o4"\n'));
  });

  it('quotes paths with spaces and quotes', () => {
    const s = launcherScript({
      storageDir: '/x',
      extensionPath: "/home/o'neil/my exts/rawr-dev.rawr-1.0.0",
      extensionId: 'rawr-dev.rawr',
      runtime: '/opt/VS Code/code',
    });
    assert.ok(s.includes(`RAWR_CLI='/home/o'\\''neil/my exts/rawr-dev.rawr-1.0.0/dist/cli.js'`), s);
    assert.ok(s.includes(`RAWR_RUNTIME='/opt/VS Code/code'`), s);
    const sh = spawnSync('/bin/sh', ['-n', '-c', s]);
    assert.equal(sh.status, 0, 'valid shell syntax');
  });
});
