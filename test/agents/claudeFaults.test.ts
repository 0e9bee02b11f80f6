/**
 * The real Claude Code with rawr steering while rawr's resident hook engine is in trouble (issues 29 and
 * 30), offline against the scripted Anthropic server: the engine the hooks would use was killed (SIGKILL:
 * its door file stays behind) or is hung (SIGSTOP: the kernel still accepts its connections,
 * nothing answers). Either way Claude Code's compaction is neither forced early (it compacts at the
 * commit rawr chose, never at Claude Code's threshold without rawr's decision) nor blocked (the turn
 * goes on), and the handoff is delivered after it, once. A hook that waited for the hung engine in vain
 * printed nothing after 25 s, which Claude Code reads as "compact now".
 *
 * Busy: the engine is running another session's first read of its 600 MB transcript, asked by that
 * session's own PreCompact hook (the installed command, through `sh -c`, in another project of the same
 * user), while the steered session runs its turn. One call reads at most a bounded part of a backlog
 * (steerState.ts READ_BOUND: 32 MiB / 40,000 lines, ~2 s here over short steps) and answers from the
 * transcript's tail while it is behind; before the bound one call read 256 MB, 15–25 s over short steps
 * (one line of output, ~0.8 KB: the follower's work grows with the records, not the bytes) at load 6–11,
 * past the client's 25 s wait: that session got no decision ("did not answer"), which Claude Code reads
 * as "compact now". The other sessions' calls run back to back, from before the turn to its end, each
 * after one more model response in their transcript (as Claude Code asks), so the engine is busy for
 * the whole turn but for the moments between two calls; each of them must print rawr's refusal ("still
 * reading this session's history").
 * Checked to fail: with the clients waiting on a busy engine (hook.sh's 2 s and 3 s waits raised to
 * 60 s, server.ts CLAIM_WAIT_MS 60 s), every hook ran into Claude Code's 10 s timeout and
 * SessionStart(compact) lost the handoff.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assertHandoffSeenOnce, baseEnv, filesUnder, project, RAWR_BUNDLED_CLI, run, scenarioSuite } from './support';
import { CLAUDE, facts, setUp, turn, type Scenario } from './claude';
import { tcpFile } from '../../src/cli/hooks/resident';
import { askResident } from '../support/askResident';
import { writeLargeTranscript } from '../support/claudeTranscript';
import { sleep, until } from '../support/until';

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

describe('real Claude Code: a killed, hung or busy hook engine never forces or blocks a compaction', function () {
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
      const s = await setup(`F-${fault}`, { usageSchedule: USAGE });
      const pid = await startEngine(s);
      stopped.push(pid);
      process.kill(pid, fault === 'killed' ? 'SIGKILL' : 'SIGSTOP');
      await turn(s, PROMPT);
      assertCompactedAtCommit(s, '');
    });
  }

  it('the engine busy with other sessions’ 600 MB first reads: compacted at the commit rawr chose, the turn goes on, the handoff delivered once', async () => {
    const s = await setup('F-busy', { usageSchedule: USAGE });
    stopped.push(await startEngine(s));
    const busy = await busyEngine(s);
    try {
      const door = { file: tcpFile(path.join(s.home, '.cache', 'rawr'), DIST), clientDir: DIST };
      // The engine took the other session's first call (a probe is turned back), then the steered turn.
      await until('the engine busy with the other session', () => busy.calls.length > 0 && Date.now() - busy.calls[0]!.start > 1_000, 30_000);
      // A probe is turned back (busy) or answered once the other session's bounded call is done: never lost.
      const probe = await askResident(door, { agent: 'claude', event: 'PostToolUse', stdin: '{}', env: {}, cwd: s.repo }, 5_000);
      assert.notEqual(probe.kind, 'lost', 'the engine busy with the other session’s first read answers or turns the probe back');
      const turnStart = Date.now();
      await turn(s, PROMPT);
      const turnEnd = Date.now();
      const calls = busy.stop();
      const spans = calls.map(
        (c) =>
          `${c.session}@${((c.start - turnStart) / 1000).toFixed(1)}…${c.end ? ((c.end - turnStart) / 1000).toFixed(1) : 'running'}s${c.answer ? ` (${c.answer})` : ''}`,
      );
      const hooks = hookRuns(s);
      console.log(
        `      turn ${((turnEnd - turnStart) / 1000).toFixed(1)} s; the other sessions' calls (s from the turn's start): ${spans.join(' ')}; ` +
          `the turn's hooks that waited ≥ 1.5 s for the busy engine: ${hooks.filter((h) => h.ms >= 1_500).length} of ${hooks.length}`,
      );
      // The other sessions' calls ran back to back across the whole turn: the engine was busy throughout.
      assert.ok(calls[0]!.start < turnStart, spans.join(' '));
      assert.ok(calls.at(-1)!.end === undefined || calls.at(-1)!.end! >= turnEnd, spans.join(' '));
      for (let i = 1; i < calls.length; i++) assert.ok(calls[i]!.start - calls[i - 1]!.end! < 1_000, `calls back to back: ${spans.join(' ')}`);
      // Each of the other sessions' calls got rawr's decision (a refusal while it reads their history), none "did not answer".
      // At least one finished within the turn (a turn on a loaded machine can be shorter than two of them: CI saw 3.8 s).
      const finished = calls.filter((c) => c.end !== undefined);
      assert.ok(finished.length >= 1, spans.join(' '));
      for (const c of finished) assert.equal(c.answer, 'refused', `every other session's PreCompact printed rawr's refusal: ${spans.join(' ')}`);
      assertCompactedAtCommit(s, `; the other sessions' calls: ${spans.join(' ')}; hooks: ${hooks.map((h) => `${h.event}:${h.ms}ms`).join(' ')}`);
    } finally {
      busy.stop();
      fs.rmSync(busy.transcript, { force: true });
    }
  });
});

// tool results → context: 300k … 540k (Claude Code asks from 530k) … 700k after the commit (call 5) … 780k
const USAGE = [300_000, 380_000, 460_000, 540_000, 600_000, 700_000, 740_000, 780_000];
const PROMPT = 'MULTI_BASH 7 COMMIT_AT 5 please run the steps';

/** What the killed, hung and busy cases all assert: one compaction, at the commit rawr chose; the turn goes on; the handoff once. */
function assertCompactedAtCommit(s: Scenario, more: string): void {
  const f = facts(s);
  const log = steerLog(s);
  const report = `${f.report}; steer log: ${JSON.stringify(log.map((l) => `${l.allow ? 'allow' : 'refuse'}:${l.why}@${l.usedTokens}`))}${more}`;
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
}

