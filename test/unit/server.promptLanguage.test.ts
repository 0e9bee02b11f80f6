import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Diagnostic } from 'vscode-languageserver-types';
import { shippedPromptsDir } from '../../src/core/prompts/fs';
import { PROMPT_FILES } from '../../src/core/prompts/promptSet';
import { DEFAULT_SETTINGS, MID_TURN_POLICIES, MODES, SETTING_DOCS, type SettingKey } from '../../src/core/settings/schema';
import { BOUNDARY_KINDS } from '../../src/core/signals/types';
import { promptCompletions, promptDiagnostics, promptHover } from '../../src/server/promptLanguage';

const POLICY = '/ws/.rawr/prompts/rawr-auto-compact.md';
const KNOBS = Object.keys(SETTING_DOCS) as SettingKey[];
/** A policy file as a user edits it: `---` on line 0, the YAML lines from line 1, then the body. */
const policy = (yamlLines: string[]) => `---\n${yamlLines.join('\n')}\n---\nWrite your packet.\n`;
const msg = (d: Diagnostic) => (typeof d.message === 'string' ? d.message : d.message.value);
/** 0-based [line, character] of each diagnostic's start, with its severity and message. */
const starts = (text: string, file = POLICY) =>
  promptDiagnostics(text, file).map((d) => ({ at: [d.range.start.line, d.range.start.character], severity: d.severity, message: msg(d) }));
const labels = (text: string, line: number, character: number, file?: string) => promptCompletions(text, line, character, file).map((c) => c.label);
const hoverText = (text: string, line: number, character: number, file?: string) => {
  const h = promptHover(text, line, character, file);
  return h && typeof h.contents === 'object' && 'value' in h.contents ? h.contents.value : undefined;
};

