// What the PreCompact hook answers Claude Code (steer.ts steerVerdict), decided from a follower's state
// alone: when it must allow (not steering, another mode, a reactive compaction, rawr's emergency line,
// Claude Code's blocking level) and when it may refuse. Mutation testing (CONTRIBUTING.md) showed each of
// these allows could be lost without a test noticing: hooks.steer.test.ts drives whole transcripts,
// whose contexts never sit at these lines.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SessionFollower } from '../../src/core/follow/sessionFollower';
import type { ReplayDecision } from '../../src/core/replay/driver';
import { steerVerdict, type VerdictInput } from '../../src/core/hooks/claude/steer';
import { askPercentOf, claudeAsksFrom, settingsWindow, type SteerConfig } from '../../src/core/hooks/claude/steerConfig';
import { shipped } from '../support/engine';

const WINDOW = 200_000;
/** A follower at `used` tokens of a 200k window, with `now` its decision at this point, if any. */
function follower(used: number, o: { now?: Partial<ReplayDecision>; tier?: string | null; modelCalls?: number } = {}): SessionFollower {
  const now = o.now
    ? ({
        type: 'decision',
        line: 9,
        percentRemaining: 30,
        tier: 'ready',
        boundaries: [],
        action: 'none',
        reason: '',
        point: 'turn_complete',
        code: 'no_boundary',
        contextTokens: used,
        ...o.now,
      } as ReplayDecision)
    : null;
  return {
    state: () => ({ window: { window: WINDOW, source: 'model', why: '' }, contextTokens: used, plan: null, lines: 10, tier: o.tier ?? null }),
    decisionNow: () => now,
    unactedCompaction: () => null,
    calls: { modelCalls: o.modelCalls ?? 5, lastUsage: used },
  } as unknown as SessionFollower;
}
const STEER: SteerConfig = { steer: true, window: WINDOW, autoCompactWindow: WINDOW, askPercent: null, settingsFile: '.claude/settings.local.json' };
/** Claude Code asks from 167,000 in a 200k window (200,000 − 33,000); a call below 95% of that is reactive. */
const REACTIVE_LINE = 167_000 * 0.95;
const input = (used: number, o: Partial<VerdictInput> & { f?: Parameters<typeof follower>[1] } = {}): VerdictInput => ({
  trigger: 'auto',
  follower: follower(used, o.f),
  previous: null,
  config: STEER,
  settings: shipped.settings,
  env: {},
  ...o,
});
const verdict = (used: number, o: Parameters<typeof input>[1] = {}) => {
  const v = steerVerdict(input(used, o));
  return `${v.allow ? 'allow' : 'refuse'} ${v.why}`;
};

