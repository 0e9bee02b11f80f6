/**
 * What `rawr hooks codex install --write --trust` does to the text of the person's `config.toml`
 * (codex/trust.ts), byte for byte: a stale trust entry of rawr's gets its one `trusted_hash` line replaced
 * wherever it sits in its table (however the header is quoted, indented or commented), a missing one is
 * added after the table's header, a new entry is appended after a blank line, and every other line —
 * comments, other keys, a sub-table's own `trusted_hash`, the tables after it — keeps its text.
 * hardening.installers checks that whatever the file, the result parses and holds every entry.
 */
import * as assert from 'node:assert/strict';
import { applyTrust } from '../../src/core/hooks/codex/trust';

const KEY = '/h/hooks.json:pre_compact:0:0';
const ENTRIES = [{ key: KEY, hash: 'sha256:aa' }];

function trusted(config: string): { text: string; changed: number } {
  const r = applyTrust(config, ENTRIES);
  assert.ok(r.ok, r.ok ? '' : r.reason);
  return { text: r.text, changed: r.changed };
}

describe("codex trust: rawr's entries in the person's config.toml, byte for byte", () => {
  it("a stale hash is replaced on its own line; the header's indentation and comment, the other keys and the tables after stay", () => {
    const config = `# mine\n  [hooks.state."${KEY}"]   # trust\nenabled = true\ntrusted_hash = "sha256:zz"\nnote = "x"\n\n[x]\ny = 1\n`;
    assert.deepEqual(trusted(config), { text: config.replace('sha256:zz', 'sha256:aa'), changed: 1 });
  });

  it("a table without a hash gets one after its header, not in the sub-table after it (whose trusted_hash is not rawr's)", () => {
    const config = `[hooks.state.'${KEY}']\nenabled = true\n[hooks.state.'${KEY}'.sub]\ntrusted_hash = "inner"\n`;
    assert.deepEqual(trusted(config), {
      text: `[hooks.state.'${KEY}']\ntrusted_hash = "sha256:aa"\nenabled = true\n[hooks.state.'${KEY}'.sub]\ntrusted_hash = "inner"\n`,
      changed: 1,
    });
  });

  it('a new entry goes at the end after one blank line, whether or not the file ended in a newline; an entry already trusted changes nothing', () => {
    const added = `\n[hooks.state."${KEY}"]\ntrusted_hash = "sha256:aa"\n`;
    assert.deepEqual(trusted('model = "o3"'), { text: `model = "o3"\n${added}`, changed: 1 });
    assert.deepEqual(trusted('model = "o3"\n'), { text: `model = "o3"\n${added}`, changed: 1 });
    assert.deepEqual(trusted(''), { text: added.slice(1), changed: 1 });
    const done = `[hooks.state."${KEY}"]\ntrusted_hash = "sha256:aa"\n`;
    assert.deepEqual(trusted(done), { text: done, changed: 0 });
  });

  it('forms a line edit cannot reach are refused with the entries to add by hand, never half written', () => {
    for (const [config, why] of [
      [`hooks.state."${KEY}".trusted_hash = "x"\n`, /is set in a form rawr does not edit/],
      [`[hooks]\nstate = 1\n`, /its "hooks.state" is not a table/],
      ['hooks = 1\n', /its "hooks" is not a table/],
      [`[hooks.state]\n"${KEY}" = 1\n`, /is not a table/],
      ['[broken\n', /it is not valid TOML/],
    ] as const) {
      const r = applyTrust(config, ENTRIES);
      assert.equal(r.ok, false, config);
      assert.match(r.reason, why);
      assert.match(
        r.reason,
        new RegExp(`nothing written\\. Add rawr's trust entries yourself .*:\\n\\n\\[hooks\\.state\\."${KEY}"\\]\\ntrusted_hash = "sha256:aa"\\n$`, 's'),
      );
    }
  });
});