describe('prompt language: diagnostics', () => {
  it('the shipped prompt files have none', () => {
    const dir = shippedPromptsDir();
    for (const name of Object.values(PROMPT_FILES)) {
      const file = path.join(dir, name);
      assert.deepEqual(promptDiagnostics(fs.readFileSync(file, 'utf8'), file), [], name);
    }
  });

  it('malformed YAML: an unclosed flow sequence is reported at its opening bracket, as an error', () => {
    const text = policy(['mode: auto', 'packet_author: [agent', 'cooldown_turns: 2']);
    const d = promptDiagnostics(text, POLICY);
    assert.equal(d.length, 1);
    assert.deepEqual(d[0]!.range.start, { line: 2, character: 15 });
    assert.deepEqual(d[0]!.range.end, { line: 2, character: 21 }, 'underlines `[agent`');
    assert.equal(d[0]!.severity, 1);
    assert.equal(d[0]!.source, 'rawr');
    assert.match(msg(d[0]!), /^YAML: Flow sequence/);
  });

  it('malformed YAML: an unclosed quote, in a template file too', () => {
    const text = '---\ndescription: "the heads-up\nplaceholders: [tier]\n---\nbody\n';
    const d = starts(text, '/ws/rawr-heads-up.md');
    assert.equal(d.length, 1);
    assert.deepEqual(d[0]!.at, [1, 13]);
    assert.match(d[0]!.message, /^YAML: Missing closing "quote/);
  });

  it('out-of-range and invalid values: an error at the value, naming the key, the rule and the default', () => {
    const text = policy([
      'mode: automatic',
      'early_percent_remaining_lt: 145',
      'cooldown_turns: 1.5',
      'auto_requires_any_boundary:',
      '  early: [commit, lunch]',
    ]);
    assert.deepEqual(starts(text), [
      { at: [1, 6], severity: 1, message: 'invalid value for "mode": Invalid option: expected one of "off"|"tag"|"suggest"|"auto"; using default "auto"' },
      { at: [2, 28], severity: 1, message: 'invalid value for "early_percent_remaining_lt": Too big: expected number to be <=100; using default 45' },
      { at: [3, 16], severity: 1, message: 'invalid value for "cooldown_turns": Invalid input: expected int, received number; using default 2' },
      {
        at: [5, 2],
        severity: 1,
        message: `invalid value for "auto_requires_any_boundary" at auto_requires_any_boundary.early.1: Invalid option: expected one of ${BOUNDARY_KINDS.map((k) => `"${k}"`).join('|')}; using default ${JSON.stringify(DEFAULT_SETTINGS.auto_requires_any_boundary)}`,
      },
    ]);
    const d = promptDiagnostics(text, POLICY);
    assert.deepEqual(d[0]!.range.end, { line: 1, character: 15 }, 'underlines `automatic`');
  });

  it('crossed tier thresholds: one error at the early threshold', () => {
    const text = policy(['early_percent_remaining_lt: 20', 'ready_percent_remaining_lt: 35']);
    const d = starts(text);
    assert.equal(d.length, 1);
    assert.deepEqual(d[0]!.at, [1, 28]);
    assert.match(d[0]!.message, /^tier thresholds must satisfy emergency < asap < ready < early/);
  });

  it('unknown keys: a warning, and a value comment is not underlined', () => {
    const text = policy(['mode: auto', 'cooldown_turn: 3   # typo']);
    const d = promptDiagnostics(text, POLICY);
    assert.equal(d.length, 1);
    assert.equal(d[0]!.severity, 2);
    assert.equal(msg(d[0]!), 'unknown setting "cooldown_turn" (ignored)');
    assert.deepEqual(d[0]!.range, { start: { line: 2, character: 15 }, end: { line: 2, character: 16 } });
  });

  it('a frontmatter that is not a mapping; a template file with a wrongly typed key; CRLF line ends', () => {
    assert.deepEqual(starts(policy(['- mode', '- auto'])), [{ at: [1, 0], severity: 1, message: 'frontmatter must be a mapping of key: value' }]);
    const tpl = starts('---\ndescription: the handoff\nplaceholders: packet\n---\nbody\n', '/ws/rawr-handoff.md');
    assert.equal(tpl.length, 1);
    assert.deepEqual(tpl[0]!.at, [2, 14]);
    assert.equal(tpl[0]!.severity, 2);
    assert.match(tpl[0]!.message, /^frontmatter placeholders:/);
    assert.deepEqual(
      starts(policy(['mode: auto', 'min_gain_percent: -1']).replace(/\n/g, '\r\n')).map((d) => d.at),
      [[2, 18]],
    );
  });

  it('knob checks apply to the policy file only; other rawr-*.md files get YAML checks', () => {
    const text = policy(['mode: automatic']);
    assert.equal(promptDiagnostics(text, '/ws/rawr-heads-up.md').length, 0, 'a template may have any keys');
    assert.equal(promptDiagnostics(text, '/ws/rawr-notes.md').length, 0);
    assert.equal(promptDiagnostics('---\na: [\n---\n', '/ws/rawr-notes.md').length, 1);
    assert.deepEqual(promptDiagnostics('no frontmatter at all\n', POLICY), []);
  });
});

describe('prompt language: hover', () => {
  const text = policy(['mode: suggest', 'cooldown_turns: 2', 'auto_requires_any_boundary:', '  ready: [commit]', 'agent_done_markers: [all done]']);

  it('over a knob key: its documentation, default and allowed values, with the key range', () => {
    const h = promptHover(text, 1, 2, POLICY)!;
    assert.deepEqual(h.range, { start: { line: 1, character: 0 }, end: { line: 1, character: 4 } });
    assert.equal(
      hoverText(text, 1, 0),
      ['**`mode`** — rawr setting', '', SETTING_DOCS.mode, '', 'Default: `auto`  ', 'Allowed: `off` | `tag` | `suggest` | `auto`'].join('\n'),
    );
    const cooldown = hoverText(text, 2, 14)!;
    assert.ok(cooldown.includes(SETTING_DOCS.cooldown_turns));
    assert.match(cooldown, /Default: `2`/);
    assert.match(cooldown, /Allowed: a whole number from 0 to 1000/);
    const markers = hoverText(text, 5, 3)!;
    assert.match(markers, /Default: `\[all done, task complete, /);
    assert.match(markers, /a list of phrases \(1–200 characters each, at most 200\)/);
  });

  it('over a tier key under auto_requires_any_boundary: the tier and the boundary kinds', () => {
    const ready = hoverText(text, 4, 4)!;
    assert.match(ready, /auto_requires_any_boundary\.ready/);
    assert.ok(ready.includes(`Default: \`[${DEFAULT_SETTINGS.auto_requires_any_boundary.ready.join(', ')}]\``));
    for (const k of BOUNDARY_KINDS) assert.ok(ready.includes(`\`${k}\``), k);
    assert.match(hoverText(text, 3, 5)!, /Default: `early: \[commit, plan_checkpoint, pr_checkpoint\]`/);
  });

  it('nothing over a value, the body, an unknown key, or a knob in a template file', () => {
    assert.equal(promptHover(text, 1, 8), null, 'over the value');
    assert.equal(promptHover(text, 7, 1), null, 'in the body');
    assert.equal(promptHover(policy(['foo: 1']), 1, 1), null);
    assert.equal(promptHover(text, 1, 1, '/ws/rawr-heads-up.md'), null);
    assert.match(hoverText('---\ndescription: x\n---\n', 1, 3, '/ws/rawr-heads-up.md')!, /not sent to the model/);
  });
});

