/**
 * The real Codex CLI (pinned in test/agents/install.sh, cached in .codex-test/) with rawr's hooks
 * installed and trusted by `rawr hooks codex install --write --trust` (no bypass flag: the trust
 * entries rawr writes must be the ones Codex accepts), offline against the scripted Responses server
 * (test/support/scriptedResponses.ts):
 *   A `codex exec`, auto-compaction in the middle of a turn: injected once;
 *   B `codex exec` then `exec resume`, auto-compaction before the second turn (Codex fires
 *     SessionStart(resume) and SessionStart(compact)): injected once;
 *   C a manual compaction through the app server's JSON-RPC `thread/compact/start`: injected once;
 *   E the compaction request fails: PreCompact fires, nothing is injected.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as readline from 'node:readline';
import * as path from 'node:path';
import { startScriptedResponses, type ResponsesServerOptions, type ScriptedResponses } from '../support/scriptedResponses';
import { REPO, RAWR_CLI, baseEnv, filesUnder, occurrences, project, run, scenarioSuite, assertHandoffSeenOnce } from './support';

const CACHE = process.env.CODEX_TEST_CACHE ?? path.join(REPO, '.codex-test');
const CODEX = path.join(CACHE, 'node_modules/.bin/codex');
const HANDOFF = '[rawr handoff]';

interface Scenario {
  dir: string;
  home: string;
  repo: string;
  codexHome: string;
  server: ScriptedResponses;
  turns: number;
}

function env(s: { home: string; codexHome: string }): NodeJS.ProcessEnv {
  return baseEnv(s.home, { CODEX_HOME: s.codexHome, RAWR_TEST_API_KEY: 'dummy', NO_COLOR: '1', RUST_LOG: 'warn' });
}

async function setUp(prefix: string, server: Omit<ResponsesServerOptions, 'cwd'>): Promise<Scenario> {
  const p = await project(`rawr-cx-${prefix}-`);
  const codexHome = path.join(p.home, '.codex');
  fs.mkdirSync(codexHome);
  const srv = await startScriptedResponses({ cwd: p.repo, ...server });
  fs.writeFileSync(
    path.join(codexHome, 'config.toml'),
    [
      'model = "scripted-model"',
      'model_provider = "scripted"',
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
      'model_context_window = 200000',
      'model_auto_compact_token_limit = 100000',
      'check_for_update_on_startup = false',
      '',
      '[model_providers.scripted]',
      'name = "scripted"',
      `base_url = "${srv.url}"`,
      'wire_api = "responses"',
      'env_key = "RAWR_TEST_API_KEY"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
      '[analytics]',
      'enabled = false',
      '',
      `[projects."${p.repo}"]`,
      'trust_level = "trusted"',
      '',
    ].join('\n'),
  );
  const s: Scenario = { ...p, codexHome, server: srv, turns: 0 };
  const install = await run(process.execPath, [RAWR_CLI, 'hooks', 'codex', 'install', '--write', '--trust'], { cwd: p.repo, env: env(s) });
  assert.equal(install.code, 0, install.stderr);
  assert.match(install.stdout, /newly trusted/);
  return s;
}

async function exec(s: Scenario, ...args: string[]): Promise<void> {
  const n = ++s.turns;
  const r = await run(CODEX, ['exec', '--json', '--disable', 'plugins', ...args], { cwd: s.repo, env: env(s), timeoutMs: 180_000 });
  fs.writeFileSync(path.join(s.dir, `exec-${n}.jsonl`), r.stdout);
  fs.writeFileSync(path.join(s.dir, `exec-${n}.err`), r.stderr);
}

/**
 * `codex app-server` (stdio JSON-RPC): a thread, a turn, a manual compaction (`thread/compact/start`),
 * another turn. Requests from the server (approvals) are approved.
 */
