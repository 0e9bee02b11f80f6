/**
 * The resident hook engine (src/cli/hooks/server.ts, resident.ts): the installed hooks entry
 * (dist/hook.js) hands a hook run to it through its door and prints its answer, which must be the answer
 * the hook gives running alone; anything wrong with the resident engine (a stale lock, a lost connection, a folder
 * others can enter) falls back to running alone or to printing nothing, never to a different answer.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as hookEngine from '../../src/cli/hooks/event';
import { hookEventOutput } from '../../src/cli/hooks/event';
import { buildKey, connectResident, residentDoor, tcpFile } from '../../src/cli/hooks/resident';
import { lostAnswer } from '../../src/cli/hooks/main';
import { runHook } from '../../src/core/hooks/shared/run';
import { CLAUDE } from '../../src/core/hooks/claude/agent';
import type { HookRun } from '../../src/cli/hooks/types';
import { serveHooks } from '../../src/cli/hooks/server';
import { hookCommandPrefix } from '../../src/cli/hookCommand';
import { writeSteerConfig } from '../../src/core/hooks/claude/steerConfig';
import { agentStateDir } from '../../src/core/hooks/shared/store';
import { Transcript } from '../support/claudeTranscript';
import { sleep, until } from '../support/until';
import { askResident } from '../support/askResident';
import { stopEnginesUnder } from '../support/engines';
import { steerConfigFor } from '../support/steered';

const HOOK_ENTRY = path.resolve(__dirname, '../../../dist/hook.js');
const HOOK_ENGINE = path.resolve(__dirname, '../../../dist/hookEngine.js');

/** A Claude Code project with steering on and a transcript over Claude Code's threshold. */
function project(root: string): Transcript {
  fs.mkdirSync(root, { recursive: true });
  agentStateDir(root, 'claude', true);
  writeSteerConfig(root, steerConfigFor(1_000_000));
  const t = new Transcript(root);
  t.prompt('Refactor the module and keep the tests green.');
  return t;
}

/** `fn` with `vars` in process.env (lostAnswer reads the hook's environment), restored after. */
async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}

