/**
 * `rawr hooks claude …` run as Claude Code runs it: the compiled CLI as a subprocess, the hook input
 * JSON on stdin, in temp project folders (git repos where the git fields matter).
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sessionDirName } from '../../src/core/hooks/shared/store';
import { readTranscriptFacts } from '../../src/core/hooks/shared/facts';
import { isPlanPath, objectiveOf, parseSnapshot, type Snapshot } from '../../src/core/hooks/shared/snapshot';
import { needShared, nonEmpty } from '../support/sharedData';

// Compiled to out/test/unit/; the CLI is out/src/cli/main.js; the shared data sits beside the repo.
const CLI = path.resolve(__dirname, '../../src/cli/main.js');
/** What install writes from this checkout: the fast hook, the bash client beside the bundle (issue 29). */
const INSTALLED = path.resolve(__dirname, '../../../dist/hook.sh');
const DIR = process.env.RAWR_TRANSCRIPTS ?? path.resolve(__dirname, '../../../../shared/data/transcripts');
const HANDOFF_FIRST_LINE = '[rawr handoff] ⚠️ CONTEXT COMPACTION DETECTED';
const TMP = fs.realpathSync(os.tmpdir());

/** The environment of a hook: no CLAUDE_PROJECT_DIR unless a test sets one; git never looks above TMP. */
function hookEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_CEILING_DIRECTORIES: TMP, ...extra };
  if (!('CLAUDE_PROJECT_DIR' in extra)) delete env.CLAUDE_PROJECT_DIR;
  return env;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function rawr(args: string[], stdin: string, opts: { cwd?: string; env?: Record<string, string> } = {}): Run {
  const r = spawnSync(process.execPath, [CLI, ...args], { input: stdin, encoding: 'utf8', cwd: opts.cwd ?? TMP, env: hookEnv(opts.env), timeout: 60_000 });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function rawrAsync(args: string[], stdin: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: TMP, env: hookEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

const hook = (event: string, input: object, opts: { env?: Record<string, string> } = {}) => rawr(['hooks', 'claude', event], JSON.stringify(input), opts);
/** Claude Code's PostCompact for the session (fired only after a compaction that succeeded). */
const postCompact = (root: string, session: string, tp: string | undefined, extra: object = {}, opts: { env?: Record<string, string> } = {}) => {
  const r = hook('PostCompact', { session_id: session, transcript_path: tp, cwd: root, hook_event_name: 'PostCompact', trigger: 'auto', ...extra }, opts);
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', ''], 'PostCompact prints nothing');
  return r;
};
const stderrLines = (r: Run) => r.stderr.split('\n').filter((l) => l.trim() !== '');

/** The additionalContext of a hook's stdout, or undefined when it injected nothing. */
function injected(r: Run, event: string): string | undefined {
  assert.equal(r.code, 0, `exit code (stderr: ${r.stderr})`);
  if (r.stdout.trim() === '') return undefined;
  const out = JSON.parse(r.stdout) as { hookSpecificOutput?: { hookEventName?: string; additionalContext?: string } };
  assert.equal(out.hookSpecificOutput?.hookEventName, event);
  return out.hookSpecificOutput?.additionalContext;
}

const git = (cwd: string, ...args: string[]) => {
  const r = spawnSync('git', ['-c', 'user.name=rawr test', '-c', 'user.email=rawr@example.invalid', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    encoding: 'utf8',
    env: hookEnv(),
  });
  assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
};

const made: string[] = [];
after(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

/** A git repo on branch `main` with one commit, then src/app.ts modified (dirty), and a plan file. */
function project(opts: { git?: boolean } = {}): string {
  const root = fs.mkdtempSync(path.join(TMP, 'rawr-hooks-'));
  made.push(root);
  fs.mkdirSync(path.join(root, 'src'));
  fs.mkdirSync(path.join(root, 'docs'));
  fs.writeFileSync(path.join(root, 'src/app.ts'), 'export const a = 1;\n');
  fs.writeFileSync(
    path.join(root, 'docs/PLAN.md'),
    '# Parser rewrite\n\nObjective: Replace the regex parser with a real one.\n\n1. Write parser\n2. Add tests\n',
  );
  if (opts.git !== false) {
    git(root, 'init', '-q', '-b', 'main');
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'init');
    fs.writeFileSync(path.join(root, 'src/app.ts'), 'export const a = 2;\n');
  }
  return root;
}

/** A Claude Code transcript in the recorded format (see shared/data/transcripts/README.md). */
function transcript(root: string, tag: string): string {
  let n = 0;
  const ts = () => new Date(Date.UTC(2026, 0, 1, 0, 0, n++)).toISOString();
  const base = { sessionId: `session-${tag}`, cwd: root, version: '2.1.39', gitBranch: 'main', userType: 'external', isSidechain: false };
  const user = (content: unknown, extra: object = {}) => ({
    ...base,
    type: 'user',
    uuid: `u${n}`,
    timestamp: ts(),
    message: { role: 'user', content },
    ...extra,
  });
  const tool = (id: string, name: string, input: object) => ({
    ...base,
    type: 'assistant',
    uuid: `a${n}`,
    timestamp: ts(),
    message: {
      id: `msg_${id}`,
      role: 'assistant',
      model: 'claude',
      content: [{ type: 'tool_use', id, name, input }],
      usage: { input_tokens: 10, cache_read_input_tokens: 1000, cache_creation_input_tokens: 5, output_tokens: 1 },
    },
  });
  const result = (id: string, text: string) => user([{ type: 'tool_result', tool_use_id: id, content: text }], { toolUseResult: { stdout: text, stderr: '' } });
  const records = [
    user(`[${tag}] Implement the parser described in docs/PLAN.md`),
    { type: 'progress', data: { type: 'hook_progress' }, timestamp: ts() },
    user('<command-name>/model</command-name>'),
    user('skill body', { isMeta: true }),
    tool(`t1${tag}`, 'Read', { file_path: path.join(root, 'src/app.ts') }),
    result(`t1${tag}`, 'export const a = 1;'),
    tool(`t2${tag}`, 'Edit', { file_path: path.join(root, 'src/app.ts'), old_string: '1', new_string: '2' }),
    result(`t2${tag}`, 'ok'),
    tool(`t3${tag}`, 'Write', { file_path: path.join(root, `src/parser-${tag}.ts`), content: 'export {}' }),
    result(`t3${tag}`, 'ok'),
    tool(`t4${tag}`, 'TodoWrite', {
      todos: [
        { content: 'Write parser', status: 'completed', activeForm: 'Writing parser' },
        { content: 'Add tests (see docs/PLAN.md)', status: 'in_progress', activeForm: 'Adding tests' },
        { content: `Update docs for ${tag}`, status: 'pending', activeForm: 'Updating docs' },
      ],
    }),
    result(`t4${tag}`, 'Todos have been modified successfully'),
    tool(`t5${tag}`, 'Bash', { command: 'npm test' }),
    result(`t5${tag}`, 'passing'),
    user(`[${tag}] now add tests for the edge cases`),
  ];
  const file = path.join(root, `transcript-${tag}.jsonl`);
  fs.writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

const input = (root: string, session: string, tp: string | undefined, event: string, extra: object = {}) => ({
  session_id: session,
  transcript_path: tp,
  cwd: root,
  hook_event_name: event,
  ...extra,
});

function snapshotsOf(root: string, dirName: string): string[] {
  const dir = path.join(root, '.rawr/claude', dirName);
  return fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((f) => /^snapshot-.*\.json$/.test(f))
        .map((f) => path.join(dir, f))
    : [];
}
function readSnapshot(file: string): Snapshot {
  const p = parseSnapshot(fs.readFileSync(file, 'utf8'));
  assert.ok(p.ok, p.ok ? '' : p.reason);
  return p.snapshot;
}

describe('rawr hooks claude (CLI subprocess)', function () {
  this.timeout(120_000);

  it('a normal prompt injects nothing and says nothing', () => {
    const root = project();
    const r = hook('UserPromptSubmit', input(root, 'sess-normal', transcript(root, 'n'), 'UserPromptSubmit', { prompt: 'hello' }));
    assert.equal(injected(r, 'UserPromptSubmit'), undefined);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, '');
    assert.equal(fs.existsSync(path.join(root, '.rawr')), false, 'a prompt without a snapshot writes nothing');
  });

  it('PreCompact snapshot → the next prompt gets the warning + recovery steps + snapshot, exactly once', () => {
    const root = project();
    const tp = transcript(root, 'p');
    const pre = hook('PreCompact', input(root, 'sess-1', tp, 'PreCompact', { trigger: 'auto', custom_instructions: '' }));
    assert.equal(pre.code, 0);
    assert.equal(pre.stdout, '', 'PreCompact prints nothing');
    assert.equal(pre.stderr, '');

    const files = snapshotsOf(root, 'sess-1');
    assert.equal(files.length, 1);
    const s = readSnapshot(files[0]!);
    const head = git(root, 'rev-parse', 'HEAD');
    assert.equal(s.sessionId, 'sess-1');
    assert.equal(s.trigger, 'auto');
    assert.ok(Math.abs(Date.parse(s.takenAt) - Date.now()) < 60_000, 'snapshot time is now');
    assert.deepEqual(s.git, { branch: 'main', head, dirty: true, changed: [' M src/app.ts', '?? transcript-p.jsonl'], changedTotal: 2 });
    assert.deepEqual(s.userRequests, ['[p] Implement the parser described in docs/PLAN.md', '[p] now add tests for the edge cases']);
    assert.deepEqual(s.files, ['src/app.ts', 'src/parser-p.ts']);
    assert.deepEqual(s.todos, [
      { text: 'Write parser', status: 'completed' },
      { text: 'Add tests (see docs/PLAN.md)', status: 'in_progress' },
      { text: 'Update docs for p', status: 'pending' },
    ]);
    assert.deepEqual(s.plan, { file: 'docs/PLAN.md', source: 'transcript (latest todo list)', objective: 'Replace the regex parser with a real one.' });
    assert.equal(git(root, 'status', '--porcelain').includes('.rawr'), false, 'rawr state is git-ignored');

    // not confirmed yet: the compaction may still fail
    const early = hook('UserPromptSubmit', input(root, 'sess-1', tp, 'UserPromptSubmit', { prompt: 'meanwhile' }));
    assert.deepEqual([early.code, early.stdout, early.stderr], [0, '', '']);
    postCompact(root, 'sess-1', tp, { compact_summary: '<summary>the parser is half done</summary>' });
    assert.equal((JSON.parse(fs.readFileSync(`${files[0]!}.confirmed`, 'utf8')) as { by: string }).by, 'PostCompact');
    const summary = JSON.parse(fs.readFileSync(`${files[0]!}.compact-summary`, 'utf8')) as { compactSummary: string; trigger: string };
    assert.deepEqual(
      [summary.compactSummary, summary.trigger],
      ['<summary>the parser is half done</summary>', 'auto'],
      'compact_summary kept with the snapshot',
    );
    const first = hook('UserPromptSubmit', input(root, 'sess-1', tp, 'UserPromptSubmit', { prompt: 'continue' }));
    const text = injected(first, 'UserPromptSubmit');
    assert.ok(text, `expected an injection, got stdout=${first.stdout} stderr=${first.stderr}`);
    assert.equal(first.stderr, '');
    const lines = text.split('\n');
    assert.ok(lines[0]!.startsWith(HANDOFF_FIRST_LINE), lines[0]);
    // the shipped handoff's first line, verbatim (the same text as rawr's VS Code handoff)
    const shipped = fs.readFileSync(path.resolve(__dirname, '../../../prompts/rawr-handoff.md'), 'utf8').split('---\n')[2]!.split('\n')[0];
    assert.equal(lines[0], shipped);
    assert.ok(
      lines.some((l) => l.startsWith('1. Re-read the plan') && l.includes('docs/PLAN.md')),
      'step 1 names the plan file',
    );
    assert.ok(lines.includes('2. Run: git diff --stat'));
    assert.ok(lines.some((l) => l.startsWith('3. Review the in-scope files') && l.includes('src/app.ts') && l.includes('src/parser-p.ts')));
    assert.ok(lines.some((l) => l.startsWith('4. Reconstruct your position')));
    for (const want of [
      'Objective: Replace the regex parser with a real one.',
      `HEAD ${head.slice(0, 12)}`,
      'branch main',
      '[in progress] Add tests (see docs/PLAN.md)',
      '2. [p] now add tests for the edge cases',
      `.rawr/claude/sess-1/${path.basename(files[0]!)}`,
    ]) {
      assert.ok(text.includes(want), `missing ${JSON.stringify(want)} in:\n${text}`);
    }
    assert.ok(text.length < 10_000);

    const second = hook('UserPromptSubmit', input(root, 'sess-1', tp, 'UserPromptSubmit', { prompt: 'and then?' }));
    assert.equal(injected(second, 'UserPromptSubmit'), undefined, 'injected only once');
    assert.equal(second.stderr, '');
    const marker = JSON.parse(fs.readFileSync(path.join(root, '.rawr/claude/sess-1/last-injection.json'), 'utf8')) as { snapshot: string; event: string };
    assert.equal(marker.snapshot, path.basename(files[0]!));
    assert.equal(marker.event, 'UserPromptSubmit');

    // a second compaction later in the same session is detected again, here confirmed by the
    // compact_boundary record Claude Code appends to the transcript (no PostCompact hook installed)
    const pre2 = hook('PreCompact', input(root, 'sess-1', tp, 'PreCompact', { trigger: 'manual' }));
    assert.equal(pre2.code, 0);
    assert.equal(snapshotsOf(root, 'sess-1').length, 2, 'snapshot history is kept');
    assert.equal(injected(hook('UserPromptSubmit', input(root, 'sess-1', tp, 'UserPromptSubmit')), 'UserPromptSubmit'), undefined, 'pending');
    fs.appendFileSync(
      tp,
      `${JSON.stringify({ type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', timestamp: new Date().toISOString(), compactMetadata: { trigger: 'manual' } })}\n`,
    );
    assert.ok(injected(hook('UserPromptSubmit', input(root, 'sess-1', tp, 'UserPromptSubmit')), 'UserPromptSubmit')?.includes('manual compaction'));
    assert.equal(injected(hook('UserPromptSubmit', input(root, 'sess-1', tp, 'UserPromptSubmit')), 'UserPromptSubmit'), undefined);
  });

  it('SessionStart (source compact) after PreCompact injects; the next prompt does not inject again', () => {
    const root = project();
    fs.mkdirSync(path.join(root, '.rawr'));
    fs.writeFileSync(path.join(root, '.rawr/plan.json'), JSON.stringify({ planFile: 'docs/PLAN.md', objective: 'Ship the parser' }));
    const tp = transcript(root, 's');
    assert.equal(hook('PreCompact', input(root, 'sess-ss', tp, 'PreCompact', { trigger: 'manual', custom_instructions: 'keep the test list' })).code, 0);
    // other sources never inject
    for (const source of ['startup', 'resume', 'clear']) {
      const r = hook('SessionStart', input(root, 'sess-ss', tp, 'SessionStart', { source }));
      assert.equal(injected(r, 'SessionStart'), undefined, source);
      assert.equal(r.stderr, '');
    }
    const start = hook('SessionStart', input(root, 'sess-ss', tp, 'SessionStart', { source: 'compact' }));
    const text = injected(start, 'SessionStart');
    assert.ok(text !== undefined && text.startsWith(HANDOFF_FIRST_LINE), start.stdout + start.stderr);
    assert.ok(text.includes('Objective: Ship the parser'));
    assert.ok(text.includes('found via .rawr/plan.json'));
    assert.ok(text.includes('keep the test list'));
    // What the person sees (Claude Code shows a SessionStart(compact) hook's systemMessage; the model does not read it).
    assert.equal((JSON.parse(start.stdout) as { systemMessage?: string }).systemMessage, 'rawr: its handoff went to the model with the summary.');
    const prompt = hook('UserPromptSubmit', input(root, 'sess-ss', tp, 'UserPromptSubmit', { prompt: 'go' }));
    assert.equal(injected(prompt, 'UserPromptSubmit'), undefined);
    assert.equal(injected(hook('SessionStart', input(root, 'sess-ss', tp, 'SessionStart', { source: 'compact' })), 'SessionStart'), undefined);
  });

  it('SessionStart (source compact) where rawr steers: the person is told where rawr let the compaction happen (the newest allowing answer of the steer log)', () => {
    const root = project();
    const tp = transcript(root, 'st');
    assert.equal(hook('PreCompact', input(root, 'sess-st', tp, 'PreCompact', { trigger: 'auto' })).code, 0);
    const dir = path.join(root, '.rawr', 'claude', sessionDirName('sess-st'));
    fs.mkdirSync(dir, { recursive: true });
    const line = (allow: boolean, text: string) =>
      JSON.stringify({ at: '2026-11-26T10:00:00.000Z', trigger: 'auto', allow, why: allow ? 'boundary' : 'deferred', text, usedTokens: 1, window: 2 });
    fs.writeFileSync(
      path.join(dir, 'steer-log.jsonl'),
      [line(false, 'deferred to the next boundary (64% used; waiting for a commit)'), 'garbage', line(true, 'compacting at commit 3f2a1c9 (70% used)')].join(
        '\n',
      ) + '\n',
    );
    const start = hook('SessionStart', input(root, 'sess-st', tp, 'SessionStart', { source: 'compact' }));
    assert.ok(injected(start, 'SessionStart')?.startsWith(HANDOFF_FIRST_LINE), start.stdout + start.stderr);
    assert.equal(
      (JSON.parse(start.stdout) as { systemMessage?: string }).systemMessage,
      'rawr: compacting at commit 3f2a1c9 (70% used); its handoff went to the model with the summary.',
    );
  });

  it('a corrupt snapshot: exit 0, one stderr line, nothing injected (and reported only once)', () => {
    const root = project();
    const tp = transcript(root, 'c');
    hook('PreCompact', input(root, 'sess-c', tp, 'PreCompact', { trigger: 'auto' }));
    const [file] = snapshotsOf(root, 'sess-c');
    fs.writeFileSync(file!, '{"version": 1, "sessionId": "sess-c", "takenAt": tru');
    postCompact(root, 'sess-c', tp);
    const r = hook('UserPromptSubmit', input(root, 'sess-c', tp, 'UserPromptSubmit'));
    assert.equal(injected(r, 'UserPromptSubmit'), undefined);
    assert.equal(r.stdout, '');
    assert.equal(stderrLines(r).length, 1, r.stderr);
    assert.match(r.stderr, /unusable/);
    const again = hook('UserPromptSubmit', input(root, 'sess-c', tp, 'UserPromptSubmit'));
    assert.equal(again.stdout, '');
    assert.equal(again.stderr, '');
    // valid JSON that is not a snapshot is just as unusable
    hook('PreCompact', input(root, 'sess-c', tp, 'PreCompact', { trigger: 'auto' }));
    const latest = snapshotsOf(root, 'sess-c').sort().pop()!;
    fs.writeFileSync(latest, JSON.stringify({ hello: 'world' }));
    postCompact(root, 'sess-c', tp);
    const r3 = hook('UserPromptSubmit', input(root, 'sess-c', tp, 'UserPromptSubmit'));
    assert.equal(r3.code, 0);
    assert.equal(r3.stdout, '');
    assert.equal(stderrLines(r3).length, 1);
  });

  it('a missing transcript: the snapshot is still written (git, no transcript data) and injected', () => {
    const root = project();
    const missing = path.join(root, 'nope', 'gone.jsonl');
    const pre = hook('PreCompact', input(root, 'sess-m', missing, 'PreCompact', { trigger: 'auto' }));
    assert.equal(pre.code, 0);
    assert.equal(pre.stdout, '');
    assert.equal(stderrLines(pre).length, 1);
    assert.match(pre.stderr, /transcript not found/);
    const s = readSnapshot(snapshotsOf(root, 'sess-m')[0]!);
    assert.equal(s.transcript.error, 'transcript not found');
    assert.deepEqual([s.userRequests, s.files, s.todos], [[], [], null]);
    assert.equal(s.git?.branch, 'main');
    // no transcript_path at all
    const noPath = hook('PreCompact', { session_id: 'sess-m2', cwd: root, hook_event_name: 'PreCompact', trigger: 'manual' });
    assert.equal(noPath.code, 0);
    assert.equal(readSnapshot(snapshotsOf(root, 'sess-m2')[0]!).transcript.error, 'no transcript_path in the hook input');
    postCompact(root, 'sess-m', missing);
    const text = injected(hook('UserPromptSubmit', input(root, 'sess-m', missing, 'UserPromptSubmit')), 'UserPromptSubmit');
    assert.ok(text !== undefined && text.startsWith(HANDOFF_FIRST_LINE));
    assert.ok(text.includes('unknown (transcript not found)'));
  });

  it('without git the git fields are omitted', () => {
    const root = project({ git: false });
    hook('PreCompact', input(root, 'sess-ng', transcript(root, 'ng'), 'PreCompact', { trigger: 'auto' }));
    const s = readSnapshot(snapshotsOf(root, 'sess-ng')[0]!);
    assert.equal(s.git, undefined);
    assert.deepEqual(s.files, ['src/app.ts', 'src/parser-ng.ts']);
  });

  it('plan convention: .rawr/plan.json, then the transcript, then CLAUDE.md, then PLAN.md in the root', () => {
    const root = project();
    fs.writeFileSync(path.join(root, 'CLAUDE.md'), '# Project\n\nSee README.md. The plan lives in docs/migration-plan.md and is kept current.\n');
    fs.writeFileSync(path.join(root, 'docs/migration-plan.md'), '# Migration\n\n## Objective\n\nMove to the new API.\n');
    hook('PreCompact', input(root, 'sess-pc', undefined, 'PreCompact', { trigger: 'auto' }));
    assert.deepEqual(readSnapshot(snapshotsOf(root, 'sess-pc')[0]!).plan, {
      file: 'docs/migration-plan.md',
      source: 'CLAUDE.md',
      objective: 'Move to the new API.',
    });
    fs.rmSync(path.join(root, 'CLAUDE.md'));
    fs.writeFileSync(path.join(root, 'PLAN.md'), '# Root plan\n');
    hook('PreCompact', input(root, 'sess-pr', undefined, 'PreCompact', { trigger: 'auto' }));
    assert.deepEqual(readSnapshot(snapshotsOf(root, 'sess-pr')[0]!).plan, { file: 'PLAN.md', source: 'PLAN.md in the project root', objective: 'Root plan' });
    fs.rmSync(path.join(root, 'PLAN.md'));
    hook('PreCompact', input(root, 'sess-none', undefined, 'PreCompact', { trigger: 'auto' }));
    assert.equal(readSnapshot(snapshotsOf(root, 'sess-none')[0]!).plan, undefined);
    // invalid .rawr/plan.json: ignored with a warning, the next rule applies
    fs.mkdirSync(path.join(root, '.rawr'), { recursive: true });
    fs.writeFileSync(path.join(root, '.rawr/plan.json'), '{"planFile": 3}');
    const r = hook('PreCompact', input(root, 'sess-bad', transcript(root, 'b'), 'PreCompact', { trigger: 'auto' }));
    assert.equal(r.code, 0);
    assert.match(r.stderr, /plan\.json ignored/);
    assert.equal(readSnapshot(snapshotsOf(root, 'sess-bad')[0]!).plan?.file, 'docs/PLAN.md');

    for (const yes of [
      'PLAN.md',
      'docs/plan.md',
      'IMPLEMENTATION_PLAN.md',
      'migrationPlan.md',
      'plan-v2.md',
      '/home/u/.claude/plans/drifting-tumbling-whisper.md',
    ])
      assert.ok(isPlanPath(yes), yes);
    for (const no of ['explanation.md', 'README.md', 'plan.txt', 'planner.md', 'docs/plans.txt']) assert.ok(!isPlanPath(no), no);
    assert.equal(objectiveOf('# Title\n**Objective:** Do the thing\n'), 'Do the thing');
    assert.equal(objectiveOf('no heading at all'), undefined);
  });

  it('garbage, empty or wrong input: exit 0, nothing on stdout, one line on stderr, nothing written', function () {
    // 55 CLI processes: on a loaded 2-core machine each Node start takes seconds (a hang still fails).
    this.timeout(600_000);
    const root = project();
    const cases: Array<[string, string]> = [
      ['empty', ''],
      ['whitespace', '  \n'],
      ['garbage', 'this is not json {'],
      ['binary', '\u0000\u0001\u00ff'],
      ['array', '[1,2,3]'],
      ['null', 'null'],
      ['no session_id', JSON.stringify({ cwd: root })],
      ['session_id not a string', JSON.stringify({ session_id: 42, cwd: root })],
      ['empty session_id', JSON.stringify({ session_id: '', cwd: root })],
      ['no cwd', JSON.stringify({ session_id: 's' })],
      ['relative cwd', JSON.stringify({ session_id: 's', cwd: 'some/dir' })],
      ['cwd that does not exist', JSON.stringify({ session_id: 's', cwd: path.join(root, 'missing') })],
      ['another event', JSON.stringify({ session_id: 's', cwd: root, hook_event_name: 'Stop' })],
    ];
    for (const event of ['PreCompact', 'PostCompact', 'UserPromptSubmit', 'SessionStart']) {
      for (const [name, stdin] of cases) {
        const r = rawr(['hooks', 'claude', event], stdin);
        assert.equal(r.code, 0, `${event} ${name}`);
        assert.equal(r.stdout, '', `${event} ${name}`);
        assert.equal(stderrLines(r).length, 1, `${event} ${name}: ${r.stderr}`);
      }
    }
    assert.equal(fs.existsSync(path.join(root, '.rawr')), false);
    assert.equal(fs.existsSync(path.join(root, 'missing')), false);
    // extra unknown fields are fine
    const extra = hook('UserPromptSubmit', { ...input(root, 's', undefined, 'UserPromptSubmit'), permission_mode: 'default', future: { x: 1 } });
    assert.deepEqual([extra.code, extra.stdout, extra.stderr], [0, '', '']);
    // A usage error exits 2, as the CLI's others, with the message and the usage; one an agent ran as a
    // hook (its input on stdin: a hook entry naming an event rawr does not handle) 1, never 2, which the
    // agent reads as "block" (a Stop hook's 2 would keep Claude Code from stopping).
    for (const [args, stdin] of [
      [['hooks', 'claude', 'frob'], ''],
      [['hooks', 'claude'], ''],
      [['hooks', 'gemini', 'PreCompact'], '{}'],
      [['hooks'], ''],
      [['hooks', 'claude', 'Stop'], 'not a hook input'],
    ] as const) {
      const r = rawr([...args], stdin);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, /^rawr hooks\b.*: unknown (agent|event) .*\nusage: rawr hooks <claude\|codex>/, args.join(' '));
    }
    const stop = rawr(['hooks', 'claude', 'Stop'], JSON.stringify({ ...input(root, 's', undefined, 'Stop'), stop_hook_active: false }));
    assert.equal(stop.code, 1, 'a Stop hook run by Claude Code');
    assert.match(stop.stderr, /unknown event "Stop"/);
    assert.equal(stop.stdout, '');
    assert.equal(rawr(['hooks', 'gemini', 'PreCompact'], JSON.stringify({ session_id: 's', hook_event_name: 'PreCompact' })).code, 1, 'another agent');
  });

  it('session ids cannot escape .rawr/claude/ (sanitised, hashed, symlinks refused)', () => {
    const root = project();
    const outside = fs.mkdtempSync(path.join(TMP, 'rawr-outside-'));
    made.push(outside);
    const tp = transcript(root, 'e');
    const evil = ['../../etc', '..', '../outside', '/etc/passwd', 'a/../../b', '..\\..\\win', '.', 'x\u0000y', '💥'];
    for (const id of evil) {
      const r = hook('PreCompact', input(root, id, tp, 'PreCompact', { trigger: 'auto' }));
      assert.equal(r.code, 0, id);
      postCompact(root, id, tp);
      const text = injected(hook('UserPromptSubmit', input(root, id, tp, 'UserPromptSubmit')), 'UserPromptSubmit');
      assert.ok(text !== undefined && text.startsWith(HANDOFF_FIRST_LINE), `${id}: the snapshot is found again under its sanitised name`);
    }
    const dirs = fs.readdirSync(path.join(root, '.rawr/claude')).filter((d) => d !== '.gitignore');
    assert.equal(dirs.length, evil.length, `one folder per id: ${dirs.join(' ')}`);
    for (const d of dirs) assert.match(d, /^[A-Za-z0-9_-]+$/);
    // nothing was written anywhere else in the project or beside it
    const walk = (d: string): string[] =>
      fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
    for (const f of walk(root)) assert.ok(!path.relative(root, f).startsWith('.rawr') || path.relative(root, f).startsWith(path.join('.rawr', 'claude')), f);
    assert.deepEqual(fs.readdirSync(outside), []);
    // a session folder that is a symlink to elsewhere is refused
    fs.symlinkSync(outside, path.join(root, '.rawr/claude/linked'));
    const r = hook('PreCompact', input(root, 'linked', tp, 'PreCompact', { trigger: 'auto' }));
    assert.equal(r.code, 0);
    assert.equal(r.stdout, '');
    assert.equal(stderrLines(r).length, 1);
    assert.match(r.stderr, /symlink/);
    assert.deepEqual(fs.readdirSync(outside), []);
  });

  it('a symlinked .rawr/claude (or .rawr) is never written or read through (issue 11 item 8)', () => {
    const tp0 = (root: string) => transcript(root, 'l');
    for (const linked of ['.rawr/claude', '.rawr']) {
      const root = project();
      const outside = fs.mkdtempSync(path.join(TMP, 'rawr-outside-'));
      made.push(outside);
      fs.mkdirSync(path.dirname(path.join(root, linked)), { recursive: true });
      fs.symlinkSync(outside, path.join(root, linked));
      const tp = tp0(root);
      for (const event of ['PreCompact', 'PostCompact', 'UserPromptSubmit']) {
        const r = hook(event, input(root, 'sess-l', tp, event, { trigger: 'auto' }));
        assert.equal(r.code, 0);
        assert.equal(r.stdout, '');
        assert.equal(stderrLines(r).length, 1, `${linked} ${event}: ${r.stderr}`);
        assert.match(r.stderr, /is a symlink/);
      }
      const ss = hook('SessionStart', input(root, 'sess-l', tp, 'SessionStart', { source: 'compact' }));
      assert.deepEqual([ss.code, ss.stdout], [0, '']);
      assert.deepEqual(fs.readdirSync(outside), [], `nothing written through ${linked}`);
    }
  });

  it('$CLAUDE_PROJECT_DIR is the root even when the agent cd-ed into a subfolder', () => {
    const root = project();
    const tp = transcript(root, 'd');
    const env = { CLAUDE_PROJECT_DIR: root };
    assert.equal(hook('PreCompact', input(path.join(root, 'src'), 'sess-d', tp, 'PreCompact', { trigger: 'auto' }), { env }).code, 0);
    assert.equal(snapshotsOf(root, 'sess-d').length, 1);
    assert.equal(fs.existsSync(path.join(root, 'src/.rawr')), false);
    postCompact(path.join(root, 'src'), 'sess-d', tp, {}, { env });
    assert.ok(injected(hook('UserPromptSubmit', input(path.join(root, 'docs'), 'sess-d', tp, 'UserPromptSubmit'), { env }), 'UserPromptSubmit'));
  });

  it('concurrent hooks for two sessions: one snapshot each, exactly one injection each', async () => {
    const root = project();
    const tps = { A: transcript(root, 'A'), B: transcript(root, 'B') };
    const pres = await Promise.all(
      (['A', 'B'] as const).map((k) =>
        rawrAsync(['hooks', 'claude', 'PreCompact'], JSON.stringify(input(root, `sess-${k}`, tps[k], 'PreCompact', { trigger: 'auto' }))),
      ),
    );
    for (const r of pres) assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
    assert.equal(snapshotsOf(root, 'sess-A').length, 1);
    assert.equal(snapshotsOf(root, 'sess-B').length, 1);
    // per session: 3 prompts and a SessionStart(compact) racing; all 8 at once
    const jobs: Array<{ k: 'A' | 'B'; event: string; p: Promise<Run> }> = [];
    for (const k of ['A', 'B'] as const) {
      for (let i = 0; i < 3; i++)
        jobs.push({
          k,
          event: 'UserPromptSubmit',
          p: rawrAsync(['hooks', 'claude', 'UserPromptSubmit'], JSON.stringify(input(root, `sess-${k}`, tps[k], 'UserPromptSubmit', { prompt: `p${i}` }))),
        });
      jobs.push({
        k,
        event: 'SessionStart',
        p: rawrAsync(['hooks', 'claude', 'SessionStart'], JSON.stringify(input(root, `sess-${k}`, tps[k], 'SessionStart', { source: 'compact' }))),
      });
    }
    const results = await Promise.all(jobs.map(async (j) => ({ ...j, r: await j.p })));
    for (const k of ['A', 'B'] as const) {
      const mine = results.filter((x) => x.k === k);
      for (const x of mine) assert.deepEqual([x.r.code, x.r.stderr], [0, ''], `${k} ${x.event}`);
      const texts = mine.map((x) => injected(x.r, x.event)).filter((t): t is string => t !== undefined);
      assert.equal(texts.length, 1, `session ${k}: exactly one injection, got ${texts.length}`);
      assert.ok(texts[0]!.includes(`[${k}] now add tests`), 'its own snapshot');
      assert.ok(!texts[0]!.includes(`[${k === 'A' ? 'B' : 'A'}]`), 'not the other session');
    }
  });

  describe('install', () => {
    it('prints valid hook configuration JSON whose commands run', () => {
      const r = rawr(['hooks', 'claude', 'install'], '');
      assert.equal(r.code, 0, r.stderr);
      const config = JSON.parse(r.stdout) as {
        hooks: Record<string, Array<{ matcher?: string; hooks: Array<{ type: string; command: string; timeout?: number }> }>>;
      };
      assert.deepEqual(Object.keys(config.hooks).sort(), ['PostCompact', 'PostToolUse', 'PreCompact', 'SessionStart', 'UserPromptSubmit']);
      assert.equal(config.hooks.PreCompact![0]!.matcher, '');
      assert.equal(config.hooks.PostCompact![0]!.matcher, '');
      assert.equal(config.hooks.SessionStart![0]!.matcher, 'compact');
      for (const [event, groups] of Object.entries(config.hooks)) {
        const h = groups[0]!.hooks[0]!;
        assert.equal(h.type, 'command');
        assert.ok(h.command.endsWith(` hooks claude ${event}`), h.command);
        assert.ok(h.command.includes(INSTALLED), `absolute path of the fast hook in ${h.command}`);
      }
      // the printed command works from another folder, through a shell, as Claude Code runs it
      const root = project();
      const run = (event: string, stdin: object) =>
        spawnSync('/bin/sh', ['-c', config.hooks[event]![0]!.hooks[0]!.command], { input: JSON.stringify(stdin), encoding: 'utf8', cwd: root, env: hookEnv() });
      assert.equal(run('PreCompact', input(root, 'sess-i', undefined, 'PreCompact', { trigger: 'auto' })).status, 0);
      assert.equal(run('PostCompact', input(root, 'sess-i', undefined, 'PostCompact', { trigger: 'auto' })).status, 0);
      const out = run('UserPromptSubmit', input(root, 'sess-i', undefined, 'UserPromptSubmit'));
      assert.equal(out.status, 0);
      assert.ok(
        (JSON.parse(out.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext.startsWith(HANDOFF_FIRST_LINE),
      );
    });

    it('--write merges into an existing settings.local.json without losing hooks or keys, idempotently', () => {
      const root = project();
      fs.mkdirSync(path.join(root, '.claude'));
      const file = path.join(root, '.claude/settings.local.json');
      const existing = {
        model: 'opus',
        permissions: { allow: ['Bash(npm test:*)'], deny: [] },
        env: { FOO: 'bar' },
        hooks: {
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './check-bash.sh' }] }],
          UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'python3 inject_state.py', timeout: 5 }] }],
          PreCompact: [
            {
              matcher: 'auto',
              hooks: [
                { type: 'command', command: 'echo precompact' },
                { type: 'command', command: "node '/old/place/out/src/cli/main.js' hooks claude PreCompact" },
              ],
            },
          ],
          // another tool whose command happens to end in the same words: never rawr's to change
          PostCompact: [{ hooks: [{ type: 'command', command: '/usr/local/bin/othertool hooks claude PostCompact', timeout: 3 }] }],
        },
      };
      fs.writeFileSync(file, JSON.stringify(existing));
      const r = rawr(['hooks', 'claude', 'install', '--write'], '', { cwd: root });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /added PostCompact, SessionStart, UserPromptSubmit, PostToolUse; updated PreCompact/);
      const merged = JSON.parse(fs.readFileSync(file, 'utf8'));
      assert.equal(merged.model, 'opus');
      assert.deepEqual(merged.permissions, existing.permissions);
      assert.deepEqual(merged.env, { ...existing.env, CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '54' }, "the person's env kept; rawr's percentage beside it");
      assert.deepEqual(merged.hooks.PreToolUse, existing.hooks.PreToolUse);
      assert.deepEqual(merged.hooks.UserPromptSubmit[0], existing.hooks.UserPromptSubmit[0], 'the other tool keeps its prompt hook, first');
      assert.equal(merged.hooks.UserPromptSubmit.length, 2);
      assert.ok(merged.hooks.UserPromptSubmit[1].hooks[0].command.endsWith('hooks claude UserPromptSubmit'));
      // the stale rawr PreCompact entry was updated in place, not duplicated
      assert.equal(merged.hooks.PreCompact.length, 1);
      assert.equal(merged.hooks.PreCompact[0].hooks[0].command, 'echo precompact');
      assert.ok(merged.hooks.PreCompact[0].hooks[1].command.includes(INSTALLED));
      assert.equal(merged.hooks.SessionStart[0].matcher, 'compact');
      assert.deepEqual(merged.hooks.PostCompact[0], existing.hooks.PostCompact[0], "the other tool's PostCompact command is untouched");
      assert.equal(merged.hooks.PostCompact.length, 2);
      assert.ok(merged.hooks.PostCompact[1].hooks[0].command.includes(INSTALLED));

      const before = fs.readFileSync(file, 'utf8');
      const again = rawr(['hooks', 'claude', 'install', '--write'], '', { cwd: root });
      assert.equal(again.code, 0);
      assert.match(again.stdout, /already present: PreCompact, PostCompact, SessionStart, UserPromptSubmit/);
      assert.equal(fs.readFileSync(file, 'utf8'), before, 'idempotent');
    });

    it('--write creates .claude/settings.local.json, and refuses invalid JSON (exit 1, file untouched)', () => {
      const root = project();
      const file = path.join(root, '.claude/settings.local.json');
      assert.equal(rawr(['hooks', 'claude', 'install', '--write'], '', { cwd: root }).code, 0);
      assert.deepEqual(Object.keys(JSON.parse(fs.readFileSync(file, 'utf8')).hooks).sort(), [
        'PostCompact',
        'PostToolUse',
        'PreCompact',
        'SessionStart',
        'UserPromptSubmit',
      ]);
      for (const bad of ['{"hooks": {', '{"model": "x" "y"}', '[1, 2]', '{"hooks": []}', '{"hooks": {"PreCompact": {}}}']) {
        fs.writeFileSync(file, bad);
        const r = rawr(['hooks', 'claude', 'install', '--write'], '', { cwd: root });
        assert.equal(r.code, 1, bad);
        assert.ok(r.stderr.includes(file), r.stderr);
        assert.equal(fs.readFileSync(file, 'utf8'), bad, 'untouched');
      }
    });
  });

  it('replay still works', () => {
    const root = project();
    const r = rawr(['replay', transcript(root, 'r'), '--json'], '');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout.trim().split('\n').pop()!, /"type":"summary"/);
  });
});

