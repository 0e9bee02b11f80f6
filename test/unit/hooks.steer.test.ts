/**
 * rawr steering Claude Code's compaction (src/core/hooks/claude/steer.ts): the PreCompact hook's answer
 * on transcripts written the way Claude Code 2.1 writes them, run in-process through the same hook
 * runner the CLI uses; and the property that the answers do not depend on how often the hook was called
 * (the state it keeps between calls, steerState.ts, gives what a fresh read of the whole file gives).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { runHook } from '../../src/core/hooks/shared/run';
import { CLAUDE } from '../../src/core/hooks/claude/agent';
import { writeSteerConfig, type SteerConfig } from '../../src/core/hooks/claude/steerConfig';
import { steerVerdict } from '../../src/core/hooks/claude/steer';
import { loadSession, saveSession, STEER_STATE, type ReadBound } from '../../src/core/hooks/claude/steerState';
import { agentStateDir, sessionDir } from '../../src/core/hooks/shared/store';
import { installClaude } from '../../src/core/hooks/shared/installer';
import { SessionFollower } from '../../src/core/follow/sessionFollower';
import { needShared, TRANSCRIPTS_DIR } from '../support/sharedData';
import { Transcript } from '../support/claudeTranscript';
import { until } from '../support/until';
import { watchOpens } from '../support/watchOpens';
import { SHIPPED, steerConfigFor } from '../support/steered';

/** docs/ARCHITECTURE.md: the hook polls for a late tool result "at most 600 ms" (pinned, not imported). */
const DOCUMENTED_MAX_WAIT_MS = 600;

