/**
 * `rawr hooks codex install`: hooks.json merge and the trust entries in config.toml (the real Codex
 * accepting them is covered by test/agents/codex.test.ts).
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyTrust, hookTrustHash, rawrTrustEntries } from '../../src/core/hooks/codex/trust';
import { rawrEventOf, shellWords } from '../../src/core/hooks/shared/hooksConfig';

const CLI = path.resolve(__dirname, '../../src/cli/main.js');

describe('rawr hooks codex install', function () {
  this.timeout(60_000);
  let home = '';
  beforeEach(() => {
    home = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'rawr-codex-home-'));
  });
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));
  const install = (...args: string[]) =>
    spawnSync(process.execPath, [CLI, 'hooks', 'codex', 'install', ...args], { encoding: 'utf8', env: { ...process.env, CODEX_HOME: home } });

  it('without --trust says that Codex skips untrusted hooks; --trust writes one entry per rawr hook, idempotently, keeping the rest', () => {
    const printed = install();
    assert.equal(printed.status, 0);
    assert.match(printed.stdout, /skips the others without a word/);
    fs.writeFileSync(
      path.join(home, 'hooks.json'),
      JSON.stringify({ hooks: { PreCompact: [{ hooks: [{ type: 'command', command: 'other-tool snapshot', timeout: 5 }] }] } }),
    );
    const config = 'model = "o4"\n\n[hooks.state."/elsewhere/hooks.json:stop:0:0"]\ntrusted_hash = "sha256:abc"\n';
    fs.writeFileSync(path.join(home, 'config.toml'), config, { mode: 0o600 });
    const w = install('--write');
    assert.equal(w.status, 0, w.stderr);
    assert.match(w.stdout, /run again with --trust/);
    assert.equal(fs.readFileSync(path.join(home, 'config.toml'), 'utf8'), config, '--write alone does not touch config.toml');
    const t = install('--write', '--trust');
    assert.equal(t.status, 0, t.stderr);
    assert.match(t.stdout, /4 of rawr's 4 hooks newly trusted/);
    const toml = fs.readFileSync(path.join(home, 'config.toml'), 'utf8');
    assert.ok(toml.startsWith(config), 'the existing config is kept byte for byte');
    assert.equal(fs.statSync(path.join(home, 'config.toml')).mode & 0o777, 0o600);
    const hooks = JSON.parse(fs.readFileSync(path.join(home, 'hooks.json'), 'utf8'));
    assert.equal(hooks.hooks.PreCompact[0].hooks[0].command, 'other-tool snapshot', "the other tool's hook is first and untouched");
    const pre = hooks.hooks.PreCompact[1].hooks[0];
    assert.ok(
      toml.includes(`[hooks.state."${path.join(home, 'hooks.json')}:pre_compact:1:0"]\ntrusted_hash = "${hookTrustHash('pre_compact', pre.command, 30)}"`),
      toml,
    );
    assert.ok(!toml.includes(':pre_compact:0:0'), "the other tool's hook is not trusted by rawr");
    const again = install('--write', '--trust');
    assert.match(again.stdout, /already trusted/);
    assert.equal(fs.readFileSync(path.join(home, 'config.toml'), 'utf8'), toml, 'idempotent');
    assert.equal(install('--trust').status, 2, '--trust needs --write: a usage error');
  });

  it('trust entries: a changed hook replaces its hash in place; a key in another TOML form is refused', () => {
    const hooksJson = {
      hooks: { PostCompact: [{ hooks: [{ type: 'command', command: "node '/x/out/src/cli/main.js' hooks codex PostCompact", timeout: 10 }] }] },
    };
    const entries = rawrTrustEntries('/h/hooks.json', hooksJson);
    assert.deepEqual(
      entries.map((e) => e.key),
      ['/h/hooks.json:post_compact:0:0'],
    );
    const first = applyTrust('', entries);
    assert.ok(first.ok);
    const changed = applyTrust(first.text.replace(/sha256:[0-9a-f]+/, 'sha256:old'), entries);
    assert.ok(changed.ok && changed.changed === 1 && changed.text === first.text, changed.ok ? changed.text : changed.reason);
    const inline = applyTrust(`hooks.state."/h/hooks.json:post_compact:0:0" = { trusted_hash = "x" }\n`, entries);
    assert.equal(inline.ok, false);
    // a test vector from the verified recipe (shared/codex-e2e/hook-trust-hash.js, whose entries the real Codex 0.171 accepted)
    assert.equal(
      hookTrustHash('pre_compact', 'bash /cx/capture-hook.sh PreCompact', 10),
      'sha256:836b842fcbc06462c492a7c5f20e14192f541e0ea6da55b5843e8019554be9c0',
    );
    assert.notEqual(hookTrustHash('pre_compact', 'a', 10), hookTrustHash('pre_compact', 'a', 10, ''));
  });

  it("rawr's identity: its entry points followed by exactly `hooks <agent> <Event>`", () => {
    assert.deepEqual(shellWords(`'/usr/bin/node' "/a b/out/src/cli/main.js" hooks claude PreCompact`), [
      '/usr/bin/node',
      '/a b/out/src/cli/main.js',
      'hooks',
      'claude',
      'PreCompact',
    ]);
    assert.equal(shellWords(`'unbalanced`), null);
    for (const yes of [
      "'/x/globalStorage/rawr.rawr/bin/rawr-hooks' hooks codex PreCompact",
      'node /opt/rawr/out/src/cli/main.js hooks codex PreCompact',
      'node /home/u/.vscode/extensions/rawr.rawr-0.1.0/dist/cli.js hooks codex PreCompact',
      'rawr hooks codex PreCompact',
    ]) {
      assert.equal(rawrEventOf(yes, 'codex'), 'PreCompact', yes);
    }
    for (const no of [
      'othertool hooks codex PreCompact',
      'node /opt/x/main.js hooks codex PreCompact',
      'rawr hooks claude PreCompact',
      'rawr hooks codex PreCompact --extra',
      'node /opt/other/dist/cli.js hooks codex PreCompact',
    ]) {
      assert.equal(rawrEventOf(no, 'codex'), undefined, no);
    }
  });
});
