/**
 * Codex's home (core/hooks/codex/home.ts) is one answer for the CLI's `rawr hooks codex …`, the editor's
 * Install/Remove Codex Hooks and the follow view (host/follow/discover.ts): the folder rawr installs its
 * hooks in is the folder it looks for Codex's sessions in, whatever CODEX_HOME holds.
 */
import * as assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import { codexHome } from '../../src/core/hooks/codex/home';
import { codexHome as followedCodexHome } from '../../src/host/follow/discover';

describe('Codex home: one answer for install, uninstall and the follow view', () => {
  const home = os.homedir();
  for (const [name, env, expected] of [
    ['CODEX_HOME absolute', { CODEX_HOME: '/srv/codex', HOME: home }, '/srv/codex'],
    ['CODEX_HOME relative (resolved against the working folder)', { CODEX_HOME: 'rel/codex', HOME: home }, path.resolve('rel/codex')],
    ['CODEX_HOME empty: HOME/.codex', { CODEX_HOME: '', HOME: home }, path.join(home, '.codex')],
    ['no CODEX_HOME: HOME/.codex', { HOME: home }, path.join(home, '.codex')],
  ] as const) {
    it(name, () => {
      assert.equal(codexHome(env), expected);
      assert.equal(followedCodexHome(env), expected, 'the follow view looks where install wrote');
    });
  }
  it('neither CODEX_HOME nor HOME: no guess (the CLI refuses; the editor and the follow view use the account home)', () => {
    assert.equal(codexHome({}), undefined);
    assert.equal(followedCodexHome({}), path.join(home, '.codex'));
  });
});