describe('the PreCompact verdict: the allows that must never be lost', () => {
  const mid = 170_000; // 85% used: above where Claude Code asks, below rawr's emergency line (88% used)

  it('refuses a mid-context compaction without a boundary (the baseline of the cases below)', () => {
    assert.equal(verdict(mid), 'refuse deferred');
  });

  it('allows when rawr does not steer the project (no steer.json, or --no-steer) or its mode is not auto', () => {
    assert.equal(verdict(mid, { config: null }), 'allow not_steering');
    assert.equal(verdict(mid, { config: { ...STEER, steer: false } }), 'allow not_steering');
    assert.equal(verdict(mid, { settings: { ...shipped.settings, mode: 'suggest' } }), 'allow mode');
    assert.equal(verdict(mid, { trigger: 'manual' }), 'allow manual');
  });

  it('allows a reactive compaction: no model response since the previous call, or a context below where Claude Code asks from', () => {
    const previous = (allowed: boolean) => ({ modelCalls: 5, allowed, at: '2026-01-01T00:00:00Z' });
    assert.match(steerVerdict(input(mid, { previous: previous(false) })).text, /^allowed: reactive \(no model response since the refusal/);
    assert.match(steerVerdict(input(mid, { previous: previous(true) })).text, /^allowed: asked again before any model response/);
    assert.equal(verdict(mid, { previous: { ...previous(false), modelCalls: 4 } }), 'refuse deferred', 'a response since: not reactive');
    assert.equal(verdict(REACTIVE_LINE - 1), 'allow reactive');
    assert.equal(verdict(REACTIVE_LINE), 'refuse deferred', 'at 95% of the ask line: a threshold compaction');
    assert.equal(verdict(100_000, { env: { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '50' } }), 'refuse deferred', 'the override lowers the ask line to 90,000');
    assert.equal(verdict(100_000, { config: { ...STEER, askPercent: '50' } }), 'refuse deferred', "rawr's own override too");
    assert.equal(verdict(100_000, { env: { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '130000' } }), 'refuse deferred', "the person's window: asks from 97,000");
  });

  it("allows from rawr's emergency line and from Claude Code's blocking level, whatever the follower decided", () => {
    assert.equal(verdict(176_000 + 1), 'allow emergency');
    assert.equal(verdict(175_000), 'refuse deferred');
    const lowEmergency = { ...shipped.settings, emergency_percent_remaining_lt: 3 };
    assert.equal(verdict(WINDOW * 0.95, { settings: lowEmergency }), 'allow blocking');
    assert.equal(verdict(WINDOW * 0.95 - 1, { settings: lowEmergency }), 'refuse deferred');
  });
});

describe('the PreCompact verdict at a boundary and while deferring', () => {
  const compact = { now: { action: 'compact' as const, code: 'compact', boundaries: ['commit 73a1097 step 1'] } };

  it('at a boundary: a heads-up first when the golden path is on, else the compaction at once', () => {
    const golden = (enabled: boolean) => ({ enabled, pending: null, packet: null });
    const heads = steerVerdict(input(170_000, { f: compact, golden: golden(true) }));
    assert.deepEqual([heads.allow, heads.why, heads.startGolden], [false, 'heads_up', { boundary: 'commit 73a1097', tier: 'ready', percentRemaining: 30 }]);
    const now = steerVerdict(input(170_000, { f: compact, golden: golden(false) }));
    assert.deepEqual([now.allow, now.why, now.text], [true, 'boundary', 'compacting at commit 73a1097 (85% used)']);
    assert.equal(verdict(170_000, { f: compact }), 'allow boundary', 'no golden path at all');
  });

  it("deferred: what it waits for (the tier's boundaries, never a plan change) and why not now", () => {
    const settings = {
      ...shipped.settings,
      auto_requires_any_boundary: { ...shipped.settings.auto_requires_any_boundary, ready: ['commit' as const, 'plan_update' as const, 'agent_done' as const] },
    };
    const v = steerVerdict(input(170_000, { settings, f: { tier: 'ready', now: { code: 'cooldown' } } }));
    assert.equal(v.text, 'deferred to the next boundary (85% used; waiting for a commit or the agent saying it is done; cooldown after the last compaction)');
    const early = steerVerdict(input(170_000, { f: { now: { code: 'above_threshold' } } }));
    assert.equal(early.text, "deferred to the next boundary (85% used; rawr's early line is 55%)");
  });
});

describe("Claude Code's ask line", () => {
  it('CLAUDE_AUTOCOMPACT_PCT_OVERRIDE as Claude Code reads it: a number in (0, 100]', () => {
    assert.deepEqual(['50', 50, '0', 0, '100', '100.5', -1, 'x', true, null].map(askPercentOf), [50, 50, null, null, 100, null, null, null, null, null]);
  });

  it('asks from the window less 33,000, or the override of the effective window when lower', () => {
    assert.equal(claudeAsksFrom(200_000, null), 167_000);
    assert.equal(claudeAsksFrom(200_000, 50), 90_000);
    assert.equal(claudeAsksFrom(200_000, 99), 167_000);
  });

  it("the window the person set in Claude Code's settings: the first layer with a number wins, rawr's own value in the local file is none", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-steerwin-'));
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-steerhome-'));
    try {
      const write = (dir: string, file: string, value: unknown) => {
        fs.mkdirSync(path.join(dir, '.claude'), { recursive: true });
        fs.writeFileSync(path.join(dir, '.claude', file), typeof value === 'string' ? value : JSON.stringify(value));
      };
      assert.equal(await settingsWindow(root, home, 1_000_000), null, 'no settings');
      write(home, 'settings.json', { autoCompactWindow: 300_000 });
      write(root, 'settings.local.json', { model: 'x' });
      write(root, 'settings.json', '// team\n{ "autoCompactWindow": "big" }');
      assert.equal(await settingsWindow(root, home, 1_000_000), 300_000, 'layers without a number say nothing');
      write(root, 'settings.json', { autoCompactWindow: 1_000_000 });
      assert.equal(await settingsWindow(root, home, 1_000_000), 1_000_000, "the team's value, even when it equals rawr's");
      write(root, 'settings.local.json', { autoCompactWindow: 1_000_000 });
      assert.equal(await settingsWindow(root, home, 1_000_000), null, "rawr's own value in the local file");
      write(root, 'settings.local.json', { autoCompactWindow: 0 });
      assert.equal(await settingsWindow(root, home, 1_000_000), null, 'a window of 0 is none');
      write(root, 'settings.local.json', { autoCompactWindow: 150_000.4 });
      assert.equal(await settingsWindow(root, home, 1_000_000), 150_000);
      assert.equal(await settingsWindow(path.join(root, 'nowhere'), undefined, null), null);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
