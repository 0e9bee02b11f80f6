/**
 * package.json `contributes.configuration` is generated from the core settings schema
 * (scripts/gen-config.mjs → src/host/configSchema.ts). These tests fail when either drifts: the committed
 * contribution must equal the generator's output, and the generator's output is checked against the
 * zod schema directly (keys, defaults, enums, bounds), not against itself.
 */
import { DEFAULT_ALLOWED_TOOLS } from '../../src/host/tools/catalog';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { DEFAULT_SETTINGS, SETTING_DOCS, SettingsSchema, type SettingKey } from '../../src/core/settings/schema';
import {
  CATEGORIES,
  FIRST_SETTINGS,
  enumLabel,
  HOST_KEYS,
  SETTING_KEYS,
  LEGACY_NAMES,
  camel,
  configurationContribution,
  configurationProperties,
  docMarkdown,
  snake,
  vscodeKey,
  withRawrConfiguration,
} from '../../src/host/configSchema';

const ROOT = path.resolve(__dirname, '../../..');
const pkg = () => JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const KEYS = Object.keys(SettingsSchema.shape) as SettingKey[];
type Prop = Record<string, any>;
const props = configurationProperties() as Record<string, Prop>;
const prop = (key: SettingKey): Prop => {
  const p = props[`rawr.${vscodeKey(key)}`];
  assert.ok(p, `rawr.${vscodeKey(key)} is contributed`);
  return p;
};

/** Enum values of a zod schema, when it is an enum. */
function zodEnum(schema: z.ZodType): string[] | undefined {
  return schema instanceof z.ZodEnum ? (schema.options as string[]) : undefined;
}

describe('configuration contribution: package.json', () => {
  it("contributes.configuration is an array holding rawr's generated categories, equal to the generator output", () => {
    const conf = pkg().contributes?.configuration;
    assert.ok(Array.isArray(conf), 'contributes.configuration must be an array of categories');
    const ours = conf.filter((o: { id?: string }) => o.id === CATEGORIES.first.id || o.id === CATEGORIES.advanced.id);
    assert.deepEqual(ours, JSON.parse(JSON.stringify(configurationContribution())), 'package.json is stale: run `npm run gen-config`');
  });

  it("no other configuration object declares one of rawr's keys", () => {
    const conf = pkg().contributes.configuration as Array<{ id?: string; properties?: Record<string, unknown> }>;
    const ours = new Set(Object.keys(props));
    for (const o of conf.filter((c) => c.id !== CATEGORIES.first.id && c.id !== CATEGORIES.advanced.id)) {
      for (const k of Object.keys(o.properties ?? {})) assert.ok(!ours.has(k), `${k} is declared twice`);
    }
  });

  it('settings a person can scan: the first settings on top, the engine under "Advanced", every category ordered, every setting scoped', () => {
    const conf = pkg().contributes.configuration as Array<{ id: string; title: string; order: number; properties: Record<string, Prop> }>;
    const byOrder = [...conf].sort((a, b) => a.order - b.order);
    assert.deepEqual(
      byOrder.map((c) => c.title),
      ['Rawr', 'OpenAI-Compatible Endpoint', 'Advanced'],
    );
    assert.deepEqual(Object.keys(byOrder[0]!.properties), FIRST_SETTINGS);
    assert.deepEqual(Object.keys(byOrder[1]!.properties), ['rawr.openai.baseUrl', 'rawr.openai.models']);
    assert.ok(Object.keys(byOrder[2]!.properties).includes('rawr.tiers.earlyBelowPercent'));
    for (const c of conf) {
      Object.values(c.properties).forEach((p, i) => {
        assert.equal(p.scope, 'window', `${c.title}: scope`);
        assert.equal(p.order, i, `${c.title}: order`);
        // One enum style: every enum shows capitalised labels, whatever its values' spelling.
        if (p.enum) assert.deepEqual(p.enumItemLabels, p.enum.map(enumLabel));
      });
    }
    assert.equal(enumLabel('golden_path'), 'Golden path');
  });

  it('idle compaction is off by default, and its description states its cost and its benefit', () => {
    const idle = props['rawr.idleCompactMinutes']!;
    assert.equal(idle.default, 0);
    assert.match(idle.markdownDescription, /Benefit:/);
    assert.match(idle.markdownDescription, /Cost: one model call you did not start/);
  });

  it('the package.json scripts can regenerate it', () => {
    assert.match(pkg().scripts['gen-config'], /scripts\/gen-config\.mjs/);
  });
});

