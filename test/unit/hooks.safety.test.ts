/**
 * Agent hooks: confirmation before injection (issue 10 item 1), and the hardening defects of issue 11
 * items 7 (install --write), 9 (same-millisecond snapshots) and 12 (transcript size cap bypassed by
 * FIFOs and character devices). Item 8 (symlinked .rawr/claude) is in hooks.claude.test.ts.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { hasCompactionRecord, isCompactionRecord, transcriptConfirms } from '../../src/core/hooks/shared/confirm';
import { latestSnapshotFile, writeSnapshotFile } from '../../src/core/hooks/shared/store';
import { gitState } from '../../src/core/hooks/shared/snapshot';
import { readTextFrom, regularFileSize } from '../../src/core/hooks/shared/readFrom';
import { needShared } from '../support/sharedData';

const CLI = path.resolve(__dirname, '../../src/cli/main.js');
const TMP = fs.realpathSync(os.tmpdir());
const DATA = path.resolve(__dirname, '../../../../shared/data');
const made: string[] = [];
after(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});
const tmpDir = (p = 'rawr-safety-') => {
  const d = fs.mkdtempSync(path.join(TMP, p));
  made.push(d);
  return d;
};

function rawr(args: string[], stdin: string, cwd = TMP) {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_CEILING_DIRECTORIES: TMP };
  delete env.CLAUDE_PROJECT_DIR;
  const r = spawnSync(process.execPath, [CLI, ...args], { input: stdin, encoding: 'utf8', cwd, env, timeout: 30_000 });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const hook = (agent: string, event: string, input: object) => rawr(['hooks', agent, event], JSON.stringify({ hook_event_name: event, ...input }));
const injectedText = (r: { stdout: string }) =>
  r.stdout.trim() ? (JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext : undefined;

const line = (o: object) => `${JSON.stringify(o)}\n`;
const claudeUser = (text: string) =>
  line({ type: 'user', uuid: text, timestamp: new Date().toISOString(), sessionId: 's', message: { role: 'user', content: text } });
const boundary = (timestamp = new Date().toISOString()) =>
  line({ type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', timestamp, compactMetadata: { trigger: 'manual' } });

describe('agent hooks: inject only after a confirmed compaction', function () {
  this.timeout(120_000);

  it('a PreCompact whose compaction never happened (scenario E/F) injects nothing, and is superseded by the next', () => {
    for (const agent of ['claude', 'codex']) {
      const root = tmpDir();
      const tp = path.join(root, 't.jsonl');
      fs.writeFileSync(tp, claudeUser('[x] first request'));
      const base = { session_id: 'sess-e', transcript_path: tp, cwd: root };
      assert.equal(hook(agent, 'PreCompact', { ...base, trigger: 'manual' }).code, 0);
      // the summary request failed: no PostCompact, no SessionStart(compact), no compaction record
      for (const [event, extra] of [
        ['UserPromptSubmit', { prompt: 'continue' }],
        ['SessionStart', { source: 'resume' }],
        ['SessionStart', { source: 'startup' }],
        ['UserPromptSubmit', { prompt: 'again' }],
      ] as const) {
        const r = hook(agent, event, { ...base, ...extra });
        assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', ''], `${agent} ${event}`);
      }
      const dir = path.join(root, '.rawr', agent, 'sess-e');
      const first = fs.readdirSync(dir).filter((f) => f.endsWith('.json') && f.startsWith('snapshot-'));
      assert.equal(first.length, 1);
      // a later, real compaction: its own snapshot is injected, once; the unconfirmed one never is
      fs.appendFileSync(tp, claudeUser('[x] second request'));
      assert.equal(hook(agent, 'PreCompact', { ...base, trigger: 'auto' }).code, 0);
      assert.equal(hook(agent, 'PostCompact', { ...base, trigger: 'auto' }).code, 0);
      const texts = [hook(agent, 'SessionStart', { ...base, source: 'compact' }), hook(agent, 'UserPromptSubmit', { ...base, prompt: 'go' })].map(injectedText);
      assert.equal(texts.filter(Boolean).length, 1, `${agent}: exactly one injection`);
      assert.ok(texts[0]!.includes('just before the auto compaction'), 'the confirmed (second) snapshot');
      assert.equal(fs.existsSync(path.join(dir, `${first[0]}.injected`)), false, 'the unconfirmed snapshot is never injected');
      assert.equal(fs.existsSync(path.join(dir, `${first[0]}.confirmed`)), false);
    }
  });

  it('Codex pre-turn compaction fires SessionStart(resume) and SessionStart(compact): still one injection', () => {
    const root = tmpDir();
    const base = { session_id: 'sess-b', transcript_path: path.join(root, 'missing.jsonl'), cwd: root };
    const runs = [
      hook('codex', 'SessionStart', { ...base, source: 'resume' }),
      hook('codex', 'UserPromptSubmit', { ...base, prompt: 'second prompt' }),
      hook('codex', 'PreCompact', { ...base, trigger: 'auto' }),
      hook('codex', 'PostCompact', { ...base, trigger: 'auto' }),
      hook('codex', 'SessionStart', { ...base, source: 'resume' }),
      hook('codex', 'SessionStart', { ...base, source: 'compact' }),
      hook('codex', 'UserPromptSubmit', { ...base, prompt: 'third prompt' }),
    ];
    for (const r of runs) assert.equal(r.code, 0);
    const texts = runs.map(injectedText);
    assert.deepEqual(
      texts.map((t) => t !== undefined),
      [false, false, false, false, false, true, false],
    );
    assert.ok(texts[5]!.includes("rawr's Codex PreCompact hook"));
  });

  it('the transcript confirms by a compaction record after the snapshot offset, or by time when it was replaced', async () => {
    const dir = tmpDir();
    const tp = path.join(dir, 't.jsonl');
    fs.writeFileSync(tp, claudeUser('a') + boundary('2020-01-01T00:00:00.000Z'));
    const offset = fs.statSync(tp).size;
    const takenAt = Date.now();
    assert.equal(await transcriptConfirms('claude', tp, offset, takenAt), false, 'an older boundary does not confirm');
    fs.appendFileSync(tp, claudeUser('b'));
    assert.equal(await transcriptConfirms('claude', tp, offset, takenAt), false);
    fs.appendFileSync(tp, boundary());
    assert.equal(await transcriptConfirms('claude', tp, offset, takenAt), true);
    // replaced by a shorter file: only records at or after the snapshot time count
    fs.writeFileSync(tp, boundary('2020-01-01T00:00:00.000Z'));
    assert.equal(await transcriptConfirms('claude', tp, offset, takenAt), false);
    fs.writeFileSync(tp, boundary(new Date(takenAt + 5).toISOString()));
    assert.equal(await transcriptConfirms('claude', tp, offset, takenAt), true);
    assert.equal(await transcriptConfirms('claude', path.join(dir, 'gone.jsonl'), 0, takenAt), false, 'unreadable: not confirmed');
    // the other agent's records do not count
    assert.equal(hasCompactionRecord('codex', boundary()), false);
    assert.equal(hasCompactionRecord('claude', line({ type: 'compacted', payload: {} })), false);
  });

  it('recognises the compaction records of the real Claude Code 2.1 and Codex 0.171 recordings', function () {
    // Whether a recording compacted is read from its text by an independent pattern (the folders grow,
    // and a new recording need not hold a compaction); at least one of each agent's does.
    const sets = [
      ['claude-code-2.1', 'claude', /"subtype":"compact_boundary"/],
      ['codex-0.171', 'codex', /"type":"compacted"/],
    ] as const;
    for (const [d] of sets) needShared(this, path.join(DATA, d));
    for (const [d, agent, compacted] of sets) {
      const files = fs.readdirSync(path.join(DATA, d)).filter((f) => f.endsWith('.jsonl'));
      assert.ok(files.length > 0, d);
      let withCompaction = 0;
      for (const f of files) {
        const text = fs.readFileSync(path.join(DATA, d, f), 'utf8');
        const records = text
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as unknown);
        assert.equal(
          records.some((r) => isCompactionRecord(agent, r)),
          compacted.test(text),
          `${f}: a compaction record exactly when the text has one`,
        );
        if (!compacted.test(text)) continue;
        withCompaction++;
        // every record before the first compaction record confirms nothing
        const first = records.findIndex((r) => isCompactionRecord(agent, r));
        assert.equal(
          hasCompactionRecord(
            agent,
            records
              .slice(0, first)
              .map((r) => JSON.stringify(r))
              .join('\n'),
          ),
          false,
          f,
        );
      }
      assert.ok(withCompaction > 0, `${d}: no recording with a compaction`);
    }
  });
});

describe('agent hooks: snapshots in the same millisecond (issue 11 item 9)', () => {
  it('never overwrite each other; the last one written is the latest', () => {
    const dir = tmpDir();
    const t = new Date('2026-11-26T10:00:00.123Z');
    const files = Array.from({ length: 12 }, (_, i) => writeSnapshotFile(dir, t, { i }));
    assert.equal(new Set(files).size, 12);
    files.forEach((f, i) => assert.deepEqual(JSON.parse(fs.readFileSync(f, 'utf8')), { i }));
    assert.equal(latestSnapshotFile(dir)?.file, files[11]);
    assert.deepEqual(
      fs.readdirSync(dir).filter((f) => f.endsWith('.tmp')),
      [],
      'no temp files left',
    );
    // a legacy name (no number) of the same millisecond sorts first
    fs.writeFileSync(path.join(dir, 'snapshot-2026-11-26T10-00-00-123Z.json'), '{}');
    assert.equal(latestSnapshotFile(dir)?.file, files[11]);
  });

  it('twenty PreCompact processes at once keep twenty snapshots', async () => {
    const root = tmpDir();
    const { spawn } = await import('node:child_process');
    const runs = await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          new Promise<number | null>((resolve) => {
            const c = spawn(process.execPath, [CLI, 'hooks', 'claude', 'PreCompact'], { cwd: root, env: { ...process.env, GIT_CEILING_DIRECTORIES: TMP } });
            c.on('close', resolve);
            c.stdin.end(JSON.stringify({ session_id: 'same', cwd: root, hook_event_name: 'PreCompact', trigger: 'auto' }));
          }),
      ),
    );
    assert.deepEqual(runs, Array(20).fill(0));
    const snaps = fs.readdirSync(path.join(root, '.rawr/claude/same')).filter((f) => /^snapshot-.*\.json$/.test(f));
    assert.equal(snaps.length, 20);
  });
});

describe('agent hooks: transcripts that are not regular files (issue 11 item 12)', function () {
  this.timeout(60_000);

  it("the snapshot's git state never runs a program the repository's config names (core.fsmonitor)", () => {
    const repo = tmpDir('rawr-fsmonitor-');
    const g = (...a: string[]) => spawnSync('git', a, { cwd: repo, encoding: 'utf8' });
    g('init', '-q');
    const ran = path.join(repo, 'RAN');
    const program = path.join(repo, 'monitor.sh');
    fs.writeFileSync(program, `#!/bin/sh\ntouch '${ran}'\n`, { mode: 0o755 });
    g('config', 'core.fsmonitor', program);
    fs.writeFileSync(path.join(repo, 'a.txt'), 'a\n');
    const state = gitState(repo, 10_000);
    assert.ok(state?.dirty, `git state read: ${JSON.stringify(state)}`);
    assert.ok(!fs.existsSync(ran), "the repository's fsmonitor program ran");
    // the same repository, read by plain git status, does run it: the test can tell
    g('status', '--porcelain');
    assert.ok(fs.existsSync(ran), 'plain git status runs core.fsmonitor (else this test proves nothing)');
  });

  it('a FIFO or /dev/zero as transcript_path: no hang, no memory blow-up, one warning, snapshot without transcript data', function () {
    const root = tmpDir();
    const fifo = path.join(root, 'fifo.jsonl');
    const mk = spawnSync('mkfifo', [fifo]);
    if (mk.status !== 0) {
      if (process.env.CI) assert.fail('mkfifo is not available');
      this.skip();
    }
    for (const [name, tp] of [
      ['fifo', fifo],
      ['zero', '/dev/zero'],
    ] as const) {
      const session = `sess-${name}`;
      const r = hook('claude', 'PreCompact', { session_id: session, transcript_path: tp, cwd: root, trigger: 'auto' });
      assert.equal(r.code, 0, name);
      assert.match(r.stderr, /not a regular file/, name);
      const dir = path.join(root, '.rawr/claude', session);
      const [snap] = fs.readdirSync(dir).filter((f) => /^snapshot-.*\.json$/.test(f));
      const s = JSON.parse(fs.readFileSync(path.join(dir, snap!), 'utf8')) as { transcript: { error?: string } };
      assert.match(s.transcript.error ?? '', /not a regular file/);
      // the confirmation scan of UserPromptSubmit refuses it too: pending, no hang
      const u = hook('claude', 'UserPromptSubmit', { session_id: session, transcript_path: tp, cwd: root });
      assert.deepEqual([u.code, u.stdout], [0, ''], name);
    }
  });

  it('reading a transcript from an offset: regular files only, capped, a replaced (shorter) file noticed', async () => {
    const dir = tmpDir();
    await assert.rejects(readTextFrom('/dev/zero', 0, 1024), /is a character device, not a regular file/);
    await assert.rejects(regularFileSize(dir), /is a directory, not a regular file/);
    const f = path.join(dir, 'f.txt');
    fs.writeFileSync(f, 'line1\nline2\nline3\n');
    assert.equal(await regularFileSize(f), 18);
    assert.deepEqual(await readTextFrom(f, 6, 100), { text: 'line2\nline3\n', size: 18, shrank: false });
    assert.deepEqual(await readTextFrom(f, 6, 3), { text: 'lin', size: 18, shrank: false });
    assert.deepEqual(await readTextFrom(f, 50, 100), { text: '', size: 18, shrank: true });
    fs.symlinkSync(f, path.join(dir, 'link'));
    assert.equal((await readTextFrom(path.join(dir, 'link'), 0, 100)).text, 'line1\nline2\nline3\n', 'a symlink to a regular file is read');
  });
});

describe('hooks claude install --write (issue 11 item 7)', function () {
  this.timeout(60_000);
  const install = (cwd: string, ...extra: string[]) => rawr(['hooks', 'claude', 'install', '--write', ...extra], '', cwd);

  it('keeps the file mode, writes atomically and keeps a backup of the previous version', () => {
    const root = tmpDir();
    fs.mkdirSync(path.join(root, '.claude'));
    const file = path.join(root, '.claude/settings.local.json');
    const before = JSON.stringify({ model: 'opus', env: { SECRET_TOKEN: 'x' } }, null, 2);
    fs.writeFileSync(file, before, { mode: 0o600 });
    fs.chmodSync(file, 0o600);
    const r = install(root);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'mode kept');
    // the backup in rawr's own state folder, never beside the settings (issue 29)
    const backup = path.join(root, '.rawr/claude/backup/settings.local.json.rawr-backup');
    assert.equal(fs.readFileSync(backup, 'utf8'), before, 'backup of the previous version');
    assert.equal(fs.statSync(backup).mode & 0o777, 0o600, 'the backup is as private as the file');
    assert.match(r.stdout, /previous version kept in .*\.rawr\/claude\/backup\/settings\.local\.json\.rawr-backup/);
    assert.deepEqual(fs.readdirSync(path.join(root, '.claude')).sort(), ['settings.local.json'], 'no temp files or backups left beside it');
    assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).env.SECRET_TOKEN, 'x');
  });

  it('refuses a symlinked settings file unless --follow-symlinks, which updates the target and keeps the link', () => {
    const root = tmpDir();
    const elsewhere = tmpDir('rawr-dotfiles-');
    const target = path.join(elsewhere, 'claude-settings.json');
    fs.writeFileSync(target, '{"model":"opus"}\n');
    fs.mkdirSync(path.join(root, '.claude'));
    const link = path.join(root, '.claude/settings.local.json');
    fs.symlinkSync(target, link);
    const refused = install(root);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /is a symlink to .*claude-settings\.json; not replaced/);
    assert.equal(fs.lstatSync(link).isSymbolicLink(), true);
    assert.equal(fs.readFileSync(target, 'utf8'), '{"model":"opus"}\n', 'target untouched');
    const followed = install(root, '--follow-symlinks');
    assert.equal(followed.code, 0, followed.stderr);
    assert.match(followed.stdout, /through the symlink/);
    assert.equal(fs.lstatSync(link).isSymbolicLink(), true, 'still a link');
    assert.ok(JSON.parse(fs.readFileSync(target, 'utf8')).hooks.PreCompact, 'the target got the hooks');
  });

  it('refuses a .claude folder that is a symlink out of the project, and a settings file that is a FIFO', function () {
    const root = tmpDir();
    const elsewhere = tmpDir('rawr-elsewhere-');
    fs.symlinkSync(elsewhere, path.join(root, '.claude'));
    const r = install(root);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /leads outside/);
    assert.deepEqual(fs.readdirSync(elsewhere), []);
    const root2 = tmpDir();
    fs.mkdirSync(path.join(root2, '.claude'));
    if (spawnSync('mkfifo', [path.join(root2, '.claude/settings.local.json')]).status !== 0) {
      if (process.env.CI) assert.fail('mkfifo is not available');
      this.skip();
    }
    const f = install(root2);
    assert.equal(f.code, 1);
    assert.match(f.stderr, /not a regular file/);
  });
});
