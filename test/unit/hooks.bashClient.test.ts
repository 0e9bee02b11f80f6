/**
 * The bash hook client (src/cli/hooks/hook.sh) and the resident engine's TCP door (src/cli/hooks/door.ts): what the
 * installed hook commands run where bash is. The client is run for real (bash, loopback TCP) from a copy
 * beside a stand-in Node hook (hook.js printing what it was given), so each test sees whether the engine
 * answered or the client fell back to the Node hook, and with which input. The rule under test: a change
 * of speed, never of behaviour — every miss runs the Node hook with the same input, nothing is run
 * twice, and nothing is sent to a program that cannot prove it is this user's engine.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { hookCommandPrefix } from '../../src/cli/hookCommand';
import { tcpFile } from '../../src/cli/hooks/resident';
import type { HookEventOutput } from '../../src/cli/hooks/types';
import { serveHooks } from '../../src/cli/hooks/server';
import { requestReader } from '../../src/cli/hooks/door';
import { HOOK_EVENTS, type HookEvent } from '../../src/core/hooks/shared/events';
import { rawrEventOf } from '../../src/core/hooks/shared/hooksConfig';
import { sleep, until } from '../support/until';
import { askResident } from '../support/askResident';
import { answerWaitMs } from '../../src/cli/hooks/resident';
import { CLAUDE_HOOKS } from '../../src/core/hooks/shared/hooksConfig';
import { askLineFor, writeSteerConfig } from '../../src/core/hooks/claude/steerConfig';
import { agentStateDir } from '../../src/core/hooks/shared/store';
import { dirReader, shippedPromptsDir } from '../../src/core/prompts/fs';
import { loadPromptSet } from '../../src/core/prompts/promptSet';
import { Transcript } from '../support/claudeTranscript';

const CLIENT = path.resolve(__dirname, '../../../src/cli/hooks/hook.sh');
/** The built Node hook (`npm run build`): the lost-answer verdict is its own, run for real. */
const REAL_HOOK = path.resolve(__dirname, '../../../dist/hook.js');
const BASH = '/bin/bash';
// The stand-in Node hook: prints its arguments and its input, so a test sees the fallback and what it got.
const FAKE_NODE_HOOK = `process.stdout.write('NODE ' + process.argv.slice(2).join(' ') + '\\n' + require('fs').readFileSync(0, 'utf8'));\n`;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

