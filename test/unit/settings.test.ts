import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { resolveSettings } from '../../src/core/settings/load';
import { DEFAULT_SETTINGS, SETTING_DOCS, SettingsSchema, type Settings } from '../../src/core/settings/schema';
import { parseFrontmatter } from '../../src/core/prompts/frontmatter';
import { dirReader, shippedPromptsDir } from '../../src/core/prompts/fs';
import { loadPromptSet, PROMPT_FILES } from '../../src/core/prompts/promptSet';

/** A deep copy, so a test can prove that DEFAULT_SETTINGS itself was never mutated. */
const pristine: Settings = JSON.parse(JSON.stringify(DEFAULT_SETTINGS));
const KEYS = Object.keys(SettingsSchema.shape) as Array<keyof Settings>;

/** Everything in `a` except the listed keys, as a plain object (for "nothing else changed" checks). */
function without(s: Settings, ...keys: string[]): Record<string, unknown> {
  const o: Record<string, unknown> = { ...s };
  for (const k of keys) delete o[k];
  return o;
}

describe('settings: resolveSettings', () => {
  afterEach(() => {
    // No call may mutate the shared defaults (they are the fallback of every other call).
    assert.deepEqual(DEFAULT_SETTINGS, pristine);
  });

  it('no input, undefined or an empty mapping gives exactly the defaults and no issues', () => {
    for (const input of [undefined, {}]) {
      const r = resolveSettings(input);
      assert.deepEqual(r.settings, pristine);
      assert.deepEqual(r.issues, []);
    }
  });

  it('partial input: given knobs are taken, every missing knob keeps its default', () => {
    const r = resolveSettings({
      mode: 'suggest',
      cooldown_turns: 5,
      agent_done_markers: ['shipped it'],
      auto_requires_any_boundary: { early: ['commit'], ready: ['commit', 'agent_done'], asap: ['turn_complete'] },
    });
    assert.deepEqual(r.issues, []);
    assert.equal(r.settings.mode, 'suggest');
    assert.equal(r.settings.cooldown_turns, 5);
    assert.deepEqual(r.settings.agent_done_markers, ['shipped it']);
    assert.deepEqual(r.settings.auto_requires_any_boundary, { early: ['commit'], ready: ['commit', 'agent_done'], asap: ['turn_complete'] });
    assert.deepEqual(
      without(r.settings, 'mode', 'cooldown_turns', 'agent_done_markers', 'auto_requires_any_boundary'),
      without(pristine, 'mode', 'cooldown_turns', 'agent_done_markers', 'auto_requires_any_boundary'),
    );
  });

  it('a custom base is the fallback for missing and invalid knobs', () => {
    const base: Settings = { ...pristine, mode: 'tag', cooldown_turns: 7 };
    const r = resolveSettings({ cooldown_turns: -3, packet_min_chars: 500 }, base);
    assert.equal(r.settings.mode, 'tag');
    assert.equal(r.settings.cooldown_turns, 7);
    assert.equal(r.settings.packet_min_chars, 500);
    assert.equal(r.issues.length, 1);
    assert.match(r.issues[0]!.message, /using default 7$/);
  });

  it('null values (an empty YAML key `mode:`) are skipped: the default stays', () => {
    const r = resolveSettings({ mode: null, cooldown_seconds: undefined });
    assert.equal(r.settings.mode, pristine.mode);
    assert.equal(r.settings.cooldown_seconds, pristine.cooldown_seconds);
  });

  describe('one bad value costs only that knob, with a precise message', () => {
    const cases: Array<{ name: string; input: Record<string, unknown>; key: keyof Settings; message: RegExp }> = [
      {
        name: 'ready_percent_remaining_lt: 140 (above 100)',
        input: { ready_percent_remaining_lt: 140, cooldown_turns: 4, mode: 'tag' },
        key: 'ready_percent_remaining_lt',
        message: /^invalid value for "ready_percent_remaining_lt": .*<=\s*100.*; using default 35$/,
      },
      {
        name: 'cooldown_turns: -1 (negative)',
        input: { cooldown_turns: -1, ready_percent_remaining_lt: 30, mode: 'tag' },
        key: 'cooldown_turns',
        message: /^invalid value for "cooldown_turns": .*>=\s*0.*; using default 2$/,
      },
      {
        name: 'cooldown_turns: 1.5 (not an integer)',
        input: { cooldown_turns: 1.5, mode: 'tag' },
        key: 'cooldown_turns',
        message: /^invalid value for "cooldown_turns": .*int.*; using default 2$/i,
      },
      {
        name: "mode: 'sometimes' (not an enum member)",
        input: { mode: 'sometimes', cooldown_turns: 4, ready_percent_remaining_lt: 30 },
        key: 'mode',
        message: /^invalid value for "mode": .*"off"\|"tag"\|"suggest"\|"auto".*; using default "auto"$/,
      },
      {
        name: "early_percent_remaining_lt: '45' (a string, not a number)",
        input: { early_percent_remaining_lt: '45', mode: 'tag' },
        key: 'early_percent_remaining_lt',
        message: /^invalid value for "early_percent_remaining_lt": .*number.*; using default 45$/,
      },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const r = resolveSettings(c.input);
        assert.equal(r.issues.length, 1, JSON.stringify(r.issues));
        assert.equal(r.issues[0]!.key, c.key);
        assert.match(r.issues[0]!.message, c.message);
        // The bad knob is back to its default …
        assert.deepEqual(r.settings[c.key], pristine[c.key]);
        // … and every other knob of the same input was kept.
        for (const [k, v] of Object.entries(c.input)) if (k !== c.key) assert.deepEqual(r.settings[k as keyof Settings], v, k);
      });
    }

    it('an unknown boundary kind in auto_requires_any_boundary.early names the nested path', () => {
      const r = resolveSettings({
        auto_requires_any_boundary: { early: ['commit', 'plan_checkpoint', 'deploy'], ready: ['commit'], asap: ['commit'] },
        cooldown_turns: 3,
      });
      assert.equal(r.issues.length, 1, JSON.stringify(r.issues));
      assert.equal(r.issues[0]!.key, 'auto_requires_any_boundary');
      // zod reports the third item (index 2) of `early`.
      assert.match(r.issues[0]!.message, /^invalid value for "auto_requires_any_boundary" at auto_requires_any_boundary\.early\.2: /);
      assert.match(r.issues[0]!.message, /using default \{"early":\["commit","plan_checkpoint","pr_checkpoint"\]/);
      assert.deepEqual(r.settings.auto_requires_any_boundary, pristine.auto_requires_any_boundary);
      assert.equal(r.settings.cooldown_turns, 3);
    });

    it('an extra tier inside auto_requires_any_boundary is rejected (strict object)', () => {
      const r = resolveSettings({
        auto_requires_any_boundary: { early: ['commit'], ready: ['commit'], asap: ['commit'], emergency: ['commit'] },
      });
      assert.equal(r.issues.length, 1);
      assert.equal(r.issues[0]!.key, 'auto_requires_any_boundary');
      assert.match(r.issues[0]!.message, /emergency/);
      assert.deepEqual(r.settings.auto_requires_any_boundary, pristine.auto_requires_any_boundary);
    });

    it('a marker list with an empty phrase falls back as a whole, naming the index', () => {
      const r = resolveSettings({ concluding_markers: ['in summary', ''] });
      assert.equal(r.issues.length, 1);
      assert.match(r.issues[0]!.message, /^invalid value for "concluding_markers" at concluding_markers\.1: /);
      assert.deepEqual(r.settings.concluding_markers, pristine.concluding_markers);
    });

    it('several bad knobs give one issue each and keep the good ones', () => {
      const r = resolveSettings({ mode: 'sometimes', cooldown_turns: -1, judgment_timeout_seconds: 0, packet_author: 'watcher', min_gain_percent: 20 });
      assert.deepEqual(r.issues.map((i) => i.key).sort(), ['cooldown_turns', 'judgment_timeout_seconds', 'mode']);
      assert.equal(r.settings.packet_author, 'watcher');
      assert.equal(r.settings.min_gain_percent, 20);
      assert.equal(r.settings.mode, pristine.mode);
      assert.equal(r.settings.cooldown_turns, pristine.cooldown_turns);
      assert.equal(r.settings.judgment_timeout_seconds, pristine.judgment_timeout_seconds);
    });
  });

  it('unknown keys are reported (and ignored), known keys beside them still apply', () => {
    const r = resolveSettings({ mode: 'tag', cooldown_turn: 9, earlyPercent: 50 });
    assert.equal(r.settings.mode, 'tag');
    assert.equal(r.settings.cooldown_turns, pristine.cooldown_turns);
    assert.deepEqual(r.issues, [
      { key: 'cooldown_turn', message: 'unknown setting "cooldown_turn" (ignored)' },
      { key: 'earlyPercent', message: 'unknown setting "earlyPercent" (ignored)' },
    ]);
    assert.equal('cooldown_turn' in r.settings, false);
  });

  it('Object.prototype names (constructor, toString, __proto__) are unknown settings, not crashes', () => {
    // JSON.parse makes `__proto__` an own key, as a YAML or JSON settings file would.
    const input = JSON.parse('{"constructor": 1, "toString": "x", "__proto__": {"mode": "off"}, "hasOwnProperty": true, "mode": "suggest"}');
    const r = resolveSettings(input);
    assert.equal(r.settings.mode, 'suggest');
    assert.deepEqual(r.issues.map((i) => i.key).sort(), ['__proto__', 'constructor', 'hasOwnProperty', 'toString']);
    for (const i of r.issues) assert.match(i.message, /^unknown setting/);
    assert.equal(SettingsSchema.safeParse(r.settings).success, true);
  });

  describe('tier thresholds must nest (emergency < asap < ready < early)', () => {
    const four = ['early_percent_remaining_lt', 'ready_percent_remaining_lt', 'asap_percent_remaining_lt', 'emergency_percent_remaining_lt'] as const;

    it('valid custom thresholds are kept', () => {
      const r = resolveSettings({
        early_percent_remaining_lt: 60,
        ready_percent_remaining_lt: 40,
        asap_percent_remaining_lt: 20,
        emergency_percent_remaining_lt: 5,
      });
      assert.deepEqual(r.issues, []);
      assert.deepEqual(
        four.map((k) => r.settings[k]),
        [60, 40, 20, 5],
      );
    });

    for (const [name, input] of [
      ['emergency >= asap', { emergency_percent_remaining_lt: 30 }],
      ['emergency == asap', { emergency_percent_remaining_lt: 25 }],
      ['ready above early', { ready_percent_remaining_lt: 50 }],
      ['asap == ready', { asap_percent_remaining_lt: 35 }],
      [
        'all four reversed',
        { early_percent_remaining_lt: 5, ready_percent_remaining_lt: 10, asap_percent_remaining_lt: 20, emergency_percent_remaining_lt: 40 },
      ],
    ] as const) {
      it(`${name}: all four reset together, with one message`, () => {
        const r = resolveSettings({ ...input, mode: 'tag' });
        assert.equal(r.issues.length, 1, JSON.stringify(r.issues));
        assert.match(r.issues[0]!.message, /^tier thresholds must satisfy emergency < asap < ready < early \(got .+\); using defaults for all four$/);
        assert.deepEqual(
          four.map((k) => r.settings[k]),
          [45, 35, 25, 12],
        );
        assert.equal(r.settings.mode, 'tag');
      });
    }

    it('the message shows the crossed values as given', () => {
      const r = resolveSettings({ emergency_percent_remaining_lt: 30 });
      assert.match(r.issues[0]!.message, /\(got 30 < 25 < 35 < 45\)/);
    });

    it('a threshold that was itself invalid falls back first, then the nesting is checked on the result', () => {
      // 140 is rejected (→ 35); the remaining set 45/35/25/12 nests, so only one issue and no reset.
      const r = resolveSettings({ ready_percent_remaining_lt: 140, asap_percent_remaining_lt: 20 });
      assert.equal(r.issues.length, 1);
      assert.equal(r.issues[0]!.key, 'ready_percent_remaining_lt');
      assert.deepEqual(
        four.map((k) => r.settings[k]),
        [45, 35, 20, 12],
      );
    });
  });

  describe('never throws on garbage', () => {
    it('null, arrays, strings, numbers, booleans, functions, nested junk', () => {
      const garbage: unknown[] = [
        null,
        [],
        [1, 2, 3],
        'mode: auto',
        '',
        42,
        NaN,
        true,
        () => 1,
        new Date(0),
        new Map([['mode', 'tag']]),
        { mode: { nested: [{ deep: null }] }, auto_requires_any_boundary: 'commit', cooldown_turns: Infinity },
        { auto_requires_any_boundary: null, early_percent_remaining_lt: NaN, agent_done_markers: [[['x']]] },
        { auto_requires_any_boundary: { early: 'commit', ready: [1], asap: [null] } },
        { agent_done_markers: Array.from({ length: 500 }, (_, k) => `m${k}`) },
        Object.create(null),
      ];
      garbage.forEach((g, k) => {
        const r = resolveSettings(g as Record<string, unknown>);
        assert.equal(SettingsSchema.safeParse(r.settings).success, true, `garbage #${k}`);
      });
    });

    it('a non-mapping input is one issue and all defaults', () => {
      for (const g of [[], ['mode', 'tag'], 'mode: tag', 7, true]) {
        const r = resolveSettings(g as unknown as Record<string, unknown>);
        assert.deepEqual(r.settings, pristine);
        assert.equal(r.issues.length, 1, JSON.stringify(r.issues));
        assert.match(r.issues[0]!.message, /^settings must be a mapping/);
      }
    });

    it('fast-check: fc.anything() never throws and always yields SettingsSchema-valid settings', () => {
      fc.assert(
        fc.property(fc.anything(), (input) => {
          const r = resolveSettings(input as Record<string, unknown>);
          assert.equal(SettingsSchema.safeParse(r.settings).success, true);
          assert.ok(Array.isArray(r.issues));
          for (const i of r.issues) assert.equal(typeof i.message, 'string');
        }),
        { numRuns: 60 },
      );
    });

    it('fast-check: objects with real setting keys and arbitrary values keep every valid value and default every invalid one', () => {
      const keyArb = fc.constantFrom(...KEYS, 'constructor', 'toString', '__proto__', 'cooldown_turn');
      fc.assert(
        fc.property(
          fc.dictionary(keyArb, fc.oneof(fc.anything(), fc.integer({ min: -5, max: 200 }), fc.constantFrom('auto', 'tag', 'agent', 'golden_path'))),
          (input) => {
            const r = resolveSettings(input);
            assert.equal(SettingsSchema.safeParse(r.settings).success, true);
            const s = r.settings;
            assert.ok(s.emergency_percent_remaining_lt < s.asap_percent_remaining_lt);
            assert.ok(s.asap_percent_remaining_lt < s.ready_percent_remaining_lt);
            assert.ok(s.ready_percent_remaining_lt < s.early_percent_remaining_lt);
            const flagged = new Set(r.issues.map((i) => i.key));
            for (const [k, v] of Object.entries(input)) {
              if (!KEYS.includes(k as keyof Settings)) {
                assert.ok(flagged.has(k), `unknown key ${k} not reported`);
                continue;
              }
              if (v === null || v === undefined) continue;
              const valid = (SettingsSchema.shape as Record<string, { safeParse(x: unknown): { success: boolean } }>)[k]!.safeParse(v).success;
              if (!valid) {
                assert.ok(flagged.has(k), `invalid ${k}=${JSON.stringify(v)} not reported`);
                assert.deepEqual(s[k as keyof Settings], pristine[k as keyof Settings]);
              } else {
                // A valid value is kept verbatim (unless it is a threshold and the four were reset as a group).
                const thresholdsReset = r.issues.some((i) => i.message.startsWith('tier thresholds'));
                if (!(thresholdsReset && k.endsWith('_percent_remaining_lt'))) assert.deepEqual(s[k as keyof Settings], v, k);
              }
            }
          },
        ),
        { numRuns: 80 },
      );
    });
  });
});

