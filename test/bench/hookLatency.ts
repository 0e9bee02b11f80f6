/**
 * The steering PreCompact hook's wall time on a 50 MB Claude Code transcript (issue 20, item 4; target
 * p95 < 150 ms as a process). Claude Code asks the hook before every model request once the context is
 * past its threshold, so each measured call follows one more model response (with its usage) and tool
 * result appended to the transcript, and the hook reads only that tail (its state — byte offset + the
 * live follower's engine state — under .rawr/claude/<session>/, steerState.ts). The transcript is
 * generated in a temp folder (Claude Code 2.1's record shapes: prompts, responses with usage, Bash calls
 * with ~6 KB outputs), its context between Claude Code's threshold and rawr's boundary line, with no
 * boundary: every measured call is the common case, a refusal ("deferred"). Measured:
 *   - as Claude Code runs it: a process, stdin to exit, every command line through `sh -c` as Claude Code
 *     runs a hook command: the bundled hooks entry as `install` writes it (the bash client dist/hook.sh
 *     and its resident engine), the Node entry dist/hook.js as written where there is no bash, the same
 *     with RAWR_HOOK_SERVER=0 (Node alone), and the bundled CLI (dist/cli.js) and the compiled one
 *     (out/src/cli) as earlier versions installed them (`NODE_EXTRA_CA_CERTS= node <cli> hooks claude PreCompact`);
 *   - PostToolUse with nothing pending, as a process (it runs after every tool call): the fast exit of
 *     src/cli/hooks/main.ts, before any engine is loaded;
 *   - the decision alone, in this process (state read, tail read, verdict, state written);
 *   - Node starting with nothing to run (an empty script, in every round beside the calls), the floor under any hook on this machine.
 *   - each way in (docs/claude-code.md#install): the command the CLI package, the Claude Code plugin and
 *     the extension's launcher install, run as it stands in the settings through `sh -c` (the package and
 *     the plugin from build/: `npm run bench:hooks` builds them first; a way in that cannot be measured
 *     is named in the output, never left out silently);
 * The first call, which reads the whole file, is reported apart.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { dirReader, shippedPromptsDir } from '../../src/core/prompts/fs';
import { loadPromptSet } from '../../src/core/prompts/promptSet';
import { agentStateDir, sessionDir } from '../../src/core/hooks/shared/store';
import { askLineFor, writeSteerConfig } from '../../src/core/hooks/claude/steerConfig';
import { steerPreCompact } from '../../src/core/hooks/claude/steer';
import { nodeCommandPrefix, shellQuote } from '../../src/core/hooks/shared/hooksConfig';
import { ensureLauncher } from '../../src/host/hooks/launcher';
import { hookCommandPrefix } from '../../src/cli/hookCommand';
import { writeLargeTranscript } from '../support/claudeTranscript';

const CLI = resolve(__dirname, '../../src/cli/main.js');
const BUNDLED = resolve(__dirname, '../../../dist/cli.js');
const HOOK_ENTRY = resolve(__dirname, '../../../dist/hook.js');
const TARGET_BYTES = Number(process.env.RAWR_HOOK_BENCH_MB ?? 50) * 1024 * 1024;
const CALLS = Number(process.env.RAWR_HOOK_BENCH_CALLS ?? 40);
/** Extra Node options for the hook processes, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to see where a call's time goes. */
const NODE_ARGS = (process.env.RAWR_HOOK_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);

/**
 * The hook command each way in installs (docs/claude-code.md#install), as it stands in the settings: the
 * packed CLI package and the plugin folder (scripts/cli-package.mjs, when build/ has them; the checkout's
 * own command is the "as installed" row) and the extension's launcher (written into the bench folder).
 */