async function appServerManualCompaction(s: Scenario, prompt1: string, prompt2: string): Promise<void> {
  const child = spawn(CODEX, ['app-server', '--disable', 'plugins'], { cwd: s.repo, env: env(s), stdio: ['pipe', 'pipe', 'pipe'] });
  const logStream = fs.createWriteStream(path.join(s.dir, 'appserver.jsonl'));
  // The app server may still print after the scenario ended and the log was closed: those lines are dropped
  // (a write after end would be an uncaught error failing whichever test runs next).
  const log = { write: (t: string) => void (logStream.writableEnded || logStream.write(t)), end: () => logStream.end() };
  child.stderr.on('data', (d: Buffer) => log.write(`! ${d.toString('utf8')}`));
  let id = 0;
  const pending = new Map<number, { res: (v: any) => void; rej: (e: Error) => void }>();
  const waiters: Array<{ method: string; pred: (p: any) => boolean; res: (p: any) => void }> = [];
  const write = (m: object) => {
    log.write(`> ${JSON.stringify(m)}\n`);
    child.stdin.write(`${JSON.stringify(m)}\n`);
  };
  const send = (method: string, params: object) =>
    new Promise<any>((res, rej) => {
      pending.set(++id, { res, rej });
      write({ jsonrpc: '2.0', id, method, params });
    });
  const waitFor = (method: string, pred: (p: any) => boolean = () => true) => new Promise<any>((res) => waiters.push({ method, pred, res }));
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    log.write(`< ${line}\n`);
    let m: any;
    try {
      m = JSON.parse(line);
    } catch {
      return;
    }
    if (m.id != null && !m.method && pending.has(m.id)) {
      const p = pending.get(m.id)!;
      pending.delete(m.id);
      if (m.error) p.rej(new Error(JSON.stringify(m.error)));
      else p.res(m.result);
    } else if (m.id != null && m.method) {
      write({ jsonrpc: '2.0', id: m.id, result: { decision: 'approved' } });
    } else {
      const i = waiters.findIndex((w) => w.method === m.method && w.pred(m.params));
      if (i >= 0) waiters.splice(i, 1)[0]!.res(m.params);
    }
  });
  const deadline = setTimeout(() => child.kill('SIGKILL'), 180_000);
  try {
    await send('initialize', { clientInfo: { name: 'rawr-test', version: '0.0.1' }, capabilities: { experimentalApi: true } });
    write({ jsonrpc: '2.0', method: 'initialized', params: {} });
    const t = await send('thread/start', { cwd: s.repo, approvalPolicy: 'never', sandbox: 'danger-full-access' });
    const threadId = t.thread.id;
    let done = waitFor('turn/completed');
    await send('turn/start', { threadId, input: [{ type: 'text', text: prompt1 }] });
    await done;
    const compacted = waitFor('item/completed', (p) => p?.item?.type === 'contextCompaction');
    done = waitFor('turn/completed');
    await send('thread/compact/start', { threadId });
    await compacted;
    await done;
    done = waitFor('turn/completed');
    await send('turn/start', { threadId, input: [{ type: 'text', text: prompt2 }] });
    await done;
  } finally {
    clearTimeout(deadline);
    child.stdin.end();
    child.kill('SIGTERM');
    log.end();
  }
}

function facts(s: Scenario) {
  const rollouts = filesUnder(path.join(s.codexHome, 'sessions'), /^rollout-.*\.jsonl$/);
  const compactions = rollouts.reduce((n, f) => n + occurrences(fs.readFileSync(f, 'utf8'), '"type":"compacted"'), 0);
  const state = path.join(s.repo, '.rawr/codex');
  const snapshots = filesUnder(state, /^snapshot-.*\.json$/).length;
  const claims = filesUnder(state, /\.injected$/).map((f) => (JSON.parse(fs.readFileSync(f, 'utf8')) as { event: string }).event);
  const handoffPerRequest = s.server.requests.map((r) => occurrences(r.raw, HANDOFF));
  const report =
    `compacted=${compactions} snapshots=${snapshots} claims=${claims.join(',') || 'none'} ` +
    `requests=${s.server.requests.map((r, i) => `${r.kind}${r.status === 200 ? '' : `:${r.status}`}${handoffPerRequest[i] ? '+handoff' : ''}`).join(' ')} (run folder ${s.dir})`;
  return { compactions, snapshots, claims, handoffPerRequest, report };
}

