/**
 * The boundary in a tool's own result (src/core/hooks/claude/steer.ts steerAtTool, issue 34), called as
 * the PostToolUse hook calls it: on a Claude Code 2.1 transcript, with Claude Code's payload. The hook's
 * caller (run.ts) already skips what is not a Bash call where rawr steers; steerAtTool checks again, so
 * each guard is pinned here on its own: where it must not start the golden path, no golden.json and no
 * log line are written — a heads-up the model reads at the wrong place is a step it did not need.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { steerAtTool, type SteeredSession } from '../../src/core/hooks/claude/steer';
import type { SteerConfig } from '../../src/core/hooks/claude/steerConfig';
import { GOLDEN_FILE, Golden } from '../../src/core/hooks/claude/golden';
import { STEER_STATE } from '../../src/core/hooks/claude/steerState';
import { sessionDir } from '../../src/core/hooks/shared/store';
import { Transcript } from '../support/claudeTranscript';
import { SHIPPED, steerConfigFor, steeredSession } from '../support/steered';

const TMP = fs.realpathSync(os.tmpdir());
const SET = SHIPPED;
const WINDOW = 1_000_000;
const STEER: SteerConfig = steerConfigFor(WINDOW);
const COMMIT = 'git add -A && git commit -m "phase 1 done"';
const COMMIT_OUT = '[main 3f2a1c9] phase 1 done\n 1 file changed';

interface Case {
  root: string;
  tr: Transcript;
  dir: string;
  /** The commit's call, written as Claude Code writes it before PostToolUse runs (no result yet). */
  id: string;
}

/** A session that worked to `context` tokens of 1M, its last call the commit (its result not written yet). */
function session(context = 640_000, lead: (tr: Transcript) => void = () => {}, last = COMMIT): Case {
  const root = fs.mkdtempSync(path.join(TMP, 'rawr-attool-'));
  const tr = new Transcript(root);
  lead(tr);
  tr.prompt('Do phase 1 then phase 2 of PLAN.md');
  tr.bash('echo step 0', Math.round(context * 0.3), 'step 0');
  tr.bash('echo step 1', context - 40_000, 'step 1');
  tr.bash('echo step 2', context - 20_000, 'step 2');
  const id = tr.bashCall(last, context);
  return { root, tr, dir: sessionDir(root, 'claude', 'sess', true)!, id };
}

const steered = (c: Case): SteeredSession => steeredSession({ dir: c.dir, root: c.root, transcript: c.tr.file, config: STEER });

/** Claude Code's PostToolUse for the commit (2.1.332), with `over` changing any part of it. */
const atCommit = (c: Case, over: Partial<Parameters<typeof steerAtTool>[0]> = {}) =>
  steerAtTool({
    ...steered(c),
    toolName: 'Bash',
    toolUseId: c.id,
    toolInput: { command: COMMIT },
    toolResponse: { stdout: COMMIT_OUT, stderr: '', interrupted: false },
    ...over,
  });

const golden = (c: Case) => {
  const f = path.join(c.dir, GOLDEN_FILE);
  return fs.existsSync(f) ? Golden.parse(JSON.parse(fs.readFileSync(f, 'utf8'))) : null;
};
const logLines = (c: Case) => {
  const f = path.join(c.dir, 'steer-log.jsonl');
  return fs.existsSync(f)
    ? fs
        .readFileSync(f, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];
};

/** Nothing started: no heads-up pending, no log line. */
async function nothingAt(c: Case, over: Partial<Parameters<typeof steerAtTool>[0]>, what: string) {
  assert.equal(await atCommit(c, over), null, what);
  assert.equal(golden(c), null, `${what}: no heads-up pending`);
  assert.deepEqual(logLines(c), [], `${what}: nothing logged`);
}

