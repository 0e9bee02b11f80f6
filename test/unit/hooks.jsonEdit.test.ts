/**
 * What `rawr hooks … install --write` and `uninstall` do to the text of a person's settings file, byte for
 * byte (jsonEdit.ts): the layout they chose — tabs or spaces, CRLF, one line, comments — is the layout of
 * what rawr adds, and what rawr removes takes nothing of theirs with it. hardening.installers checks that
 * every edit parses to what was intended; these check the text around it.
 */
import * as assert from 'node:assert/strict';
import { editJson, parseJsonc } from '../../src/core/hooks/shared/jsonEdit';

/** The file's text after `change` of what it parses to. */
function edit(text: string, change: (value: any) => unknown): string {
  const parsed = parseJsonc(text);
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.reason);
  const r = editJson(text, parsed.value, change(structuredClone(parsed.value)));
  assert.ok(r.ok, r.ok ? '' : r.reason);
  return r.text;
}

const RAWR_ENTRY = [{ hooks: [{ type: 'command', command: 'rawr x' }] }];

describe('jsonEdit: the person’s layout and comments, byte for byte', () => {
  it("install, the person's own change, uninstall: their comments and their change are where they left them", () => {
    const mine =
      '{\n  "model": "opus", // my model\n  "hooks": {\n    "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "audit" }] }] // audit\n  }\n}\n';
    const installed = edit(mine, (o) => ({ ...o, hooks: { ...o.hooks, PreCompact: RAWR_ENTRY }, autoCompactWindow: 1_000_000 }));
    assert.ok(installed.startsWith('{\n  "model": "opus", // my model\n  "hooks": {\n    "PreToolUse": [{ "matcher": "Bash"'), installed);
    assert.ok(installed.includes('\n    "PreCompact": [\n      {\n        "hooks": [\n'), `rawr's entry laid out in the file's two spaces:\n${installed}`);
    const theirChange = installed.replace('"opus"', '"sonnet"');
    const uninstalled = edit(theirChange, (o) => {
      delete o.hooks.PreCompact;
      delete o.autoCompactWindow;
      return o;
    });
    assert.equal(uninstalled, mine.replace('"opus"', '"sonnet"'));
  });

  it('a file indented with tabs and ending lines with CRLF gets tabs and CRLF; its comment stays', () => {
    const out = edit('{\r\n\t// mine\r\n\t"model": "opus"\r\n}\r\n', (o) => ({ ...o, hooks: { PreCompact: RAWR_ENTRY } }));
    assert.equal(
      out,
      '{\r\n\t// mine\r\n\t"model": "opus",\r\n\t"hooks": {\r\n\t\t"PreCompact": [\r\n\t\t\t{\r\n\t\t\t\t"hooks": [\r\n\t\t\t\t\t{\r\n' +
        '\t\t\t\t\t\t"type": "command",\r\n\t\t\t\t\t\t"command": "rawr x"\r\n\t\t\t\t\t}\r\n\t\t\t\t]\r\n\t\t\t}\r\n\t\t]\r\n\t}\r\n}\r\n',
    );
  });

  it('a file indented with four spaces gets four (read from the first indented line); none indented: two; a file on one line stays on one line', () => {
    assert.equal(
      edit('{ "a": 1,\n    "z": 0\n}\n', (o) => ({ ...o, b: { c: [1] } })),
      '{ "a": 1,\n    "z": 0,\n    "b": {\n        "c": [\n            1\n        ]\n    }\n}\n',
    );
    assert.equal(
      edit('{\n"a": 1\n}\n', (o) => ({ ...o, b: [1] })),
      '{\n"a": 1,\n"b": [\n  1\n]\n}\n',
      'as the file: its keys at the margin, two spaces inside',
    );
    assert.equal(
      edit('{"model": "opus"}', (o) => ({ ...o, hooks: { A: [1] } })),
      '{"model": "opus","hooks": {"A":[1]}}',
    );
    assert.equal(
      edit('{"model": "opus"}\n', (o) => ({ ...o, hooks: { A: [1] } })),
      '{"model": "opus","hooks": {"A":[1]}}\n',
      'its newline at the end does not make it two lines',
    );
  });

  it("removing an element from a list's middle takes its own line and comment, not a neighbour's", () => {
    assert.equal(
      edit('[\n  "a", // first\n  "b", // second\n  "c" // third\n]\n', () => ['a', 'c']),
      '[\n  "a", // first\n  "c" // third\n]\n',
    );
    assert.equal(
      edit('{\n  "a": 1, // one\n  "b": 2, // two\n  "c": 3\n}\n', ({ b: _b, ...rest }) => rest),
      '{\n  "a": 1, // one\n  "c": 3\n}\n',
    );
    assert.equal(
      edit('{\n  "a": 1\n}\n', () => ({})),
      '{}\n',
    );
  });

  it('an element inserted or changed in the middle of a list: the others keep their text (1.0 stays 1.0)', () => {
    assert.equal(
      edit('[\n  "a",\n  "c"\n]\n', () => ['a', 'b', 'c']),
      '[\n  "a",\n  "b",\n  "c"\n]\n',
    );
    assert.equal(
      edit('[1.0, {"x": 2, "y": 1.50}, 3.0]', () => [1, { x: 3, y: 1.5 }, 3]),
      '[1.0, {"x": 3, "y": 1.50}, 3.0]',
    );
    assert.equal(
      edit('[1.0, 7, 2.0, 7, 3.0]', () => [1, 2, 7, 3]),
      '[1.0, 2.0, 7, 3.0]',
      'aligned on the longest run of equal elements',
    );
  });

  it('a list edited at random keeps the text of every element on a longest run of equal ones, and only those (the alignment is minimal)', () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    /** The length of a longest common subsequence, by the textbook recurrence. */
    const lcs = (a: number[], b: number[]) => {
      const t = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
      for (let i = 1; i <= a.length; i++)
        for (let j = 1; j <= b.length; j++) t[i]![j] = a[i - 1] === b[j - 1] ? t[i - 1]![j - 1]! + 1 : Math.max(t[i - 1]![j]!, t[i]![j - 1]!);
      return t[a.length]![b.length]!;
    };
    for (let n = 0; n < 600; n++) {
      const before = Array.from({ length: rnd(17) }, () => rnd(5));
      const after = before.filter(() => rnd(4) > 0).map((x) => (rnd(5) === 0 ? rnd(5) : x));
      for (let k = rnd(7); k > 0; k--) after.splice(rnd(after.length + 1), 0, rnd(5));
      // Each element written as "2.0": an element the edit leaves alone keeps that text; one it writes is "2".
      const text = `[\n  ${before.map((x) => `${x}.0`).join(',\n  ')}\n]\n`;
      const out = edit(text, () => after);
      assert.equal(out.split('.0').length - 1, lcs(before, after), `case ${n}: ${JSON.stringify(before)} -> ${JSON.stringify(after)}\n${out}`);
    }
  });

  it('lists up to 500 elements are aligned element by element; a longer one is written whole (the alignment is quadratic)', () => {
    const list = (n: number) => `[${Array.from({ length: n }, (_, i) => (i === 0 ? '1.50' : String(i))).join(', ')}]`;
    for (const n of [500, 501]) {
      const text = list(n);
      const out = edit(text, (a: number[]) => a.filter((_, i) => i !== 250));
      assert.equal(out.startsWith('[1.50, 1, 2'), n === 500, `${n}: ${out.slice(0, 20)}`);
    }
  });

  it('a byte-order mark stays first; a file that is not JSON says why and on which line', () => {
    assert.equal(
      edit('\uFEFF{\n  "a": 1\n}\n', (o) => ({ ...o, b: 2 })),
      '\uFEFF{\n  "a": 1,\n  "b": 2\n}\n',
    );
    assert.deepEqual(parseJsonc('{\n "a": 1,\n "b" 2\n}'), { ok: false, reason: 'ColonExpected at line 3' });
    assert.deepEqual(parseJsonc('\uFEFF'), { ok: true, value: {} }, 'an empty file (a mark alone) is an empty object');
  });
});
