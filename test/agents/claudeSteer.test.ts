/**
 * rawr steering the real Claude Code's compaction (src/core/hooks/claude/steer.ts), offline against the
 * scripted Anthropic server: `rawr hooks claude install --write` (steering on by default) sets
 * `autoCompactWindow` in `.claude/settings.local.json`, so Claude Code asks rawr's PreCompact hook from
 * just before rawr's early line, and the hook answers with the arbiter's decision.
 *   S1 a commit at 70% of a 1M window: compacted at that commit, not before (Claude Code alone would not
 *      compact at all below ~967k);
 *   S2 no boundary: compacted past rawr's emergency line and before the window, the turn goes on;
 *   S3 the API refuses a request as too long: the reactive compaction is allowed, the turn goes on;
 *   S4 a manual /compact is never refused, and rawr's instructions reach the summary request;
 *   S5 the golden path: at the commit the heads-up reaches the model (PostToolUse additionalContext), the
 *      model writes its continuation packet to .scratch/, the compaction follows within a few requests,
 *      and the packet (and the handoff, once) reach the model after it;
 *   S6 CLAUDE_CODE_AUTO_COMPACT_WINDOW=200000 on a 1M model: scheduled in 200k, compacted at the commit;
 *   S7 a commit that ends the turn: the heads-up rides on its result, the compaction follows the packet;
 *   S8 a 200k model (`--model claude-sonnet-4-5`) under the same install: Claude Code asks from 97,200
 *      (rawr's percentage of its clamped window), and compacts at the commit, not at its own threshold.
 * Where Claude Code compacted is judged from what it sent and printed (request bodies, stream-json);
 * rawr's steer log only adds detail, and a scenario whose hook never answered fails.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assertHandoffSeenOnce, filesUnder, occurrences, scenarioSuite } from './support';
import { CLAUDE, facts, setUp, turn, type Scenario } from './claude';
import { PACKET_TOKEN } from '../support/scriptedAnthropic';

interface SteerLine {
  trigger: string | null;
  allow: boolean;
  why: string;
  text: string;
  usedTokens: number;
  window: number;
}

function steerLog(s: Scenario): SteerLine[] {
  return filesUnder(path.join(s.repo, '.rawr/claude'), /^steer-log\.jsonl$/).flatMap((f) =>
    fs
      .readFileSync(f, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as SteerLine),
  );
}

/** The stream-json result of the scenario's last turn. */
function lastResult(s: Scenario): { is_error?: boolean; result?: string; terminal_reason?: string } {
  const out = fs.readFileSync(path.join(s.dir, `out-${s.turns}.jsonl`), 'utf8');
  const results = out
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      try {
        return JSON.parse(l) as { type?: string };
      } catch {
        return {};
      }
    })
    .filter((r) => r.type === 'result');
  return (results.at(-1) ?? {}) as { is_error?: boolean; result?: string };
}