function assertInjectedOnce(f: ReturnType<typeof facts>): void {
  assert.ok(f.compactions >= 1, `Codex compacted: ${f.report}`);
  assert.ok(f.snapshots >= 1, `PreCompact wrote a snapshot: ${f.report}`);
  assert.equal(f.claims.length, 1, `rawr injected exactly once: ${f.report}`);
  assertHandoffSeenOnce(f.handoffPerRequest, f.report);
}

describe('real Codex CLI: rawr hooks codex injects exactly when a compaction happened', function () {
  this.timeout(600_000);
  const setup = scenarioSuite(CODEX, 'Codex CLI', setUp);

  it('A: exec with an auto-compaction in the middle of the turn: injected once', async () => {
    const s = await setup('A', {});
    await exec(s, 'DO_WORK INFLATE: write hello.txt and commit');
    assertInjectedOnce(facts(s));
    // the snapshot read the real rollout
    const [snap] = filesUnder(path.join(s.repo, '.rawr/codex'), /^snapshot-.*\.json$/);
    const snapshot = JSON.parse(fs.readFileSync(snap!, 'utf8')) as { agent: string; userRequests: string[]; trigger?: string };
    assert.deepEqual([snapshot.agent, snapshot.trigger], ['codex', 'auto']);
    assert.ok(snapshot.userRequests.includes('DO_WORK INFLATE: write hello.txt and commit'), JSON.stringify(snapshot.userRequests));
    // The repair of Codex's own summary (read from the rollout's compacted record: its PostCompact carries
    // none) reaches the model once, with a receipt in the session's log.
    const f = facts(s);
    const repairs = s.server.requests.map((r) => occurrences(r.raw, '[rawr repair]'));
    assert.ok(
      repairs.some((n) => n >= 1) && repairs.every((n) => n <= 1),
      `the repair reached the model, never twice in one request: ${repairs.join(',')}; ${f.report}`,
    );
    const receipts = filesUnder(path.join(s.repo, '.rawr/codex'), /^hook-log\.jsonl$/)
      .flatMap((file) => fs.readFileSync(file, 'utf8').trim().split('\n'))
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { kind: string; summaryTokens?: number })
      .filter((e) => e.kind === 'receipt');
    assert.equal(receipts.length, 1, f.report);
    assert.ok((receipts[0]!.summaryTokens ?? 0) > 0, `the receipt counts Codex's summary: ${JSON.stringify(receipts)}`);
  });

  it('C: manual compaction through the app server (thread/compact/start): injected once', async () => {
    const s = await setup('C', {});
    await appServerManualCompaction(s, 'DO_WORK: write hello.txt and commit', 'prompt after compact');
    const f = facts(s);
    assertInjectedOnce(f);
    const [snap] = filesUnder(path.join(s.repo, '.rawr/codex'), /^snapshot-.*\.json$/);
    assert.equal((JSON.parse(fs.readFileSync(snap!, 'utf8')) as { trigger?: string }).trigger, 'manual', f.report);
  });

  it('B: exec resume with a pre-turn auto-compaction (SessionStart resume + compact): injected once', async () => {
    const s = await setup('B', {});
    await exec(s, 'INFLATE: just answer');
    await exec(s, 'resume', '--last', 'second prompt');
    await exec(s, 'resume', '--last', 'third prompt');
    const f = facts(s);
    assertInjectedOnce(f);
    assert.deepEqual(f.claims, ['SessionStart'], f.report);
  });

  it('E: the compaction request fails: PreCompact fired, nothing injected', async () => {
    const s = await setup('E', { failCompact: true });
    await exec(s, 'INFLATE: just answer');
    await exec(s, 'resume', '--last', 'second prompt');
    await exec(s, 'resume', '--last', 'third prompt');
    const f = facts(s);
    assert.ok(
      s.server.requests.some((r) => r.kind === 'compact'),
      `a compaction was attempted: ${f.report}`,
    );
    assert.ok(f.snapshots >= 1, `PreCompact fired: ${f.report}`);
    assert.equal(f.compactions, 0, f.report);
    assert.deepEqual(f.claims, [], `nothing injected: ${f.report}`);
    assert.ok(
      f.handoffPerRequest.every((n) => n === 0),
      f.report,
    );
  });
});
