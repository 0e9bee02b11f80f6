/**
 * The real Claude Code with rawr steering while rawr's resident hook engine is in trouble (issues 29 and
 * 30), offline against the scripted Anthropic server: the engine the hooks would use was killed (SIGKILL:
 * its socket and door files stay behind) or is hung (SIGSTOP: the kernel still accepts its connections,
 * nothing answers). Either way Claude Code's compaction is neither forced early (it compacts at the
 * commit rawr chose, never at Claude Code's threshold without rawr's decision) nor blocked (the turn
 * goes on), and the handoff is delivered after it, once. A hook that waited for the hung engine in vain
 * printed nothing after 25 s, which Claude Code reads as "compact now".
 * (An engine busy with another session's huge first read is the unit tier's: hooks.bashClient.test.ts.)
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assertHandoffSeenOnce, baseEnv, filesUnder, RAWR_BUNDLED_CLI, scenarioSuite } from './support';
import { CLAUDE, facts, setUp, turn, type Scenario } from './claude';
import { tcpFile } from '../../src/cli/hooks/resident';
import { until } from '../support/until';

interface SteerLine {
  allow: boolean;
  why: string;
  usedTokens: number;
}

const steerLog = (s: Scenario): SteerLine[] =>
  filesUnder(path.join(s.repo, '.rawr/claude'), /^steer-log\.jsonl$/).flatMap((f) =>
    fs
      .readFileSync(f, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as SteerLine),
  );

const DIST = path.dirname(RAWR_BUNDLED_CLI);

/** The resident engine for the scenario's hooks, started as a hook starts it (resident.ts startResident); its pid. */
async function startEngine(s: Scenario): Promise<number> {
  const cache = path.join(s.home, '.cache', 'rawr');
  fs.mkdirSync(cache, { recursive: true, mode: 0o700 });
  const engine = spawn(process.execPath, [path.join(DIST, 'hook.js'), '--rawr-hook-server', DIST], {
    detached: true,
    stdio: 'ignore',
    cwd: cache,
    env: baseEnv(s.home, {}),
  });
  engine.unref();
  await until('the engine’s door', () => fs.existsSync(tcpFile(cache, DIST)));
  return engine.pid!;
}

describe('real Claude Code: a killed or hung hook engine never forces or blocks a compaction', function () {
  this.timeout(900_000);
  const setup = scenarioSuite(CLAUDE, 'Claude Code', setUp);
  const stopped: number[] = [];
  afterEach(() => {
    for (const pid of stopped.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  });

  for (const fault of ['killed', 'hung'] as const) {
    it(`the engine ${fault}: compacted at the commit rawr chose, the turn goes on, the handoff delivered once`, async () => {
      // tool results → context: 300k … 540k (Claude Code asks from 530k) … 700k after the commit (call 5) … 780k
      const s = await setup(`F-${fault}`, { usageSchedule: [300_000, 380_000, 460_000, 540_000, 600_000, 700_000, 740_000, 780_000] });
      const pid = await startEngine(s);
      stopped.push(pid);
      process.kill(pid, fault === 'killed' ? 'SIGKILL' : 'SIGSTOP');
      await turn(s, 'MULTI_BASH 7 COMMIT_AT 5 please run the steps');
      const f = facts(s);
      const log = steerLog(s);
      const report = `${f.report}; steer log: ${JSON.stringify(log.map((l) => `${l.allow ? 'allow' : 'refuse'}:${l.why}@${l.usedTokens}`))}`;
      assert.equal(f.boundaries, 1, `Claude Code compacted once: ${report}`);
      assert.ok(
        log.some((l) => !l.allow && l.why === 'deferred'),
        `rawr decided, and refused before the commit: ${report}`,
      );
      assert.equal(log.find((l) => l.allow)?.why, 'boundary', `the first compaction rawr allowed was at the commit: ${report}`);
      // From what Claude Code sent: the summary request came after the commit's result (5 tool results).
      const compact = s.server.requests.find((r) => r.kind === 'compact');
      assert.ok(compact, report);
      const messages = (compact.body as { messages?: Array<{ content?: unknown }> }).messages ?? [];
      const results = messages.filter((m) => Array.isArray(m.content) && (m.content as Array<{ type?: string }>).some((b) => b.type === 'tool_result')).length;
      assert.ok(results >= 5, `not compacted before the commit (the summary request holds ${results} tool results): ${report}`);
      assert.ok(
        s.server.requests.some((r) => r.kind === 'main' && r.n > compact.n && r.status === 200),
        `the turn went on after the compaction: ${report}`,
      );
      assert.deepEqual(f.claims, ['SessionStart'], `the handoff claimed once, by SessionStart(compact): ${report}`);
      assertHandoffSeenOnce(f.handoffPerRequest, report);
    });
  }
});