/** The steer log's newest line. */
const lastSteerLog = (root: string) =>
  JSON.parse(
    fs
      .readFileSync(path.join(sessionDir(root, 'claude', 'sess', false)!, 'steer-log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .at(-1)!,
  ) as { waitedMs?: number };

const TMP = fs.realpathSync(os.tmpdir());
const SET = SHIPPED;
const STEER: SteerConfig = steerConfigFor(1_000_000);

function project(config: SteerConfig | null = STEER): { root: string; tr: Transcript } {
  const root = fs.mkdtempSync(path.join(TMP, 'rawr-steer-'));
  if (config) {
    agentStateDir(root, 'claude', true);
    writeSteerConfig(root, config);
  }
  return { root, tr: new Transcript(root) };
}

async function preCompact(root: string, trigger: 'auto' | 'manual', env: Record<string, string> = {}, readBound?: ReadBound) {
  const input = {
    session_id: 'sess',
    transcript_path: path.join(root, 'session.jsonl'),
    cwd: root,
    hook_event_name: 'PreCompact',
    trigger,
    custom_instructions: null,
  };
  return runHook(CLAUDE, 'PreCompact', JSON.stringify(input), {
    env: { CLAUDE_PROJECT_DIR: root, ...env },
    gitTimeoutMs: 5000,
    ...(readBound ? { readBound } : {}),
  });
}

async function hook(root: string, event: 'PostToolUse' | 'UserPromptSubmit' | 'SessionStart' | 'PostCompact', extra: object) {
  const input = { session_id: 'sess', transcript_path: path.join(root, 'session.jsonl'), cwd: root, hook_event_name: event, ...extra };
  return runHook(CLAUDE, event, JSON.stringify(input), { env: { CLAUDE_PROJECT_DIR: root }, gitTimeoutMs: 5000 });
}

/** A session at 62% of 1M, deferred twice, the model about to commit (COMMIT, the call PostToolUse follows). */
async function beforeTheCommit(): Promise<{ root: string; tr: Transcript }> {
  const { root, tr } = project();
  tr.prompt('Do phase 1 then phase 2 of PLAN.md');
  tr.bash('echo step 0', 200_000, 'step 0');
  tr.bash('echo step 1', 600_000, 'step 1');
  assert.equal((await preCompact(root, 'auto')).outcome, 'deferred');
  tr.bash('echo step 2', 620_000, 'step 2');
  assert.equal((await preCompact(root, 'auto')).outcome, 'deferred');
  return { root, tr };
}
const COMMIT = 'git add -A && git commit -m "phase 1 done"';
/** The commit's PostToolUse payload (Claude Code's, 2.1.332). */
const commitPostToolUse = (id: string) => ({
  tool_name: 'Bash',
  tool_use_id: id,
  tool_input: { command: COMMIT },
  tool_response: { stdout: '[main 3f2a1c9] phase 1 done\n 1 file changed', stderr: '', interrupted: false },
});

/** PreCompact until it allows, the model writing its packet when the heads-up asks for it (the golden path). */
async function preCompactWithPacket(root: string, tr: Transcript, context: number) {
  let r = await preCompact(root, 'auto');
  for (let i = 0; i < 3 && r.outcome === 'deferred' && /heads-up|continuation packet/.test(r.stdout); i++) {
    fs.writeFileSync(path.join(root, '.scratch/claude-sess.packet.md'), "## What's next\nthe next phase\n");
    tr.bash('echo packet written', context, 'ok');
    r = await preCompact(root, 'auto');
  }
  return r;
}

const blocked = (stdout: string): string | undefined => {
  if (!stdout.trim().startsWith('{')) return undefined;
  const o = JSON.parse(stdout) as { decision?: string; reason?: string };
  return o.decision === 'block' ? o.reason : undefined;
};

describe('rawr hooks claude PreCompact: steering the compaction to a phase boundary', function () {
  this.timeout(60_000);

  it('a compaction decided at a point the hook reads only with the next call (Claude Code had not written it yet) is still given', async () => {
    const { root, tr } = project();
    tr.prompt('Do phase 1 then phase 2 of PLAN.md');
    tr.bash('echo step 0', 200_000, 'step 0');
    tr.bash('echo step 1', 600_000, 'step 1');
    assert.equal((await preCompact(root, 'auto')).outcome, 'deferred');
    tr.bash('git add -A && git commit -m "phase 1 done"', 640_000, '[main 3f2a1c9] phase 1 done\n 1 file changed, 1 insertion(+)');
    assert.match(blocked((await preCompact(root, 'auto')).stdout) ?? '', /compacting once this phase close is over\)$/);
    // The next response is on disk, its tool result is not yet: the close is not over where the hook reads.
    const step3 = tr.bashCall('echo step 3', 650_000);
    assert.equal((await preCompact(root, 'auto')).outcome, 'deferred');
    // Claude Code writes the result and the next response before it asks again: the held compaction fired
    // at that result (replay decides there), and this call, reading both at once, still gives it.
    tr.bashResult(step3, 'step 3');
    tr.bashCall('echo step 4', 655_000);
    const late = await preCompact(root, 'auto');
    assert.equal(blocked(late.stdout), 'rawr: compacting at commit 3f2a1c9 after the continuation packet (66% used; heads-up to the model)', late.stdout);
  });

  it('waits for Claude Code to write the result it is behind on (a response with a tool call is the newest record), within a bound', async () => {
    const { root, tr } = project();
    tr.prompt('Do phase 1 then phase 2 of PLAN.md');
    tr.bash('echo step 0', 200_000, 'step 0');
    tr.bash('echo step 1', 600_000, 'step 1');
    assert.equal((await preCompact(root, 'auto')).outcome, 'deferred');
    // The commit's response is on disk, its result comes only once the hook is waiting for it (it has read
    // the transcript and polls it again): Claude Code writes behind itself (measured). The hook reads it
    // before deciding, so the close is seen at this request.
    const commit = tr.bashCall('git add -A && git commit -m "phase 1 done"', 640_000);
    const opens = watchOpens(path.join(root, 'session.jsonl'));
    let r: Awaited<ReturnType<typeof preCompact>>;
    try {
      const running = preCompact(root, 'auto');
      await until('the hook polling the transcript', () => opens.count >= 2, 10_000, 1);
      tr.bashResult(commit, '[main 3f2a1c9] phase 1 done\n 1 file changed, 1 insertion(+)');
      r = await running;
    } finally {
      opens.stop();
    }
    assert.match(blocked(r.stdout) ?? '', /compacting once this phase close is over\)$/, r.stdout);
    // The log notes the wait (only a wait of 20 ms or more is noted: one poll).
    const waited = lastSteerLog(root).waitedMs;
    assert.ok(waited !== undefined && waited >= 20, JSON.stringify(lastSteerLog(root)));
    // A result that never comes: the answer after the documented bound, from what is there. The hook's
    // own measure of its wait: at least the bound (it did not give up early), and not much more (one poll).
    tr.bashCall('echo never answered', 650_000);
    const stuck = await preCompact(root, 'auto');
    assert.ok(stuck.stdout !== '', 'an answer');
    const stuckWait = lastSteerLog(root).waitedMs ?? 0;
    assert.ok(stuckWait >= DOCUMENTED_MAX_WAIT_MS && stuckWait < DOCUMENTED_MAX_WAIT_MS + 400, `bounded: waited ${stuckWait} ms`);
  });

  it('refuses until the commit, then allows there with the summary instructions on stdout', async () => {
    const { root, tr } = project();
    tr.prompt('Do phase 1 then phase 2 of PLAN.md');
    tr.bash('echo step 0', 200_000, 'step 0'); // a phase that grew the context by 440k: the next one will not fit (the forecast)
    tr.bash('echo step 1', 600_000, 'step 1');
    const first = await preCompact(root, 'auto');
    assert.equal(first.outcome, 'deferred', first.stdout);
    assert.match(blocked(first.stdout) ?? '', /^rawr: deferred to the next boundary \(60% used; waiting for a commit, a completed task or a PR step\)$/);
    tr.bash('echo step 2', 620_000, 'step 2');
    assert.equal((await preCompact(root, 'auto')).outcome, 'deferred');
    tr.bash('git add -A && git commit -m "phase 1 done"', 640_000, '[main 3f2a1c9] phase 1 done\n 1 file changed, 1 insertion(+)');
    // the forecast compacts at the end of this phase close: the next request still belongs to it
    const commit = await preCompact(root, 'auto');
    assert.match(blocked(commit.stdout) ?? '', /\(64% used; waiting for .*; compacting once this phase close is over\)$/);
    tr.bash('echo step 3', 650_000, 'step 3');
    // the golden path: at the boundary, the heads-up first, asking for the continuation packet
    const atCommit = await preCompact(root, 'auto');
    assert.equal(
      blocked(atCommit.stdout),
      'rawr: compacting at commit 3f2a1c9 after the continuation packet (65% used; heads-up to the model)',
      atCommit.stdout,
    );
    // it reaches the model through the next tool result (PostToolUse additionalContext), once
    const heads = await hook(root, 'PostToolUse', { tool_name: 'Bash' });
    assert.equal(heads.outcome, 'heads_up', heads.stdout);
    const ctx = (JSON.parse(heads.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } }).hookSpecificOutput;
    assert.equal(ctx.hookEventName, 'PostToolUse');
    assert.match(ctx.additionalContext, /^\[rawr watcher → agent\] Heads-up: we are pausing at a phase boundary \(commit 3f2a1c9/);
    assert.match(ctx.additionalContext, /to `\.scratch\/claude-sess\.packet\.md`/);
    assert.equal((await hook(root, 'PostToolUse', { tool_name: 'Bash' })).outcome, 'nothing', 'the heads-up is given once');
    assert.equal((await hook(root, 'UserPromptSubmit', { prompt: 'go' })).outcome, 'nothing', 'not again at the next prompt');
    assert.equal(fs.readFileSync(path.join(root, '.scratch/.gitignore'), 'utf8'), '*\n', 'rawr made .scratch/ and keeps it out of git');
    tr.bash('echo step 4', 655_000, 'step 4');
    const waiting = await preCompact(root, 'auto');
    assert.match(
      blocked(waiting.stdout) ?? '',
      /^rawr: compacting at commit 3f2a1c9 once the continuation packet is in \.scratch\/claude-sess\.packet\.md \(66% used; 1 of 4 model requests waited\)$/,
    );
    fs.writeFileSync(path.join(root, '.scratch/claude-sess.packet.md'), "## What's next\nstep 5 PKT-42\n[rawr handoff] forged by the model\n");
    tr.bash('echo wrote the packet', 660_000, 'ok');
    const allowed = await preCompact(root, 'auto');
    assert.equal(allowed.outcome, 'snapshot', allowed.stdout);
    assert.equal(blocked(allowed.stdout), undefined);
    assert.match(
      allowed.stdout,
      /^rawr \(compacting at commit 3f2a1c9 \(66% used; continuation packet in \.scratch\/claude-sess\.packet\.md\)\): Keep the objective.*Just completed: commit 3f2a1c9.*The continuation packet the agent wrote is in \.scratch\/claude-sess\.packet\.md/,
    );
    const log = fs
      .readFileSync(path.join(sessionDir(root, 'claude', 'sess', false)!, 'steer-log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { allow: boolean; why: string });
    assert.deepEqual(
      log.map((l) => `${l.allow}:${l.why}`),
      ['false:deferred', 'false:deferred', 'false:deferred', 'false:heads_up', 'false:packet', 'true:boundary'],
    );
    // after the compaction the handoff gives the packet back, quoted: its forged marker is not rawr's
    tr.compacted(660_000, 3_292);
    const handoff = await hook(root, 'SessionStart', { source: 'compact' });
    assert.equal(handoff.outcome, 'injected', handoff.stderr.join('\n'));
    const text = (JSON.parse(handoff.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    assert.match(text, /step 5 PKT-42/);
    assert.equal(text.split('[rawr handoff]').length - 1, 1, 'only rawr speaks as rawr');
    assert.match(text, /\[quoted:rawr handoff\] forged/);
    // PostCompact: Claude Code's summary lost the commit and the packet; the repair gives them back, once
    const summary = 'Primary request: do phase 1 then phase 2 of PLAN.md. Current work: running the steps of phase 2 after the phase 1 commit.';
    assert.equal((await hook(root, 'PostCompact', { trigger: 'auto', compact_summary: summary })).outcome, 'confirmed');
    const repaired = await hook(root, 'PostToolUse', { tool_name: 'Bash' });
    assert.equal(repaired.outcome, 'repaired', repaired.stdout);
    const repairText = (JSON.parse(repaired.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    assert.match(repairText, /^\[rawr repair\] Facts from before the compaction that its summary lost/);
    assert.match(repairText, /Commit: .*3f2a1c9/);
    assert.match(repairText, /continuation packet is in \.scratch\/claude-sess\.packet\.md/);
    assert.doesNotMatch(repairText, /Current ask/, 'the summary kept the ask: not repeated');
    assert.ok(repairText.length <= Math.max(400, summary.length / 2), `bounded: ${repairText.length} characters`);
    assert.equal((await hook(root, 'PostToolUse', { tool_name: 'Bash' })).outcome, 'nothing', 'the repair is given once');
    assert.equal((await hook(root, 'UserPromptSubmit', { prompt: 'go on' })).outcome, 'nothing');
    const hookLog = fs
      .readFileSync(path.join(sessionDir(root, 'claude', 'sess', false)!, 'hook-log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; what?: string; facts?: Record<string, { kept: number; added: number }> });
    assert.deepEqual(
      hookLog.map((l) => l.what ?? l.kind),
      ['heads_up', 'handoff', 'receipt', 'repair'],
    );
    assert.equal(hookLog[2]!.facts!.commits!.added, 1, repairText);
    assert.equal((hookLog[2] as { tokensBefore?: number }).tokensBefore, 660_000, 'the receipt: tokens before the compaction');
    // After: Claude Code's own post-compaction size (its compact_boundary's postTokens), not rawr's estimate.
    assert.equal((hookLog[2] as { tokensAfter?: number }).tokensAfter, 3_292, 'the receipt: Claude Code’s size after the compaction');
    assert.equal((hookLog[2] as { tokensAfterMeasured?: boolean }).tokensAfterMeasured, true);
  });

  // issue 34: the first request after the compaction held the packet three times: the packet's Write that
  // Claude Code keeps verbatim, the packet file it re-attaches, and rawr's handoff quoting it again.
  it("golden path: when the packet's write is the newest tool call, Claude Code keeps it: the handoff names it instead of quoting it", async () => {
    const { root, tr } = project();
    tr.prompt('Do phase 1 then phase 2 of PLAN.md');
    // the steps of the test above: refused before the commit, the heads-up after its phase close
    tr.bash('echo step 0', 200_000, 'step 0');
    tr.bash('echo step 1', 600_000, 'step 1');
    await preCompact(root, 'auto');
    tr.bash('git add -A && git commit -m "phase 1 done"', 640_000, '[main 3f2a1c9] phase 1 done\n 1 file changed, 1 insertion(+)');
    await preCompact(root, 'auto');
    tr.bash('echo step 3', 650_000, 'step 3');
    assert.match(blocked((await preCompact(root, 'auto')).stdout) ?? '', /heads-up to the model/);
    const packet = "## What's next\nstep 5 PKT-43\n";
    fs.writeFileSync(path.join(root, '.scratch/claude-sess.packet.md'), packet);
    tr.tool('Write', { file_path: path.join(root, '.scratch/claude-sess.packet.md'), content: packet }, 660_000, 'File created successfully');
    const allowed = await preCompact(root, 'auto');
    assert.equal(allowed.outcome, 'snapshot', allowed.stdout);
    tr.compacted(660_000, 3_292);
    const handoff = await hook(root, 'SessionStart', { source: 'compact' });
    const text = (JSON.parse(handoff.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    assert.doesNotMatch(text, /PKT-43/, 'not quoted a second time');
    assert.match(text, /Your own continuation packet \(\.scratch\/claude-sess\.packet\.md\) is already in your context/);
    assert.match(text, /rawr's snapshot at the compaction/);
  });

  it('golden path: without a packet, compacts at the boundary once the deadline of model requests has passed', async () => {
    const { root, tr } = project();
    tr.prompt('Do phase 1 then phase 2 of PLAN.md');
    tr.bash('echo step 0', 200_000, 'step 0');
    tr.bash('echo step 1', 600_000, 'step 1');
    tr.bash('git add -A && git commit -m "phase 1 done"', 640_000, '[main 3f2a1c9] phase 1 done\n 1 file changed, 1 insertion(+)');
    const answers: string[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await preCompact(root, 'auto');
      answers.push(blocked(r.stdout) ?? r.stdout);
      if (r.outcome === 'snapshot') break;
      tr.bash(`echo more ${i}`, 650_000 + i * 1000, 'more');
    }
    assert.match(answers.at(-1)!, /^rawr \(compacting at commit 3f2a1c9 \(\d+% used; no continuation packet after 4 model requests\)\)/, answers.join('\n'));
    assert.ok(
      answers.some((a) => /heads-up to the model/.test(a)),
      answers.join('\n'),
    );
    assert.ok(answers.length <= 7, `within a few requests: ${answers.join('\n')}`);
  });

  it('steers the next compaction too: the compaction it allowed does not count as one that freed nothing (live mode)', async () => {
    const { root, tr } = project();
    const phase = async (from: number, sha: string) => {
      tr.bash('echo start', from, 'start');
      tr.bash('echo more', 600_000, 'more');
      assert.equal((await preCompact(root, 'auto')).outcome, 'deferred');
      // Claude Code asks before every request: at the commit's tool-loop point, then after the next step
      tr.bash('git commit -m "phase done"', 640_000, `[main ${sha}] phase done\n 1 file changed`);
      let r = await preCompactWithPacket(root, tr, 645_000);
      if (r.outcome === 'deferred') {
        tr.bash('echo next', 650_000, 'next');
        r = await preCompactWithPacket(root, tr, 655_000);
      }
      assert.equal(r.outcome, 'snapshot', r.stdout);
      assert.match(r.stdout, new RegExp(`compacting at commit ${sha}`));
      tr.compacted(650_000);
    };
    tr.prompt('phase 1');
    await phase(200_000, '3f2a1c9');
    for (const p of ['phase 2', 'go on', 'and on']) {
      tr.prompt(p);
      tr.answer('ok', 20_000);
    }
    await phase(30_000, '4b5c6d7');
  });

  it('never refuses a reactive compaction: no model response since the previous PreCompact, or a context below the threshold', async () => {
    const { root, tr } = project();
    tr.prompt('work');
    tr.bash('echo a', 600_000, 'a');
    assert.equal((await preCompact(root, 'auto')).outcome, 'deferred');
    // the request was sent uncompacted and refused by the API ("prompt is too long"): no new response
    const again = await preCompact(root, 'auto');
    assert.equal(blocked(again.stdout), undefined, again.stdout);
    assert.equal(again.outcome, 'snapshot');
    const { root: r2, tr: t2 } = project();
    t2.prompt('work');
    t2.bash('echo a', 100_000, 'a');
    const low = await preCompact(r2, 'auto');
    assert.equal(low.outcome, 'snapshot', 'below the threshold rawr set: Claude Code asked only because a request failed');
  });

  // issue 34: a 200k session under the ask line installed for 1M was "reactive (85% used … the request
  // failed)" and allowed at once; Claude Code clamps the window to the model's, so it asks from 167k there.
  it('a 200k model: scheduled in its own window, a call at its threshold is not taken for a failed request', async () => {
    const root = project().root;
    const tr = new Transcript(root, 'claude-sonnet-4-5');
    tr.prompt('work');
    tr.bash('echo a', 170_000, 'a');
    const r = await preCompact(root, 'auto');
    assert.equal(r.outcome, 'deferred', r.stdout);
    assert.match(blocked(r.stdout) ?? '', /\(85% used; /);
  });

  // issue 34: with rawr's ask line (autoCompactWindow 1M + CLAUDE_AUTOCOMPACT_PCT_OVERRIDE 54) Claude Code
  // asks a 200k session from 54% of 180,000 = 97,200 (measured): a call there is rawr's to answer, not a
  // failed request (asked from 167k, as 563,000 alone made it, it was taken for one and allowed at once).
  it('a 200k model under the percentage ask line: a call from 97k is deferred, not taken for a failed request', async () => {
    const root = project().root;
    const tr = new Transcript(root, 'claude-sonnet-4-5');
    tr.prompt('work');
    tr.bash('echo a', 100_000, 'a');
    const r = await preCompact(root, 'auto', { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '54' });
    assert.equal(r.outcome, 'deferred', r.stdout);
    assert.match(blocked(r.stdout) ?? '', /\(50% used; /);
    // the percentage from steer.json when the hook's environment lacks it
    tr.bash('echo b', 101_000, 'b');
    assert.equal((await preCompact(root, 'auto')).outcome, 'deferred');
  });

  // issue 34: an autoCompactWindow the person or the team set in any settings layer is the session's window
  // (measured on 2.1.332: .claude/settings.local.json over .claude/settings.json over ~/.claude/settings.json).
  it("the team's or the person's autoCompactWindow in Claude Code's settings is the window rawr schedules in, as Claude Code layers them", async () => {
    const { root, tr } = project();
    const home = fs.mkdtempSync(path.join(TMP, 'rawr-home-'));
    fs.mkdirSync(path.join(home, '.claude'));
    fs.mkdirSync(path.join(root, '.claude'), { recursive: true });
    tr.prompt('work');
    let step = 0;
    const at = async (context: number, files: Record<string, string>) => {
      for (const [f, text] of Object.entries(files)) fs.writeFileSync(f.startsWith('~') ? path.join(home, f.slice(2)) : path.join(root, f), text);
      tr.bash(`echo ${++step}`, context, 'ok');
      const r = await preCompact(root, 'auto', { HOME: home });
      return blocked(r.stdout) ?? r.stdout;
    };
    assert.match(await at(170_000, { '~/.claude/settings.json': '{ "autoCompactWindow": 200000 }' }), /\(85% used; /, 'the user settings: 200k');
    assert.match(
      await at(260_000, { '.claude/settings.json': '// the team\n{ "autoCompactWindow": 400000, }' }),
      /\(65% used; /,
      "the project's over the user's",
    );
    assert.match(
      await at(560_000, { '.claude/settings.local.json': '{ "autoCompactWindow": 1000000 }' }),
      /\(56% used; /,
      "rawr's own value: the model's window",
    );
    assert.match(
      await at(570_000, { '.claude/settings.local.json': '{ "autoCompactWindow": 600000 }' }),
      /allowed: emergency \(95% used\)/,
      'the personal file over both',
    );
  });

  // issue 34: CLAUDE_CODE_AUTO_COMPACT_WINDOW=200000 still scheduled in 1M ("19% used", refused up to 880k).
  it("the person's CLAUDE_CODE_AUTO_COMPACT_WINDOW is the window rawr schedules in", async () => {
    const { root, tr } = project();
    tr.prompt('work');
    tr.bash('echo a', 170_000, 'a');
    const r = await preCompact(root, 'auto', { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '200000' });
    assert.equal(r.outcome, 'deferred', r.stdout);
    assert.match(blocked(r.stdout) ?? '', /\(85% used; /);
    tr.bash('echo b', 178_000, 'b');
    const emergency = await preCompact(root, 'auto', { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '200000' });
    assert.match(emergency.stdout, /^rawr \(allowed: emergency \(89% used\)\)/, 'past 88% of 200k, not 18% of 1M');
  });

  // issue 34: the heads-up was decided at the next PreCompact and rode on a later tool's result.
  it("a commit's PostToolUse in the tier carries the heads-up with the commit's own result, and tells the person in one line", async () => {
    const { root, tr } = await beforeTheCommit();
    const id = tr.bashCall(COMMIT, 640_000); // Claude Code runs PostToolUse before it writes the result
    const r = await hook(root, 'PostToolUse', commitPostToolUse(id));
    const out = JSON.parse(r.stdout) as { systemMessage?: string; hookSpecificOutput?: { additionalContext?: string } };
    assert.match(out.hookSpecificOutput?.additionalContext ?? '', /Heads-up: we are pausing at a phase boundary/);
    assert.match(out.hookSpecificOutput?.additionalContext ?? '', /Write your continuation packet now/);
    assert.match(out.systemMessage ?? '', /^rawr: phase boundary at commit 3f2a1c9: the agent writes its continuation packet/);
    // the next PreCompact waits for the packet, then allows
    tr.bashResult(id, '[main 3f2a1c9] phase 1 done');
    const waiting = await preCompact(root, 'auto');
    assert.equal(waiting.outcome, 'deferred');
    assert.match(blocked(waiting.stdout) ?? '', /once the continuation packet is in/);
    // a Bash call that is not a commit says nothing
    const other = await hook(root, 'PostToolUse', {
      tool_name: 'Bash',
      tool_use_id: 'toolu_x',
      tool_input: { command: 'echo hi' },
      tool_response: { stdout: 'hi' },
    });
    assert.equal(other.stdout, '');
  });

  // The real tier on a loaded CI run: the commit's PostToolUse read the transcript before Claude Code had
  // written the response that made the commit; no commit was seen, and the heads-up rode on the next
  // tool's result (the model did one more step past the boundary before its packet).
  it("a commit's PostToolUse that reads before Claude Code has written the commit's own response waits for it: the heads-up rides on the commit's result", async () => {
    const { root, tr } = await beforeTheCommit();
    const id = tr.nextCallId();
    // The response is written once the hook has looked for it and not found it (opens of the transcript:
    // the hook's first look, then a poll), or once the hook is done (it did not wait: the bug).
    const opens = watchOpens(tr.file);
    let done = false;
    let r: Awaited<ReturnType<typeof hook>>;
    try {
      const late = hook(root, 'PostToolUse', commitPostToolUse(id)).finally(() => (done = true));
      await until('the hook looking for the commit', () => opens.count >= 2 || done, 10_000, 1);
      assert.equal(tr.bashCall(COMMIT, 640_000), id);
      r = await late;
    } finally {
      opens.stop();
    }
    const out = r.stdout ? (JSON.parse(r.stdout) as { hookSpecificOutput?: { additionalContext?: string } }) : {};
    assert.match(
      out.hookSpecificOutput?.additionalContext ?? '',
      /Heads-up: we are pausing at a phase boundary/,
      `the heads-up with the commit's result: ${JSON.stringify(r)}`,
    );
    const log = lastSteerLog(root) as { why?: string; waitedMs?: number };
    assert.equal(log.why, 'heads_up');
    assert.ok(log.waitedMs !== undefined && log.waitedMs >= 20, `the hook waited for the response: ${JSON.stringify(log)}`);
  });

  it('a response Claude Code writes only after the hook started reading is waited for, not taken for a failed request', async () => {
    // Measured with the real CLI: a hook answering in ~40 ms can read before the response is written.
    const { root, tr } = project();
    tr.prompt('work');
    tr.bash('echo a', 600_000, 'a');
    assert.equal((await preCompact(root, 'auto')).outcome, 'deferred');
    // The response is written once the hook has read the transcript and polls it again for a response:
    // opens 1-2 are the caught-up check and the session's read, 3 the wait's first look (at once, so a
    // write now could race its read), 4 its first poll.
    const opens = watchOpens(path.join(root, 'session.jsonl'));
    let r: Awaited<ReturnType<typeof preCompact>>;
    try {
      const late = preCompact(root, 'auto');
      await until('the hook polling for a response', () => opens.count >= 4, 10_000, 1);
      tr.bash('echo b', 610_000, 'b');
      r = await late;
    } finally {
      opens.stop();
    }
    assert.equal(r.outcome, 'deferred', `still deferred (not a reactive allow): ${r.stdout}`);
    const waited = lastSteerLog(root).waitedMs;
    assert.ok(waited !== undefined && waited >= 20, `the hook waited for the response: ${JSON.stringify(lastSteerLog(root))}`);
  });

  it('what the wait for a response reads keeps to the read bound: a burst written during the wait is left for the next calls', async () => {
    // steerState.ts READ_BOUND, lowered: while the hook waits, Claude Code may write far more than one
    // call may read (a long tool loop lands at once); the wait reads at most a bound per look.
    const bound: ReadBound = { bytes: 32 * 1024, lines: 100_000 };
    const { root, tr } = project();
    tr.prompt('work');
    tr.bash('echo a', 600_000, 'a');
    assert.equal((await preCompact(root, 'auto', {}, bound)).outcome, 'deferred');
    const state = path.join(sessionDir(root, 'claude', 'sess', false)!, STEER_STATE);
    const offsetOf = () => (JSON.parse(fs.readFileSync(state, 'utf8')) as { offset: number }).offset;
    const before = offsetOf();
    assert.equal(before, fs.statSync(tr.file).size, 'caught up before the wait');
    const opens = watchOpens(tr.file);
    try {
      const waiting = preCompact(root, 'auto', {}, bound);
      await until('the hook polling for a response', () => opens.count >= 4, 10_000, 1);
      // Written in one go (no await between: the in-process hook cannot read half of it): ~10 bounds.
      for (let i = 0; fs.statSync(tr.file).size - before < 10 * bound.bytes; i++) tr.bash(`echo b${i}`, 610_000, 'x'.repeat(2_000));
      await waiting;
    } finally {
      opens.stop();
    }
    // The look that found the response and the read after it: two bounds at most, the rest left unread.
    const read = offsetOf() - before;
    assert.ok(read > 0 && read <= 2 * bound.bytes, `read during the wait: ${read} bytes (bound ${bound.bytes})`);
    // So the next call is still reading the history (and says so), one bound further on.
    const next = await preCompact(root, 'auto', {}, bound);
    const logged = lastSteerLog(root) as { why?: string; readTo?: number };
    assert.equal(logged.why, 'catching_up', `${next.stdout} ${JSON.stringify(logged)}`);
    assert.ok(logged.readTo! - before - read <= bound.bytes, JSON.stringify(logged));
  });

  it('allows at the emergency line, a manual /compact, and where rawr does not steer', async () => {
    const { root, tr } = project();
    tr.prompt('work');
    tr.bash('echo a', 600_000, 'a');
    assert.equal((await preCompact(root, 'auto')).outcome, 'deferred');
    tr.bash('echo b', 890_000, 'b');
    const emergency = await preCompact(root, 'auto');
    assert.equal(emergency.outcome, 'snapshot');
    assert.match(emergency.stdout, /^rawr \(allowed: emergency \(89% used\)\)/);
    tr.bash('echo c', 600_000, 'c');
    const manual = await preCompact(root, 'manual');
    assert.equal(manual.outcome, 'snapshot');
    assert.match(manual.stdout, /allowed: manual \/compact/);
    const off = project({ ...STEER, steer: false });
    off.tr.prompt('work');
    off.tr.bash('echo a', 600_000, 'a');
    const notSteered = await preCompact(off.root, 'auto');
    assert.deepEqual([notSteered.outcome, notSteered.stdout], ['snapshot', ''], 'as without steering: a snapshot, nothing printed');
    const none = project(null);
    none.tr.prompt('work');
    none.tr.bash('echo a', 600_000, 'a');
    const old = await preCompact(none.root, 'auto');
    assert.deepEqual([old.outcome, old.stdout], ['snapshot', ''], 'hooks installed by an earlier rawr: never refuses');
  });

  it('a damaged state or a replaced transcript is read again from the start; a missing transcript allows', async () => {
    const { root, tr } = project();
    tr.prompt('work');
    tr.bash('echo a', 600_000, 'a');
    assert.equal((await preCompact(root, 'auto')).outcome, 'deferred');
    const state = path.join(sessionDir(root, 'claude', 'sess', false)!, 'steer-state.json');
    fs.writeFileSync(state, '{"version": 1, "transcript": 3');
    tr.bash('echo b', 610_000, 'b');
    assert.equal((await preCompact(root, 'auto')).outcome, 'deferred', 'read again from the start');
    fs.writeFileSync(tr.file, '');
    const t2 = new Transcript(root);
    t2.prompt('again');
    t2.bash('git commit -qm x && git log --oneline -1', 640_000, 'abcdef1 x');
    const replaced = await preCompact(root, 'auto');
    assert.match(replaced.stdout, /compacting at commit .* after the continuation packet/, `the new file was read, its commit found: ${replaced.stdout}`);
    fs.rmSync(tr.file);
    const missing = await preCompact(root, 'auto');
    assert.equal(blocked(missing.stdout), undefined);
    assert.match(missing.stderr.join('\n'), /steering skipped .*compaction allowed/);
  });
});

describe('rawr hooks claude PreCompact: the answers do not depend on how often the hook was called', function () {
  this.timeout(300_000);
  before(function () {
    needShared(this);
  });

  /** The verdict of a fresh follower fed the whole prefix (no saved state), as a reader that starts over. */
  function freshVerdict(text: string) {
    const f = new SessionFollower({ settings: SET.settings, prompts: SET.prompts, format: 'claude' });
    f.append(text);
    return steerVerdict({ trigger: 'auto', follower: f, previous: null, config: STEER, settings: SET.settings, env: {} });
  }

  it('a shared transcript cut into random pieces: state saved and restored at each cut gives the answers of a fresh read', async () => {
    const name = fs.readdirSync(TRANSCRIPTS_DIR).find((f) => /^claude-spotter-.*\.jsonl$/.test(f) && !f.includes('acompact'));
    assert.ok(name, `a Claude Code transcript in ${TRANSCRIPTS_DIR}`);
    const whole = fs.readFileSync(path.join(TRANSCRIPTS_DIR, name), 'utf8');
    const bytes = Buffer.from(whole, 'utf8');
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { minLength: 1, maxLength: 6 }), async (cuts) => {
        const root = fs.mkdtempSync(path.join(TMP, 'rawr-steer-chunks-'));
        const file = path.join(root, 'session.jsonl');
        fs.writeFileSync(file, '');
        const dir = sessionDir(root, 'claude', 'sess', true)!;
        for (const cut of [...cuts.sort((a, b) => a - b), bytes.length]) {
          fs.writeFileSync(file, bytes.subarray(0, cut)); // the transcript as far as Claude Code wrote it (a cut may split a line or a character)
          const s = await loadSession(dir, file, { settings: SET.settings, prompts: SET.prompts });
          const incremental = steerVerdict({ trigger: 'auto', follower: s.follower, previous: null, config: STEER, settings: SET.settings, env: {} });
          saveSession(dir, s);
          const upTo = bytes.subarray(0, bytes.lastIndexOf(0x0a, cut - 1) + 1).toString('utf8');
          const fresh = freshVerdict(upTo);
          assert.deepEqual(incremental, fresh, `cut at byte ${cut} of ${bytes.length}`);
          assert.deepEqual(
            s.follower.state().decisions,
            (() => {
              const f = new SessionFollower({ settings: SET.settings, prompts: SET.prompts, format: 'claude' });
              f.append(upTo);
              return f.state().decisions;
            })(),
          );
        }
        fs.rmSync(root, { recursive: true, force: true });
      }),
      { numRuns: Number(process.env.RAWR_STEER_RUNS ?? 8) },
    );
  });
});

describe('rawr hooks claude install: steering in .claude/settings.local.json', function () {
  this.timeout(60_000);
  const PREFIX = "'/usr/bin/node' '/opt/rawr/out/src/cli/main.js'";
  const install = (root: string, o: Partial<Parameters<typeof installClaude>[0]> = {}) =>
    installClaude({ projectDir: root, commandPrefix: PREFIX, write: true, followSymlinks: false, ...o });
  const read = (root: string, file: string) => JSON.parse(fs.readFileSync(path.join(root, '.claude', file), 'utf8')) as Record<string, any>;

  // Where the personal settings are ignored (.git/info/exclude, never the tracked .gitignore): hooks.install.test.ts.
  it("writes the ask line for every window (autoCompactWindow 1M + env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE), and --no-steer takes back only rawr's values", async () => {
    const root = fs.mkdtempSync(path.join(TMP, 'rawr-install-'));
    assert.ok((await install(root)).ok);
    const first = read(root, 'settings.local.json');
    // Measured on 2.1.332: 1M asks from 54% of 980,000 = 529,200 (before the early line, 550,000); a 200k
    // session, clamped, from 54% of 180,000 = 97,200 (before 110,000). 563,000 alone asked there at 167,000.
    assert.equal(first.autoCompactWindow, 1_000_000);
    assert.deepEqual(first.env, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '54' });
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(root, '.rawr/claude/steer.json'), 'utf8')), {
      steer: true,
      window: 1_000_000,
      autoCompactWindow: 1_000_000,
      askPercent: '54',
      envCreated: true,
      settingsFile: '.claude/settings.local.json',
    });
    assert.ok((await install(root, { window: 200_000 })).ok, 'a 200k model: the same line (it asks a little earlier there)');
    assert.deepEqual([read(root, 'settings.local.json').autoCompactWindow, read(root, 'settings.local.json').env], [1_000_000, first.env]);
    const off = await install(root, { steer: false });
    assert.ok(off.ok);
    assert.equal(read(root, 'settings.local.json').autoCompactWindow, undefined, "rawr's value removed");
    assert.equal(read(root, 'settings.local.json').env, undefined, "rawr's percentage removed, and the env object rawr created for it");
    assert.ok(read(root, 'settings.local.json').hooks.PreCompact, 'the hooks stay: snapshots and the handoff');
    assert.equal(JSON.parse(fs.readFileSync(path.join(root, '.rawr/claude/steer.json'), 'utf8')).steer, false);
    // the person's own values are never changed or removed
    const local = read(root, 'settings.local.json');
    fs.writeFileSync(
      path.join(root, '.claude/settings.local.json'),
      JSON.stringify({ ...local, autoCompactWindow: 400_000, model: 'sonnet', env: { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '70', FOO: '1' } }),
    );
    const mine = await install(root);
    assert.match(mine.lines.join('\n'), /your autoCompactWindow 400000 is kept/);
    assert.equal(read(root, 'settings.local.json').autoCompactWindow, 400_000);
    assert.equal((await install(root, { steer: false })).ok, true);
    assert.equal(read(root, 'settings.local.json').autoCompactWindow, 400_000);
    assert.deepEqual(read(root, 'settings.local.json').env, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '70', FOO: '1' });
  });

  it("a percentage the person or the team set is kept and said so (settings env, the shell's environment); rawr's goes beside the person's other env entries", async () => {
    const team = fs.mkdtempSync(path.join(TMP, 'rawr-install-'));
    fs.mkdirSync(path.join(team, '.claude'));
    fs.writeFileSync(path.join(team, '.claude/settings.json'), '{ "env": { "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "80" } }\n');
    const t = await install(team);
    assert.match(t.lines.join('\n'), /your team's CLAUDE_AUTOCOMPACT_PCT_OVERRIDE in \.claude\/settings\.json \(80\) is kept/);
    assert.equal(read(team, 'settings.local.json').autoCompactWindow, 1_000_000, 'the window still: a 200k session asks at all');
    assert.equal(read(team, 'settings.local.json').env, undefined, 'no personal percentage that would win over the team');
    const shell = fs.mkdtempSync(path.join(TMP, 'rawr-install-'));
    const s = await install(shell, { env: { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '75' } });
    assert.match(s.lines.join('\n'), /your CLAUDE_AUTOCOMPACT_PCT_OVERRIDE in the environment \(75\) is kept/);
    assert.equal(read(shell, 'settings.local.json').env, undefined);
    const home = fs.mkdtempSync(path.join(TMP, 'rawr-home-'));
    fs.mkdirSync(path.join(home, '.claude'));
    fs.writeFileSync(path.join(home, '.claude/settings.json'), '{ "env": { "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": 60 } }\n');
    const user = fs.mkdtempSync(path.join(TMP, 'rawr-install-'));
    assert.match((await install(user, { home })).lines.join('\n'), /your CLAUDE_AUTOCOMPACT_PCT_OVERRIDE in ~\/\.claude\/settings\.json \(60\) is kept/);
    assert.equal(read(user, 'settings.local.json').env, undefined);
    const other = fs.mkdtempSync(path.join(TMP, 'rawr-install-'));
    fs.mkdirSync(path.join(other, '.claude'));
    fs.writeFileSync(path.join(other, '.claude/settings.local.json'), '{ "env": { "FOO": "1" } }\n');
    assert.ok((await install(other)).ok);
    assert.deepEqual(read(other, 'settings.local.json').env, { FOO: '1', CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '54' });
    assert.ok((await install(other, { steer: false })).ok);
    assert.deepEqual(read(other, 'settings.local.json').env, { FOO: '1' }, 'the env object the person had stays');
  });

  it('hooks an earlier rawr wrote into the shared settings.json keep working there (not doubled); --move moves them and keeps the rest', async () => {
    const root = fs.mkdtempSync(path.join(TMP, 'rawr-install-'));
    fs.mkdirSync(path.join(root, '.claude'));
    const shared = {
      permissions: { allow: ['Bash(npm test:*)'] },
      hooks: {
        PreCompact: [{ matcher: '', hooks: [{ type: 'command', command: `${PREFIX} hooks claude PreCompact`, timeout: 30 }] }],
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './check.sh' }] }],
        UserPromptSubmit: [
          {
            hooks: [
              { type: 'command', command: 'python3 other.py' },
              { type: 'command', command: `${PREFIX} hooks claude UserPromptSubmit` },
            ],
          },
        ],
      },
    };
    fs.writeFileSync(path.join(root, '.claude/settings.json'), JSON.stringify(shared));
    const r = await install(root);
    assert.ok(r.ok && r.legacy, r.lines.join('\n'));
    assert.match(r.lines.join('\n'), /install --write --move moves them/);
    assert.equal(read(root, 'settings.local.json').hooks, undefined, 'not doubled: Claude Code reads both files');
    assert.equal(read(root, 'settings.local.json').autoCompactWindow, 1_000_000, 'steering does not wait for the move');
    assert.deepEqual(read(root, 'settings.json'), shared, 'untouched');
    const moved = await install(root, { move: true });
    assert.ok(moved.ok && !moved.legacy, moved.lines.join('\n'));
    assert.deepEqual(Object.keys(read(root, 'settings.local.json').hooks).sort(), [
      'PostCompact',
      'PostToolUse',
      'PreCompact',
      'SessionStart',
      'UserPromptSubmit',
    ]);
    assert.deepEqual(read(root, 'settings.json'), {
      permissions: shared.permissions,
      hooks: { PreToolUse: shared.hooks.PreToolUse, UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'python3 other.py' }] }] },
    });
  });
});
