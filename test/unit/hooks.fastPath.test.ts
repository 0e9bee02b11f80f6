/**
 * The hooks' fast exit (src/core/hooks/shared/fastPath.ts, src/cli/hooks/main.ts): it answers "nothing to
 * do" only where the full hook run (run.ts) prints nothing and writes nothing, and leaves everything
 * else — a pending handoff, repair or heads-up, a malformed or hostile payload, a symlinked state
 * folder — to the full run. No timings here: `npm run bench:hooks` measures.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nothingToDo, quickInput } from '../../src/core/hooks/shared/fastPath';
import { parseHookInput, HOOK_EVENTS, type HookEvent } from '../../src/core/hooks/shared/input';
import { runHook } from '../../src/core/hooks/shared/run';
import { CLAUDE } from '../../src/core/hooks/claude/agent';
import { CODEX } from '../../src/core/hooks/codex/agent';
import { isRawrEntryPoint, rawrEventOf } from '../../src/core/hooks/shared/hooksConfig';
import { sessionDir, writeSnapshotFile, claimSnapshot } from '../../src/core/hooks/shared/store';
import { launcherScript } from '../../src/host/hooks/launcher';
import { rawrCacheDir } from '../../src/cli/hooks/main';

const CLI = path.resolve(__dirname, '../../src/cli/main.js');
const HOOK_ENTRY = path.resolve(__dirname, '../../../dist/hook.js');

describe('hooks fast exit', function () {
  this.timeout(60_000);
  let tmp = '';
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'rawr-fast-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const payload = (event: HookEvent, o: Record<string, unknown> = {}) =>
    JSON.stringify({ session_id: 's1', transcript_path: null, cwd: tmp, hook_event_name: event, ...o });
  const env = {};
  /** The full run's answer, for the same input. */
  const full = (event: HookEvent, text: string, agent = CLAUDE) => runHook(agent, event, text, { env });
  /** nothingToDo must imply: the full run prints nothing, says nothing, and leaves the state folder as it was. */
  const agrees = async (event: HookEvent, text: string, agent = CLAUDE) => {
    const fast = nothingToDo(agent.id, event, text, env);
    if (!fast) return false;
    const before = listing(tmp);
    const r = await full(event, text, agent);
    assert.equal(r.stdout, '', `${event}: the full run printed ${r.stdout}`);
    assert.deepEqual(r.stderr, [], `${event}: the full run said ${r.stderr.join(' | ')}`);
    assert.deepEqual(listing(tmp), before, `${event}: the full run wrote state`);
    return true;
  };
  const listing = (dir: string): string[] => (fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort() : []);

  it('no state for the session: PostToolUse, UserPromptSubmit and SessionStart(startup) have nothing to do', async () => {
    assert.equal(await agrees('PostToolUse', payload('PostToolUse', { tool_name: 'Bash', tool_response: { stdout: 'x'.repeat(10_000) } })), true);
    assert.equal(await agrees('UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'hi' })), true);
    assert.equal(await agrees('SessionStart', payload('SessionStart', { source: 'startup' })), true);
    assert.equal(await agrees('PostToolUse', payload('PostToolUse'), CODEX), true);
    // a session folder with only the steering state (a deferred PreCompact): still nothing
    sessionDir(tmp, 'claude', 's1', true);
    assert.equal(await agrees('PostToolUse', payload('PostToolUse')), true);
  });

  it('PreCompact, PostCompact and SessionStart(compact) always run in full', () => {
    for (const e of ['PreCompact', 'PostCompact'] as const) assert.equal(nothingToDo('claude', e, payload(e), env), false);
    assert.equal(nothingToDo('claude', 'SessionStart', payload('SessionStart', { source: 'compact' }), env), false);
  });

  it('a pending handoff, repair or heads-up goes to the full run; once given, the fast exit takes over again', async () => {
    const dir = sessionDir(tmp, 'claude', 's1', true)!;
    const snap = writeSnapshotFile(dir, new Date('2026-11-20T10:00:00Z'), { any: 1 });
    assert.equal(nothingToDo('claude', 'UserPromptSubmit', payload('UserPromptSubmit'), env), false, 'an unclaimed snapshot may be injected');
    assert.equal(await agrees('PostToolUse', payload('PostToolUse')), true, 'PostToolUse never injects the handoff');
    claimSnapshot(snap, 'UserPromptSubmit', new Date());
    assert.equal(await agrees('UserPromptSubmit', payload('UserPromptSubmit')), true);

    fs.writeFileSync(`${snap}.repair`, `${JSON.stringify({ at: 'x', text: '[rawr repair] Commit: abc1234', repairTokens: 8 })}\n`);
    assert.equal(nothingToDo('claude', 'PostToolUse', payload('PostToolUse'), env), false);
    const r = await full('PostToolUse', payload('PostToolUse'));
    assert.match(r.stdout, /rawr repair/);
    assert.equal(await agrees('PostToolUse', payload('PostToolUse')), true, 'given once');

    fs.writeFileSync(
      path.join(dir, 'golden.json'),
      `${JSON.stringify({ version: 1, boundary: 'commit abc1234', askedAt: new Date().toISOString(), askedAtCalls: 3, packet: '.scratch/claude-s1.packet.md', headsUp: 'HEADS UP' })}\n`,
    );
    assert.equal(nothingToDo('claude', 'PostToolUse', payload('PostToolUse'), env), false);
    assert.match((await full('PostToolUse', payload('PostToolUse'))).stdout, /HEADS UP/);
    assert.equal(await agrees('PostToolUse', payload('PostToolUse')), true, 'delivered once');
    fs.writeFileSync(path.join(dir, 'golden.json'), '{not json');
    assert.equal(nothingToDo('claude', 'PostToolUse', payload('PostToolUse'), env), false, 'what it cannot read, the full run decides');
  });

  it('hostile or malformed payloads go to the full run (which reports them), never the fast exit', () => {
    const bad = [
      '',
      'null',
      '[]',
      '{"session_id":"s1"}',
      JSON.stringify({ session_id: '', cwd: tmp }),
      JSON.stringify({ session_id: 's'.repeat(1001), cwd: tmp }),
      JSON.stringify({ session_id: 's1', cwd: 'relative/dir' }),
      JSON.stringify({ session_id: 's1', cwd: tmp, hook_event_name: 'PreCompact' }),
      JSON.stringify({ session_id: 's1', cwd: tmp, transcript_path: 5 }),
      JSON.stringify({ session_id: 's1', cwd: tmp, tool_name: {} }),
      JSON.stringify({ session_id: 's1', cwd: path.join(tmp, 'missing') }),
      JSON.stringify({ session_id: 1, cwd: tmp }),
      '{"session_id":"s1","cwd":' + JSON.stringify(tmp) + ',"__proto__":{"x":1}',
    ];
    for (const text of bad) assert.equal(nothingToDo('claude', 'PostToolUse', text, env), false, text);
    // what the fast check accepts, zod accepts too (for every event)
    for (const e of HOOK_EVENTS) {
      const text = payload(e, { extra: { deep: [1, 2] }, trigger: null, prompt: 'p', source: 'startup', tool_name: 'Bash' });
      if (quickInput(e, text)) assert.equal(parseHookInput(e, text).ok, true, e);
    }
  });

  it('a symlinked state folder is left to the full run (which refuses it and says so)', async () => {
    const elsewhere = fs.mkdtempSync(path.join(tmp, 'elsewhere-'));
    fs.symlinkSync(elsewhere, path.join(tmp, '.rawr'));
    assert.equal(nothingToDo('claude', 'PostToolUse', payload('PostToolUse'), env), false);
    const r = await full('PostToolUse', payload('PostToolUse'));
    assert.equal(r.outcome, 'error');
  });

  it('the CLI: PostToolUse with nothing pending prints nothing and exits 0; a bad payload is one line on stderr, exit 0', () => {
    const run = (cli: string, text: string) =>
      spawnSync(process.execPath, [cli, 'hooks', 'claude', 'PostToolUse'], {
        input: text,
        encoding: 'utf8',
        cwd: tmp,
        env: { ...process.env, CLAUDE_PROJECT_DIR: '' },
      });
    for (const cli of [CLI, ...(fs.existsSync(HOOK_ENTRY) ? [HOOK_ENTRY] : [])]) {
      const ok = run(cli, payload('PostToolUse'));
      assert.equal(ok.status, 0, ok.stderr);
      assert.equal(ok.stdout + ok.stderr, '');
      const bad = run(cli, '{"session_id":');
      assert.equal(bad.status, 0);
      assert.equal(bad.stdout, '');
      assert.match(bad.stderr, /^rawr hooks claude PostToolUse: hook input is not JSON/);
    }
  });

  it('the installed command names the hooks entry; earlier commands (dist/cli.js, out/src/cli/main.js) are still rawr’s', () => {
    assert.ok(isRawrEntryPoint('/home/u/.vscode/extensions/rawr.rawr-0.2.0/dist/hook.js'));
    assert.equal(isRawrEntryPoint('/opt/other/dist/hook.js'), false);
    assert.equal(rawrEventOf("'/usr/bin/node' '/x/rawr/dist/hook.js' hooks claude PostToolUse", 'claude'), 'PostToolUse');
    assert.equal(rawrEventOf("'/usr/bin/node' '/x/rawr/dist/cli.js' hooks claude PostToolUse", 'claude'), 'PostToolUse');
    const s = launcherScript({ storageDir: '/x', extensionPath: '/e/rawr.rawr-1.0.0', extensionId: 'rawr.rawr', runtime: '/n' });
    assert.match(s, /"\$\{RAWR_CLI%\/\*\}\/hook\.js"/);
  });

  it('install from the bundled CLI writes the hooks entry, replaces what an earlier version wrote, and is idempotent', function () {
    if (!fs.existsSync(HOOK_ENTRY)) this.skip();
    const ext = path.join(tmp, 'rawr.rawr-0.2.0');
    fs.mkdirSync(path.join(ext, 'dist'), { recursive: true });
    for (const f of ['cli.js', 'hook.js', 'hookEngine.js']) fs.copyFileSync(path.join(path.dirname(HOOK_ENTRY), f), path.join(ext, 'dist', f));
    fs.cpSync(path.resolve(__dirname, '../../../prompts'), path.join(ext, 'prompts'), { recursive: true });
    const project = path.join(tmp, 'project');
    fs.mkdirSync(path.join(project, '.claude'), { recursive: true });
    const old = `node ${path.join(ext, 'dist/cli.js')} hooks claude PostToolUse`;
    const file = path.join(project, '.claude/settings.local.json');
    fs.writeFileSync(
      file,
      `${JSON.stringify({ hooks: { PostToolUse: [{ matcher: '', hooks: [{ type: 'command', command: old, timeout: 10 }] }] } }, null, 2)}\n`,
    );
    const install = () =>
      spawnSync(process.execPath, [path.join(ext, 'dist/cli.js'), 'hooks', 'claude', 'install', '--write'], { encoding: 'utf8', cwd: project });
    const first = install();
    assert.equal(first.status, 0, first.stderr);
    const settings = JSON.parse(fs.readFileSync(file, 'utf8')) as { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> };
    const commands = Object.values(settings.hooks).flatMap((g) => g.flatMap((x) => x.hooks.map((h) => h.command)));
    assert.equal(commands.length, 5, commands.join('\n'));
    for (const c of commands) assert.ok(c.includes(path.join(ext, 'dist/hook.js')), c);
    const text = fs.readFileSync(file, 'utf8');
    assert.equal(install().status, 0);
    assert.equal(fs.readFileSync(file, 'utf8'), text, 'a second install changes nothing');
    // the installed command runs (through a shell, as Claude Code does) and has nothing to do
    const run = spawnSync('/bin/sh', ['-c', settings.hooks.PostToolUse![0]!.hooks[0]!.command], {
      input: JSON.stringify({ session_id: 's', cwd: project, hook_event_name: 'PostToolUse' }),
      encoding: 'utf8',
      cwd: project,
    });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout + run.stderr, '');
  });

  it('the engine loaded through the V8 code cache (Node < 22.1) gives the same exports, and a bad cache file is only rejected', () => {
    const mod = path.join(tmp, 'engine.js');
    fs.writeFileSync(mod, "exports.answer = (x) => x * 2; exports.file = __filename; exports.req = typeof require('node:path').join;\n");
    const cacheDir = path.join(tmp, 'code-cache');
    const load = () =>
      spawnSync(
        process.execPath,
        [
          '-e',
          `const m = require(${JSON.stringify(path.resolve(__dirname, '../../src/cli/hooks/codeCache.js'))}).requireWithCodeCache(${JSON.stringify(mod)}, ${JSON.stringify(cacheDir)}, 'PreCompact'); console.log(JSON.stringify([m.answer(21), m.file, m.req]))`,
        ],
        { encoding: 'utf8' },
      );
    for (let i = 0; i < 2; i++) {
      const r = load();
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), [42, mod, 'function']);
    }
    const files = fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir) : [];
    if (files.length) {
      // Node < 22.1 wrote one; garbage in it is rejected by V8 and rewritten, never run
      fs.writeFileSync(path.join(cacheDir, files[0]!), 'garbage');
      assert.deepEqual(JSON.parse(load().stdout), [42, mod, 'function']);
    }
  });

  it('a rebuilt engine replaces its code cache instead of adding one per build (Node < 22.1)', function () {
    if (typeof (require('node:module') as { enableCompileCache?: unknown }).enableCompileCache === 'function') {
      // Node >= 22.1 uses its own compile cache and never writes these files: nothing to check here.
      this.skip();
    }
    const mod = path.join(tmp, 'rebuilt.js');
    const cacheDir = path.join(tmp, 'code-cache-rebuilt');
    const load = (tag: string) =>
      spawnSync(
        process.execPath,
        [
          '-e',
          `console.log(require(${JSON.stringify(path.resolve(__dirname, '../../src/cli/hooks/codeCache.js'))}).requireWithCodeCache(${JSON.stringify(mod)}, ${JSON.stringify(cacheDir)}, ${JSON.stringify(tag)}).v)`,
        ],
        { encoding: 'utf8' },
      );
    for (let build = 1; build <= 3; build++) {
      fs.writeFileSync(mod, `exports.v = ${build};${' '.repeat(build)}\n`);
      fs.utimesSync(mod, new Date(), new Date(Date.now() + build * 1000));
      assert.equal(load('PreCompact').stdout.trim(), String(build));
      assert.equal(load('PostToolUse').stdout.trim(), String(build));
    }
    const files = fs.readdirSync(cacheDir).sort();
    assert.equal(files.length, 2, files.join(', '));
    assert.ok(files.some((f) => f.endsWith('-PreCompact.bin')) && files.some((f) => f.endsWith('-PostToolUse.bin')), files.join(', '));
  });

  it('the caches (compile cache, parsed prompt sets) live in a per-user folder', () => {
    assert.equal(rawrCacheDir({ XDG_CACHE_HOME: '/c' }), path.join('/c', 'rawr'));
    assert.equal(rawrCacheDir({ XDG_CACHE_HOME: 'relative' }), path.join(os.homedir(), '.cache', 'rawr'));
  });
});
