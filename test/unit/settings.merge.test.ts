/** VS Code settings over the policy file's YAML settings (src/host/settingsMerge.ts). */
import { DEFAULT_ALLOWED_TOOLS } from '../../src/host/tools/catalog';
import * as assert from 'node:assert/strict';
import { DEFAULT_SETTINGS, type Settings } from '../../src/core/settings/schema';
import { mergeExplicit, parseHostSettings, settingName, toolAllowed } from '../../src/host/settingsMerge';

/** A policy file that differs from the built-in defaults, so "kept the YAML value" is distinguishable. */
const yaml: Settings = {
  ...structuredClone(DEFAULT_SETTINGS),
  mode: 'suggest',
  early_percent_remaining_lt: 40,
  ready_percent_remaining_lt: 30,
  asap_percent_remaining_lt: 20,
  emergency_percent_remaining_lt: 10,
  cooldown_turns: 4,
};
const pristine = structuredClone(yaml);

describe('settings merge: mergeExplicit', () => {
  afterEach(() => assert.deepEqual(yaml, pristine, 'the YAML settings object must not be mutated'));

  it('nothing set explicitly: exactly the YAML settings, no issues', () => {
    for (const explicit of [{}, { mode: undefined, cooldownTurns: undefined }]) {
      const r = mergeExplicit(yaml, explicit);
      assert.deepEqual(r.settings, yaml);
      assert.deepEqual(r.issues, []);
    }
  });

  it('explicit values override their knobs only (camelCase keys)', () => {
    const r = mergeExplicit(yaml, { mode: 'tag', earlyPercentRemainingLt: 50, agentDoneMarkers: ['shipped'], judgmentEnabled: false });
    assert.deepEqual(r.issues, []);
    assert.deepEqual(r.settings, { ...yaml, mode: 'tag', early_percent_remaining_lt: 50, agent_done_markers: ['shipped'], judgment_enabled: false });
  });

  it('a bad value costs only that knob: it keeps the YAML value and is reported under its VS Code name', () => {
    const r = mergeExplicit(yaml, { mode: 'tag', earlyPercentRemainingLt: 500, cooldownTurns: 'many' });
    assert.equal(r.settings.mode, 'tag');
    assert.equal(r.settings.early_percent_remaining_lt, 40);
    assert.equal(r.settings.cooldown_turns, 4);
    assert.deepEqual(r.issues.map((i) => i.key).sort(), ['rawr.cooldownTurns', 'rawr.earlyPercentRemainingLt']);
    const early = r.issues.find((i) => i.key === 'rawr.earlyPercentRemainingLt')!;
    assert.match(early.message, /"rawr\.earlyPercentRemainingLt"/);
    assert.match(early.message, /using default 40/);
    assert.doesNotMatch(early.message, /early_percent_remaining_lt/);
  });

  it("integer knobs reject fractions; ranges are the schema's", () => {
    const r = mergeExplicit(yaml, { cooldownTurns: 1.5, packetDeadlineSeconds: 2, judgmentTimeoutSeconds: 600 });
    assert.equal(r.settings.cooldown_turns, 4);
    assert.equal(r.settings.packet_deadline_seconds, yaml.packet_deadline_seconds);
    assert.equal(r.settings.judgment_timeout_seconds, 600);
    assert.deepEqual(r.issues.map((i) => i.key).sort(), ['rawr.cooldownTurns', 'rawr.packetDeadlineSeconds']);
  });

  it('thresholds must still nest with the YAML ones: a crossing set keeps all four YAML thresholds', () => {
    const r = mergeExplicit(yaml, { earlyPercentRemainingLt: 25 }); // below ready (30)
    assert.equal(r.settings.early_percent_remaining_lt, 40);
    assert.equal(r.settings.ready_percent_remaining_lt, 30);
    assert.equal(r.issues.length, 1);
    assert.equal(r.issues[0]?.key, 'rawr.earlyPercentRemainingLt');
    assert.match(r.issues[0]?.message ?? '', /emergency < asap < ready < early/);
    // a consistent explicit set is taken whole
    const ok = mergeExplicit(yaml, { earlyPercentRemainingLt: 60, readyPercentRemainingLt: 50, asapPercentRemainingLt: 40, emergencyPercentRemainingLt: 30 });
    assert.deepEqual(ok.issues, []);
    assert.deepEqual(
      [
        ok.settings.early_percent_remaining_lt,
        ok.settings.ready_percent_remaining_lt,
        ok.settings.asap_percent_remaining_lt,
        ok.settings.emergency_percent_remaining_lt,
      ],
      [60, 50, 40, 30],
    );
  });

  it('autoRequiresAnyBoundary: a valid object replaces the YAML one; a bad kind is located and rejected whole', () => {
    const want = { early: ['commit'], ready: ['commit', 'agent_done'], asap: ['turn_complete'] };
    const r = mergeExplicit(yaml, { autoRequiresAnyBoundary: want });
    assert.deepEqual(r.issues, []);
    assert.deepEqual(r.settings.auto_requires_any_boundary, want);
    const bad = mergeExplicit(yaml, { autoRequiresAnyBoundary: { early: ['comit'], ready: [], asap: [] } });
    assert.deepEqual(bad.settings.auto_requires_any_boundary, yaml.auto_requires_any_boundary);
    assert.equal(bad.issues.length, 1);
    assert.match(bad.issues[0]?.message ?? '', /at rawr\.autoRequiresAnyBoundary\.early\.0/);
    const partial = mergeExplicit(yaml, { autoRequiresAnyBoundary: { early: ['commit'] } });
    assert.deepEqual(partial.settings.auto_requires_any_boundary, yaml.auto_requires_any_boundary);
    assert.equal(partial.issues.length, 1);
  });

  it('unknown keys are warned about; host-only keys are not policy knobs and pass silently; null is reported', () => {
    const r = mergeExplicit(yaml, { earlyPercentRemaining: 30, 'tools.allowed': ['x'], 'judgment.model': 'a/b', mode: null });
    assert.deepEqual(r.settings, yaml);
    assert.deepEqual(
      r.issues.map((i) => i.key),
      ['rawr.earlyPercentRemaining', 'rawr.mode'],
    );
    assert.match(r.issues[0]?.message ?? '', /^unknown setting "rawr\.earlyPercentRemaining"/);
  });

  it('prototype names are unknown settings, not lookups', () => {
    const r = mergeExplicit(yaml, JSON.parse('{"__proto__": {"mode": "off"}, "constructor": 1, "toString": 2}'));
    assert.deepEqual(r.settings, yaml);
    assert.equal(r.issues.length, 3);
  });

  it('settingName maps snake, camel and deprecated knob names to the VS Code key', () => {
    assert.equal(settingName('early_percent_remaining_lt'), 'rawr.tiers.earlyBelowPercent');
    assert.equal(settingName('earlyPercentRemainingLt'), 'rawr.tiers.earlyBelowPercent');
    assert.equal(settingName('tiers.earlyBelowPercent'), 'rawr.tiers.earlyBelowPercent');
    assert.equal(settingName('cooldown_turns'), 'rawr.cooldownTurns');
    assert.equal(settingName('mode'), 'rawr.mode');
  });

  it('the tier thresholds have readable names (rawr.tiers.*); the old names are still read', () => {
    const now = mergeExplicit(yaml, { 'tiers.earlyBelowPercent': 50, 'tiers.emergencyBelowPercent': 5 });
    assert.deepEqual(now.issues, []);
    assert.equal(now.settings.early_percent_remaining_lt, 50);
    assert.equal(now.settings.emergency_percent_remaining_lt, 5);
    const old = mergeExplicit(yaml, { earlyPercentRemainingLt: 50 });
    assert.deepEqual(old.issues, []);
    assert.equal(old.settings.early_percent_remaining_lt, 50);
    // Both set: the new name wins, whatever order the values came in.
    for (const explicit of [
      { earlyPercentRemainingLt: 55, 'tiers.earlyBelowPercent': 50 },
      { 'tiers.earlyBelowPercent': 50, earlyPercentRemainingLt: 55 },
    ]) {
      const both = mergeExplicit(yaml, explicit);
      assert.deepEqual(both.issues, []);
      assert.equal(both.settings.early_percent_remaining_lt, 50);
    }
    // A bad value is reported under the name it was written with.
    const bad = mergeExplicit(yaml, { 'tiers.readyBelowPercent': 500 });
    assert.deepEqual(
      bad.issues.map((i) => i.key),
      ['rawr.tiers.readyBelowPercent'],
    );
    assert.match(bad.issues[0]!.message, /"rawr\.tiers\.readyBelowPercent"/);
  });
});