describe('settings: DEFAULT_SETTINGS and the shipped YAML are the same thing', () => {
  const dir = shippedPromptsDir();
  const file = path.join(dir, PROMPT_FILES.packetRequest);

  it('the shipped prompts folder is found', () => {
    assert.ok(fs.existsSync(file), file);
  });

  it('the frontmatter of prompts/rawr-auto-compact.md deep-equals DEFAULT_SETTINGS (every key, no extra)', () => {
    const parsed = parseFrontmatter(fs.readFileSync(file, 'utf8'), file);
    assert.deepEqual(parsed.problems, []);
    assert.deepEqual(parsed.data, pristine);
  });

  it('loadPromptSet of the shipped folder reports zero problems and yields exactly DEFAULT_SETTINGS', () => {
    const set = loadPromptSet([dirReader(dir)]);
    assert.deepEqual(set.problems, []);
    assert.deepEqual(set.settings, pristine);
    for (const [name, fileName] of Object.entries(PROMPT_FILES)) {
      assert.equal(set.sources[name as keyof typeof PROMPT_FILES], path.join(dir, fileName));
    }
  });

  it('the YAML values alone determine the result: resolving them over a different base still gives the defaults', () => {
    const parsed = parseFrontmatter(fs.readFileSync(file, 'utf8'), file);
    const other: Settings = { ...pristine, mode: 'off', cooldown_turns: 99, agent_done_markers: ['x'], min_gain_percent: 1 };
    const r = resolveSettings(parsed.data, other);
    assert.deepEqual(r.issues, []);
    assert.deepEqual(r.settings, pristine);
  });

  it('DEFAULT_SETTINGS is schema-valid and every knob is documented', () => {
    assert.equal(SettingsSchema.safeParse(DEFAULT_SETTINGS).success, true);
    assert.deepEqual(Object.keys(SETTING_DOCS).sort(), [...KEYS].sort());
    for (const k of KEYS) assert.ok(SETTING_DOCS[k].length > 10, k);
  });
});