describe('the bash hook client and the resident engine’s TCP door', function () {
  this.timeout(60_000);
  let tmp: string;
  let dist: string;
  let cache: string;
  before(() => {
    // The client is bash: where there is none (Windows), install writes the Node command (hookCommand.ts).
    assert.ok(fs.existsSync(BASH), `${BASH} missing: the bash client cannot be tested on this machine`);
  });
  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-bash-client-')));
    dist = path.join(tmp, 'rawr', 'dist');
    fs.mkdirSync(dist, { recursive: true });
    fs.copyFileSync(CLIENT, path.join(dist, 'hook.sh'));
    fs.writeFileSync(path.join(dist, 'hook.js'), FAKE_NODE_HOOK);
    cache = path.join(tmp, 'cache');
    fs.mkdirSync(path.join(cache, 'rawr'), { recursive: true, mode: 0o700 });
    fs.chmodSync(path.join(cache, 'rawr'), 0o700);
  });
  // What a test opened (engines, stand-in servers) is closed after it, passed or failed.
  const opened: Array<() => Promise<unknown>> = [];
  const closeAfter = (close: () => Promise<unknown>) => opened.push(close);
  afterEach(async () => {
    for (const close of opened.splice(0)) await close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** The client as an installed hook command runs it: `sh -c '<bash> <hook.sh> <node> hooks …'`. */
  const client = (
    stdin: string,
    args = 'hooks claude PreCompact',
    env: Record<string, string> = {},
    cwd = tmp,
    o: { delayMs?: number; sendWhen?: () => Promise<void>; keepOpen?: boolean; holdStdin?: boolean; dist?: string } = {},
  ) =>
    new Promise<Run>((resolve) => {
      const child = spawn('/bin/sh', ['-c', `${hookCommandPrefix(path.join(o.dist ?? dist, 'hook.js'))} ${args}`], {
        cwd,
        env: { PATH: process.env.PATH ?? '', HOME: tmp, XDG_CACHE_HOME: cache, ...env },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (status) => resolve({ status, stdout, stderr }));
      child.stdin.on('error', () => undefined);
      const send = () => (o.keepOpen ? child.stdin.write(stdin) : child.stdin.end(stdin));
      if (o.sendWhen) void o.sendWhen().then(send);
      else if (o.delayMs) setTimeout(send, o.delayMs);
      else send();
      // A stdin held open: closed once the hook is over, as an agent would on its timeout (holdStdin:
      // kept open after it, until the test ends).
      if (o.holdStdin) closeAfter(async () => void child.stdin.destroy());
      else child.on('exit', () => child.stdin.destroy());
    });

  type Call = { agent: string; event: HookEvent; stdin: string; env: Record<string, string | undefined>; cwd: string };
  /** A resident engine with its TCP door for `dist`, running `answer` instead of the hook engine. */
  const engine = async (
    answer: (c: Call) => HookEventOutput | Promise<HookEventOutput>,
    o: { current?: () => boolean; clientDir?: string; idleMs?: number } = {},
  ) => {
    const calls: Call[] = [];
    let exited = false;
    const server = serveHooks(
      {
        hookEventOutput: (agent, event, stdin, env) => {
          const call = { agent, event, stdin, env, cwd: process.cwd() };
          calls.push(call);
          return Promise.resolve(answer(call));
        },
      },
      {
        idleMs: o.idleMs ?? 60_000,
        exit: (s) => {
          exited = true;
          s?.close();
        },
        door: { cacheDir: path.join(cache, 'rawr'), clientDir: o.clientDir ?? dist, current: o.current ?? (() => true) },
      },
    );
    const file = tcpFile(path.join(cache, 'rawr'), o.clientDir ?? dist);
    await until('the door’s file', () => fs.existsSync(file));
    const close = () => new Promise<void>((r) => (server?.listening ? server.close(() => r()) : r()));
    closeAfter(close);
    return { calls, file, exited: () => exited, close };
  };

  it('the engine answers: its stdout and stderr exactly (multi-byte text included), with the hook’s input, environment and folder', async () => {
    const e = await engine((c) => ({ stdout: `{"decision":"block","reason":"wait — ${c.event} ✓"}`, stderr: ['first line', 'second «line»'] }));
    const input = JSON.stringify({ session_id: 's1', hook_event_name: 'PreCompact', note: 'naïve — ünïcödé 🎉', nl: 'a\nb' });
    const work = path.join(tmp, 'work dir');
    fs.mkdirSync(work);
    const r = await client(input, 'hooks claude PreCompact', { MULTI: 'one\ntwo', EQ: 'a=b', EMPTY: '' }, work);
    assert.equal(r.status, 0);
    assert.equal(r.stdout, '{"decision":"block","reason":"wait — PreCompact ✓"}');
    assert.equal(r.stderr, 'first line\nsecond «line»\n');
    assert.equal(e.calls.length, 1);
    const [c] = e.calls;
    assert.equal(c!.agent, 'claude');
    assert.equal(c!.event, 'PreCompact');
    assert.equal(c!.stdin, input);
    assert.equal(c!.cwd, work);
    assert.equal(c!.env.MULTI, 'one\ntwo');
    assert.equal(c!.env.EQ, 'a=b');
    assert.equal(c!.env.EMPTY, '');
    assert.equal(c!.env.XDG_CACHE_HOME, cache);
  });

  it('a large input (2 MB) and a large answer (1 MB) pass whole', async () => {
    const big = 'x'.repeat(1024 * 1024);
    const e = await engine((c) => ({ stdout: `${big}${c.stdin.length}`, stderr: [] }));
    const input = JSON.stringify({ tool_response: 'é'.repeat(1024 * 1024) });
    const r = await client(input, 'hooks claude PostToolUse');
    assert.equal(r.status, 0, r.stderr);
    assert.ok(r.stdout === `${big}${input.length}`, `stdout of ${r.stdout.length} characters, ending ${r.stdout.slice(-20)}`);
    assert.ok(e.calls[0]!.stdin === input, 'the input arrived whole');
  });

  it('no engine (no door file, or a port nobody listens on): the Node hook runs with the same input', async () => {
    const input = '{"session_id":"s1"}';
    const none = await client(input);
    assert.equal(none.status, 0);
    assert.equal(none.stdout.trimEnd(), `NODE hooks claude PreCompact\n${input}`);
    const dead = net.createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const port = (dead.address() as net.AddressInfo).port;
    await new Promise((r) => dead.close(r));
    fs.writeFileSync(tcpFile(path.join(cache, 'rawr'), dist), `${port} ${'a'.repeat(32)} ${'b'.repeat(32)}\n`, { mode: 0o600 });
    const refused = await client(input);
    assert.equal(refused.stdout.trimEnd(), `NODE hooks claude PreCompact\n${input}`);
  });

  it('a program on the port that cannot prove it is the engine gets the dead token only; the Node hook runs', async () => {
    let received = '';
    const impostor = net.createServer((c) => {
      c.on('data', (d: Buffer) => {
        received += d.toString();
        c.write('not-the-engine-token-0123456789ab\n');
      });
      c.on('error', () => undefined);
    });
    await new Promise<void>((r) => impostor.listen(0, '127.0.0.1', r));
    closeAfter(() => new Promise((r) => impostor.close(r)));
    const port = (impostor.address() as net.AddressInfo).port;
    fs.writeFileSync(tcpFile(path.join(cache, 'rawr'), dist), `${port} ${'c'.repeat(32)} ${'d'.repeat(32)}\n`, { mode: 0o600 });
    const input = '{"session_id":"secret-session"}';
    const r = await client(input, 'hooks claude PreCompact', { ANTHROPIC_API_KEY: 'sk-secret' });
    assert.equal(r.stdout.trimEnd(), `NODE hooks claude PreCompact\n${input}`);
    assert.equal(received, `${'c'.repeat(32)}\n`, 'nothing but the token');
  });

  it('a door file another user could have written (a symlink, a folder not the user’s own) is not followed', async () => {
    const e = await engine(() => ({ stdout: 'ENGINE', stderr: [] }));
    const real = `${e.file}.real`;
    fs.renameSync(e.file, real);
    fs.symlinkSync(real, e.file);
    const r = await client('{}');
    assert.match(r.stdout, /^NODE /);
    assert.equal(e.calls.length, 0);
  });

  it('a rebuilt rawr (the engine’s code changed) or another copy’s folder: "again", nothing run, the Node hook answers', async () => {
    let current = true;
    const e = await engine(() => ({ stdout: 'ENGINE', stderr: [] }), { current: () => current });
    assert.equal((await client('{}')).stdout, 'ENGINE');
    current = false;
    const r = await client('{"a":1}');
    assert.equal(r.stdout.trimEnd(), 'NODE hooks claude PreCompact\n{"a":1}');
    assert.equal(e.calls.length, 1);
    await e.close();
    // An engine for another folder whose door file has this folder's name (names are folder paths with
    // their punctuation replaced, so two folders can share one).
    const other = await engine(() => ({ stdout: 'OTHER', stderr: [] }), { clientDir: path.join(tmp, 'other', 'dist') });
    fs.copyFileSync(other.file, tcpFile(path.join(cache, 'rawr'), dist));
    const elsewhere = await client('{"b":2}');
    assert.equal(elsewhere.stdout.trimEnd(), 'NODE hooks claude PreCompact\n{"b":2}');
    assert.equal(other.calls.length, 0);
  });

  it('an engine lost after the input was sent: nothing printed, not run again, a line on stderr', async () => {
    const [ctok, etok] = ['e'.repeat(32), 'f'.repeat(32)];
    let got = '';
    // Proves itself, accepts the run, then dies once the input arrived.
    const dying = net.createServer((c) => {
      c.on('data', (d: Buffer) => {
        got += d.toString();
        if (got === `${ctok}\n`) c.write(`${etok}\n`);
        else if (got.endsWith('\0\0')) c.write('go\n');
        else if (got.includes('{"x":1}')) c.destroy();
      });
      c.on('error', () => undefined);
    });
    await new Promise<void>((r) => dying.listen(0, '127.0.0.1', r));
    closeAfter(() => new Promise((r) => dying.close(r)));
    const port = (dying.address() as net.AddressInfo).port;
    fs.writeFileSync(tcpFile(path.join(cache, 'rawr'), dist), `${port} ${ctok} ${etok}\n`, { mode: 0o600 });
    const r = await client('{"x":1}');
    assert.equal(r.status, 0);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /rawr hooks claude PreCompact: the resident hook engine did not answer .*nothing done/);
    assert.ok(got.includes('{"x":1}'), 'the request was sent');
  });

  it('an engine that says "go" and then stalls: an automatic PreCompact gets the verdict from the transcript’s tail before the installed timeout — refused well below the emergency line, allowed at it; the next run decides alone', async function () {
    this.timeout(150_000);
    // Printing nothing would let Claude Code compact at rawr's early ask line without rawr's decision
    // (claude-code-e2e/steer: an empty answer allows); refusing blindly could end the turn at its blocking
    // level. So the real Node hook (dist/hook.js, beside this copy of the client) decides from the tail alone.
    assert.ok(fs.existsSync(REAL_HOOK), `${REAL_HOOK} missing: run npm run build`);
    const real = path.join(tmp, 'real', 'dist');
    fs.mkdirSync(real, { recursive: true });
    fs.copyFileSync(CLIENT, path.join(real, 'hook.sh'));
    fs.writeFileSync(path.join(real, 'hook.js'), `require(${JSON.stringify(REAL_HOOK)});\n`);
    const root = path.join(tmp, 'project');
    fs.mkdirSync(root);
    agentStateDir(root, 'claude', true);
    const set = loadPromptSet([dirReader(shippedPromptsDir())]);
    const { autoCompactWindow, percent } = askLineFor(1_000_000, set.settings);
    writeSteerConfig(root, { steer: true, window: 1_000_000, autoCompactWindow, askPercent: percent, settingsFile: '.claude/settings.local.json' });
    const t = new Transcript(root);
    t.prompt('Refactor the module and keep the tests green.');
    // An engine that takes the run and never answers it (a hung run); one per stalled run (a second
    // would find the first busy and run alone), each released before the next starts: a run holds the
    // hook's environment and folder until it ends (server.ts), so they must end in the order they began.
    const stalledEngine = async () => {
      let release: () => void = () => undefined;
      const stalled = new Promise<HookEventOutput>((r) => (release = () => r({ stdout: 'TOO LATE', stderr: [] })));
      closeAfter(async () => release());
      return { ...(await engine(() => stalled, { clientDir: real })), release: () => release() };
    };
    const input = JSON.stringify({ session_id: 's', transcript_path: t.file, cwd: root, hook_event_name: 'PreCompact', trigger: 'auto' });
    const installed = CLAUDE_HOOKS.find((h) => h.event === 'PreCompact')!.timeout * 1000;
    const stalledRun = async () => {
      const t0 = Date.now();
      const r = await client(input, 'hooks claude PreCompact', { CLAUDE_PROJECT_DIR: root }, root, { dist: real });
      assert.equal(r.status, 0);
      assert.ok(Date.now() - t0 < installed, `ended after ${Date.now() - t0} ms, before the installed ${installed} ms`);
      return r;
    };
    // 60% of the window: past Claude Code's ask line, well below rawr's emergency line (88%): refused.
    t.bash('npm test', 600_000, 'ok');
    const first = await stalledEngine();
    const refused = await stalledRun();
    assert.equal(first.calls.length, 1, 'the engine took the run');
    first.release();
    await first.close();
    assert.deepEqual(JSON.parse(refused.stdout), {
      decision: 'block',
      reason: 'rawr: the resident hook engine did not answer; compaction deferred to the next request (60% used)',
    });
    assert.match(
      refused.stderr,
      /^rawr hooks claude PreCompact: the resident hook engine did not answer \(.+\); compaction deferred to the next request \(60% used\)\n$/,
    );
    // 90%: past the emergency line, near Claude Code's blocking level (a refusal there could end the turn): allowed, nothing printed.
    t.bash('npm test', 900_000, 'ok');
    const e = await stalledEngine();
    const allowed = await stalledRun();
    assert.equal(allowed.stdout, '');
    assert.match(allowed.stderr, /^rawr hooks claude PreCompact: the resident hook engine did not answer \(.+\); allowed: emergency \(90% used\)\n$/);
    assert.equal(e.calls.length, 1, 'the engine took the run');
    // The next request's hook finds the engine busy with the stalled run and runs alone (the Node hook, here the real one).
    const next = await client(input, 'hooks claude PreCompact', { CLAUDE_PROJECT_DIR: root }, root, { dist: real });
    assert.doesNotMatch(next.stderr, /did not answer/);
    assert.equal(e.calls.length, 1, 'not run again by the engine');
  });

  it('the door closes on a wrong token without running anything, and its file goes with the engine', async () => {
    const e = await engine(() => ({ stdout: 'ENGINE', stderr: [] }));
    const [port] = fs.readFileSync(e.file, 'utf8').split(' ');
    assert.equal(fs.statSync(e.file).mode & 0o777, 0o600);
    const closed = await new Promise<string>((resolve) => {
      let got = '';
      const c = net.createConnection(Number(port), '127.0.0.1', () => c.write(`${'0'.repeat(32)}\n`));
      c.on('data', (d: Buffer) => (got += d.toString()));
      c.on('close', () => resolve(got));
      c.on('error', () => undefined);
    });
    assert.equal(closed, '', 'no token, no answer');
    assert.equal(e.calls.length, 0);
    await e.close();
    assert.ok(!fs.existsSync(e.file), 'the door file is removed');
  });

  it('anything but a hook event, or RAWR_HOOK_SERVER=0: the Node hook, with stdin untouched', async () => {
    const e = await engine(() => ({ stdout: 'ENGINE', stderr: [] }));
    const install = await client('left alone', 'hooks claude install --write');
    assert.equal(install.stdout, 'NODE hooks claude install --write\nleft alone');
    const off = await client('{"off":1}', 'hooks claude PreCompact', { RAWR_HOOK_SERVER: '0' });
    assert.equal(off.stdout.trimEnd(), 'NODE hooks claude PreCompact\n{"off":1}');
    assert.equal(e.calls.length, 0);
  });

  it('the caller’s BASH_ENV, SHELLOPTS and exported functions do not change what it prints', async () => {
    const e = await engine(() => ({ stdout: 'ENGINE', stderr: [] }));
    const rc = path.join(tmp, 'rc.sh');
    fs.writeFileSync(rc, 'echo INJECTED\n');
    const r = await client('{}', 'hooks claude PreCompact', { BASH_ENV: rc, SHELLOPTS: 'errexit:nounset', 'BASH_FUNC_printf%%': '() { echo HIJACKED; }' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'ENGINE');
    assert.equal(e.calls.length, 1);
  });

  it('an input that never ends, short or long: the hook ends with nothing done within seconds (no hang)', async () => {
    const e = await engine(() => ({ stdout: 'ENGINE', stderr: [] }));
    // A short one: the client's own 5 s limit. A long one (streamed by head): the engine's 5 s step limit.
    for (const [input, why] of [
      ['{"partial":', /the hook input did not end in 5 s; nothing done/],
      [`{"big":"${'x'.repeat(10_000)}`, /did not answer .*nothing done/],
    ] as const) {
      const t0 = Date.now();
      const r = await client(input, 'hooks claude PreCompact', {}, tmp, { keepOpen: true });
      assert.equal(r.status, 0);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, why);
      assert.ok(Date.now() - t0 < 15_000, `ended in ${Date.now() - t0} ms`);
    }
    assert.equal(e.calls.length, 0);
  });

  it('an engine about to idle out waits for a run it said "go" to, however late its input comes', async () => {
    // The input is sent only once the engine's idle deadline (counted from its start) has passed, whatever
    // the machine's speed; the engine must still be there then, holding the run it said "go" to.
    const IDLE_MS = 2000;
    const started = Date.now();
    const e = await engine(() => ({ stdout: 'ENGINE', stderr: [] }), { idleMs: IDLE_MS });
    let upPastIdle: boolean | undefined;
    const r = await client('{"late":1}', 'hooks claude PreCompact', {}, tmp, {
      sendWhen: async () => {
        await until('the idle deadline to pass', () => Date.now() - started > IDLE_MS + 500, IDLE_MS + 10_000);
        upPastIdle = !e.exited();
      },
    });
    assert.equal(upPastIdle, true, 'the engine idled out with a run it said "go" to on its way');
    assert.equal(r.stdout, 'ENGINE', r.stderr);
    await until('the idle exit after the run', e.exited, IDLE_MS + 10_000);
  });

  it('a folder with non-ASCII characters finds its engine (the door file named byte by byte on both sides)', async () => {
    const cafe = path.join(tmp, 'café ☕ 𝄞', 'dist');
    fs.mkdirSync(cafe, { recursive: true });
    fs.copyFileSync(CLIENT, path.join(cafe, 'hook.sh'));
    fs.writeFileSync(path.join(cafe, 'hook.js'), FAKE_NODE_HOOK);
    await engine(() => ({ stdout: 'ENGINE', stderr: [] }), { clientDir: cafe });
    for (const lang of ['C', 'C.UTF-8']) {
      const r = await client('{}', 'hooks claude PreCompact', { LC_ALL: lang }, tmp, { dist: cafe });
      assert.equal(r.stdout, 'ENGINE', `LC_ALL=${lang}`);
    }
  });

  it('a door file removed under a running engine is written again (hooks would otherwise miss it), and the Node hook speaks the same door', async () => {
    const e = await engine(() => ({ stdout: 'ENGINE', stderr: [] }));
    fs.rmSync(e.file);
    await until('the door file is back', () => fs.existsSync(e.file), 5_000);
    assert.equal((await client('{}')).stdout, 'ENGINE');
    // The Node hook's way in: the same door, the same protocol (resident.ts connectResident).
    const a = await askResident({ file: e.file, clientDir: dist }, { agent: 'claude', event: 'PreCompact', stdin: '{}', env: {}, cwd: tmp }, 5_000);
    assert.equal(a.kind, 'answer');
    assert.deepEqual(a.kind === 'answer' && a.output, { stdout: 'ENGINE', stderr: [] });
    if (a.kind === 'answer') await a.printed();
  });

  it('knows the same hook events as rawr; install writes it for the bundled entry only, and rawr recognises its command', () => {
    const script = fs.readFileSync(CLIENT, 'utf8');
    const listed = new Set([...script.matchAll(/hooks:(claude|codex):(\w+):3/g)].map((m) => `${m[1]}:${m[2]}`));
    assert.deepEqual(listed, new Set(['claude', 'codex'].flatMap((a) => HOOK_EVENTS.map((ev) => `${a}:${ev}`))));
    const prefix = hookCommandPrefix(path.join(dist, 'hook.js'), '/usr/bin/node');
    assert.equal(prefix, `${BASH} -p ${dist}/hook.sh /usr/bin/node`);
    assert.equal(rawrEventOf(`${prefix} hooks claude PreCompact`, 'claude'), 'PreCompact');
    fs.rmSync(path.join(dist, 'hook.sh'));
    assert.match(hookCommandPrefix(path.join(dist, 'hook.js'), '/usr/bin/node'), /^NODE_EXTRA_CA_CERTS= \/usr\/bin\/node .*\/dist\/hook\.js$/);
    assert.match(
      hookCommandPrefix('/opt/rawr/out/src/cli/main.js', '/usr/bin/node'),
      /^NODE_EXTRA_CA_CERTS= \/usr\/bin\/node \/opt\/rawr\/out\/src\/cli\/main\.js$/,
    );
  });

  /** An engine whose run for session `slow` takes `ms` (a first read of a very large transcript), the others answered at once. */
  const busyEngine = (ms: number) =>
    engine(async (c) => {
      if (c.stdin.includes('"slow"')) await sleep(ms);
      return { stdout: `ENGINE ${c.stdin}`, stderr: [] };
    });

  it('busy with another session’s slow run: a handoff hook is not held — its client runs it itself within seconds (issue 30)', async () => {
    const e = await busyEngine(12_000);
    const slow = client('{"session_id":"slow"}');
    await until('the slow run started', () => e.calls.length === 1);
    const t0 = Date.now();
    const handoff = await client('{"session_id":"other","source":"compact"}', 'hooks claude SessionStart');
    const took = Date.now() - t0;
    assert.equal(handoff.stdout.trimEnd(), 'NODE hooks claude SessionStart\n{"session_id":"other","source":"compact"}', handoff.stderr);
    assert.ok(took < 5_000, `answered in ${took} ms (the hook's timeout is 10 s)`);
    // The Node hook (the same door) is turned back the same way: the hook runs itself.
    const viaNode = await askResident(
      { file: e.file, clientDir: dist },
      { agent: 'claude', event: 'SessionStart', stdin: '{"session_id":"third"}', env: {}, cwd: tmp },
      8_000,
    );
    assert.equal(viaNode.kind, 'unavailable');
    assert.equal((await slow).stdout, 'ENGINE {"session_id":"slow"}');
    assert.deepEqual(
      e.calls.map((c) => c.stdin),
      ['{"session_id":"slow"}'],
      'the engine never ran the runs it turned back',
    );
  });

  it('a run whose hook is gone before its turn is never run (nothing claimed without its client)', async () => {
    const e = await busyEngine(1_000);
    const slow = client('{"session_id":"slow"}');
    await until('the slow run started', () => e.calls.length === 1);
    // A hook killed at its timeout while its run waits: the connection closes.
    const [port, ctok, etok] = fs.readFileSync(e.file, 'utf8').trim().split(' ');
    const conn = net.createConnection(Number(port), '127.0.0.1');
    let said = '';
    conn.on('data', (d: Buffer) => (said += d.toString()));
    conn.write(`${ctok}\n`);
    await until('the engine’s token', () => said === `${etok}\n`);
    conn.write(['rawr-hook 3', dist, 'claude', 'SessionStart', tmp, ''].map((f) => `${f}\0`).join(''));
    await sleep(200);
    conn.destroy();
    await slow;
    await sleep(500);
    assert.deepEqual(
      e.calls.map((c) => c.stdin),
      ['{"session_id":"slow"}'],
    );
    // Its turn came and went: the next hook's run is the engine's (a turn kept for a client that is gone
    // would leave every later run "busy").
    const next = await client('{"session_id":"next"}');
    assert.equal(next.stdout, 'ENGINE {"session_id":"next"}');
  });

  it('a client never waits longer than Claude Code will: it ends on its own before the installed timeout', async () => {
    for (const h of CLAUDE_HOOKS) {
      assert.ok(answerWaitMs(h.event, 0) + 1_000 < h.timeout * 1000, `${h.event}: waits ${answerWaitMs(h.event, 0)} ms, installed timeout ${h.timeout} s`);
    }
    // An engine that answers a run it took only after Claude Code's 10 s: the bash client gives up before.
    // (In this process the run holds its environment and folder: the test waits for it to end.)
    let ended = false;
    await engine(() => sleep(10_000).then(() => ((ended = true), { stdout: 'LATE', stderr: [] })));
    const t0 = Date.now();
    const r = await client('{"session_id":"s"}', 'hooks claude UserPromptSubmit');
    const took = Date.now() - t0;
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /did not answer .*nothing done/);
    assert.ok(took < 9_500, `ended after ${took} ms`);
    await until('the late run’s end', () => ended, 5_000);
  });

  it('the door: a connection trickling bytes is cut at an absolute deadline, unproven ones are bounded, and a hook still answers', async () => {
    const e = await engine(() => ({ stdout: 'ENGINE', stderr: [] }));
    const [port] = fs.readFileSync(e.file, 'utf8').split(' ');
    const open: net.Socket[] = [];
    let closedAt: number[] = [];
    const t0 = Date.now();
    for (let i = 0; i < 40; i++) {
      const c = net.createConnection(Number(port), '127.0.0.1');
      c.on('error', () => undefined);
      c.on('close', () => closedAt.push(Date.now() - t0));
      open.push(c);
    }
    const trickle = setInterval(() => open.forEach((c) => !c.destroyed && c.write('0')), 400);
    closeAfter(async () => {
      clearInterval(trickle);
      open.forEach((c) => c.destroy());
    });
    await sleep(300);
    assert.ok(closedAt.length >= 40 - 16, `${closedAt.length} of 40 closed at once (past the bound on unproven connections)`);
    // During the flood a hook is answered (by the engine, or by the Node hook where the door is full).
    const r = await client('{"during":1}');
    assert.ok(r.stdout === 'ENGINE' || r.stdout.startsWith('NODE hooks claude PreCompact'), JSON.stringify(r));
    await until('every trickling connection cut', () => closedAt.length === 40, 6_000);
    assert.ok(Math.max(...closedAt) < 4_500, `the last cut at ${Math.max(...closedAt)} ms`);
    closedAt = [];
    assert.equal((await client('{}')).stdout, 'ENGINE', 'the door is open again');
  });

  it('leaves no process behind: a long input on a stdin that never closes (the streaming head ends with the hook)', async () => {
    await engine(() => ({ stdout: 'ENGINE', stderr: [] }));
    const marker = `RAWR_TEST_MARK_${process.pid}_${Date.now()}`;
    // Stdin a real pipe (a FIFO) whose writer stays open, as an agent's pipe that is never closed: over a
    // Node-made stdin (a socket pair) the leftover head happened to end with the hook, and the test
    // passed without the trap it is about.
    const fifo = path.join(tmp, 'stdin.fifo');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
    const writer = fs.openSync(fifo, 'r+');
    closeAfter(async () => fs.closeSync(writer));
    fs.writeSync(writer, `{"big":"${'x'.repeat(10_000)}`);
    const child = spawn('/bin/sh', ['-c', `${hookCommandPrefix(path.join(dist, 'hook.js'))} hooks claude PreCompact`], {
      cwd: tmp,
      stdio: [writer, 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', HOME: tmp, XDG_CACHE_HOME: cache, [marker]: '1' },
    });
    let stdout = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    // Its exit, not the end of its output: a process left behind would hold that open.
    await new Promise((resolve) => child.on('exit', resolve));
    assert.equal(stdout, '');
    await sleep(300);
    const left = fs.readdirSync('/proc').filter((pid) => {
      try {
        return /^\d+$/.test(pid) && fs.readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`${marker}=`);
      } catch {
        return false;
      }
    });
    const running = left.map((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' '));
    for (const pid of left) process.kill(Number(pid), 'SIGKILL'); // this test's own leftovers only (its marker)
    assert.deepEqual(running, [], 'processes of the hook still running');
  });

  it('reads a connection’s steps the same way in any chunking, and refuses what a client would not send', () => {
    const token = Buffer.from('t'.repeat(32));
    const line = Buffer.from(`${token.toString()}\n`);
    const run = Buffer.from(['rawr-hook 3', '/d', 'claude', 'PreCompact', '/w', 'A=1', 'B=x=y', ''].map((f) => `${f}\0`).join(''));
    const input = Buffer.from('{"a":"é"}\0');
    for (const size of [1, 2, 3, 7, 33, 1000]) {
      const read = requestReader(token);
      const steps = (b: Buffer) => {
        const out: Array<ReturnType<typeof read>> = [];
        for (let i = 0; i < b.length; i += size) out.push(read(b.subarray(i, i + size)));
        return out;
      };
      const proof = steps(line);
      assert.deepEqual(proof.pop(), { kind: 'prove' });
      assert.ok(proof.every((st) => st.kind === 'more'));
      const header = steps(run);
      assert.deepEqual(header.pop(), {
        kind: 'run',
        version: 'rawr-hook 3',
        clientDir: '/d',
        run: { agent: 'claude', event: 'PreCompact', cwd: '/w', env: { A: '1', B: 'x=y' } },
      });
      assert.ok(header.every((st) => st.kind === 'more'));
      const rest = steps(input);
      assert.deepEqual(rest.pop(), { kind: 'input', stdin: '{"a":"é"}' });
    }
    assert.equal(requestReader(token)(Buffer.from(`${'x'.repeat(32)}\n`)).kind, 'refuse', 'a wrong token');
    assert.equal(requestReader(token)(Buffer.concat([line, run])).kind, 'refuse', 'the run before the proof was read');
    const early = requestReader(token);
    early(line);
    assert.equal(early(Buffer.concat([run, input])).kind, 'refuse', 'the input before "go"');
  });
});
