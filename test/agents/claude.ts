/**
 * Running the real Claude Code CLI (pinned in test/agents/install.sh, cached in .claude-test/) in a
 * fresh project and HOME against the scripted Anthropic server (test/support/scriptedAnthropic.ts),
 * with rawr's hooks installed by `rawr hooks claude install --write`; and what a run left behind
 * (transcripts, rawr's state, the requests the server saw). Used by claudeCode.test.ts (detection and
 * handoff) and claudeSteer.test.ts (steering).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startScriptedAnthropic, type AnthropicServerOptions, type ScriptedAnthropic } from '../support/scriptedAnthropic';
import { REPO, RAWR_BUNDLED_CLI, baseEnv, filesUnder, occurrences, project, run } from './support';

export const CACHE = process.env.CLAUDE_TEST_CACHE ?? path.join(REPO, '.claude-test');
export const CLAUDE = path.join(CACHE, 'node_modules/.bin/claude');
export const HANDOFF = '[rawr handoff]';

export interface Scenario {
  dir: string;
  home: string;
  repo: string;
  server: ScriptedAnthropic;
  turns: number;
  env: Record<string, string>;
}

/** A project with rawr's hooks installed (`install` arguments after `--write`), and its scripted server. */
export async function setUp(
  prefix: string,
  server: Omit<AnthropicServerOptions, 'cwd'>,
  env: Record<string, string> = {},
  install: string[] = [],
): Promise<Scenario> {
  const p = await project(`rawr-cc-${prefix}-`);
  const s = await startScriptedAnthropic({ cwd: p.repo, ...server });
  // Installed as a user of the bundled CLI or the extension has it: Claude Code runs dist/hook.js (with
  // its resident engine), through the command line install writes.
  assert.ok(fs.existsSync(RAWR_BUNDLED_CLI), `${RAWR_BUNDLED_CLI} missing: run npm run build`);
  const installed = await run(process.execPath, [RAWR_BUNDLED_CLI, 'hooks', 'claude', 'install', '--write', ...install], {
    cwd: p.repo,
    env: baseEnv(p.home, {}),
  });
  assert.equal(installed.code, 0, installed.stderr);
  return { ...p, server: s, turns: 0, env };
}

export async function turn(s: Scenario, prompt: string, ...extra: string[]): Promise<void> {
  const n = ++s.turns;
  const env = baseEnv(s.home, {
    ANTHROPIC_BASE_URL: s.server.url,
    ANTHROPIC_API_KEY: 'dummy',
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    // The resident hook engine a run starts leaves soon after the test, not 5 minutes later.
    RAWR_HOOK_SERVER_IDLE_MS: '20000',
    ...(process.env.RAWR_HOOK_SERVER ? { RAWR_HOOK_SERVER: process.env.RAWR_HOOK_SERVER } : {}),
    ...s.env,
  });
  const r = await run(
    CLAUDE,
    [
      '-p',
      prompt,
      '--output-format',
      'stream-json',
      '--verbose',
      '--allowedTools',
      'Bash Read Write Edit TaskCreate TaskUpdate TodoWrite',
      '--debug-file',
      path.join(s.dir, `debug-${n}.log`),
      ...extra,
    ],
    { cwd: s.repo, env, timeoutMs: 180_000 },
  );
  fs.writeFileSync(path.join(s.dir, `out-${n}.jsonl`), r.stdout);
  fs.writeFileSync(path.join(s.dir, `err-${n}.txt`), r.stderr);
}

export interface Facts {
  boundaries: number;
  snapshots: number;
  claims: string[];
  confirmedBy: string[];
  handoffPerRequest: number[];
  compactRequests: number;
  report: string;
}

export function facts(s: Scenario): Facts {
  const transcripts = filesUnder(path.join(s.home, '.claude/projects'), /\.jsonl$/);
  const records = transcripts.flatMap((f) =>
    fs
      .readFileSync(f, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        try {
          return JSON.parse(l) as { type?: string; subtype?: string };
        } catch {
          return {};
        }
      }),
  );
  const boundaries = records.filter((r) => r.type === 'system' && r.subtype === 'compact_boundary').length;
  const state = path.join(s.repo, '.rawr/claude');
  const snapshots = filesUnder(state, /^snapshot-.*\.json$/).length;
  const claims = filesUnder(state, /\.injected$/).map((f) => (JSON.parse(fs.readFileSync(f, 'utf8')) as { event: string }).event);
  const confirmedBy = filesUnder(state, /\.confirmed$/).map((f) => (JSON.parse(fs.readFileSync(f, 'utf8')) as { by: string }).by);
  const handoffPerRequest = s.server.requests.map((r) => occurrences(r.raw, HANDOFF));
  const compactRequests = s.server.requests.filter((r) => r.kind === 'compact').length;
  const report =
    `boundaries=${boundaries} snapshots=${snapshots} claims=${claims.join(',') || 'none'} confirmedBy=${confirmedBy.join(',') || 'none'} ` +
    `requests=${s.server.requests.map((r) => `${r.kind}${r.status === 200 ? '' : `:${r.status}`}${handoffPerRequest[r.n - 1] ? '+handoff' : ''}`).join(' ')} (run folder ${s.dir})`;
  return { boundaries, snapshots, claims, confirmedBy, handoffPerRequest, compactRequests, report };
}