describe('prompt language: completion', () => {
  it('at a key position: every knob name, documented, inserted as `key: `', () => {
    const items = promptCompletions(policy(['']), 1, 0, POLICY);
    assert.deepEqual(items.map((c) => c.label).sort(), [...KNOBS].sort());
    const mode = items.find((c) => c.label === 'mode')!;
    assert.equal(mode.kind, 10);
    assert.deepEqual(mode.textEdit, { range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, newText: 'mode: ' });
    assert.ok(JSON.stringify(mode.documentation).includes('suggest: offer'));
  });

  it('a partly typed key is replaced; knobs already set are not offered again', () => {
    const text = policy(['mode: auto', 'cool']);
    const items = promptCompletions(text, 2, 4, POLICY);
    assert.ok(!items.some((c) => c.label === 'mode'));
    assert.equal(items.length, KNOBS.length - 1);
    const c = items.find((i) => i.label === 'cooldown_turns')!;
    assert.deepEqual(c.textEdit, { range: { start: { line: 2, character: 0 }, end: { line: 2, character: 4 } }, newText: 'cooldown_turns: ' });
    // Renaming an existing key: the colon is already there.
    const rename = promptCompletions(policy(['cooldown_turns: 3']), 1, 3, POLICY).find((i) => i.label === 'cooldown_seconds')!;
    assert.deepEqual(rename.textEdit, { range: { start: { line: 1, character: 0 }, end: { line: 1, character: 14 } }, newText: 'cooldown_seconds' });
  });

  it('enum values after mode:, packet_author:, mid_turn_policy:, and true/false for switches', () => {
    assert.deepEqual(labels(policy(['mode: ']), 1, 6), [...MODES]);
    assert.deepEqual(labels(policy(['mode: su']), 1, 8), [...MODES]);
    assert.deepEqual(labels(policy(['packet_author: ']), 1, 15), ['agent', 'watcher']);
    assert.deepEqual(labels(policy(['mid_turn_policy: ']), 1, 17), [...MID_TURN_POLICIES]);
    assert.deepEqual(labels(policy(['judgment_enabled: ']), 1, 18), ['true', 'false']);
    assert.deepEqual(labels(policy(['cooldown_turns: ']), 1, 16), [], 'numbers have no enum');
    const item = promptCompletions(policy(['mode: su']), 1, 8)[2]!;
    assert.deepEqual(item.textEdit, { range: { start: { line: 1, character: 6 }, end: { line: 1, character: 8 } }, newText: 'suggest' });
  });

  it('boundary kinds under auto_requires_any_boundary: block lists, flow lists, flow mappings; tier names as keys', () => {
    const kinds = [...BOUNDARY_KINDS];
    assert.deepEqual(labels(policy(['auto_requires_any_boundary:', '  early: [commit, ']), 2, 18), kinds);
    assert.deepEqual(labels(policy(['auto_requires_any_boundary:', '  ready:', '    - ']), 3, 6), kinds);
    assert.deepEqual(labels(policy(['auto_requires_any_boundary:', '  asap:', '  - pl']), 3, 6), kinds, 'a sequence at the key’s own indentation');
    assert.deepEqual(labels(policy(['auto_requires_any_boundary: {early: [commit, ']), 1, 45), kinds);
    assert.deepEqual(labels(policy(['auto_requires_any_boundary: {early: [commit], re']), 1, 48), ['early', 'ready', 'asap']);
    assert.deepEqual(labels(policy(['auto_requires_any_boundary:', '  ']), 2, 2), ['early', 'ready', 'asap']);
    assert.deepEqual(labels(policy(['auto_requires_any_boundary:', '  early: [commit]', '  rea']), 3, 5), ['early', 'ready', 'asap']);
  });

  it('nothing outside the frontmatter, in comments, in free lists, or for knobs in a template file', () => {
    const text = policy(['mode: auto', '# a comment', 'agent_done_markers: [']);
    assert.deepEqual(labels(text, 0, 0), [], 'on the fence');
    assert.deepEqual(labels(text, 5, 3), [], 'in the body');
    assert.deepEqual(labels(text, 2, 5), []);
    assert.deepEqual(labels(text, 3, 21), []);
    assert.deepEqual(labels(policy(['']), 1, 0, '/ws/rawr-handoff.md'), ['description', 'placeholders']);
    assert.deepEqual(labels(policy(['mode: ']), 1, 6, '/ws/rawr-handoff.md'), []);
  });
});
