/**
 * Shared helpers of the real-agent tiers (claudeCode.test.ts, codex.test.ts): temp project folders,
 * async subprocesses (the scripted model servers run in this process, so nothing may block it), and
 * the rule that a missing agent install fails in CI and is reported (never silent) elsewhere.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sharedRequired } from '../support/sharedData';
import { stopEnginesUnder } from '../support/engines';

/** Compiled to out/test/agents/: the repository is three levels up. */
export const REPO = path.resolve(__dirname, '../../..');
export const RAWR_CLI = path.join(REPO, 'out/src/cli/main.js');
/** The bundled CLI (`npm run build`), as the extension ships it: its install writes the hooks entry dist/hook.js. */
export const RAWR_BUNDLED_CLI = path.join(REPO, 'dist/cli.js');
export const TMP = fs.realpathSync(os.tmpdir());

export interface Proc {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: string[], o: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number; stdin?: string }): Promise<Proc> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: o.cwd, env: o.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      stderr += `\n[killed after ${o.timeoutMs} ms]`;
    }, o.timeoutMs ?? 180_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on('error', () => {
      /* the process exited without reading its stdin (EPIPE): not a failure */
    });
    child.stdin.end(o.stdin ?? '');
  });
}

/** A clean environment for an agent CLI: nothing of the developer's own agent sessions leaks in. */
export function baseEnv(home: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    TMPDIR: TMP,
    HOME: home,
    GIT_CEILING_DIRECTORIES: TMP,
    GIT_AUTHOR_NAME: 'rawr test',
    GIT_AUTHOR_EMAIL: 'rawr@example.invalid',
    GIT_COMMITTER_NAME: 'rawr test',
    GIT_COMMITTER_EMAIL: 'rawr@example.invalid',
    ...extra,
  };
}

/** A git repository with a plan, in a fresh temp folder with its own HOME beside it. */
export async function project(prefix: string): Promise<{ dir: string; home: string; repo: string }> {
  const dir = fs.mkdtempSync(path.join(TMP, prefix));
  const home = path.join(dir, 'home');
  const repo = path.join(dir, 'repo');
  fs.mkdirSync(home);
  fs.mkdirSync(repo);
  fs.writeFileSync(path.join(repo, 'README.md'), '# Demo project\n');
  fs.writeFileSync(path.join(repo, 'PLAN.md'), '# Hello plan\n\nObjective: write hello.txt, commit it, then do step 2.\n\n1. hello.txt\n2. step 2\n');
  const env = baseEnv(home, {});
  for (const args of [
    ['init', '-q', '-b', 'main'],
    ['add', '-A'],
    ['commit', '-qm', 'init'],
  ]) {
    const r = await run('git', args, { cwd: repo, env });
    assert.equal(r.code, 0, `git ${args.join(' ')}: ${r.stderr}`);
  }
  return { dir, home, repo };
}

/**
 * Before a tier: the agent binary must be installed (test/agents/install.sh); where shared things are
 * required (CI, or RAWR_REQUIRE_SHARED=1 as .ci/run sets it) a missing one fails, elsewhere it is a
 * reported skip.
 */
export function requireBinary(ctx: Mocha.Context, bin: string, what: string): void {
  if (fs.existsSync(bin)) return;
  const msg = `${what} is not installed at ${bin}: run test/agents/install.sh`;
  if (sharedRequired()) throw new Error(msg);
  console.log(`  SKIPPED (${msg})`);
  ctx.skip();
}

export function filesUnder(dir: string, re: RegExp): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && re.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
}

/** Counts of `needle` per string. */
export const occurrences = (s: string, needle: string) => s.split(needle).length - 1;

/**
 * The part of a real-agent suite both agents share: the binary (missing: a failure in CI, a reported
 * skip elsewhere), its version in the log, and the scenarios' scripted servers closed after each test
 * (their folders removed when it passed, kept for a look when it failed). Returns the suite's `setup`.
 */
export function scenarioSuite<S extends { server: { close(): Promise<void> }; dir: string }, A extends unknown[]>(
  bin: string,
  what: string,
  setUp: (...a: A) => Promise<S>,
): (...a: A) => Promise<S> {
  const open: S[] = [];
  before(async function () {
    requireBinary(this, bin, what);
    assert.ok(fs.existsSync(RAWR_CLI), 'build first: npm run build');
    const v = await run(bin, ['--version'], { cwd: REPO, env: baseEnv(process.env.HOME ?? REPO, {}) });
    console.log(`    ${path.basename(bin)} --version: ${v.stdout.trim()}`);
  });
  afterEach(async function () {
    for (const s of open.splice(0)) {
      await s.server.close();
      // The scenario's resident hook engine outlives its hooks (idle timeout): stopped first, so it
      // cannot write its caches into the folder while it is removed (ENOTEMPTY seen in CI).
      stopEnginesUnder(s.dir);
      if (this.currentTest?.state === 'passed') fs.rmSync(s.dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
    }
  });
  return async (...a: A) => {
    const s = await setUp(...a);
    open.push(s);
    return s;
  };
}

/** The handoff reached the model, and never twice in one request (`perRequest`: its occurrences in each request). */
export function assertHandoffSeenOnce(perRequest: readonly number[], report: string): void {
  assert.ok(
    perRequest.some((n) => n >= 1),
    `the handoff reached the model: ${report}`,
  );
  assert.ok(
    perRequest.every((n) => n <= 1),
    `never twice in one request: ${report}`,
  );
}
