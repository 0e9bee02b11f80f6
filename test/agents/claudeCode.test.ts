/**
 * The real Claude Code CLI (pinned in test/agents/install.sh, cached in .claude-test/) with rawr's hooks
 * installed by `rawr hooks claude install --write`, offline against the scripted Anthropic server
 * (test/support/scriptedAnthropic.ts). Each scenario runs `claude -p` turns in a fresh project and HOME
 * and asserts that rawr injected its handoff exactly when Claude Code really compacted:
 *   A manual /compact, B reactive auto-compaction ("prompt is too long"), C threshold auto-compaction,
 *   D the SessionStart hook removed (UserPromptSubmit injects): one injection each, reaching the model;
 *   E a /compact whose summary request fails, F an auto-compaction Claude Code abandons: PreCompact
 *   fires, no compaction happens, nothing is injected.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { filesUnder, scenarioSuite, assertHandoffSeenOnce } from './support';
import { CLAUDE, facts, setUp as setUpClaude, turn, type Facts } from './claude';

/** These scenarios are about detection and the handoff at Claude Code's own compactions: rawr does not steer (--no-steer). */
const setUp = (prefix: string, server: Parameters<typeof setUpClaude>[1], env: Record<string, string> = {}) => setUpClaude(prefix, server, env, ['--no-steer']);

function assertInjectedOnce(f: Facts, via: string): void {
  assert.ok(f.boundaries >= 1, `Claude Code compacted: ${f.report}`);
  assert.ok(f.snapshots >= 1, `PreCompact wrote a snapshot: ${f.report}`);
  assert.deepEqual(f.claims, [via], `rawr injected exactly once, via ${via}: ${f.report}`);
  assertHandoffSeenOnce(f.handoffPerRequest, f.report);
}

function assertNothingInjected(f: Facts): void {
  assert.ok(f.snapshots >= 1, `PreCompact fired and rawr took a snapshot: ${f.report}`);
  assert.equal(f.boundaries, 0, `no compaction happened: ${f.report}`);
  assert.deepEqual(f.claims, [], `nothing injected: ${f.report}`);
  assert.deepEqual(f.confirmedBy, [], `nothing confirmed: ${f.report}`);
  assert.ok(
    f.handoffPerRequest.every((n) => n === 0),
    `the model never saw a handoff: ${f.report}`,
  );
}

describe('real Claude Code: rawr injects exactly when a compaction happened', function () {
  this.timeout(600_000);
  const setup = scenarioSuite(CLAUDE, 'Claude Code', setUp);

  it('A: manual /compact, then two prompts: SessionStart(compact) injects once', async () => {
    const s = await setup('A', {});
    await turn(s, 'DO_WORK please do step 1 of PLAN.md');
    await turn(s, '/compact keep the commit hashes', '--continue');
    await turn(s, 'continue please', '--continue');
    await turn(s, 'one more prompt', '--continue');
    const f = facts(s);
    assertInjectedOnce(f, 'SessionStart');
    // Claude Code's own summary (PostCompact's compact_summary) is kept beside the snapshot
    const summaries = filesUnder(path.join(s.repo, '.rawr/claude'), /\.compact-summary$/);
    assert.equal(summaries.length, 1, f.report);
    assert.match(fs.readFileSync(summaries[0]!, 'utf8'), /Pending Tasks: step 2/);
    // the snapshot read the real transcript: the person's request and the Task tools' plan (Claude Code 2.1)
    const [snap] = filesUnder(path.join(s.repo, '.rawr/claude'), /^snapshot-.*\.json$/);
    const snapshot = JSON.parse(fs.readFileSync(snap!, 'utf8')) as { userRequests: string[]; todos: Array<{ text: string }> | null; plan?: { file?: string } };
    assert.ok(snapshot.userRequests.includes('DO_WORK please do step 1 of PLAN.md'), JSON.stringify(snapshot.userRequests));
    assert.ok(
      snapshot.todos?.some((t) => t.text.includes('Step 1: write hello.txt')),
      JSON.stringify(snapshot.todos),
    );
    assert.equal(snapshot.plan?.file, 'PLAN.md');
  });

  it('B: auto-compaction after "prompt is too long": injects once', async () => {
    const s = await setup('B', {});
    await turn(s, 'DO_WORK OVERFLOW please do step 1 of PLAN.md');
    await turn(s, 'continue please', '--continue');
    assertInjectedOnce(facts(s), 'SessionStart');
  });

  it('C: threshold auto-compaction: injects once', async () => {
    const s = await setup('C', { bigTokens: 190_000 }, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '200000' });
    await turn(s, 'DO_WORK INFLATE please do step 1 of PLAN.md');
    await turn(s, 'continue please', '--continue');
    assertInjectedOnce(facts(s), 'SessionStart');
  });

  it('D: SessionStart hook removed: UserPromptSubmit injects once', async () => {
    const s = await setup('D', {});
    const file = path.join(s.repo, '.claude/settings.local.json');
    const settings = JSON.parse(fs.readFileSync(file, 'utf8')) as { hooks: Record<string, unknown> };
    delete settings.hooks.SessionStart;
    fs.writeFileSync(file, JSON.stringify(settings, null, 2));
    await turn(s, 'DO_WORK please do step 1 of PLAN.md');
    await turn(s, '/compact', '--continue');
    await turn(s, 'continue please', '--continue');
    await turn(s, 'one more prompt', '--continue');
    assertInjectedOnce(facts(s), 'UserPromptSubmit');
  });

  it('E: /compact whose summary request fails: PreCompact fired, nothing injected', async () => {
    const s = await setup('E', { failCompact: true });
    await turn(s, 'DO_WORK please do step 1 of PLAN.md');
    await turn(s, '/compact', '--continue');
    await turn(s, 'continue please', '--continue');
    const f = facts(s);
    assert.ok(f.compactRequests >= 1, `the summary request was sent (and refused): ${f.report}`);
    assertNothingInjected(f);
  });

  it('F: auto-compaction Claude Code abandons: PreCompact fired, nothing injected', async () => {
    const s = await setup('F', { bigTokens: 190_000 }, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '200000' });
    await turn(s, 'DO_WORK INFLATE_ONCE please do step 1 of PLAN.md');
    await turn(s, 'continue please', '--continue');
    assertNothingInjected(facts(s));
  });
});