// ---------------------------------------------------------------- the real recordings

/** Person prompts and touched files, read straight from the JSONL without rawr's importer. */
function scanIndependently(text: string): { prompts: string[]; files: string[] } {
  const prompts: string[] = [];
  const files = new Map<string, true>();
  const seen = new Set<string>();
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    const r = JSON.parse(raw) as Record<string, any>;
    if (r.type === 'assistant') {
      for (const b of r.message?.content ?? []) {
        if (b?.type !== 'tool_use' || seen.has(b.id)) continue;
        seen.add(b.id);
        const p = b.input?.file_path ?? b.input?.notebook_path;
        if (['Read', 'Edit', 'MultiEdit', 'Write', 'NotebookEdit'].includes(b.name) && typeof p === 'string') {
          files.delete(p);
          files.set(p, true);
        }
      }
    }
    if (r.type === 'user' && !r.isMeta && !r.isCompactSummary && !r.isVisibleInTranscriptOnly && !r.isSidechain) {
      const c = r.message?.content;
      const t =
        typeof c === 'string'
          ? c
          : Array.isArray(c) && !c.some((b: any) => b?.type === 'tool_result')
            ? c
                .filter((b: any) => b?.type === 'text')
                .map((b: any) => b.text)
                .join('\n')
            : '';
      const s = t.trimStart();
      if (s && !s.startsWith('<') && !s.startsWith('[Request interrupted')) prompts.push(t);
    }
  }
  return { prompts, files: [...files.keys()] };
}