/**
 * The hooks Claude Code ran in the scenario's turns and how long each took, as its debug log says it
 * (`Hooks: <Event>[:<matcher>] [<command>] finished with status 0 (N ms)`, or timed out; PreCompact and
 * PostCompact are logged without their time).
 */
function hookRuns(s: Scenario): Array<{ event: string; ms: number }> {
  return filesUnder(s.dir, /^debug-\d+\.log$/).flatMap((f) =>
    [
      ...fs.readFileSync(f, 'utf8').matchAll(/Hooks: (\w+(?::\w+)?) \[[^\]]*hook\.sh[^\]]*\] (?:finished with status \d+|timed out after \d+ms) \((\d+)ms\)/g),
    ].map((m) => ({
      event: m[1]!,
      ms: Number(m[2]),
    })),
  );
}

interface BusyCall {
  session: string;
  start: number;
  end?: number;
  /** The hook's answer: `refused` (rawr's refusal printed), else what it said on stderr. */
  answer?: string;
}

/**
 * Other sessions of the same user (their own project, the same rawr and cache folder, so the same
 * engine) on a 600 MB transcript, their PreCompact hooks run back to back as Claude Code runs them (the
 * installed command through `sh -c`): three calls a session (each reads a bounded part of its backlog,
 * steerState.ts READ_BOUND), then the next session starts its first read. `stop()` ends the loop and
 * kills a call still running (its run goes on in the engine); the calls so far.
 */
async function busyEngine(s: Scenario): Promise<{ transcript: string; calls: BusyCall[]; stop(): BusyCall[] }> {
  const other = await project('rawr-cc-F-other-');
  const env = baseEnv(s.home, { CLAUDE_PROJECT_DIR: other.repo });
  const installed = await run(process.execPath, [RAWR_BUNDLED_CLI, 'hooks', 'claude', 'install', '--write'], { cwd: other.repo, env });
  assert.equal(installed.code, 0, installed.stderr);
  const settings = JSON.parse(fs.readFileSync(path.join(other.repo, '.claude/settings.local.json'), 'utf8')) as {
    hooks: { PreCompact: Array<{ hooks: Array<{ command: string }> }> };
  };
  const command = settings.hooks.PreCompact[0]!.hooks[0]!.command;
  assert.match(command, /hook\.sh/, 'the fast hook is installed');
  // Short steps (one line of tool output): the follower's slowest kind of backlog.
  const transcript = path.join(s.dir, 'other-session.jsonl');
  const { tail } = writeLargeTranscript(transcript, other.repo, 600 * 1024 * 1024, 60, 1);
  const calls: BusyCall[] = [];
  let ended = false;
  let child: ChildProcess | undefined;
  const loop = async () => {
    for (let k = 0; !ended && k < 60; k++) {
      // One more model response before each call, as Claude Code asks (no response since a refusal: a failed request).
      fs.appendFileSync(transcript, `${tail[k]!}\n`);
      const call: BusyCall = { session: `other-${Math.floor(k / 3)}`, start: Date.now() };
      calls.push(call);
      child = spawn('/bin/sh', ['-c', command], { cwd: other.repo, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      child.stdin!.on('error', () => undefined);
      child.stdin!.end(
        JSON.stringify({ session_id: call.session, transcript_path: transcript, cwd: other.repo, hook_event_name: 'PreCompact', trigger: 'auto' }),
      );
      await new Promise((resolve) => child!.once('close', resolve));
      call.end = Date.now();
      call.answer = /"decision":"block".*still reading this session's history/.test(out) ? 'refused' : out.trim().slice(0, 160) || 'nothing';
    }
  };
  void loop();
  await sleep(0);
  return {
    transcript,
    calls,
    stop() {
      ended = true;
      if (child && child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      fs.rmSync(other.dir, { recursive: true, force: true, maxRetries: 3 });
      return calls;
    },
  };
}
