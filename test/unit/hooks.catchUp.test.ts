/**
 * The steering PreCompact hook on a session whose history is longer than one call reads
 * (src/core/hooks/claude/steerState.ts READ_BOUND, lowered here so the test stays small): every call
 * reads at most the bound and answers with rawr's decision from the transcript's tail (steer.ts
 * catchingUpVerdict) — a refusal saying how far rawr has read while the context is below its emergency
 * line, an allow past it — never from the follower's state of a point long past (whose low context would
 * read as a reactive compaction and allow at Claude Code's early line), and decides as usual once the
 * history is read. Before the bound, one call read up to 256 MB: 15-25 s on a 600 MB session under load,
 * past the hook client's wait, and the client printed nothing (Claude Code compacts: issue 29).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runHook } from '../../src/core/hooks/shared/run';
import { CLAUDE } from '../../src/core/hooks/claude/agent';
import { writeSteerConfig } from '../../src/core/hooks/claude/steerConfig';
import type { ReadBound } from '../../src/core/hooks/claude/steerState';
import { agentStateDir, sessionDir } from '../../src/core/hooks/shared/store';
import { Transcript, writeLargeTranscript } from '../support/claudeTranscript';
import { watchOpens } from '../support/watchOpens';
import { until } from '../support/until';
import { steerConfigFor } from '../support/steered';

const TMP = fs.realpathSync(os.tmpdir());
const WINDOW = 1_000_000;
const BOUND: ReadBound = { bytes: 256 * 1024, lines: 100_000 };

interface Logged {
  allow: boolean;
  why: string;
  text: string;
  readTo?: number;
  size?: number;
  waitedMs?: number;
}

/**
 * A steered project whose session starts with a low context (100-200k: below where Claude Code asks
 * from) over more than one bound, then ~3 MB of short steps at 580-629k (between Claude Code's threshold
 * and rawr's emergency line).
 */