describe('rawr hooks claude: snapshot reader on the real Claude Code recordings', function () {
  this.timeout(120_000);
  const files = fs.existsSync(DIR)
    ? fs
        .readdirSync(DIR)
        .filter((f) => /^claude-spotter-.*\.jsonl$/.test(f))
        .sort()
    : [];
  before(function () {
    needShared(this, DIR);
  });
  // First prompts per file, from the import tests' jq-derived expectations.
  const firstPrompt: Record<string, string> = {
    'claude-spotter-258c7280.jsonl': 'Implement spotter-gqc',
    'claude-spotter-8463c716.jsonl': 'Work on bead spotter-fum.',
    'claude-spotter-ae4a77f8.jsonl': 'Work on bead spotter-4te.',
  };

  it('finds the same user requests and touched files as an independent scan', () => {
    assert.ok(files.length >= 3, files.join(', '));
    for (const f of files) {
      const text = fs.readFileSync(path.join(DIR, f), 'utf8');
      const facts = readTranscriptFacts(text);
      const raw = scanIndependently(text);
      assert.equal(facts.problems, 0, f);
      assert.deepEqual(
        facts.userRequests.map((r) => r.text),
        raw.prompts,
        `${f}: user requests`,
      );
      assert.deepEqual(facts.files, raw.files, `${f}: touched files`);
      if (firstPrompt[f]) {
        assert.ok(facts.userRequests[0]?.text.startsWith(firstPrompt[f]!), f);
        assert.ok(facts.files.length > 10, `${f}: ${facts.files.length} files`);
      }
    }
  });

  it('PreCompact on a real transcript writes the last requests, files and plan file into the snapshot', () => {
    for (const f of nonEmpty(
      files.filter((x) => firstPrompt[x]),
      `none of the recordings with a known first prompt (${Object.keys(firstPrompt).join(', ')}) in ${DIR}`,
    )) {
      const root = project();
      const tp = path.join(DIR, f);
      const session = `real-${f.replace(/\.jsonl$/, '')}`; // already [A-Za-z0-9_-]: used as the folder name
      const r = hook('PreCompact', input(root, session, tp, 'PreCompact', { trigger: 'auto' }));
      assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', ''], f);
      const [snap] = snapshotsOf(root, session);
      const s = readSnapshot(snap!);
      const raw = scanIndependently(fs.readFileSync(tp, 'utf8'));
      assert.deepEqual(
        s.userRequests,
        raw.prompts.slice(-5).map((p) => p.trim().slice(0, 2000)),
        f,
      );
      assert.deepEqual(s.files, raw.files.slice(-50), f);
      assert.equal(s.filesTotal, raw.files.length);
      assert.equal(s.transcript.problems, 0);
      if (f === 'claude-spotter-8463c716.jsonl') {
        // plan mode: Claude Code wrote the plan to ~/.claude/plans/<slug>.md
        assert.equal(s.plan?.file, '/home/USER/.claude/plans/drifting-tumbling-whisper.md');
        assert.equal(s.plan?.objective, 'Plan: Enrich TranscriptRenderer with metadata (spotter-fum.1)');
      }
      // the recording's own earlier compact_boundary records (before the snapshot) confirm nothing
      assert.equal(injected(hook('UserPromptSubmit', input(root, session, tp, 'UserPromptSubmit')), 'UserPromptSubmit'), undefined, `${f}: pending`);
      postCompact(root, session, tp);
      const text = injected(hook('UserPromptSubmit', input(root, session, tp, 'UserPromptSubmit')), 'UserPromptSubmit');
      assert.ok(text !== undefined && text.startsWith(HANDOFF_FIRST_LINE), f);
      assert.ok(text.length < 10_000, `${f}: ${text.length} chars`);
    }
  });
});