describe('rawr hooks claude PostToolUse: the heads-up with the boundary’s own result (steerAtTool)', function () {
  this.timeout(30_000);

  it('a commit in the tier starts the golden path: golden.json names the commit and the packet, and one log line says so', async () => {
    const c = session();
    assert.deepEqual(await atCommit(c), { boundary: 'commit 3f2a1c9', percentUsed: 64 });
    const g = golden(c)!;
    assert.equal(g.boundary, 'commit 3f2a1c9');
    assert.equal(g.packet, '.scratch/claude-sess.packet.md');
    assert.equal(g.askedAt, '2026-11-20T11:00:00.000Z');
    assert.equal(g.askedAtCalls, 4, 'the model calls so far (the commit’s is the fourth)');
    assert.match(g.headsUp, /Heads-up: we are pausing at a phase boundary \(commit 3f2a1c9; tier early, 36% of context left\)/);
    assert.match(g.headsUp, /\.scratch\/claude-sess\.packet\.md/);
    const [log, ...more] = logLines(c);
    assert.deepEqual(more, []);
    assert.deepEqual(
      { ...log, reason: undefined, line: undefined },
      {
        at: '2026-11-20T11:00:00.000Z',
        trigger: 'PostToolUse',
        allow: false,
        why: 'heads_up',
        text: "compacting at commit 3f2a1c9 after the continuation packet (64% used; heads-up with the tool's result)",
        usedTokens: log!.usedTokens,
        window: WINDOW,
        code: log!.code,
        reason: undefined,
        line: undefined,
      },
    );
    // The context with the commit's result, which Claude Code sends with the heads-up (a few tokens).
    assert.ok((log!.usedTokens as number) > 640_000 && (log!.usedTokens as number) < 640_100, JSON.stringify(log));
    assert.ok(log!.code === 'compact' || log!.code === 'forecast_held', JSON.stringify(log));
    assert.equal(typeof log!.line, 'number');
    assert.match(String(log!.reason), /./, 'the arbiter’s reason is logged');
    assert.equal(log!.waitedMs, undefined, 'the call was in the transcript: no wait logged');
    // The saved state stays the transcript's: the result appended for the decision is not in it.
    assert.equal(fs.existsSync(path.join(c.dir, STEER_STATE)), false, 'the state is written by PreCompact, not here');
  });

  it('once a heads-up is pending, the next commit does not start another', async () => {
    const c = session();
    assert.notEqual(await atCommit(c), null);
    const first = fs.readFileSync(path.join(c.dir, GOLDEN_FILE), 'utf8');
    c.tr.bashResult(c.id, COMMIT_OUT);
    const again = c.tr.bashCall('git commit -am "more"', 650_000);
    assert.equal(await atCommit(c, { toolUseId: again, toolResponse: { stdout: '[main 4b1d2e3] more' } }), null);
    assert.equal(fs.readFileSync(path.join(c.dir, GOLDEN_FILE), 'utf8'), first, 'the pending heads-up is left as it was');
    assert.equal(logLines(c).length, 1);
  });

  it('starts nothing where rawr does not steer, or does not write packets through the agent', async () => {
    await nothingAt(session(), { config: null }, 'no steering config (an earlier rawr)');
    await nothingAt(session(), { config: { ...STEER, steer: false } }, 'steering off');
    for (const mode of ['suggest', 'tag', 'off'] as const) await nothingAt(session(), { settings: { ...SET.settings, mode } }, `mode ${mode}`);
    await nothingAt(session(), { settings: { ...SET.settings, packet_author: 'watcher' } }, 'the watcher writes the packet');
  });

  it('starts nothing at a call that is not a finished Bash call: another tool, no call id, an interrupted or malformed payload', async () => {
    await nothingAt(session(), { toolName: 'Write' }, 'a Write');
    await nothingAt(session(), { toolName: undefined }, 'no tool name');
    await nothingAt(session(), { toolUseId: null }, 'no call id');
    await nothingAt(session(), { toolResponse: { stdout: COMMIT_OUT, interrupted: true } }, 'interrupted (Esc)');
    await nothingAt(session(), { toolInput: { cmd: COMMIT } }, 'a Bash input without its command');
    await nothingAt(session(), { toolInput: 'git commit' }, 'an input that is not an object');
    await nothingAt(session(), { toolResponse: { stdout: 3 } }, 'a response whose stdout is not text');
  });

  it('starts nothing where the arbiter does not compact: early in the window, or past the emergency line (PreCompact allows there at once)', async () => {
    await nothingAt(session(200_000), {}, 'a commit at 20%');
    await nothingAt(session(890_000), {}, 'a commit at 89% (emergency)');
    // Just above the emergency line (12% left by default): the heads-up still starts.
    const c = session(870_000);
    assert.deepEqual(await atCommit(c), { boundary: 'commit 3f2a1c9', percentUsed: 87 });
  });

  it('a Bash call that is no boundary starts nothing; a commit whose output is only on stderr is still one', async () => {
    const c = session(640_000, () => {}, 'ls -la');
    await nothingAt(c, { toolInput: { command: 'ls -la' }, toolResponse: { stdout: 'total 0' } }, 'ls');
    const e = session();
    assert.deepEqual(await atCommit(e, { toolResponse: { stdout: '', stderr: COMMIT_OUT } }), { boundary: 'commit 3f2a1c9', percentUsed: 64 });
  });

  it('a quiet commit (`git commit -q`: no hash in its output) is named by its subject, a long one cut to fit a line', async () => {
    const quiet = 'git commit -qam "phase 1 done"';
    const c = session(640_000, () => {}, quiet);
    const at = await atCommit(c, { toolInput: { command: quiet }, toolResponse: { stdout: '', stderr: '' } });
    assert.deepEqual(at, { boundary: 'commit "phase 1 done"', percentUsed: 64 });
    assert.match(golden(c)!.headsUp, /phase boundary \(commit "phase 1 done"; tier early/);
    const subject = `phase 1: ${'the rate limiter and its tests '.repeat(4)}`.trim();
    const long = `git commit -qm "${subject}"`;
    const l = session(640_000, () => {}, long);
    const named = (await atCommit(l, { toolInput: { command: long }, toolResponse: { stdout: '' } }))!.boundary;
    assert.equal(named, `commit "${subject.slice(0, 59)}…"`);
    assert.ok(named.length <= 80, named);
  });

  it('still reading a long history: decides nothing, and keeps what it read so the next call reads on', async () => {
    // steerState.ts READ_BOUND: 40,000 lines a call. 20,500 tool calls before the commit: 41,000 lines.
    const c = session(640_000, (tr) => {
      tr.prompt('warm up');
      for (let i = 0; i < 20_500; i++) tr.bash(`echo ${i}`, 100_000, 'x');
    });
    await nothingAt(c, {}, 'behind the transcript');
    const saved = JSON.parse(fs.readFileSync(path.join(c.dir, STEER_STATE), 'utf8')) as { offset: number };
    assert.ok(saved.offset > 0 && saved.offset < fs.statSync(c.tr.file).size, `progress kept: ${saved.offset}`);
  });
});
