/**
 * The installers under hostile configuration files (issue 22, items 3 and 11): `rawr hooks claude|codex
 * install --write [--trust]` edits `.claude/settings.local.json`, `$CODEX_HOME/hooks.json` and `config.toml`
 * through real parsers (jsonEdit.ts, codex/trust.ts), keeps every value it does not change as written,
 * refuses read-only files, and never writes TOML that does not parse or does not mean what was intended.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as SmolToml from 'smol-toml' with { 'resolution-mode': 'import' };
import { editJson } from '../../src/core/hooks/shared/jsonEdit';
import { applyTrust } from '../../src/core/hooks/codex/trust';

const { parse: parseToml } = require('smol-toml') as typeof SmolToml;
const CLI = path.resolve(__dirname, '../../src/cli/main.js');

function rawr(args: string[], o: { cwd?: string; env?: Record<string, string> } = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000, cwd: o.cwd, env: { ...process.env, ...o.env } });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const BIG = '12345678901234567890';

describe('hardening: the installers keep what they do not change', function () {
  this.timeout(60_000);
  let dir = '';
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'rawr-installers-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('settings.local.json: a number above 2^53, the layout and every other value keep their text', () => {
    const file = path.join(dir, '.claude/settings.local.json');
    fs.mkdirSync(path.dirname(file));
    const text = `{\n    "model": "opus",\n    "cleanupPeriodDays": ${BIG},\n    "ratio": 1.50,\n    "env": {"A": "1e400"},\n    "hooks": {\n        "PreToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", "command": "audit", "timeout": ${BIG} } ] } ]\n    }\n}\n`;
    fs.writeFileSync(file, text);
    const r = rawr(['hooks', 'claude', 'install', '--write'], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    const out = fs.readFileSync(file, 'utf8');
    assert.ok(out.includes(`"cleanupPeriodDays": ${BIG},`), out);
    assert.ok(out.includes(`"timeout": ${BIG}`), 'a number inside another hook keeps its text too');
    assert.ok(out.includes('"ratio": 1.50,'), '1.50 is not rewritten as 1.5');
    assert.ok(out.startsWith('{\n    "model": "opus",\n'), 'four-space indentation kept');
    assert.ok(/\n {8}"PreCompact": \[/.test(out), `the new entries use the file's indentation:\n${out}`);
    const parsed = JSON.parse(out) as { hooks: Record<string, unknown[]> };
    assert.deepEqual(Object.keys(parsed.hooks).sort(), ['PostCompact', 'PostToolUse', 'PreCompact', 'PreToolUse', 'SessionStart', 'UserPromptSubmit']);
    // A second run changes nothing.
    assert.equal(rawr(['hooks', 'claude', 'install', '--write'], { cwd: dir }).code, 0);
    assert.equal(fs.readFileSync(file, 'utf8'), out);
  });

  it('editJson: removing the last element of an inner array of a one-line file still gives valid JSON (whole-array fallback)', () => {
    // jsonc-parser's element removal left a stray comma here (found by `install --move` on a one-line settings.json).
    const before = {
      keep: 'kept',
      hooks: { A: [{ hooks: [{ command: 'other' }, { command: 'rawr x' }] }], B: [{ hooks: [{ command: 'rawr y' }] }] },
    };
    const after = { keep: 'kept', hooks: { A: [{ hooks: [{ command: 'other' }] }] } };
    const r = editJson(JSON.stringify(before), before, after);
    assert.ok(r.ok, r.ok ? '' : r.reason);
    assert.deepEqual(JSON.parse(r.text), after);
  });

  it('editJson changes only what differs: keys, elements aligned on what is equal, duplicates removed', () => {
    const text = `{"a": ${BIG}, "list": [1, {"x": 2}, 3, 4, 5], "gone": true, "keep": [${BIG}, 0.10]}`;
    const before = JSON.parse(text) as Record<string, unknown>;
    const after = { a: before.a, list: [1, { x: 3 }, 4, 5, 6], keep: before.keep, added: { b: [1] } };
    const r = editJson(text, before, after);
    assert.ok(r.ok, r.ok ? '' : r.reason);
    assert.deepEqual(JSON.parse(r.text), after);
    assert.ok(r.text.includes(`"a": ${BIG}`) && r.text.includes(`[${BIG}, 0.10]`), r.text);
    assert.deepEqual(editJson('', {}, { x: 1 }), { ok: true, text: '{\n  "x": 1\n}\n' });
  });

  it('editJson never returns text that does not parse to what was intended', () => {
    // Random documents and random changes of them (a seeded generator: the same cases every run).
    let seed = 22;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const value = (depth: number): unknown => {
      const k = rnd(depth > 2 ? 4 : 7);
      if (k === 0) return rnd(1000);
      if (k === 1) return `s${rnd(50)}`;
      if (k === 2) return rnd(2) === 0;
      if (k === 3) return null;
      if (k === 4) return Array.from({ length: rnd(5) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: rnd(4) }, () => [`k${rnd(6)}`, value(depth + 1)]));
    };
    const change = (v: unknown): unknown => {
      if (Array.isArray(v)) {
        const c = v.map((x) => (rnd(3) === 0 ? change(x) : x));
        if (rnd(2)) c.splice(rnd(c.length + 1), rnd(2), value(2));
        return c;
      }
      if (v && typeof v === 'object') {
        const c: Record<string, unknown> = { ...(v as Record<string, unknown>) };
        for (const k of Object.keys(c)) if (rnd(3) === 0) c[k] = change(c[k]);
        if (rnd(2)) c[`k${rnd(8)}`] = value(2);
        if (rnd(3) === 0) delete c[Object.keys(c)[0] ?? ''];
        return c;
      }
      return rnd(2) ? value(2) : v;
    };
    for (let n = 0; n < 300; n++) {
      const before = { root: value(0), list: [value(1), value(1)] };
      const after = change(before);
      const text = JSON.stringify(before, null, rnd(2) ? 2 : undefined);
      const r = editJson(text, before, after);
      assert.ok(r.ok, `case ${n}: ${r.ok ? '' : r.reason}\n${text}\n${JSON.stringify(after)}`);
      assert.deepEqual(JSON.parse(r.text), after, `case ${n}`);
    }
  });

  it('read-only settings.local.json, hooks.json and config.toml are refused with the reason (exit 1, nothing replaced)', () => {
    const settings = path.join(dir, '.claude/settings.local.json');
    fs.mkdirSync(path.dirname(settings));
    fs.writeFileSync(settings, '{"model": "opus"}\n', { mode: 0o444 });
    const c = rawr(['hooks', 'claude', 'install', '--write'], { cwd: dir });
    assert.equal(c.code, 1, c.stdout);
    assert.match(c.stderr, /settings\.local\.json is read-only \(mode 0444\); nothing written/);
    assert.equal(fs.readFileSync(settings, 'utf8'), '{"model": "opus"}\n');
    assert.equal(fs.statSync(settings).mode & 0o777, 0o444);
    assert.ok(!fs.existsSync(`${settings}.rawr-backup`), 'no backup either');

    const home = path.join(dir, 'codex');
    fs.mkdirSync(home);
    const hooks = path.join(home, 'hooks.json');
    fs.writeFileSync(hooks, '{}\n', { mode: 0o444 });
    const h = rawr(['hooks', 'codex', 'install', '--write'], { env: { CODEX_HOME: home } });
    assert.equal(h.code, 1);
    assert.match(h.stderr, /hooks\.json is read-only/);
    assert.equal(fs.readFileSync(hooks, 'utf8'), '{}\n');

    fs.chmodSync(hooks, 0o644);
    const toml = path.join(home, 'config.toml');
    fs.writeFileSync(toml, 'model = "o4"\n', { mode: 0o444 });
    const t = rawr(['hooks', 'codex', 'install', '--write', '--trust'], { env: { CODEX_HOME: home } });
    assert.equal(t.code, 1);
    assert.match(t.stderr, /config\.toml is read-only/);
    assert.doesNotMatch(t.stdout + t.stderr, /Codex hooks in /, 'the hooks write was taken back: no line may say the hooks are in hooks.json');
    assert.equal(fs.readFileSync(toml, 'utf8'), 'model = "o4"\n');
    assert.equal(fs.readFileSync(hooks, 'utf8'), '{}\n', 'all or nothing: no hooks.json with hooks Codex would skip untrusted');
    assert.deepEqual(fs.readdirSync(home).sort(), ['config.toml', 'hooks.json'], 'no .rawr record or backup left');
  });
});

describe('hardening: --trust edits config.toml through a TOML parser', function () {
  this.timeout(60_000);
  let home = '';
  beforeEach(() => {
    home = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'rawr-codex-trust-'));
  });
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));
  const trust = () => rawr(['hooks', 'codex', 'install', '--write', '--trust'], { env: { CODEX_HOME: home } });
  const toml = () => path.join(home, 'config.toml');
  const hashes = (text: string) => (parseToml(text) as { hooks: { state: Record<string, { trusted_hash: string }> } }).hooks.state;

  it('[hooks] state = {…} as an inline table: refused (exit 1), the file untouched, the entries to add shown', () => {
    const config = 'model = "o4"\n\n[hooks]\nstate = { "/elsewhere/hooks.json:stop:0:0" = { trusted_hash = "sha256:abc" } }\n';
    fs.writeFileSync(toml(), config);
    const r = trust();
    assert.equal(r.code, 1, r.stdout);
    assert.equal(fs.readFileSync(toml(), 'utf8'), config);
    assert.match(r.stderr, /nothing written/);
    assert.match(r.stderr, /\[hooks\.state\."[^"]+hooks\.json:pre_compact:0:0"\]\ntrusted_hash = "sha256:[0-9a-f]{64}"/);
  });

  it('trust tables whose keys are literal strings are updated in place: one table per key, valid TOML', () => {
    assert.equal(trust().code, 0);
    const first = fs.readFileSync(toml(), 'utf8');
    const keys = Object.keys(hashes(first));
    assert.equal(keys.length, 4);
    // The same tables as a person (or another tool) might write them: 'literal' keys, stale hashes.
    const literal = `# my settings\nmodel = "o4"\n\n${keys.map((k) => `[hooks.state.'${k}']\ntrusted_hash = 'sha256:stale'  # old\n`).join('\n')}`;
    fs.writeFileSync(toml(), literal);
    const r = trust();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /4 of rawr's 4 hooks newly trusted/);
    const out = fs.readFileSync(toml(), 'utf8');
    assert.deepEqual(hashes(out), hashes(first), 'parses, with the current hashes');
    assert.ok(out.startsWith('# my settings\nmodel = "o4"\n'), out);
    assert.equal(out.split('[hooks.state.').length - 1, 4, `no second table for a key:\n${out}`);
  });

  it('a malformed config.toml is not "trusted": refused, untouched', () => {
    for (const bad of ['model = \n', '[hooks.state."a"\ntrusted_hash = "x"\n', 'hooks = "not a table"\n']) {
      fs.writeFileSync(toml(), bad);
      const r = trust();
      assert.equal(r.code, 1, `${bad}: ${r.stdout}`);
      assert.doesNotMatch(r.stdout, /newly trusted/);
      assert.doesNotMatch(r.stdout + r.stderr, /Codex hooks in /, `${bad}: refused as a whole, so no line says the hooks are installed`);
      assert.equal(fs.readFileSync(toml(), 'utf8'), bad);
    }
  });

  it('applyTrust: whatever the file, the text it returns parses and holds every entry', () => {
    const entries = [
      { key: '/h/hooks.json:pre_compact:0:0', hash: 'sha256:aa' },
      { key: '/h/it\'s "odd".json:post_compact:0:0', hash: 'sha256:bb' },
    ];
    const files = [
      '',
      'a = 1',
      '[hooks]\nother = 1\n',
      '[hooks.state]\n',
      "[hooks.state.'/h/hooks.json:pre_compact:0:0']\nenabled = true\n",
      '[hooks.state."/h/hooks.json:pre_compact:0:0"] # trust\n"trusted_hash" = "sha256:zz"\n[x]\ny = 1979-05-27\n',
      'x = """\n[hooks.state."/h/hooks.json:pre_compact:0:0"]\ntrusted_hash = "no"\n"""\n',
      '[hooks]\nstate = {}\n',
      'hooks.state."/h/hooks.json:pre_compact:0:0".trusted_hash = "x"\n',
    ];
    for (const f of files) {
      const r = applyTrust(f, entries);
      if (!r.ok) {
        assert.match(r.reason, /nothing written/, f);
        continue;
      }
      const state = hashes(r.text);
      for (const e of entries) assert.equal(state[e.key]?.trusted_hash, e.hash, `${f} →\n${r.text}`);
    }
    assert.ok(applyTrust(files[5]!, entries).ok, 'a quoted key and a comment after the header are found');
  });
});