/** Claude Code's stream-json records of a turn. */
function streamJson(s: Scenario, turnNo = s.turns): Array<Record<string, unknown>> {
  return fs
    .readFileSync(path.join(s.dir, `out-${turnNo}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

/** Every PreCompact call shows the person a "compacting" status (measured, 2.1.332): refusals included. */
const compactingStatuses = (s: Scenario) => streamJson(s).filter((r) => r.type === 'system' && r.subtype === 'status' && r.status === 'compacting').length;

/** The ids of the tool calls in a request's conversation whose input matches `re`, and whether a request holds their result. */
const toolUseIds = (body: { messages?: Array<{ content?: unknown }> }, re: RegExp) =>
  (body.messages ?? []).flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as Array<{ type?: string; id?: string; input?: unknown }>)
          .filter((b) => b.type === 'tool_use' && re.test(JSON.stringify(b.input)))
          .map((b) => b.id!)
      : [],
  );
const holdsResult = (raw: string, id: string) => raw.includes(`"tool_use_id":"${id}"`);

const HEADS_UP = 'Heads-up: we are pausing at a phase boundary';

/**
 * Where Claude Code compacted, judged from what it sent (issue 35): the first main request carrying the
 * commit's result, the heads-up in that same request, and the compaction request right after the one
 * whose reply wrote the packet (no main request in between).
 */
function assertCompactedAtCommit(s: Scenario, commitRe: RegExp): void {
  const compact = s.server.requests.find((r) => r.kind === 'compact');
  assert.ok(compact, `Claude Code sent a compaction request: ${report(s)}`);
  const mains = s.server.requests.filter((r) => r.kind === 'main' && r.n < compact.n);
  const commitId = mains.flatMap((r) => toolUseIds(r.body, commitRe))[0];
  assert.ok(commitId, `the model committed before the compaction: ${report(s)}`);
  const commitReq = mains.find((r) => holdsResult(r.raw, commitId));
  assert.ok(commitReq, `a request carried the commit's result before the compaction: ${report(s)}`);
  assert.ok(commitReq.raw.includes(HEADS_UP), `the heads-up rode on the commit's own result (request ${commitReq.n}): ${report(s)}`);
  assert.ok(
    mains.filter((r) => r.n < commitReq.n).every((r) => !r.raw.includes(HEADS_UP)),
    `no heads-up before the commit: ${report(s)}`,
  );
  // The packet's Write, in Claude Code's stream-json, before its compaction record.
  const out = streamJson(s).map((r) => JSON.stringify(r));
  const packetAt = out.findIndex((l) => /"name":"Write","input":\{"file_path":"[^"]*\/\.scratch\/claude-[a-z0-9-]+\.packet\.md"/.test(l));
  const boundaryAt = out.findIndex((l) => l.includes('"subtype":"compact_boundary"'));
  assert.ok(packetAt >= 0 && boundaryAt > packetAt, `the model wrote the packet before the compaction (${packetAt} < ${boundaryAt}): ${report(s)}`);
  const between = mains.filter((r) => r.n > commitReq.n);
  // The reply to commitReq wrote the packet; Claude Code then asked PreCompact and compacted: the
  // compaction request is the next main-loop request (the upper bound).
  assert.equal(between.length, 0, `compacted right after the packet's write (main requests between: ${between.map((r) => r.n).join(',')}): ${report(s)}`);
  assert.ok(compact.raw.includes(commitId), `the summary covers the commit: ${report(s)}`);
}

const report = (s: Scenario) =>
  `${facts(s).report}; steer log: ${JSON.stringify(steerLog(s).map((l) => `${l.allow ? 'allow' : 'refuse'}:${l.why}@${l.usedTokens}`))}`;

/** The tool results a request's conversation holds (the scripted server's step counter). */
const toolResults = (body: { messages?: Array<{ content?: unknown }> }) =>
  (body.messages ?? []).filter((m) => Array.isArray(m.content) && (m.content as Array<{ type?: string }>).some((b) => b.type === 'tool_result')).length;

describe('real Claude Code: rawr steers the compaction to the phase boundary', function () {
  this.timeout(900_000);
  const setup = scenarioSuite(CLAUDE, 'Claude Code', setUp);

  it('install writes the hooks and autoCompactWindow into .claude/settings.local.json, nothing into the shared settings.json', async () => {
    const s = await setup('S0', {});
    const local = JSON.parse(fs.readFileSync(path.join(s.repo, '.claude/settings.local.json'), 'utf8')) as {
      autoCompactWindow?: number;
      env?: Record<string, string>;
      hooks?: object;
    };
    // Every model's own window, asked from 54% of its effective window (window - 20k): 529,200 in 1M, 2%
    // before rawr's early line (55%), and 97,200 in 200k (S8).
    assert.equal(local.autoCompactWindow, 1_000_000);
    assert.deepEqual(local.env, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '54' });
    assert.ok(local.hooks);
    // The bundled CLI installs the hooks entry's bash client (src/cli/hookCommand.ts): bash -p, hook.sh, node.
    assert.match(
      JSON.stringify(local.hooks),
      /bash'? -p '?\S*\/dist\/hook\.sh'? '?\S+'? hooks claude PreCompact/,
      'the hooks entry, as the bundled CLI installs it',
    );
    assert.equal(fs.existsSync(path.join(s.repo, '.claude/settings.json')), false);
  });

  it('S1: a commit at 70% of a 1M window: refused before it, compacted at it, and the turn goes on', async () => {
    // tool results → context: 300k … 540k (Claude Code asks from 530k) … 700k after the commit (call 5) … 780k
    const s = await setup('S1', { usageSchedule: [300_000, 380_000, 460_000, 540_000, 600_000, 700_000, 740_000, 780_000] });
    await turn(s, 'MULTI_BASH 7 COMMIT_AT 5 please run the steps');
    const f = facts(s);
    const log = steerLog(s);
    assert.equal(f.boundaries, 1, `Claude Code compacted once: ${report(s)}`);
    assert.ok(
      log.some((l) => !l.allow && l.why === 'deferred'),
      `rawr refused before the commit: ${report(s)}`,
    );
    const allowed = log.filter((l) => l.allow);
    assert.ok(allowed.length >= 1 && allowed[0]!.why === 'boundary', `the first compaction rawr allowed was at the boundary: ${report(s)}`);
    const compact = s.server.requests.find((r) => r.kind === 'compact')!;
    assert.ok(
      toolResults(compact.body) >= 5,
      `the summary request came after the commit's result (it holds ${toolResults(compact.body)} tool results): ${report(s)}`,
    );
    assertCompactedAtCommit(s, /git commit -m \\"phase 1 done\\"/);
    const statuses = compactingStatuses(s);
    assert.ok(statuses >= 1 && statuses <= 3, `at most 3 "compacting" statuses for the one compaction (saw ${statuses}): ${report(s)}`);
    assert.match(compact.raw, /compacting at commit/, `rawr's instructions reached the summary request: ${report(s)}`);
    const after = s.server.requests.filter((r) => r.n > compact.n && r.kind === 'main');
    assert.ok(after.length >= 1 && after.every((r) => r.status === 200), `the turn went on after the compaction: ${report(s)}`);
    assert.equal(lastResult(s).is_error ?? false, false, `the turn ended normally: ${report(s)}`);
    // The steering calls after the first were answered by the resident hook engine the first one started.
    const cache = path.join(s.home, '.cache', 'rawr');
    assert.ok(fs.existsSync(cache) && fs.readdirSync(cache).some((f) => f.endsWith('.lock')), `a resident hook engine ran (its lock): ${report(s)}`);
    assert.ok(
      fs.readdirSync(cache).some((f) => f.endsWith('.tcp')),
      `it opened its door: ${report(s)}`,
    );
  });

  it('S2: no boundary: compacted past the emergency line and before the window; the turn never ends in "Prompt is too long"', async () => {
    const s = await setup('S2', { usageSchedule: [300_000, 560_000, 700_000, 800_000, 900_000, 940_000, 960_000] });
    await turn(s, 'MULTI_BASH 6 please run the steps');
    const log = steerLog(s);
    const f = facts(s);
    assert.equal(f.boundaries, 1, `Claude Code compacted once: ${report(s)}`);
    const allowed = log.filter((l) => l.allow);
    assert.equal(allowed[0]?.why, 'emergency', `allowed first at the emergency line: ${report(s)}`);
    assert.ok(allowed[0]!.usedTokens >= 880_000 && allowed[0]!.usedTokens < 1_000_000, `past 88% and before the window: ${report(s)}`);
    // The same from what Claude Code sent: the summary request holds the conversation up to the exchange
    // before the newest tool result; the response to that exchange reported the context Claude Code
    // compacted at (the scripted schedule, by tool results held).
    const compact = s.server.requests.find((r) => r.kind === 'compact');
    assert.ok(compact, report(s));
    const reached = [300_000, 560_000, 700_000, 800_000, 900_000, 940_000, 960_000][Math.min(toolResults(compact.body), 6)]!;
    assert.ok(reached >= 880_000 && reached < 1_000_000, `Claude Code compacted with ${reached} tokens in context: ${report(s)}`);
    assert.doesNotMatch(lastResult(s).result ?? '', /Prompt is too long/, report(s));
    assert.equal(lastResult(s).is_error ?? false, false, `the turn ended normally: ${report(s)}`);
  });

  it('S3: a request refused as too long: the reactive compaction is allowed and the turn goes on', async () => {
    const s = await setup('S3', {});
    await turn(s, 'DO_WORK OVERFLOW please do step 1 of PLAN.md');
    const f = facts(s);
    assert.equal(f.boundaries, 1, `Claude Code compacted: ${report(s)}`);
    const log = steerLog(s);
    assert.ok(log.length >= 1, `rawr's PreCompact answered (a hook that never ran proves nothing): ${report(s)}`);
    assert.ok(
      log.every((l) => l.allow),
      `never refused: ${report(s)}`,
    );
    // From what Claude Code did: the compaction came after the refused request, and the retry after it succeeded.
    const refused = s.server.requests.find((r) => r.status === 400)!;
    const compact = s.server.requests.find((r) => r.kind === 'compact');
    assert.ok(compact && compact.n > refused.n, `compacted after the refused request: ${report(s)}`);
    assert.ok(
      s.server.requests.some((r) => r.kind === 'main' && r.n > compact.n && r.status === 200),
      `the request was sent again after the compaction: ${report(s)}`,
    );
    assert.ok(
      s.server.requests.some((r) => r.status === 400),
      `the API refused a request: ${report(s)}`,
    );
    assert.equal(lastResult(s).is_error ?? false, false, `the turn ended normally: ${report(s)}`);
  });

  it("S4: a manual /compact is never refused, with rawr's instructions in the summary request", async () => {
    const s = await setup('S4', {});
    await turn(s, 'DO_WORK please do step 1 of PLAN.md');
    await turn(s, '/compact keep the commit hashes', '--continue');
    const f = facts(s);
    assert.equal(f.boundaries, 1, `Claude Code compacted: ${report(s)}`);
    const log = steerLog(s);
    assert.deepEqual(
      log.map((l) => `${l.trigger}:${l.allow}`),
      ['manual:true'],
      report(s),
    );
    const compact = s.server.requests.find((r) => r.kind === 'compact')!;
    assert.match(compact.raw, /keep the commit hashes/);
    assert.match(compact.raw, /allowed: manual \/compact/, `rawr's instructions reached the summary request: ${report(s)}`);
  });

  it('S5: the golden path: heads-up at the commit, the packet in .scratch/, compaction within a few requests, the packet back after it', async () => {
    const s = await setup('S5', { usageSchedule: [300_000, 380_000, 460_000, 540_000, 600_000, 700_000, 740_000, 780_000, 800_000, 820_000] });
    await turn(s, 'MULTI_BASH 7 COMMIT_AT 5 please run the steps');
    const f = facts(s);
    const log = steerLog(s);
    assert.equal(f.boundaries, 1, `Claude Code compacted once: ${report(s)}`);
    const whys = log.map((l) => `${l.allow ? 'allow' : 'refuse'}:${l.why}`);
    const headsUpAt = whys.indexOf('refuse:heads_up');
    assert.ok(headsUpAt >= 0, `rawr gave the heads-up at the boundary: ${report(s)}`);
    const allowed = log.filter((l) => l.allow);
    assert.equal(allowed[0]?.why, 'boundary', report(s));
    assert.match(
      allowed[0]!.text,
      /^compacting at commit [0-9a-f]{7} \(\d+% used; continuation packet in \.scratch\/claude-[a-z0-9-]+\.packet\.md\)$/,
      report(s),
    );
    assert.ok(log.indexOf(allowed[0]!) - headsUpAt <= 3, `allowed within a few requests of the heads-up: ${report(s)}`);
    // The person is told where rawr let the compaction happen: Claude Code shows a SessionStart(compact)
    // hook's systemMessage (stream-json: a system/informational record); a PreCompact one it drops.
    const notices = fs
      .readFileSync(path.join(s.dir, `out-${s.turns}.jsonl`), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        try {
          return JSON.parse(l) as { type?: string; content?: unknown };
        } catch {
          return {};
        }
      })
      .filter((r) => r.type === 'system' && typeof r.content === 'string')
      .map((r) => r.content as string);
    assert.ok(
      notices.some((n) => /SessionStart:compact says: rawr: compacting at commit [0-9a-f]{7} .*its handoff went to the model/.test(n)),
      `the compaction notice reached the person: ${JSON.stringify(notices)}; ${report(s)}`,
    );
    // the heads-up reached the model with the commit's own result (PostToolUse additionalContext)
    const compact = s.server.requests.find((r) => r.kind === 'compact')!;
    const before = s.server.requests.filter((r) => r.n < compact.n && r.kind === 'main');
    const firstSeen = before.find((r) => r.raw.includes(HEADS_UP));
    assert.ok(firstSeen, `the heads-up reached the model: ${report(s)}`);
    assert.ok(compact.n - firstSeen.n <= 3, `compacted within a few requests of the heads-up: ${report(s)}`);
    assert.ok(toolResults(compact.body) >= 5, `the compaction came after the commit: ${report(s)}`);
    assert.match(compact.raw, /continuation packet the agent wrote is in \.scratch\//, `rawr's instructions name the packet: ${report(s)}`);
    // the packet is in .scratch/ (kept out of git) and its content reaches the model after the compaction
    const packets = fs.readdirSync(path.join(s.repo, '.scratch')).filter((n) => n.endsWith('.packet.md'));
    assert.equal(packets.length, 1, report(s));
    assert.match(fs.readFileSync(path.join(s.repo, '.scratch', packets[0]!), 'utf8'), new RegExp(PACKET_TOKEN));
    assert.equal(fs.readFileSync(path.join(s.repo, '.scratch/.gitignore'), 'utf8'), '*\n');
    const after = s.server.requests.filter((r) => r.n > compact.n && r.kind === 'main');
    assert.ok(after.length >= 1 && after.every((r) => r.status === 200), `the turn went on: ${report(s)}`);
    assert.ok(after[0]!.raw.includes(PACKET_TOKEN), `the packet reached the model after the compaction: ${report(s)}`);
    // Issue 34: the packet was in that request three times. Claude Code keeps the packet's Write (the newest
    // tool call) verbatim and re-attaches the file it wrote; rawr's handoff names it instead of a third copy.
    const blocks = (after[0]!.body.messages as Array<{ content: unknown }>).flatMap((m) =>
      typeof m.content === 'string' ? [m.content] : (m.content as unknown[]).map((b) => JSON.stringify(b)),
    );
    const handoffBlocks = blocks.filter((b) => b.includes('[rawr handoff]'));
    assert.ok(handoffBlocks.length === 1 && !handoffBlocks[0]!.includes(PACKET_TOKEN), `the handoff does not quote the packet again: ${report(s)}`);
    assert.match(handoffBlocks[0]!, /continuation packet \(\.scratch\/claude-[a-z0-9-]+\.packet\.md\) is already in your context/, report(s));
    assert.equal(occurrences(after[0]!.raw, PACKET_TOKEN), 2, `the packet twice, both Claude Code's own (the kept Write, the re-attached file): ${report(s)}`);
    assert.ok(
      after.every((r) => !r.raw.includes(HEADS_UP)),
      `the heads-up is not repeated after the compaction: ${report(s)}`,
    );
    assertHandoffSeenOnce(
      after.map((r) => occurrences(r.raw, '[rawr handoff]')),
      report(s),
    );
    assert.equal(lastResult(s).is_error ?? false, false, `the turn ended normally: ${report(s)}`);
    // The repair: Claude Code's summary (scripted) lost the commit and the packet; rawr gives them back
    // once, at the next hook the model reads (here the next prompt).
    const REPAIR = '[rawr repair]';
    await turn(s, 'please go on', '--continue');
    const perRequest = s.server.requests.filter((r) => r.kind === 'main').map((r) => occurrences(r.raw, REPAIR));
    assert.ok(
      perRequest.some((n) => n === 1) && perRequest.every((n) => n <= 1),
      `the repair reached the model, never twice in one request (${perRequest.join(',')}): ${report(s)}`,
    );
    const repaired = s.server.requests.find((r) => r.raw.includes(REPAIR))!;
    assert.match(repaired.raw, /Commit: [0-9a-f]{7} phase 1 done/, `the commit the summary lost: ${report(s)}`);
    assert.match(repaired.raw, /continuation packet is in \.scratch\//, report(s));
    const receipts = filesUnder(path.join(s.repo, '.rawr/claude'), /^hook-log\.jsonl$/).flatMap((f) =>
      fs
        .readFileSync(f, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { kind: string; what?: string }),
    );
    assert.deepEqual(
      receipts.map((r) => r.what ?? r.kind),
      ['heads_up', 'handoff', 'receipt', 'repair'],
      `the session log: ${JSON.stringify(receipts)}`,
    );
  });
  it('S6: CLAUDE_CODE_AUTO_COMPACT_WINDOW=200000 on a 1M model: scheduled in 200k, compacted at the commit right after the packet', async () => {
    // Claude Code compacts in 200k (its env window wins over rawr's autoCompactWindow) and asks from rawr's
    // 54% of 180,000 = 97,200 (at 120k, refused), then right after the commit (168k). Scheduled in 1M
    // (rawr before issue 34) that is 17% used, "reactive", and allowed at once, before the commit's
    // result is even sent; in 200k it is the boundary at 84%.
    const s = await setup(
      'S6',
      { usageSchedule: [40_000, 60_000, 80_000, 120_000, 168_000, 172_000, 175_000, 178_000, 180_000] },
      { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '200000' },
    );
    await turn(s, 'MULTI_BASH 7 COMMIT_AT 5 please run the steps');
    const f = facts(s);
    assert.equal(f.boundaries, 1, `Claude Code compacted once: ${report(s)}`);
    assertCompactedAtCommit(s, /git commit -m \\"phase 1 done\\"/);
    const log = steerLog(s);
    assert.ok(log.length >= 1 && log.every((l) => l.window === 200_000), `rawr scheduled in 200k: ${report(s)}`);
    assert.equal(lastResult(s).is_error ?? false, false, `the turn ended normally: ${report(s)}`);
  });

  it('S7: a commit that ends the turn: the heads-up rides on its result, the packet and the compaction follow in the same turn', async () => {
    const s = await setup('S7', { usageSchedule: [300_000, 380_000, 460_000, 540_000, 600_000, 700_000, 740_000, 780_000] });
    await turn(s, 'MULTI_BASH 5 COMMIT_AT 5 please run the steps');
    const f = facts(s);
    assert.equal(f.boundaries, 1, `Claude Code compacted once: ${report(s)}`);
    assertCompactedAtCommit(s, /git commit -m \\"phase 1 done\\"/);
    assert.equal(lastResult(s).is_error ?? false, false, `the turn ended normally: ${report(s)}`);
  });

  it('S8: a 200k model (--model claude-sonnet-4-5): Claude Code asks from 97k and compacts at the commit, not at its own threshold', async () => {
    // The S1 schedule in 200k: 60k … 108k (Claude Code asks from 97,200: refused) … 140k after the
    // commit (call 5) … 156k. Installed as before issue 34 (autoCompactWindow 563,000, clamped to 200k),
    // Claude Code asked first at 167k, past this commit; with neither setting it never compacts by itself.
    const schedule = [60_000, 76_000, 92_000, 108_000, 120_000, 140_000, 148_000, 156_000, 160_000, 164_000];
    const s = await setup('S8', { usageSchedule: schedule });
    await turn(s, 'MULTI_BASH 7 COMMIT_AT 5 please run the steps', '--model', 'claude-sonnet-4-5');
    assert.ok(
      s.server.requests.filter((r) => r.kind === 'main').every((r) => r.body.model === 'claude-sonnet-4-5'),
      `the session ran on the 200k model: ${report(s)}`,
    );
    const f = facts(s);
    assert.equal(f.boundaries, 1, `Claude Code compacted once: ${report(s)}`);
    const log = steerLog(s);
    assert.ok(log.length >= 1 && log.every((l) => l.window === 200_000), `rawr scheduled in 200k: ${report(s)}`);
    assert.ok(
      log.some((l) => !l.allow && l.why === 'deferred' && l.usedTokens < 167_000),
      `Claude Code asked before its own threshold (167k) and rawr refused there: ${report(s)}`,
    );
    assert.ok(
      log.every((l) => l.why !== 'reactive'),
      `no call taken for a failed request: ${report(s)}`,
    );
    assertCompactedAtCommit(s, /git commit -m \\"phase 1 done\\"/);
    const statuses = compactingStatuses(s);
    assert.ok(statuses >= 1 && statuses <= 3, `at most 3 "compacting" statuses for the one compaction (saw ${statuses}): ${report(s)}`);
    assert.equal(lastResult(s).is_error ?? false, false, `the turn ended normally: ${report(s)}`);
  });
});