function installPaths(root: string, missing: string[]): Array<{ name: string; path: string; id: string; command: string; env?: NodeJS.ProcessEnv }> {
  const build = resolve(__dirname, '../../../build');
  const out: Array<{ name: string; path: string; id: string; command: string; env?: NodeJS.ProcessEnv }> = [];
  const pkgEntry = join(build, 'cli/dist/hook.js');
  if (existsSync(pkgEntry))
    out.push({ name: 'install path: the CLI package (build/cli)', path: pkgEntry, id: 'bench-path-package', command: hookCommandPrefix(pkgEntry) });
  else missing.push('the CLI package (build/cli: npm run package:cli)');
  const plugin = join(build, 'claude-plugin/rawr');
  if (!existsSync(join(plugin, 'dist/hook.sh'))) missing.push('the Claude Code plugin (build/claude-plugin: npm run package:cli)');
  else
    out.push({
      name: 'install path: the Claude Code plugin (hooks/hooks.json)',
      path: join(plugin, 'dist/hook.js'),
      id: 'bench-path-plugin',
      command: '/bin/bash -p "${CLAUDE_PLUGIN_ROOT}/dist/hook.sh" node',
      env: { CLAUDE_PLUGIN_ROOT: plugin },
    });
  if (existsSync(HOOK_ENTRY) && process.platform !== 'win32') {
    const launcher = ensureLauncher({
      storageDir: join(root, 'storage'),
      extensionPath: resolve(__dirname, '../../..'),
      extensionId: 'rawr.rawr',
      runtime: process.execPath,
    });
    out.push({ name: "install path: the extension's launcher", path: HOOK_ENTRY, id: 'bench-path-launcher', command: shellQuote(launcher) });
  } else missing.push("the extension's launcher (no dist/hook.js, or Windows)");
  return out;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

export async function hookLatencyBench(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'rawr-bench-hook-'));
  try {
    const set = loadPromptSet([dirReader(shippedPromptsDir())]);
    agentStateDir(root, 'claude', true);
    const config = {
      steer: true,
      window: 1_000_000,
      autoCompactWindow: askLineFor(1_000_000, set.settings).autoCompactWindow,
      askPercent: askLineFor(1_000_000, set.settings).percent,
      settingsFile: '.claude/settings.local.json',
    };
    writeSteerConfig(root, config);
    const file = join(root, 'session.jsonl');
    const { tail } = writeLargeTranscript(file, root, TARGET_BYTES, CALLS);
    const mb = statSync(file).size / 1024 / 1024;
    const input = (id: string) => JSON.stringify({ session_id: id, transcript_path: file, cwd: root, hook_event_name: 'PreCompact', trigger: 'auto' });
    // What Claude Code sends after a tool call (a Bash result of ~6 KB), for the same session.
    const postToolUse = (id: string) =>
      JSON.stringify({
        session_id: id,
        transcript_path: file,
        cwd: root,
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'npm test' },
        tool_response: { stdout: 'x'.repeat(6000), stderr: '', interrupted: false },
      });
    // The hooks' caches (code cache, prompt sets, the resident engine's door file) in the bench's folder: a
    // cold start, nothing left behind; the resident engine exits 15 s after the last call.
    const env: NodeJS.ProcessEnv = { ...process.env, CLAUDE_PROJECT_DIR: root, XDG_CACHE_HOME: join(root, 'cache'), RAWR_HOOK_SERVER_IDLE_MS: '15000' };
    // RAWR_HOOK_BENCH_BASELINE=<another rawr's dist/cli.js>: measured beside, for a before/after table.
    const baseline = process.env.RAWR_HOOK_BENCH_BASELINE;
    const missing: string[] = [];
    type Cli = { name: string; path: string; id: string; installed?: boolean; direct?: boolean; env?: NodeJS.ProcessEnv; command?: string };
    const clis: Cli[] = [
      ...(baseline && existsSync(baseline) ? [{ name: `baseline ${baseline}`, path: baseline, id: 'bench-baseline' }] : []),
      ...(existsSync(HOOK_ENTRY)
        ? [
            { name: 'as installed (bash client dist/hook.sh): the resident engine answers', path: HOOK_ENTRY, id: 'bench-hook-entry', installed: true },
            {
              name: 'Node hooks entry dist/hook.js run directly: the resident engine answers through its door',
              path: HOOK_ENTRY,
              id: 'bench-hook-node',
              installed: true,
              direct: true,
            },
            {
              name: 'the same with RAWR_HOOK_SERVER=0: each call loads the engine',
              path: HOOK_ENTRY,
              id: 'bench-hook-alone',
              installed: true,
              env: { RAWR_HOOK_SERVER: '0' },
            },
          ]
        : []),
      ...installPaths(root, missing),
      ...(existsSync(BUNDLED) ? [{ name: 'bundled dist/cli.js', path: BUNDLED, id: 'bench-bundled' }] : []),
      { name: 'compiled out/src/cli/main.js', path: CLI, id: 'bench-compiled' },
    ];
    const answers = new Map<string, number>();
    // Every command line through `sh -c`, as Claude Code runs a hook command: the hooks entry as `install`
    // writes it (hookCommandPrefix); `direct`, and the CLIs, as the Node entry's own command
    // (nodeCommandPrefix: where there is no bash, and what earlier versions installed).
    const spawnHook = (c: Cli, event: string, stdin: string) =>
      process.platform !== 'win32'
        ? spawnSync(
            '/bin/sh',
            [
              '-c',
              `${c.command ?? (c.installed && !c.direct ? hookCommandPrefix(c.path) : nodeCommandPrefix(process.execPath, c.path))} hooks claude ${event}`,
            ],
            {
              input: stdin,
              encoding: 'utf8',
              // RAWR_HOOK_BENCH_NODE_ARGS reach this one through NODE_OPTIONS (the command is the installed one)
              env: { ...env, ...c.env, ...(NODE_ARGS.length ? { NODE_OPTIONS: [env.NODE_OPTIONS ?? '', ...NODE_ARGS].join(' ').trim() } : {}) },
              cwd: root,
            },
          )
        : spawnSync(process.execPath, [...NODE_ARGS, c.path, 'hooks', 'claude', event], {
            input: stdin,
            encoding: 'utf8',
            env: { ...env, ...c.env },
            cwd: root,
          });
    const runProcess = (c: Cli) => {
      const t0 = process.hrtime.bigint();
      const r = spawnHook(c, 'PreCompact', input(c.id));
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (r.status !== 0) throw new Error(`hook exited ${r.status}: ${r.stderr}`);
      const why = r.stdout.includes('"decision":"block"') ? 'refused' : 'allowed';
      answers.set(why, (answers.get(why) ?? 0) + 1);
      return ms;
    };
    const runPostToolUse = (c: Cli) => {
      const t0 = process.hrtime.bigint();
      const r = spawnHook(c, 'PostToolUse', postToolUse(c.id));
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (r.status !== 0 || r.stdout !== '') throw new Error(`PostToolUse exited ${r.status} with ${JSON.stringify(r.stdout.slice(0, 200))}: ${r.stderr}`);
      return ms;
    };
    const decide = async () => {
      const t0 = process.hrtime.bigint();
      const run = await steerPreCompact({
        dir: sessionDir(root, 'claude', 'bench-decision', true)!,
        root,
        sessionId: 'bench-decision',
        transcript: file,
        trigger: 'auto',
        config,
        settings: set.settings,
        prompts: set.prompts,
        env: {},
        now: new Date(),
      });
      return { ms: Number(process.hrtime.bigint() - t0) / 1e6, why: run.verdict.why };
    };
    const cold = clis.map((c) => runProcess(c));
    const coldDecision = (await decide()).ms;
    const proc: number[][] = clis.map(() => []);
    const post: number[][] = clis.map(() => []);
    const decision: number[] = [];
    const verdicts = new Map<string, number>();
    // The floor is sampled in every round, next to the calls, so both see the machine in the same state
    // (Node's own start moved between 64 and 125 ms from one run to the next on this project's machine).
    const startup: number[] = [];
    const floor = () => {
      const t = process.hrtime.bigint();
      if (process.platform === 'win32') spawnSync(process.execPath, ['-e', ''], { encoding: 'utf8', env, cwd: root });
      // an empty script (/dev/null), started by the same command line as the hook's
      else spawnSync('/bin/sh', ['-c', nodeCommandPrefix(process.execPath, '/dev/null')], { encoding: 'utf8', env, cwd: root });
      startup.push(Number(process.hrtime.bigint() - t) / 1e6);
    };
    for (let i = 0; i < CALLS; i++) {
      appendFileSync(file, `${tail[i]}\n`);
      floor();
      clis.forEach((c, k) => proc[k]!.push(runProcess(c)));
      clis.forEach((c, k) => post[k]!.push(runPostToolUse(c)));
      const d = await decide();
      verdicts.set(d.why, (verdicts.get(d.why) ?? 0) + 1);
      decision.push(d.ms);
    }
    if (process.env.RAWR_HOOK_BENCH_DUMP === '1') process.stderr.write(`${JSON.stringify(proc.map((xs) => xs.map(Math.round)))}\n`);
    const state = statSync(join(sessionDir(root, 'claude', 'bench-decision', false)!, 'steer-state.json')).size / 1024;
    return [
      `steering hook (PreCompact) on a generated ${mb.toFixed(1)} MB Claude Code transcript, ${CALLS} calls each after one more response + result (process answers: ${[...answers].map(([k, n]) => `${n} ${k}`).join(', ')}):`,
      ...clis.map((c, k) => {
        const p95 = pct(proc[k]!, 95);
        const share = pct(proc[k]!, 50) - pct(startup, 50);
        // The bash client starts no Node process when the engine answers: the floor is not under it.
        const above = share >= 0 ? `rawr's share above Node's start ${share.toFixed(0)} ms at p50` : `${(-share).toFixed(0)} ms under Node's own start at p50`;
        return `  as a process (${c.name}): p50 ${pct(proc[k]!, 50).toFixed(0)} ms, p95 ${p95.toFixed(0)} ms  [target p95 < 100 ms: ${p95 < 100 ? 'MET' : 'MISSED'}]; ${above}; first call (reads the whole file) ${cold[k]!.toFixed(0)} ms`;
      }),
      ...clis.map(
        (c, k) =>
          `  PostToolUse with nothing pending, as a process (${c.name}): p50 ${pct(post[k]!, 50).toFixed(0)} ms, p95 ${pct(post[k]!, 95).toFixed(0)} ms`,
      ),
      `  Node starting with nothing to run (an empty script, started as the hook command starts node, once in every round): p50 ${pct(startup, 50).toFixed(0)} ms, p95 ${pct(startup, 95).toFixed(0)} ms — the floor under any hook process on this machine`,
      `  the decision alone: p50 ${pct(decision, 50).toFixed(1)} ms, p95 ${pct(decision, 95).toFixed(1)} ms; first call ${coldDecision.toFixed(0)} ms; state file ${state.toFixed(0)} KiB; answers: ${[...verdicts].map(([k, n]) => `${n} ${k}`).join(', ')}`,
      ...(missing.length ? [`  NOT MEASURED: ${missing.join('; ')}`] : []),
      '',
      // The same as a table for docs/benchmarks.md, with the machine's load (the numbers swing with it).
      `| per call, ms (load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}) | PreCompact p50 / p95 | PostToolUse p50 / p95 | first PreCompact |`,
      '| --- | --- | --- | --- |',
      ...clis.map(
        (c, k) =>
          `| ${c.name} | ${pct(proc[k]!, 50).toFixed(0)} / ${pct(proc[k]!, 95).toFixed(0)} | ${pct(post[k]!, 50).toFixed(0)} / ${pct(post[k]!, 95).toFixed(0)} | ${cold[k]!.toFixed(0)} |`,
      ),
      `| Node starting an empty script (the floor under a Node hook) | ${pct(startup, 50).toFixed(0)} / ${pct(startup, 95).toFixed(0)} | | |`,
    ].join('\n');
  } finally {
    // RAWR_HOOK_BENCH_KEEP=1: the folder stays (its path on stderr), to run or profile one hook call by hand.
    if (process.env.RAWR_HOOK_BENCH_KEEP === '1') process.stderr.write(`hook bench folder kept: ${root}\n`);
    // the resident engine (idle 15 s) may still be writing its cache and steering state there: retried
    else rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
}