describe('the resident hook engine', function () {
  this.timeout(120_000);
  let tmp: string;
  let cache: string;
  before(() => {
    // Built by `npm test` (pretest) and by `npm run build`; these tests are about that bundle.
    assert.ok(fs.existsSync(HOOK_ENTRY) && fs.existsSync(HOOK_ENGINE), `${HOOK_ENTRY} missing: run npm run build`);
  });
  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-resident-')));
    cache = path.join(tmp, 'cache');
    fs.mkdirSync(path.join(cache, 'rawr'), { recursive: true, mode: 0o700 });
    fs.chmodSync(cache, 0o700);
  });
  // Retried: an engine a hook started may still be creating its cache folder while it exits at the lock
  // (another engine holds it), which made the removal fail with ENOTEMPTY on a loaded machine.
  afterEach(() => {
    stopEnginesUnder(tmp);
    fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  /** The installed command through `sh -c`, as Claude Code runs it; async: a test's own server must go on answering. */
  const hook = (root: string, t: Transcript, env: Record<string, string> = {}, command = `'${process.execPath}' '${HOOK_ENTRY}'`) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn('/bin/sh', ['-c', `${command} hooks claude PreCompact`], {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmp, XDG_CACHE_HOME: cache, CLAUDE_PROJECT_DIR: root, ...env },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (status) => resolve({ status, stdout, stderr }));
      child.stdin.end(JSON.stringify({ session_id: 's1', transcript_path: t.file, cwd: root, hook_event_name: 'PreCompact', trigger: 'auto' }));
    });

  /**
   * A steered session run twice, step by step: once through `command` with a resident engine answering
   * (through its door, from the bash client or the Node hook), once by the hook running alone. Each
   * call must give the same answer, and the engine must have answered every one.
   */
  const sameAsAlone = async (command: string) => {
    let served = 0;
    const dist = path.dirname(HOOK_ENTRY);
    const server = serveHooks(
      {
        hookEventOutput: (...a) => {
          served++;
          return hookEventOutput(...a);
        },
      },
      { idleMs: 60_000, exit: (s) => s?.close(), door: { cacheDir: path.join(cache, 'rawr'), clientDir: dist, current: () => true } },
    );
    assert.ok(server, 'a door in a 0700 cache folder');
    await until('the engine', () => fs.existsSync(tcpFile(path.join(cache, 'rawr'), dist)));
    try {
      const a = path.join(tmp, 'a');
      const b = path.join(tmp, 'b');
      const ta = project(a);
      const tb = project(b);
      const answers: string[] = [];
      // Refusals between Claude Code's threshold and the boundary, then a commit: the golden path's answers.
      const steps: Array<(t: Transcript) => void> = [
        ...Array.from({ length: 4 }, (_, i) => (t: Transcript) => t.bash(`grep -rn part${i} src`, 600_000 + i * 5000, 'src/a.ts:1: x')),
        (t) => t.bash('git commit -m "Refactor the parser"', 640_000, '[main 3f2a1c9] Refactor the parser\n 2 files changed'),
        ...Array.from({ length: 5 }, (_, i) => (t: Transcript) => t.bash(`cat notes${i}.md`, 645_000 + i * 2000, 'notes')),
      ];
      for (const step of steps) {
        step(ta);
        step(tb);
        const viaResident = await hook(a, ta, {}, command);
        const alone = await hook(b, tb, { RAWR_HOOK_SERVER: '0' });
        assert.equal(viaResident.status, 0, viaResident.stderr);
        assert.equal(alone.status, 0, alone.stderr);
        // The same answer; the project's own folder is the only difference in the text.
        assert.equal(viaResident.stdout.split(a).join('<root>'), alone.stdout.split(b).join('<root>'));
        assert.equal(viaResident.stderr, alone.stderr);
        answers.push(viaResident.stdout);
      }
      assert.equal(served, steps.length, 'every call was answered by the resident engine');
      assert.ok(
        answers.some((x) => x.includes('"decision":"block"')),
        'some calls were refusals',
      );
      assert.ok(new Set(answers).size > 1, 'the answers changed along the session');
    } finally {
      await new Promise((r) => server.close(r));
    }
  };

  it('answers every call of a steered session, through the Node hook, exactly as the hook running alone does', () =>
    sameAsAlone(`'${process.execPath}' '${HOOK_ENTRY}'`));

  it('the installed command (the bash client, through the engine’s TCP door) answers a steered session exactly as the hook alone', async () => {
    const installed = hookCommandPrefix(HOOK_ENTRY);
    assert.match(installed, /hook\.sh/, 'install writes the bash client here');
    await sameAsAlone(installed);
  });

  /** Any hook event through `command` (`sh -c`, as Claude Code runs it), in its own process group (killed as Claude Code kills a hook at its timeout). */
  const hookEvent = (root: string, command: string, event: string, input: object, env: Record<string, string> = {}) => {
    const child = spawn('/bin/sh', ['-c', `${command} hooks claude ${event}`], {
      cwd: root,
      detached: true,
      env: { PATH: process.env.PATH ?? '', HOME: tmp, XDG_CACHE_HOME: cache, CLAUDE_PROJECT_DIR: root, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify({ session_id: 's1', cwd: root, hook_event_name: event, ...input }));
    const done = new Promise<{ stdout: string; stderr: string }>((resolve) => child.on('close', () => resolve({ stdout, stderr })));
    return { done, kill: () => process.kill(-child.pid!, 'SIGKILL') };
  };

  // Issue 30: a busy engine finished a SessionStart(compact) whose hook Claude Code had killed, claimed the
  // handoff, and the next hook printed nothing: the handoff never reached the model.
  for (const [way, command] of [
    ['the bash client (the installed command)', () => hookCommandPrefix(HOOK_ENTRY)],
    ['the Node hook (the same door)', () => `'${process.execPath}' '${HOOK_ENTRY}'`],
  ] as const) {
    it(`no claim without delivery, through ${way}: a hook killed before it printed its handoff leaves it for the next hook`, async () => {
      const dist = path.dirname(HOOK_ENTRY);
      const root = path.join(tmp, 'p');
      fs.mkdirSync(root);
      const t = new Transcript(root);
      t.prompt('Refactor the module and keep the tests green.');
      t.bash('grep -rn part src', 120_000, 'src/a.ts:1: x');
      // The compaction's snapshot, taken by the hook alone.
      const pre = await hookEvent(root, command(), 'PreCompact', { transcript_path: t.file, trigger: 'manual' }, { RAWR_HOOK_SERVER: '0' }).done;
      assert.equal(pre.stderr, '');
      // The engine answers SessionStart(compact) only once the test has killed its hook (a hook killed at
      // its timeout while a busy engine ran it).
      let computed = false;
      let resume = () => undefined as void;
      const held = new Promise<void>((r) => (resume = r));
      const server = serveHooks(
        {
          hookEventOutput: async (agent, event, stdin, env, run) => {
            const out = await hookEventOutput(agent, event, stdin, env, run);
            if (event === 'SessionStart') {
              computed = true;
              await held;
            }
            return out;
          },
        },
        { idleMs: 60_000, exit: (x) => x?.close(), door: { cacheDir: path.join(cache, 'rawr'), clientDir: dist, current: () => true } },
      )!;
      await until('the engine', () => fs.existsSync(tcpFile(path.join(cache, 'rawr'), dist)));
      try {
        const killed = hookEvent(root, command(), 'SessionStart', { transcript_path: t.file, source: 'compact' });
        await until('the engine computed the handoff', () => computed);
        killed.kill();
        assert.equal((await killed.done).stdout, '', 'the killed hook printed nothing');
        resume();
        const next = await hookEvent(root, command(), 'UserPromptSubmit', { transcript_path: t.file, prompt: 'go on' }).done;
        const context = next.stdout
          ? (JSON.parse(next.stdout) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput?.additionalContext
          : undefined;
        assert.ok(context?.includes('Refactor the module'), `the next hook gives the handoff: ${JSON.stringify(next)}`);
        // Printed and said so: claimed, so given once.
        const after = await hookEvent(root, command(), 'UserPromptSubmit', { transcript_path: t.file, prompt: 'and now' }).done;
        assert.doesNotMatch(after.stdout, /Refactor the module/, 'a handoff delivered is not given again');
      } finally {
        resume();
        await new Promise((r) => server.close(r));
      }
    });
  }

  it('a stopped (hung) engine costs seconds, never the decision: a steered PreCompact still refuses, through the bash client and the Node hook', async () => {
    const dist = path.dirname(HOOK_ENTRY);
    // The real engine, as a hook starts it (resident.ts startResident), then stopped (SIGSTOP: hung).
    const engine = spawn(process.execPath, [HOOK_ENTRY, '--rawr-hook-server', dist], {
      detached: true,
      stdio: 'ignore',
      env: { PATH: process.env.PATH ?? '', HOME: tmp, XDG_CACHE_HOME: cache },
    });
    try {
      await until('the engine', () => fs.existsSync(tcpFile(path.join(cache, 'rawr'), dist)));
      process.kill(engine.pid!, 'SIGSTOP');
      const root = path.join(tmp, 'p');
      const t = project(root);
      for (const [i, command] of [hookCommandPrefix(HOOK_ENTRY), `'${process.execPath}' '${HOOK_ENTRY}'`].entries()) {
        t.bash(`grep -rn part${i} src`, 600_000 + i * 5000, 'src/a.ts:1: x');
        const t0 = Date.now();
        const r = await hook(root, t, {}, command);
        const took = Date.now() - t0;
        assert.match(r.stdout, /"decision":"block"/, `${command}: the refusal, decided without the stopped engine: ${JSON.stringify(r)}`);
        assert.ok(took < 8_000, `${command}: answered in ${took} ms (PreCompact's installed timeout: 30 s)`);
      }
    } finally {
      engine.kill('SIGKILL');
    }
  });

  it('a stale lock (an engine killed with SIGKILL): the hook runs alone, then starts an engine that replaces it; a second engine for the build exits; idle, it exits and takes its files', async () => {
    const dist = path.dirname(HOOK_ENTRY);
    const rawrCache = path.join(cache, 'rawr');
    const lock = path.join(rawrCache, `hooks-${buildKey(HOOK_ENGINE, dist)}.lock`);
    const door = tcpFile(rawrCache, dist);
    // What an engine killed with SIGKILL leaves: a lock naming a process that is gone.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    fs.writeFileSync(lock, `${dead} stale\n`, { mode: 0o600 });
    const root = path.join(tmp, 'p');
    const t = project(root);
    t.bash('grep -rn x src', 600_000, 'src/a.ts:1: x');
    const env = { RAWR_HOOK_SERVER_IDLE_MS: '3000' };
    const first = await hook(root, t, env);
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /"decision":"block"/);
    await until(
      'a resident engine took the lock and opened its door',
      () => fs.existsSync(door) && !fs.readFileSync(lock, 'utf8').startsWith(`${dead} `),
      10_000,
    );
    const content = fs.readFileSync(door, 'utf8');
    const pid = Number(fs.readFileSync(lock, 'utf8').split(' ')[0]);
    const gone = () => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    };
    // One engine per build: a second one (a racing hook started it) exits at once, the door untouched.
    const second = spawnSync(process.execPath, [HOOK_ENTRY, '--rawr-hook-server', dist], {
      env: { PATH: process.env.PATH ?? '', HOME: tmp, XDG_CACHE_HOME: cache },
      timeout: 10_000,
    });
    assert.equal(second.status, 0);
    assert.equal(fs.readFileSync(door, 'utf8'), content);
    t.bash('grep -rn y src', 602_000, 'src/b.ts:1: y');
    const answered = await askResident(
      residentDoor(rawrCache, dist, {})!,
      {
        agent: 'claude',
        event: 'PreCompact',
        stdin: JSON.stringify({ session_id: 's1', transcript_path: t.file, cwd: root, hook_event_name: 'PreCompact', trigger: 'auto' }),
        env: { ...process.env, XDG_CACHE_HOME: cache, CLAUDE_PROJECT_DIR: root },
        cwd: root,
      },
      8_000,
    );
    assert.equal(answered.kind, 'answer', 'the resident engine answers through its door');
    if (answered.kind === 'answer') {
      assert.match(answered.output.stdout, /"decision":"block"/);
      await answered.printed();
    }
    // Idle past RAWR_HOOK_SERVER_IDLE_MS: it exits and takes its door file and lock with it.
    await until('the idle engine to exit', () => !fs.existsSync(door) && !fs.existsSync(lock) && gone(), 15_000);
  });

  it('only in a cache folder that is the user’s alone, never on Windows or with RAWR_HOOK_SERVER=0; never through a door file that is a link', async () => {
    const shared = path.join(tmp, 'shared');
    fs.mkdirSync(shared, { mode: 0o755 });
    fs.chmodSync(shared, 0o755);
    assert.equal(residentDoor(shared, tmp, {}), null);
    assert.equal(residentDoor(path.join(cache, 'rawr'), tmp, { RAWR_HOOK_SERVER: '0' }), null);
    const door = residentDoor(path.join(cache, 'rawr'), tmp, {})!;
    assert.ok(door.file.endsWith('.tcp'));
    // The program behind the link would be handed the run (and would say "go" to get the input): never reached.
    let reached = false;
    const { port, close } = await fakeDoor((c) => {
      reached = true;
      c.write('go\n');
    });
    try {
      fs.writeFileSync(path.join(tmp, 'elsewhere'), `${port} ${CTOK} ${ETOK}\n`, { mode: 0o600 });
      fs.symlinkSync(path.join(tmp, 'elsewhere'), door.file);
      assert.deepEqual(await askResident(door, REQ(), 2000), { kind: 'unavailable' });
      assert.equal(reached, false, 'the run went through a linked door file');
    } finally {
      await close();
    }
  });

  const CTOK = 'c'.repeat(32);
  const ETOK = 'e'.repeat(32);
  const REQ = (): HookRun => ({ agent: 'claude', event: 'PreCompact', stdin: '{}', env: {}, cwd: tmp });
  /** A stand-in engine on loopback: proves itself with ETOK, then `step(conn, everything received after the token)`. */
  const fakeDoor = async (step: (c: net.Socket, got: string) => void) => {
    const server = net.createServer((c) => {
      let got = '';
      c.on('error', () => undefined);
      c.on('data', (d: Buffer) => {
        got += d.toString('utf8');
        if (got === `${CTOK}\n`) return void c.write(`${ETOK}\n`);
        step(c, got.slice(CTOK.length + 1));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    const file = path.join(cache, 'rawr', 'fake.tcp');
    fs.writeFileSync(file, `${port} ${CTOK} ${ETOK}\n`, { mode: 0o600 });
    return { port, door: { file, clientDir: tmp }, close: () => new Promise((r) => server.close(r)) };
  };

  it('a connection lost after the input was sent is not run again; no engine there is "unavailable"', async () => {
    assert.deepEqual(await askResident({ file: path.join(cache, 'rawr', 'none.tcp'), clientDir: tmp }, REQ(), 2000), { kind: 'unavailable' });
    const { door, close } = await fakeDoor((c, got) => {
      if (got.endsWith('\0\0')) c.write('go\n');
      else if (got.includes('{}')) c.destroy();
    });
    try {
      assert.equal((await askResident(door, REQ(), 2000)).kind, 'lost');
    } finally {
      await close();
    }
  });

  it('a lost answer to an automatic Claude PreCompact: the verdict from the transcript’s tail — refused well below the emergency line, allowed at it or when reactive; nothing else printed', async () => {
    const root = path.join(tmp, 'lost');
    const t = project(root);
    const input = (trigger: string) => JSON.stringify({ session_id: 'sess', transcript_path: t.file, cwd: root, hook_event_name: 'PreCompact', trigger });
    const lost = (agent: 'claude' | 'codex', event: 'PreCompact' | 'PostToolUse', stdin: string) =>
      withEnv({ CLAUDE_PROJECT_DIR: root }, () => lostAnswer(agent, event, stdin, 'no answer in 25000 ms', () => hookEngine));
    const state = () => fs.readdirSync(path.join(root, '.rawr', 'claude')).sort();
    // 60% of the window: past Claude Code's ask line, well below rawr's emergency line (88%): rawr's own steering refuses there.
    t.bash('npm test', 600_000, 'ok');
    const before = state();
    const refused = await lost('claude', 'PreCompact', input('auto'));
    assert.equal((JSON.parse(refused.stdout) as { decision: string }).decision, 'block', refused.stderr.join('\n'));
    assert.match(
      (JSON.parse(refused.stdout) as { reason: string }).reason,
      /^rawr: the resident hook engine did not answer; compaction deferred to the next request \(60% used\)$/,
    );
    assert.deepEqual(state(), before, 'nothing written: the session’s state is the stalled engine’s');
    // 90%: past the emergency line (a refusal could end the turn at Claude Code's blocking level): allowed, nothing printed.
    t.bash('npm test', 900_000, 'ok');
    const allowed = await lost('claude', 'PreCompact', input('auto'));
    assert.equal(allowed.stdout, '');
    assert.match(allowed.stderr.join('\n'), /did not answer \(no answer in 25000 ms\); allowed: emergency \(90% used\)/);
    // Reactive (asked again with no model response since the previous PreCompact: the request failed as too long), at 60%.
    t.bash('npm test', 600_000, 'ok');
    const at = (iso: string) => ({ env: { CLAUDE_PROJECT_DIR: root }, gitTimeoutMs: 5000, now: () => new Date(iso) });
    // Each session its own state: one whose previous call came before the newest response (the transcript's
    // clock starts at 2026-11-20T10:00) — that response is new: refused; one whose previous call (refused)
    // came after it — nothing answered since, so this compaction follows a request that failed: allowed.
    const of = (session: string) => JSON.stringify({ ...(JSON.parse(input('auto')) as object), session_id: session });
    await runHook(CLAUDE, 'PreCompact', of('before'), at('2026-11-20T09:00:00Z'));
    assert.equal((JSON.parse((await lost('claude', 'PreCompact', of('before'))).stdout) as { decision: string }).decision, 'block');
    const after = await runHook(CLAUDE, 'PreCompact', of('after'), at('2026-11-21T09:00:00Z'));
    assert.equal((JSON.parse(after.stdout) as { decision: string }).decision, 'block', 'rawr’s own steering refused it there');
    const reactive = await lost('claude', 'PreCompact', of('after'));
    assert.equal(reactive.stdout, '');
    assert.match(reactive.stderr.join('\n'), /allowed: reactive \(no model response since the refusal/);
    // A manual /compact (the person's own), Codex (its PreCompact cannot block), other events, an input that is not JSON: nothing.
    for (const [agent, event, stdin] of [
      ['claude', 'PreCompact', JSON.stringify({ ...(JSON.parse(input('manual')) as object), custom_instructions: '"trigger":"auto"' })],
      ['codex', 'PreCompact', input('auto')],
      ['claude', 'PostToolUse', input('auto')],
      ['claude', 'PreCompact', '{"trigger":"auto"'],
    ] as const) {
      const out = await lost(agent, event, stdin);
      assert.equal(out.stdout, '', `${agent} ${event} ${stdin}`);
      assert.deepEqual(out.stderr, [`rawr hooks ${agent} ${event}: the resident hook engine did not answer (no answer in 25000 ms); nothing done`]);
    }
  });

  it('a connection opened before the input is read: asked later it is answered; busy, "again" or closed before it was asked, the hook runs itself', async () => {
    const answering = await fakeDoor((c, got) => {
      if (got.endsWith('\0\0')) c.write('..go\n');
      else if (got.endsWith('}\0')) c.write('.rawr-answer 14 5\nran PreCompactoops\n');
    });
    try {
      const conn = connectResident(answering.door, 2000);
      await sleep(50); // the hook reading its input
      const a = await conn.ask(REQ());
      assert.deepEqual(a.kind === 'answer' ? a.output : a, { stdout: 'ran PreCompact', stderr: ['oops'] });
      if (a.kind === 'answer') await a.printed();
    } finally {
      await answering.close();
    }
    for (const word of ['busy\n', 'again\n', null]) {
      const turning = await fakeDoor((c, got) => got.endsWith('\0\0') && (word ? c.end(word) : c.end()));
      try {
        const conn = connectResident(turning.door, 2000);
        await sleep(50);
        assert.deepEqual(await conn.ask(REQ()), { kind: 'unavailable' }, String(word));
      } finally {
        await turning.close();
      }
    }
  });

  it('each run has the hook’s environment and folder while it runs, and the engine’s own back after it', async () => {
    const seen: Array<[string | undefined, string]> = [];
    const server = serveHooks(
      {
        hookEventOutput: async (_a, _e, _s, env) => {
          await sleep(20);
          seen.push([process.env.RAWR_TEST_MARK, process.cwd()]);
          return { stdout: `${env.RAWR_TEST_MARK ?? ''}\n`, stderr: [] };
        },
      },
      { idleMs: 60_000, exit: (s) => s?.close(), door: { cacheDir: path.join(cache, 'rawr'), clientDir: tmp, current: () => true } },
    )!;
    const door = residentDoor(path.join(cache, 'rawr'), tmp, {})!;
    await until('the door', () => fs.existsSync(door.file));
    const before = process.cwd();
    try {
      const dirs = ['one', 'two', 'three'].map((d) => path.join(tmp, d));
      for (const d of dirs) fs.mkdirSync(d);
      const answers = await Promise.all(
        dirs.map((d, i) =>
          askResident(door, { agent: 'claude', event: 'PreCompact', stdin: '{}', env: { RAWR_TEST_MARK: `m${i}` }, cwd: d }, 5_000).then(async (a) => {
            // Printed at once, as the hook does: the engine waits for that word before the next run.
            if (a.kind === 'answer') await a.printed();
            return a;
          }),
        ),
      );
      assert.deepEqual(
        answers.map((x) => (x.kind === 'answer' ? x.output.stdout : x.kind)),
        ['m0\n', 'm1\n', 'm2\n'],
      );
      assert.deepEqual(
        seen.sort(),
        dirs.map((d, i) => [`m${i}`, d]),
      );
      assert.equal(process.env.RAWR_TEST_MARK, undefined);
      assert.equal(process.cwd(), before);
      // A run it does not read (another agent's name): "again", nothing run.
      const bad = await askResident(door, { ...REQ(), agent: 'other' as 'claude' }, 5_000);
      assert.deepEqual(bad, { kind: 'unavailable' });
      assert.equal(seen.length, 3);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
