/**
 * rawr's entries among a person's own hooks (hooksConfig.ts): merged in by install, taken out by
 * uninstall, recognised by their command line whatever its quoting. Every entry that is not rawr's — the
 * person's, another agent's rawr, a group of a shape rawr does not know — stays exactly as it was.
 */
import * as assert from 'node:assert/strict';
import { CLAUDE_HOOKS, hooksConfig, mergeHooks, rawrEventOf, removeRawrHooks, shellQuote, shellWords } from '../../src/core/hooks/shared/hooksConfig';

const PREFIX = "'/usr/bin/node' '/opt/rawr/out/src/cli/main.js'";
const OLD_PREFIX = "'/usr/bin/node' '/old/rawr/out/src/cli/main.js'";
const config = hooksConfig(
  'claude',
  PREFIX,
  CLAUDE_HOOKS.filter((h) => h.event === 'PreCompact'),
);
const rawrs = (prefix: string, timeout = 30) => ({ type: 'command', command: `${prefix} hooks claude PreCompact`, timeout });
const audit = { type: 'command', command: 'audit --all' };

describe("hooksConfig: rawr's entries among the person's hooks", () => {
  it("install updates rawr's own entry in place (an older path, another timeout) beside the person's hook in the same group", () => {
    const before = { model: 'opus', hooks: { PreCompact: [{ matcher: '', hooks: [audit, rawrs(OLD_PREFIX, 5)] }] } };
    const frozen = structuredClone(before);
    const r = mergeHooks(before, config, 'claude');
    assert.deepEqual(r, {
      ok: true,
      settings: { model: 'opus', hooks: { PreCompact: [{ matcher: '', hooks: [audit, rawrs(PREFIX)] }] } },
      added: [],
      updated: ['PreCompact'],
      unchanged: [],
    });
    assert.deepEqual(before, frozen, 'the parsed settings are not changed');
  });

  it('a second copy of rawr’s entry is dropped, and a group that held only it goes; the person’s hook in a group beside one stays', () => {
    const before = {
      hooks: {
        PreCompact: [{ hooks: [rawrs(PREFIX)] }, { matcher: 'auto', hooks: [rawrs(OLD_PREFIX)] }, { hooks: [audit, rawrs(PREFIX)] }],
      },
    };
    const r = mergeHooks(before, config, 'claude');
    assert.ok(r.ok);
    assert.deepEqual(r.settings, { hooks: { PreCompact: [{ hooks: [rawrs(PREFIX)] }, { hooks: [audit] }] } });
    assert.deepEqual([r.added, r.updated, r.unchanged], [[], ['PreCompact'], []]);
  });

  it('an entry already as wanted is unchanged; absent, it is added after the person’s groups; groups of an unknown shape are kept', () => {
    const same = mergeHooks({ hooks: { PreCompact: [{ matcher: '', hooks: [rawrs(PREFIX)] }] } }, config, 'claude');
    assert.ok(same.ok);
    assert.deepEqual([same.added, same.updated, same.unchanged], [[], [], ['PreCompact']]);
    const odd = ['not a group', { hooks: 'not a list' }, { hooks: [audit] }];
    const added = mergeHooks({ hooks: { PreCompact: odd, Stop: [] } }, config, 'claude');
    assert.deepEqual(added, {
      ok: true,
      settings: { hooks: { PreCompact: [...odd, { matcher: '', hooks: [rawrs(PREFIX)] }], Stop: [] } },
      added: ['PreCompact'],
      updated: [],
      unchanged: [],
    });
  });

  it('a Codex entry of rawr in Claude Code settings is not Claude Code’s: kept, and rawr’s own is added beside it', () => {
    const codex = { type: 'command', command: `${PREFIX} hooks codex PreCompact` };
    const r = mergeHooks({ hooks: { PreCompact: [{ hooks: [codex] }] } }, config, 'claude');
    assert.ok(r.ok);
    assert.deepEqual(r.settings.hooks, { PreCompact: [{ hooks: [codex] }, { matcher: '', hooks: [rawrs(PREFIX)] }] });
    assert.deepEqual(removeRawrHooks(r.settings, 'claude'), { hooks: { PreCompact: [{ hooks: [codex] }] } });
  });

  it('shapes Claude Code would refuse too are refused, with what is wrong', () => {
    assert.deepEqual(mergeHooks([], config, 'claude'), { ok: false, reason: 'the file is not a JSON object' });
    assert.deepEqual(mergeHooks({ hooks: [] }, config, 'claude'), { ok: false, reason: '"hooks" in the file is not an object' });
    assert.deepEqual(mergeHooks({ hooks: { PreCompact: {} } }, config, 'claude'), { ok: false, reason: '"hooks.PreCompact" in the file is not an array' });
  });

  it('uninstall takes out only rawr’s entries: a group left empty goes, an event left empty goes, and `hooks` when nothing is left', () => {
    const settings = {
      model: 'opus',
      hooks: {
        PreCompact: [{ matcher: '', hooks: [audit, rawrs(PREFIX)] }, { hooks: [rawrs(OLD_PREFIX)] }, 'odd'],
        PostCompact: [{ hooks: [rawrs(PREFIX)] }],
        Stop: [],
      },
    };
    const frozen = structuredClone(settings);
    assert.deepEqual(removeRawrHooks(settings, 'claude'), { model: 'opus', hooks: { PreCompact: [{ matcher: '', hooks: [audit] }, 'odd'], Stop: [] } });
    assert.deepEqual(settings, frozen, 'not changed in place');
    assert.deepEqual(removeRawrHooks({ hooks: { PostCompact: [{ hooks: [rawrs(PREFIX)] }] } }, 'claude'), {}, 'nothing left: no "hooks"');
    assert.deepEqual(removeRawrHooks({ hooks: {} }, 'claude'), { hooks: {} }, "the person's empty hooks stay");
    assert.deepEqual(removeRawrHooks({ hooks: { Stop: [] } }, 'claude'), { hooks: { Stop: [] } });
    assert.deepEqual(removeRawrHooks({ hooks: 'odd', x: 1 }, 'claude'), { hooks: 'odd', x: 1 });
    assert.deepEqual(removeRawrHooks({ hooks: { Stop: 'odd', PreCompact: [{ hooks: [rawrs(PREFIX)] }] } }, 'claude'), { hooks: { Stop: 'odd' } });
  });

  it('a command line is read with POSIX quoting: rawr’s entry is known however its path is quoted, and nothing else is', () => {
    assert.equal(shellQuote('/opt/rawr/main.js'), '/opt/rawr/main.js');
    assert.equal(shellQuote('/my rawr/main.js'), "'/my rawr/main.js'");
    assert.equal(shellQuote("it's"), "'it'\\''s'");
    assert.equal(shellQuote('~x'), "'~x'");
    assert.deepEqual(shellWords(`"a \\"b\\" \\$c \\x" d\\ e ''`), ['a "b" $c \\x', 'd e', '']);
    assert.equal(shellWords('"unbalanced'), null);
    assert.equal(shellWords('"ends in a backslash\\"'), null);
    assert.deepEqual(shellWords("x'"), null);
    for (const command of [
      `'/usr/bin/node' '/my rawr/out/src/cli/main.js' hooks claude PreCompact`,
      `/usr/bin/node "/my \\"rawr\\"/out/src/cli/main.js" hooks claude PreCompact`,
      `/usr/bin/node /my\\ rawr/out/src/cli/main.js hooks claude PreCompact`,
    ])
      assert.equal(rawrEventOf(command, 'claude'), 'PreCompact', command);
    for (const command of [
      'audit hooks claude PreCompact',
      `${PREFIX} hooks claude PreCompact --extra`,
      `${PREFIX} hooks claude Unknown`,
      `${PREFIX} hooks codex PreCompact`,
      `${PREFIX} hook claude PreCompact`,
      `'/usr/bin/node' '/my rawr/out/src/cli/main.js hooks claude PreCompact`,
      42,
    ])
      assert.equal(rawrEventOf(command, 'claude'), undefined, String(command));
  });
});
