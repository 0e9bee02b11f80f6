/**
 * The resident hook engine (src/cli/hooks/server.ts, hookResident.ts): the installed hooks entry
 * (dist/hook.js) hands a hook run to it and prints its answer, which must be the answer the hook gives
 * running alone; anything wrong with the resident engine (a stale socket, a lost connection, a folder
 * others can enter) falls back to running alone or to printing nothing, never to a different answer.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { hookEventOutput } from '../../src/cli/hooks/event';
import { askResident, connectResident, residentSocket } from '../../src/cli/hooks/resident';
import type { ResidentRequest } from '../../src/cli/hooks/types';
import { serveHooks } from '../../src/cli/hooks/server';
import { hookCommandPrefix } from '../../src/cli/hookCommand';
import { tcpFile } from '../../src/cli/hooks/door';
import { askLineFor, writeSteerConfig } from '../../src/core/hooks/claude/steerConfig';
import { agentStateDir } from '../../src/core/hooks/shared/store';
import { dirReader, shippedPromptsDir } from '../../src/core/prompts/fs';
import { loadPromptSet } from '../../src/core/prompts/promptSet';
import { Transcript } from '../support/claudeTranscript';
import { sleep, until } from '../support/until';

const HOOK_ENTRY = path.resolve(__dirname, '../../../dist/hook.js');
const HOOK_ENGINE = path.resolve(__dirname, '../../../dist/hookEngine.js');
const SET = loadPromptSet([dirReader(shippedPromptsDir())]);

/** A Claude Code project with steering on and a transcript over Claude Code's threshold. */
function project(root: string): Transcript {
  fs.mkdirSync(root, { recursive: true });
  agentStateDir(root, 'claude', true);
  writeSteerConfig(root, {
    steer: true,
    window: 1_000_000,
    autoCompactWindow: askLineFor(1_000_000, SET.settings).autoCompactWindow,
    askPercent: askLineFor(1_000_000, SET.settings).percent,
    settingsFile: '.claude/settings.local.json',
  });
  const t = new Transcript(root);
  t.prompt('Refactor the module and keep the tests green.');
  return t;
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
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

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
   * (over its Unix socket, or `tcp`: its door for the bash client), once by the hook running alone. Each
   * call must give the same answer, and the engine must have answered every one.
   */
  const sameAsAlone = async (command: string, tcp: boolean) => {
    const socket = residentSocket(path.join(cache, 'rawr'), HOOK_ENGINE, {});
    assert.ok(socket, 'a socket path in a 0700 cache folder');
    let served = 0;
    const dist = path.dirname(HOOK_ENTRY);
    const server = serveHooks(
      socket,
      {
        hookEventOutput: (...a) => {
          served++;
          return hookEventOutput(...a);
        },
      },
      { idleMs: 60_000, exit: (s) => s.close(), ...(tcp ? { tcp: { cacheDir: path.join(cache, 'rawr'), clientDir: dist, current: () => true } } : {}) },
    );
    await until('the engine', () => fs.existsSync(socket) && (!tcp || fs.existsSync(tcpFile(path.join(cache, 'rawr'), dist))));
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

  it('answers every call of a steered session exactly as the hook running alone does', () => sameAsAlone(`'${process.execPath}' '${HOOK_ENTRY}'`, false));

  it('the installed command (the bash client, through the engine’s TCP door) answers a steered session exactly as the hook alone', async () => {
    const installed = hookCommandPrefix(HOOK_ENTRY);
    assert.match(installed, /hook\.sh/, 'install writes the bash client here');
    await sameAsAlone(installed, true);
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
    ['the Node hook (its Unix socket)', () => `'${process.execPath}' '${HOOK_ENTRY}'`],
  ] as const) {
    it(`no claim without delivery, through ${way}: a hook killed before it printed its handoff leaves it for the next hook`, async () => {
      const socket = residentSocket(path.join(cache, 'rawr'), HOOK_ENGINE, {})!;
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
        socket,
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
        { idleMs: 60_000, exit: (x) => x.close(), tcp: { cacheDir: path.join(cache, 'rawr'), clientDir: dist, current: () => true } },
      );
      await until('the engine', () => fs.existsSync(socket) && fs.existsSync(tcpFile(path.join(cache, 'rawr'), dist)));
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
    const socket = residentSocket(path.join(cache, 'rawr'), HOOK_ENGINE, {})!;
    const dist = path.dirname(HOOK_ENTRY);
    // The real engine, as a hook starts it (resident.ts startResident), then stopped (SIGSTOP: hung).
    const engine = spawn(process.execPath, [HOOK_ENTRY, '--rawr-hook-server', socket, dist], {
      detached: true,
      stdio: 'ignore',
      env: { PATH: process.env.PATH ?? '', HOME: tmp, XDG_CACHE_HOME: cache },
    });
    try {
      await until('the engine', () => fs.existsSync(socket) && fs.existsSync(tcpFile(path.join(cache, 'rawr'), dist)));
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

  it('a stale socket file: the hook runs alone, then starts an engine that replaces it and exits when idle', async () => {
    const socket = residentSocket(path.join(cache, 'rawr'), HOOK_ENGINE, {})!;
    // A socket file nobody listens on: what an engine killed with SIGKILL leaves.
    const holder = spawnSync(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(socket)}, () => process.kill(process.pid, 'SIGKILL'))`,
    ]);
    assert.equal(holder.signal, 'SIGKILL');
    assert.ok(fs.lstatSync(socket).isSocket());
    const root = path.join(tmp, 'p');
    const t = project(root);
    t.bash('grep -rn x src', 600_000, 'src/a.ts:1: x');
    const first = await hook(root, t, { RAWR_HOOK_SERVER_IDLE_MS: '1500' });
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /"decision":"block"/);
    const connects = () =>
      new Promise<boolean>((resolve) => {
        const c = net.createConnection(socket);
        c.on('connect', () => {
          c.destroy();
          resolve(true);
        });
        c.on('error', () => resolve(false));
      });
    let up = false;
    for (let i = 0; i < 100 && !up; i++) {
      up = await connects();
      if (!up) await sleep(100);
    }
    assert.ok(up, 'a resident engine answers on the socket');
    t.bash('grep -rn y src', 602_000, 'src/b.ts:1: y');
    const second = await hook(root, t);
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stdout, /"decision":"block"/);
    // Idle past RAWR_HOOK_SERVER_IDLE_MS: it exits and takes its socket file with it.
    await until('the idle engine to exit', () => !fs.existsSync(socket), 15_000);
  });

  it('only in a cache folder that is the user’s alone, never on Windows or with RAWR_HOOK_SERVER=0', () => {
    const shared = path.join(tmp, 'shared');
    fs.mkdirSync(shared, { mode: 0o755 });
    fs.chmodSync(shared, 0o755);
    assert.equal(residentSocket(shared, HOOK_ENGINE, {}), null);
    assert.equal(residentSocket(path.join(cache, 'rawr'), HOOK_ENGINE, { RAWR_HOOK_SERVER: '0' }), null);
    assert.equal(residentSocket(path.join(tmp, 'x'.repeat(120)), HOOK_ENGINE, {}), null, 'a socket path too long for the OS');
    assert.ok(residentSocket(path.join(cache, 'rawr'), HOOK_ENGINE, {})?.endsWith('.sock'));
  });

  it('a connection lost after the input was sent is not run again; no engine there is "unavailable"', async () => {
    const socket = path.join(cache, 'rawr', 'lost.sock');
    const req: ResidentRequest = { v: 1, agent: 'claude', event: 'PreCompact', stdin: '{}', env: {}, cwd: tmp };
    assert.deepEqual(await askResident(socket, req, 2000), { kind: 'unavailable' });
    const server = net.createServer((c) => c.on('data', () => c.destroy()));
    await new Promise<void>((r) => server.listen(socket, r));
    try {
      const a = await askResident(socket, req, 2000);
      assert.equal(a.kind, 'lost');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('a connection opened before the input is read: asked later it is answered; closed by the engine before it was asked, the hook runs itself', async () => {
    const socket = path.join(cache, 'rawr', 'early.sock');
    const req: ResidentRequest = { v: 1, agent: 'claude', event: 'PreCompact', stdin: '{}', env: {}, cwd: tmp };
    const answering = net.createServer({ allowHalfOpen: true }, (c) => {
      let got = '';
      c.on('data', (d: Buffer) => (got += d.toString('utf8')));
      c.on('end', () => c.end());
      let answered = false;
      c.on('data', () => {
        if (answered || !got.endsWith('\n')) return;
        answered = true;
        c.write(`${JSON.stringify({ stdout: `ran ${(JSON.parse(got) as ResidentRequest).event}`, stderr: [] })}\n`);
      });
    });
    await new Promise<void>((r) => answering.listen(socket, r));
    try {
      const conn = connectResident(socket, 2000);
      await sleep(50); // the hook reading its input
      const a = await conn.ask(req);
      assert.deepEqual(a.kind === 'answer' ? a.output : a, { stdout: 'ran PreCompact', stderr: [] });
      if (a.kind === 'answer') await a.printed();
    } finally {
      await new Promise((r) => answering.close(r));
    }
    const closing = net.createServer((c) => c.end());
    await new Promise<void>((r) => closing.listen(socket, r));
    try {
      const conn = connectResident(socket, 2000);
      await sleep(50);
      assert.deepEqual(await conn.ask(req), { kind: 'unavailable' });
    } finally {
      await new Promise((r) => closing.close(r));
    }
  });

  it('each run has the hook’s environment and folder while it runs, and the engine’s own back after it', async () => {
    const socket = path.join(cache, 'rawr', 'env.sock');
    const seen: Array<[string | undefined, string]> = [];
    const server = serveHooks(
      socket,
      {
        hookEventOutput: async (_a, _e, _s, env) => {
          await sleep(20);
          seen.push([process.env.RAWR_TEST_MARK, process.cwd()]);
          return { stdout: `${env.RAWR_TEST_MARK ?? ''}\n`, stderr: [] };
        },
      },
      { idleMs: 60_000, exit: (s) => s.close() },
    );
    await until('the socket', () => fs.existsSync(socket));
    const before = process.cwd();
    try {
      const dirs = ['one', 'two', 'three'].map((d) => path.join(tmp, d));
      for (const d of dirs) fs.mkdirSync(d);
      const answers = await Promise.all(
        dirs.map((d, i) =>
          askResident(socket, { v: 1, agent: 'claude', event: 'PreCompact', stdin: '{}', env: { RAWR_TEST_MARK: `m${i}` }, cwd: d }, 5_000).then(async (a) => {
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
      const bad = await new Promise<string>((resolve) => {
        const c = net.createConnection(socket, () => c.write('not json\n'));
        let out = '';
        c.on('data', (d: Buffer) => (out += d.toString()));
        c.on('data', () => out.endsWith('\n') && (c.destroy(), resolve(out)));
      });
      assert.match(bad, /does not read/);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