describe('settings merge: host-only settings', () => {
  it("defaults: rawr's own tool set, the chat's model", () => {
    assert.deepEqual(parseHostSettings({}), { settings: { toolsAllowed: [...DEFAULT_ALLOWED_TOOLS], judgmentModel: undefined }, issues: [] });
    assert.deepEqual(parseHostSettings({ toolsAllowed: [], judgmentModel: '' }).settings, { toolsAllowed: [], judgmentModel: undefined });
  });

  it('parses tool lists (deduplicated, bad entries reported) and vendor/id models', () => {
    const r = parseHostSettings({ toolsAllowed: ['copilot_*', ' runTests ', 'copilot_*', 3, ''], judgmentModel: 'copilot/gpt-4o-mini' });
    assert.deepEqual(r.settings, { toolsAllowed: ['copilot_*', 'runTests'], judgmentModel: { vendor: 'copilot', id: 'gpt-4o-mini' } });
    assert.equal(r.issues.length, 2);
    assert.deepEqual(parseHostSettings({ judgmentModel: 'openai/org/model' }).settings.judgmentModel, { vendor: 'openai', id: 'org/model' });
  });

  it('rejects malformed values', () => {
    const r = parseHostSettings({ toolsAllowed: 'all', judgmentModel: 'gpt-4o' });
    assert.deepEqual(r.settings, { toolsAllowed: [...DEFAULT_ALLOWED_TOOLS], judgmentModel: undefined });
    assert.deepEqual(
      r.issues.map((i) => i.key),
      ['rawr.tools.allowed', 'rawr.judgment.model'],
    );
  });

  it('toolAllowed: exact names and * globs, regex characters literal', () => {
    assert.ok(toolAllowed('runTests', ['runTests']));
    assert.ok(!toolAllowed('runTestsX', ['runTests']));
    assert.ok(toolAllowed('mcp_github_create_issue', ['mcp_github_*']));
    assert.ok(!toolAllowed('mcp_gitlab_x', ['mcp_github_*']));
    assert.ok(!toolAllowed('evil_mcp_github_x', ['mcp_github_*']), 'a glob matches the whole name, not a part of it');
    assert.ok(!toolAllowed('rawr_read_file_and_more_x', ['rawr_*_file']));
    assert.ok(toolAllowed('anything', ['*']));
    assert.ok(!toolAllowed('aXb', ['a.b']));
    assert.ok(toolAllowed('a.b', ['a.*']));
    assert.ok(!toolAllowed('x', []));
  });
});
