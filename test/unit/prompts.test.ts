import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseFrontmatter } from '../../src/core/prompts/frontmatter';
import { FALLBACK_BODIES } from '../../src/core/prompts/fallbacks';
import { dirReader, shippedPromptsDir } from '../../src/core/prompts/fs';
import { fillTemplate, loadPromptSet, PROMPT_FILES, type PromptName, type PromptReader } from '../../src/core/prompts/promptSet';
import { DEFAULT_SETTINGS } from '../../src/core/settings/schema';

const SHIPPED = shippedPromptsDir();
const NAMES = Object.keys(PROMPT_FILES) as PromptName[];
const shippedBody = (name: PromptName) => parseFrontmatter(fs.readFileSync(path.join(SHIPPED, PROMPT_FILES[name]), 'utf8'), 'x').body.trim();
const placeholdersIn = (text: string) => [...new Set([...text.matchAll(/\{([A-Za-z][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!))].sort();

/** A workspace override folder (like <workspace>/.rawr/prompts) holding the given files. */
let tmpDirs: string[] = [];
function workspace(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-prompts-'));
  tmpDirs.push(dir);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text, 'utf8');
  return dir;
}
const withOverride = (dir: string) => loadPromptSet([dirReader(dir), dirReader(SHIPPED)]);

/** The auto-compact file as a user would edit it: frontmatter lines (after the `---` on line 1), then a body. */
const autoCompact = (yamlLines: string[], body = 'Write your packet with the four sections.') => `---\n${yamlLines.join('\n')}\n---\n${body}\n`;

/** Removes this file's temp folders (called inside each describe: a file-level hook would apply to every file). */
function cleanTmpDirs() {
  afterEach(() => {
    for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
    tmpDirs = [];
  });
}

describe('prompts: the shipped set', () => {
  cleanTmpDirs();
  it('loads all seven files with no problems, every body non-empty and not the built-in fallback', () => {
    const set = loadPromptSet([dirReader(SHIPPED)]);
    assert.deepEqual(set.problems, []);
    for (const n of NAMES) {
      assert.equal(set.sources[n], path.join(SHIPPED, PROMPT_FILES[n]));
      assert.ok(set.prompts[n].length > 40, n);
      assert.notEqual(set.prompts[n], FALLBACK_BODIES[n], n);
      assert.ok(!set.prompts[n].startsWith('---'), `${n}: frontmatter leaked into the body`);
    }
  });

  it('each template declares exactly the placeholders its body uses, and the fallbacks use no others', () => {
    for (const n of NAMES) {
      const file = path.join(SHIPPED, PROMPT_FILES[n]);
      const parsed = parseFrontmatter(fs.readFileSync(file, 'utf8'), file);
      const declared = ((parsed.data?.placeholders as string[] | undefined) ?? []).slice().sort();
      assert.deepEqual(placeholdersIn(parsed.body), declared, n);
      for (const p of placeholdersIn(FALLBACK_BODIES[n])) assert.ok(declared.includes(p), `${n} fallback uses undeclared {${p}}`);
    }
  });
});

describe('prompts: workspace overrides', () => {
  cleanTmpDirs();
  it('an override of rawr-heads-up.md wins over the shipped one, and sources says so', () => {
    const body = 'HEADS UP from the workspace: {tier} at {percentRemaining}% because {reason} ({boundary}).';
    const dir = workspace({ 'rawr-heads-up.md': `---\ndescription: team wording\nplaceholders: [reason, tier, percentRemaining, boundary]\n---\n${body}\n` });
    const set = withOverride(dir);
    assert.deepEqual(set.problems, []);
    assert.equal(set.prompts.headsUp, body);
    assert.equal(set.sources.headsUp, path.join(dir, 'rawr-heads-up.md'));
    // Only that one file moved; everything else is still the shipped text and the default settings.
    for (const n of NAMES.filter((x) => x !== 'headsUp')) {
      assert.equal(set.sources[n], path.join(SHIPPED, PROMPT_FILES[n]), n);
      assert.equal(set.prompts[n], shippedBody(n), n);
    }
    assert.deepEqual(set.settings, DEFAULT_SETTINGS);
  });

  it('reader order decides: the shipped folder first means the override is not used', () => {
    const dir = workspace({ 'rawr-heads-up.md': '---\ndescription: x\n---\nworkspace text\n' });
    const set = loadPromptSet([dirReader(SHIPPED), dirReader(dir)]);
    assert.equal(set.sources.headsUp, path.join(SHIPPED, 'rawr-heads-up.md'));
    assert.equal(set.prompts.headsUp, shippedBody('headsUp'));
  });

  it('an override of rawr-auto-compact.md sets its knobs; knobs it omits are defaults (not the shipped file)', () => {
    const dir = workspace({ 'rawr-auto-compact.md': autoCompact(['mode: suggest', 'cooldown_turns: 4', 'topic_shift_markers: [onward]']) });
    const set = withOverride(dir);
    assert.deepEqual(set.problems, []);
    assert.deepEqual(set.settings, { ...DEFAULT_SETTINGS, mode: 'suggest', cooldown_turns: 4, topic_shift_markers: ['onward'] });
    assert.equal(set.prompts.packetRequest, 'Write your packet with the four sections.');
    assert.equal(set.sources.packetRequest, path.join(dir, 'rawr-auto-compact.md'));
  });

  it('a Windows-edited override (CRLF line ends, UTF-8 BOM) is read the same', () => {
    const text = '\uFEFF---\r\nmode: tag\r\ncooldown_seconds: 60\r\n---\r\nPacket please.\r\n';
    const dir = workspace({ 'rawr-auto-compact.md': text });
    const set = withOverride(dir);
    assert.deepEqual(set.problems, []);
    assert.equal(set.settings.mode, 'tag');
    assert.equal(set.settings.cooldown_seconds, 60);
    assert.equal(set.prompts.packetRequest, 'Packet please.');
  });

  it('an empty frontmatter block (`---` directly followed by `---`) is not part of the body', () => {
    const dir = workspace({ 'rawr-heads-up.md': '---\n---\nJust the body {tier}.\n' });
    const set = withOverride(dir);
    assert.deepEqual(set.problems, []);
    assert.equal(set.prompts.headsUp, 'Just the body {tier}.');
  });

  it('a file without frontmatter is all body', () => {
    const dir = workspace({ 'rawr-handoff.md': 'Plain handoff:\n{packet}\n' });
    const set = withOverride(dir);
    assert.deepEqual(set.problems, []);
    assert.equal(set.prompts.handoff, 'Plain handoff:\n{packet}');
  });
});

describe('prompts: malformed YAML → safe defaults and a located problem', () => {
  cleanTmpDirs();
  // Each case: the YAML lines, and where (1-based, in the FILE: line 1 is the opening `---`) the offending text is.
  const cases: Array<{ name: string; yaml: string[]; line: number; column: number; message: RegExp }> = [
    {
      name: 'unclosed flow sequence `mode: [auto`',
      yaml: ['# policy', 'cooldown_turns: 4', 'mode: [auto', 'packet_author: watcher'],
      line: 4, // `---`, `# policy`, `cooldown_turns: 4`, `mode: [auto`
      column: 7, // the `[`
      message: /Flow sequence.*\]/,
    },
    {
      name: 'unclosed flow mapping in a nested knob',
      yaml: ['mode: tag', 'auto_requires_any_boundary: {early: [commit]', 'cooldown_turns: 4'],
      line: 3,
      column: 29,
      message: /Flow map/,
    },
    {
      name: 'tab-indented mapping',
      yaml: ['mode: tag', 'auto_requires_any_boundary:', '\tearly: [commit]', '\tready: [commit]', '\tasap: [commit]'],
      line: 4,
      column: 1,
      message: /[Tt]ab/,
    },
    {
      name: 'duplicate key',
      yaml: ['mode: tag', 'cooldown_turns: 4', 'judgment_enabled: false', 'cooldown_turns: 6'],
      line: 5, // the second `cooldown_turns`
      column: 1,
      message: /unique/,
    },
    {
      name: 'unterminated quoted string',
      yaml: ['mode: tag', 'agent_done_markers: ["all done, task complete]', 'cooldown_turns: 4'],
      line: 3,
      column: 22, // the opening `"`
      message: /Missing closing "quote/,
    },
  ];

  for (const c of cases) {
    it(c.name, () => {
      const dir = workspace({ 'rawr-auto-compact.md': autoCompact(c.yaml) });
      const file = path.join(dir, 'rawr-auto-compact.md');
      const set = withOverride(dir);
      // Nothing from a broken frontmatter is trusted: every knob is the default.
      assert.deepEqual(set.settings, DEFAULT_SETTINGS);
      const mine = set.problems.filter((p) => p.file === file);
      assert.ok(mine.length >= 1, JSON.stringify(set.problems));
      const first = mine[0]!;
      assert.equal(first.severity, 'error');
      assert.match(first.message, /^YAML: /);
      assert.match(first.message, c.message);
      assert.deepEqual({ line: first.line, column: first.column }, { line: c.line, column: c.column }, first.message);
      // The file's own text still sits at that location (a sanity check of the expectation itself).
      const fileLine = fs.readFileSync(file, 'utf8').split('\n')[c.line - 1]!;
      assert.ok(fileLine.length >= c.column - 1);
      // The body below the broken frontmatter is still this file's body.
      assert.equal(set.prompts.packetRequest, 'Write your packet with the four sections.');
    });
  }

  it('the located columns point at the offending text', () => {
    const dir = workspace({ 'rawr-auto-compact.md': autoCompact(['cooldown_turns: 4', 'mode: [auto', 'packet_author: watcher']) });
    const file = path.join(dir, 'rawr-auto-compact.md');
    const p = withOverride(dir).problems.find((x) => x.file === file)!;
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    assert.equal(lines[p.line - 1]!.slice(p.column - 1), '[auto');
  });

  it('a frontmatter that is a list, not a mapping: defaults, one problem on line 2', () => {
    const dir = workspace({ 'rawr-auto-compact.md': autoCompact(['- mode: tag', '- cooldown_turns: 4']) });
    const set = withOverride(dir);
    assert.deepEqual(set.settings, DEFAULT_SETTINGS);
    assert.deepEqual(
      set.problems.map((p) => [p.line, p.column, p.severity]),
      [[2, 1, 'error']],
    );
    assert.match(set.problems[0]!.message, /mapping/);
  });
});

describe('prompts: invalid knob values are located in the file', () => {
  cleanTmpDirs();
  it('early_percent_remaining_lt: 400 on line 5 → problem at line 5, default kept, other knobs from the file kept', () => {
    const yaml = [
      '# Team policy for this repository', // line 2
      'mode: suggest', // line 3
      'cooldown_turns: 4', // line 4
      'early_percent_remaining_lt: 400', // line 5
      'ready_percent_remaining_lt: 30', // line 6
      'judgment_enabled: false', // line 7
    ];
    const dir = workspace({ 'rawr-auto-compact.md': autoCompact(yaml) });
    const file = path.join(dir, 'rawr-auto-compact.md');
    const set = withOverride(dir);
    assert.equal(set.problems.length, 1, JSON.stringify(set.problems));
    const p = set.problems[0]!;
    assert.equal(p.file, file);
    assert.equal(p.line, 5);
    assert.equal(p.column, 'early_percent_remaining_lt: '.length + 1); // the value `400`
    assert.equal(p.severity, 'error');
    assert.match(p.message, /"early_percent_remaining_lt"/);
    assert.match(p.message, /using default 45/);
    assert.equal(set.settings.early_percent_remaining_lt, 45);
    assert.equal(set.settings.mode, 'suggest');
    assert.equal(set.settings.cooldown_turns, 4);
    assert.equal(set.settings.ready_percent_remaining_lt, 30);
    assert.equal(set.settings.judgment_enabled, false);
  });

  it('a bad nested value is located at its knob', () => {
    const yaml = ['mode: auto', 'auto_requires_any_boundary:', '  early: [commit, deploy]', '  ready: [commit]', '  asap: [commit]', 'cooldown_turns: 3'];
    const dir = workspace({ 'rawr-auto-compact.md': autoCompact(yaml) });
    const set = withOverride(dir);
    assert.equal(set.problems.length, 1, JSON.stringify(set.problems));
    const p = set.problems[0]!;
    assert.match(p.message, /auto_requires_any_boundary\.early\.1/);
    // The knob's value starts on line 4 (`  early: …`), right below `auto_requires_any_boundary:` on line 3.
    assert.deepEqual([p.line, p.column], [4, 3]);
    assert.deepEqual(set.settings.auto_requires_any_boundary, DEFAULT_SETTINGS.auto_requires_any_boundary);
    assert.equal(set.settings.cooldown_turns, 3);
  });

  it('an unknown key is a warning at its own line', () => {
    const yaml = ['mode: tag', 'cooldown_turns: 4', 'cooldown_minutes: 5'];
    const dir = workspace({ 'rawr-auto-compact.md': autoCompact(yaml) });
    const set = withOverride(dir);
    assert.equal(set.problems.length, 1);
    assert.deepEqual({ line: set.problems[0]!.line, severity: set.problems[0]!.severity }, { line: 4, severity: 'warning' });
    assert.match(set.problems[0]!.message, /unknown setting "cooldown_minutes"/);
    assert.equal(set.settings.mode, 'tag');
  });

  it('crossed thresholds are located at early_percent_remaining_lt and all four reset', () => {
    const yaml = ['mode: tag', 'emergency_percent_remaining_lt: 30', 'early_percent_remaining_lt: 50'];
    const dir = workspace({ 'rawr-auto-compact.md': autoCompact(yaml) });
    const set = withOverride(dir);
    assert.equal(set.problems.length, 1);
    assert.equal(set.problems[0]!.line, 4);
    assert.match(set.problems[0]!.message, /emergency < asap < ready < early/);
    assert.equal(set.settings.early_percent_remaining_lt, 45);
    assert.equal(set.settings.emergency_percent_remaining_lt, 12);
    assert.equal(set.settings.mode, 'tag');
  });

  it('a template file whose frontmatter has a wrongly typed key: a located warning, the body still used', () => {
    const dir = workspace({ 'rawr-scratch-write.md': '---\ndescription: scratch\nplaceholders: scratchPath\n---\nWrite to {scratchPath} now.\n' });
    const set = withOverride(dir);
    assert.equal(set.problems.length, 1, JSON.stringify(set.problems));
    assert.deepEqual([set.problems[0]!.line, set.problems[0]!.column, set.problems[0]!.severity], [3, 15, 'warning']);
    assert.match(set.problems[0]!.message, /placeholders/);
    assert.equal(set.prompts.scratchWrite, 'Write to {scratchPath} now.');
  });
});

describe('prompts: missing, unreadable and empty files', () => {
  cleanTmpDirs();
  it('missing from the workspace → the shipped text', () => {
    const dir = workspace({});
    const set = withOverride(dir);
    assert.deepEqual(set.problems, []);
    for (const n of NAMES) assert.equal(set.sources[n], path.join(SHIPPED, PROMPT_FILES[n]));
  });

  it('missing everywhere → the built-in text and the default settings, no problem', () => {
    const set = loadPromptSet([dirReader(workspace({})), dirReader(path.join(os.tmpdir(), 'rawr-no-such-dir-xyz'))]);
    assert.deepEqual(set.problems, []);
    assert.deepEqual(set.prompts, FALLBACK_BODIES);
    for (const n of NAMES) assert.equal(set.sources[n], 'built-in');
    assert.deepEqual(set.settings, DEFAULT_SETTINGS);
  });

  it('a reader that throws → a problem per file, the next reader is still asked, no throw', () => {
    const broken: PromptReader = (fileName) => {
      throw Object.assign(new Error(`EACCES: permission denied, open '/ws/.rawr/prompts/${fileName}'`), { code: 'EACCES' });
    };
    const set = loadPromptSet([broken, dirReader(SHIPPED)]);
    assert.equal(set.problems.length, NAMES.length);
    for (const p of set.problems) {
      assert.equal(p.severity, 'error');
      assert.match(p.message, /^cannot read: EACCES: permission denied/);
    }
    assert.deepEqual(set.problems.map((p) => p.file).sort(), Object.values(PROMPT_FILES).sort());
    for (const n of NAMES) assert.equal(set.prompts[n], shippedBody(n));
    assert.deepEqual(set.settings, DEFAULT_SETTINGS);
  });

  it('a real unreadable file (a directory where the file should be) → a problem, shipped text used', () => {
    const dir = workspace({});
    fs.mkdirSync(path.join(dir, 'rawr-heads-up.md'));
    const set = withOverride(dir);
    assert.equal(set.problems.length, 1, JSON.stringify(set.problems));
    assert.equal(set.problems[0]!.file, 'rawr-heads-up.md');
    assert.match(set.problems[0]!.message, /^cannot read: .*rawr-heads-up\.md is a directory, not a regular file/);
    assert.equal(set.sources.headsUp, path.join(SHIPPED, 'rawr-heads-up.md'));
  });

  it('only throwing readers → all built-in, never a throw', () => {
    const set = loadPromptSet([
      () => {
        throw new Error('disk on fire');
      },
    ]);
    assert.equal(set.problems.length, NAMES.length);
    assert.deepEqual(set.prompts, FALLBACK_BODIES);
    assert.deepEqual(set.settings, DEFAULT_SETTINGS);
  });

  it('empty body (frontmatter only, or whitespace) → the built-in fallback body; settings still from the file', () => {
    const dir = workspace({
      'rawr-auto-compact.md': '---\nmode: tag\n---\n',
      'rawr-handoff.md': '---\ndescription: nothing here\n---\n   \n\n\t\n',
      'rawr-judgment-nonexistent.md': 'ignored',
      'rawr-compaction-summary.md': '',
    });
    const set = withOverride(dir);
    assert.deepEqual(set.problems, []);
    assert.equal(set.prompts.packetRequest, FALLBACK_BODIES.packetRequest);
    assert.equal(set.prompts.handoff, FALLBACK_BODIES.handoff);
    assert.equal(set.prompts.compactionSummary, FALLBACK_BODIES.compactionSummary);
    assert.equal(set.sources.handoff, path.join(dir, 'rawr-handoff.md'));
    assert.equal(set.settings.mode, 'tag');
  });
});

describe('prompts: parseFrontmatter', () => {
  cleanTmpDirs();
  it("locate() gives the 1-based file line and column of a key's value", () => {
    const text = '---\nmode: tag\nauto_requires_any_boundary:\n  early: [commit]\ncooldown_turns:    7\n---\nbody\n';
    const p = parseFrontmatter(text, 'f.md');
    assert.deepEqual(p.problems, []);
    assert.deepEqual(p.locate('mode'), { line: 2, column: 7 });
    assert.deepEqual(p.locate('auto_requires_any_boundary'), { line: 4, column: 3 });
    assert.deepEqual(p.locate('cooldown_turns'), { line: 5, column: 20 });
    assert.equal(p.body, 'body\n');
  });

  it('a `---` inside the body is body text, not another fence', () => {
    const p = parseFrontmatter('---\nmode: tag\n---\nline one\n---\nline two\n', 'f.md');
    assert.deepEqual(p.data, { mode: 'tag' });
    assert.equal(p.body, 'line one\n---\nline two\n');
  });
});

describe('prompts: fillTemplate', () => {
  cleanTmpDirs();
  it('replaces known placeholders, numbers included, every occurrence', () => {
    assert.equal(
      fillTemplate('Heads-up ({boundary}; tier {tier}, {percentRemaining}% left). Tier again: {tier}.', {
        boundary: 'commit a1b2c3d',
        tier: 'ready',
        percentRemaining: 31.4,
      }),
      'Heads-up (commit a1b2c3d; tier ready, 31.4% left). Tier again: ready.',
    );
  });

  it('leaves unknown placeholders intact so a typo stays visible', () => {
    assert.equal(fillTemplate('{tier} / {teir} / {x}', { tier: 'asap' }), 'asap / {teir} / {x}');
  });

  it('does not look up Object.prototype names', () => {
    assert.equal(fillTemplate('{constructor} {toString} {tier}', { tier: 'early' }), '{constructor} {toString} early');
  });

  it('does not re-expand placeholders that appear inside substituted values', () => {
    // An agent's packet quoting a template must reach the model verbatim.
    const out = fillTemplate('<packet>\n{packet}\n</packet>\n{scratchLine}', {
      packet: 'I edited the template: "tier {tier}, see {scratchLine}" and {packet}',
      scratchLine: 'Notes: .scratch/agent.md',
      tier: 'SHOULD-NOT-APPEAR',
    });
    assert.equal(out, '<packet>\nI edited the template: "tier {tier}, see {scratchLine}" and {packet}\n</packet>\nNotes: .scratch/agent.md');
  });

  it('values containing `$&` or `$1` are inserted literally', () => {
    assert.equal(fillTemplate('cost: {amount}', { amount: '$& and $1 and $$' }), 'cost: $& and $1 and $$');
  });

  it('braces that are not placeholders (JSON, `{ x }`, `{1a}`) are untouched', () => {
    const t = 'Output {"should_compact": boolean} { tier } {1a} {tier}';
    assert.equal(fillTemplate(t, { tier: 'asap', '1a': 'no' }), 'Output {"should_compact": boolean} { tier } {1a} asap');
  });

  it('the shipped heads-up fills completely with the variables rawr provides', () => {
    const set = loadPromptSet([dirReader(SHIPPED)]);
    const out = fillTemplate(set.prompts.headsUp, { reason: 'commit landed', tier: 'ready', percentRemaining: 33, boundary: 'commit abc1234' });
    assert.deepEqual(placeholdersIn(out), []);
    assert.match(out, /tier ready, 33% of context left/);
  });
});