function longSession(): { root: string; tr: Transcript } {
  const root = fs.mkdtempSync(path.join(TMP, 'rawr-catchup-'));
  agentStateDir(root, 'claude', true);
  writeSteerConfig(root, steerConfigFor(WINDOW));
  const tr = new Transcript(root);
  tr.prompt('Port the module, step by step.');
  const output = 'x'.repeat(6_000);
  for (let i = 0; fs.statSync(tr.file).size < 2 * BOUND.bytes; i++) tr.bash(`echo early ${i}`, 100_000 + i * 500, output);
  const big = path.join(root, 'big.jsonl');
  writeLargeTranscript(big, root, 3 * 1024 * 1024, 0, 1);
  // Its own ids (the writer numbers from 1 as the head did): one response is one model call.
  fs.appendFileSync(tr.file, fs.readFileSync(big, 'utf8').replace(/"(msg|toolu)_/g, '"$1_big'));
  fs.rmSync(big);
  return { root, tr };
}

async function preCompact(root: string, bound: ReadBound = BOUND) {
  const input = { session_id: 'sess', transcript_path: path.join(root, 'session.jsonl'), cwd: root, hook_event_name: 'PreCompact', trigger: 'auto' };
  const r = await runHook(CLAUDE, 'PreCompact', JSON.stringify(input), { env: { CLAUDE_PROJECT_DIR: root }, gitTimeoutMs: 5000, readBound: bound });
  const log = fs
    .readFileSync(path.join(sessionDir(root, 'claude', 'sess', false)!, 'steer-log.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Logged);
  const reason = r.stdout.trim().startsWith('{') ? (JSON.parse(r.stdout) as { decision?: string; reason?: string }) : {};
  return { refused: reason.decision === 'block' ? reason.reason! : null, logged: log.at(-1)! };
}

describe('rawr hooks claude PreCompact on a session longer than one call reads', function () {
  this.timeout(120_000);

  it('answers every call from the tail within the bound: refuses below the emergency line saying how far it has read, allows past it, decides as usual once caught up', async () => {
    const { root, tr } = longSession();
    try {
      const size = fs.statSync(tr.file).size;
      // The first call: a bound's worth read, the rest not; the follower is in the low-context head, the
      // tail at ~60%: refused, and said why.
      const first = await preCompact(root);
      assert.ok(first.refused, `refused: ${JSON.stringify(first.logged)}`);
      assert.match(first.refused, /rawr is still reading this session's history, 0 of 4 MB \(6\d% used/);
      assert.equal(first.logged.why, 'catching_up');
      assert.ok(first.logged.readTo! > 0 && first.logged.readTo! <= BOUND.bytes, `read at most the bound: ${first.logged.readTo}`);
      // Past the emergency line in the tail: allowed at once, still reading.
      tr.answer('Still porting.', 900_000);
      const emergency = await preCompact(root);
      assert.equal(emergency.refused, null, JSON.stringify(emergency.logged));
      assert.equal(emergency.logged.why, 'emergency');
      assert.ok(emergency.logged.readTo! <= 2 * BOUND.bytes, `${emergency.logged.readTo}`);
      // Each later call follows one more model response and reads on, at most the bound each.
      let readTo = emergency.logged.readTo!;
      let calls = 0;
      let last: Awaited<ReturnType<typeof preCompact>>;
      for (;;) {
        tr.bash(`echo step ${calls}`, 600_000, 'ok');
        last = await preCompact(root);
        calls++;
        if (last.logged.readTo === undefined) break;
        assert.equal(last.logged.why, 'catching_up', JSON.stringify(last.logged));
        assert.ok(last.refused && /still reading/.test(last.refused));
        assert.ok(last.logged.readTo > readTo && last.logged.readTo - readTo <= BOUND.bytes, `${readTo} → ${last.logged.readTo}`);
        readTo = last.logged.readTo;
        assert.ok(calls <= Math.ceil(size / BOUND.bytes) + 2, `caught up in bounded calls (${calls})`);
      }
      // Caught up: the follower's own decision (no boundary at 60%).
      assert.equal(last.logged.why, 'deferred', JSON.stringify(last.logged));
      assert.match(last.refused ?? '', /deferred to the next boundary/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('a session read whole in one call is decided by its follower, as before the bound', async () => {
    const { root } = longSession();
    try {
      const r = await preCompact(root, { bytes: 64 * 1024 * 1024, lines: 1_000_000 });
      assert.equal(r.logged.why, 'deferred', JSON.stringify(r.logged));
      assert.equal(r.logged.readTo, undefined);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('a response Claude Code writes while the hook reads the tail is waited for: still reading, not a failed request', async () => {
    // Measured with the real CLI: a hook can read before Claude Code has written the response that asked.
    const { root, tr } = longSession();
    try {
      const opens = watchOpens(tr.file);
      let first: Awaited<ReturnType<typeof preCompact>>;
      try {
        first = await preCompact(root);
      } finally {
        opens.stop();
      }
      assert.ok(first.refused, JSON.stringify(first.logged));
      assert.equal(first.logged.waitedMs, undefined, `a first call has no earlier answer to wait past: ${JSON.stringify(first.logged)}`);
      // The first call's opens of the transcript end with one look at its tail; the next call's look
      // after that many is the wait's first poll, so the response is written while the hook waits.
      const looks = opens.count;
      const again = watchOpens(tr.file);
      let late: Awaited<ReturnType<typeof preCompact>>;
      try {
        const waiting = preCompact(root);
        await until('the hook waiting for a response', () => again.count >= looks + 1, 10_000, 1);
        tr.bash('echo late', 630_000, 'late');
        late = await waiting;
      } finally {
        again.stop();
      }
      assert.ok(late.refused, `still reading, refused: ${JSON.stringify(late.logged)}`);
      assert.equal(late.logged.why, 'catching_up');
      assert.ok((late.logged.waitedMs ?? 0) >= 20, `it waited: ${JSON.stringify(late.logged)}`);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('a request the API refused while rawr reads (asked again with no newer response) is allowed: the turn never ends on a refusal', async () => {
    const { root } = longSession();
    try {
      assert.ok((await preCompact(root)).refused);
      const again = await preCompact(root);
      assert.equal(again.refused, null, JSON.stringify(again.logged));
      assert.equal(again.logged.why, 'reactive');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