describe('configuration contribution: generator vs the zod schema', () => {
  it('camel/snake convert every knob name both ways', () => {
    assert.equal(camel('early_percent_remaining_lt'), 'earlyPercentRemainingLt');
    assert.equal(camel('auto_requires_any_boundary'), 'autoRequiresAnyBoundary');
    assert.equal(snake('earlyPercentRemainingLt'), 'early_percent_remaining_lt');
    assert.equal(camel('mode'), 'mode');
    for (const k of KEYS) assert.equal(snake(camel(k)), k);
  });

  it('one property per SettingsSchema key, plus the host-only knobs, plus the deprecated old names, nothing else', () => {
    assert.deepEqual(SETTING_KEYS, KEYS);
    const want = [
      ...KEYS.map((k) => `rawr.${vscodeKey(k)}`),
      `rawr.${HOST_KEYS.toolsAllowed}`,
      `rawr.${HOST_KEYS.judgmentModel}`,
      ...LEGACY_NAMES.map((l) => `rawr.${l.name}`),
    ];
    assert.deepEqual(Object.keys(props), want);
  });

  it('settings have readable titles: no key ends in an abbreviation such as "Lt" (the Settings UI titles a setting after its key)', () => {
    const current = Object.entries(props).filter(([, p]) => !p.markdownDeprecationMessage);
    for (const [key] of current) assert.doesNotMatch(key, /(Lt|Gt|Le|Ge)$/, key);
    assert.equal(prop('early_percent_remaining_lt'), props['rawr.tiers.earlyBelowPercent']);
  });

  it('the old names of renamed knobs are contributed deprecated, pointing at the new name, with the same schema', () => {
    assert.deepEqual(
      LEGACY_NAMES.map((l) => l.name),
      ['earlyPercentRemainingLt', 'readyPercentRemainingLt', 'asapPercentRemainingLt', 'emergencyPercentRemainingLt'],
    );
    for (const { name, knob } of LEGACY_NAMES) {
      const old = props[`rawr.${name}`];
      assert.ok(old, `rawr.${name} is contributed`);
      assert.match(old.markdownDeprecationMessage, new RegExp(`#rawr\\.${vscodeKey(knob).replace('.', '\\.')}#`));
      const { markdownDeprecationMessage: _m, order: _o, ...schema } = old;
      const { order: _n, ...current } = prop(knob);
      assert.deepEqual(schema, current, name);
    }
  });

  it('defaults equal DEFAULT_SETTINGS and are valid for the schema', () => {
    for (const k of KEYS) {
      assert.deepEqual(prop(k).default, DEFAULT_SETTINGS[k], k);
      assert.ok(SettingsSchema.shape[k].safeParse(prop(k).default).success, `${k}: default rejected by the schema`);
    }
  });

  it('types follow the schema (integer knobs are "integer")', () => {
    for (const k of KEYS) {
      const s = SettingsSchema.shape[k] as z.ZodType;
      const want =
        s instanceof z.ZodNumber
          ? s.isInt
            ? 'integer'
            : 'number'
          : s instanceof z.ZodBoolean
            ? 'boolean'
            : s instanceof z.ZodEnum
              ? 'string'
              : s instanceof z.ZodArray
                ? 'array'
                : s instanceof z.ZodObject
                  ? 'object'
                  : 'unknown';
      assert.equal(prop(k).type, want, k);
    }
  });

  it('minimum/maximum equal the zod bounds', () => {
    let checked = 0;
    for (const k of KEYS) {
      const s = SettingsSchema.shape[k] as z.ZodType;
      if (!(s instanceof z.ZodNumber)) {
        assert.equal(prop(k).minimum, undefined, k);
        assert.equal(prop(k).maximum, undefined, k);
        continue;
      }
      assert.equal(prop(k).minimum, s.minValue, `${k} minimum`);
      assert.equal(prop(k).maximum, s.maxValue, `${k} maximum`);
      assert.ok(Number.isFinite(prop(k).minimum) && Number.isFinite(prop(k).maximum), `${k}: bounded`);
      checked++;
    }
    assert.ok(checked >= 10, `expected the numeric knobs, checked ${checked}`);
    assert.deepEqual([prop('early_percent_remaining_lt').minimum, prop('early_percent_remaining_lt').maximum], [0, 100]);
    assert.deepEqual([prop('cooldown_seconds').minimum, prop('cooldown_seconds').maximum], [0, 86_400]);
  });

  it('enums equal the zod enums, each value with a description', () => {
    for (const k of KEYS) {
      const values = zodEnum(SettingsSchema.shape[k] as z.ZodType);
      assert.deepEqual(prop(k).enum, values, k);
      if (values) {
        assert.equal(prop(k).enumDescriptions.length, values.length, k);
        for (const d of prop(k).enumDescriptions) assert.ok(typeof d === 'string' && d.length > 5, `${k}: ${d}`);
      }
    }
    assert.deepEqual(prop('mode').enum, ['off', 'tag', 'suggest', 'auto']);
  });

  it('rawr.autoRequiresAnyBoundary: object with early/ready/asap arrays of the boundary enum', () => {
    const p = prop('auto_requires_any_boundary');
    const obj = SettingsSchema.shape.auto_requires_any_boundary;
    assert.equal(p.type, 'object');
    assert.deepEqual(Object.keys(p.properties), Object.keys(obj.shape));
    assert.deepEqual(Object.keys(p.properties), ['early', 'ready', 'asap']);
    assert.equal(p.additionalProperties, false);
    for (const tier of ['early', 'ready', 'asap'] as const) {
      const item = p.properties[tier].items;
      assert.equal(p.properties[tier].type, 'array');
      assert.deepEqual(item.enum, obj.shape[tier].element.options);
      assert.equal(item.enumDescriptions.length, item.enum.length);
    }
  });

  it('marker lists: arrays of non-empty strings with the schema limits', () => {
    for (const k of ['agent_done_markers', 'concluding_markers', 'topic_shift_markers'] as const) {
      const p = prop(k);
      assert.equal(p.type, 'array');
      assert.equal(p.items.type, 'string');
      assert.equal(p.items.minLength, 1);
      assert.equal(p.items.maxLength, 200);
      assert.equal(p.maxItems, 200);
    }
  });

  it('markdownDescription comes from SETTING_DOCS (angle brackets escaped)', () => {
    KEYS.forEach((k) => {
      assert.equal(prop(k).markdownDescription, docMarkdown(SETTING_DOCS[k]), k);
      assert.doesNotMatch(prop(k).markdownDescription.replace(/\\[<>]/g, ''), /[<>]/, `${k}: raw angle bracket in Markdown`);
    });
    assert.match(prop('scratch_write_enabled').markdownDescription, /agent-\\<name\\>/);
  });

  it('host-only knobs: rawr.tools.allowed (string list, default rawr\'s tool set) and rawr.judgment.model (string, default "")', () => {
    const tools = props['rawr.tools.allowed'];
    assert.ok(tools, 'rawr.tools.allowed is contributed');
    assert.equal(tools.type, 'array');
    assert.equal(tools.items.type, 'string');
    assert.deepEqual(tools.default, [...DEFAULT_ALLOWED_TOOLS]);
    assert.ok(tools.default.includes('rawr_run_in_terminal') && tools.default.includes('rawr_edit_file'));
    const model = props['rawr.judgment.model'];
    assert.ok(model, 'rawr.judgment.model is contributed');
    assert.equal(model.type, 'string');
    assert.equal(model.default, '');
    const re = new RegExp(model.pattern);
    for (const ok of ['', 'copilot/gpt-4o-mini', 'openai/gpt-5.1']) assert.ok(re.test(ok), ok);
    for (const bad of ['gpt-4o', '/x', 'a/', 'a b/c']) assert.ok(!re.test(bad), bad);
    for (const p of Object.values(props)) assert.ok(typeof p.markdownDescription === 'string' && p.markdownDescription.length > 10);
  });

  it('is deterministic and returns fresh objects (callers may not corrupt DEFAULT_SETTINGS)', () => {
    const a = configurationProperties() as Record<string, Prop>;
    const auto = a['rawr.autoRequiresAnyBoundary'];
    assert.ok(auto, 'rawr.autoRequiresAnyBoundary is contributed');
    auto.default.early.push('turn_complete');
    assert.deepEqual(configurationProperties(), props);
    assert.deepEqual(DEFAULT_SETTINGS.auto_requires_any_boundary.early, ['commit', 'plan_checkpoint', 'pr_checkpoint']);
  });
});

describe('configuration contribution: withRawrConfiguration (what gen-config writes)', () => {
  const openai = { id: 'rawr.openai', title: 'OpenAI-Compatible Endpoint', order: 2, properties: { 'rawr.openai.baseUrl': { type: 'string' } } };
  const [first, advanced] = configurationContribution();

  it("puts rawr's categories around the others and leaves them untouched", () => {
    const before = [structuredClone(openai)];
    const out = withRawrConfiguration(before);
    assert.deepEqual(out, [first, openai, advanced]);
    assert.deepEqual(before, [openai], 'input not mutated');
  });

  it('replaces earlier rawr objects (the single flat one of older versions too)', () => {
    assert.deepEqual(withRawrConfiguration([{ id: 'rawr', title: 'old', properties: {} }, openai]), [first, openai, advanced]);
    assert.deepEqual(withRawrConfiguration([first, openai, advanced]), [first, openai, advanced]);
  });

  it('accepts a missing configuration or the single-object form', () => {
    assert.deepEqual(withRawrConfiguration(undefined), [first, advanced]);
    assert.deepEqual(withRawrConfiguration(openai), [first, openai, advanced]);
  });
});
