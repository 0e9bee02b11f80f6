/**
 * Hostile files rawr reads (issue 11, items 1, 3, 11, 13): prompt overrides and transcripts that are
 * symlinks to devices, FIFOs, UTF-16, all-invalid, or YAML alias bombs. Each must end in a clear message
 * and a safe default (or a non-zero exit for the CLI), never a hang, a crash or an exhausted memory.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseFrontmatter } from '../../src/core/prompts/frontmatter';
import { FALLBACK_BODIES } from '../../src/core/prompts/fallbacks';
import { dirReader, loadPromptDirs, shippedPromptsDir } from '../../src/core/prompts/fs';
import { loadPromptSet } from '../../src/core/prompts/promptSet';
import { DEFAULT_SETTINGS } from '../../src/core/settings/schema';

const CLI = path.resolve(__dirname, '../../src/cli/main.js');
const posix = process.platform !== 'win32';

/** The CLI with a hard timeout: a hang is a failure, not a stuck test run. */
function rawr(...args: string[]) {
  const r = spawnSync(process.execPath, ['--max-old-space-size=256', CLI, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** A YAML "billion laughs": 10 levels of 9 aliases each. */
function aliasBomb(): string {
  const lines = ['a: &a [x, x, x, x, x, x, x, x, x]'];
  let prev = 'a';
  for (const name of 'bcdefghij') {
    lines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(', ')}]`);
    prev = name;
  }
  return `---\n${lines.join('\n')}\n---\nWrite the packet.\n`;
}

const CLAUDE_LINE = JSON.stringify({
  type: 'user',
  uuid: 'u1',
  sessionId: 's',
  timestamp: '2026-01-01T00:00:00.000Z',
  message: { role: 'user', content: 'Build the rate limiter, phase by phase.' },
});

describe('hardening: prompt files', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-harden-prompts-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a YAML alias bomb in frontmatter is a located problem, not a throw', () => {
    let parsed: ReturnType<typeof parseFrontmatter> | undefined;
    assert.doesNotThrow(() => (parsed = parseFrontmatter(aliasBomb(), 'bomb.md')));
    assert.equal(parsed!.data, undefined);
    assert.equal(parsed!.body, 'Write the packet.\n');
    assert.match(parsed!.problems[0]!.message, /alias/i);
    fs.writeFileSync(path.join(dir, 'rawr-auto-compact.md'), aliasBomb());
    const set = loadPromptSet([dirReader(dir), dirReader(shippedPromptsDir())]);
    assert.deepEqual(set.settings, DEFAULT_SETTINGS, 'the settings fall back to the defaults');
    assert.ok(set.problems.some((p) => /alias/i.test(p.message) && p.severity === 'error'));
  });

  it('a committed symlink to /dev/zero, a FIFO or a directory is reported; the shipped text is used', async function () {
    if (!posix) this.skip();
    fs.symlinkSync('/dev/zero', path.join(dir, 'rawr-auto-compact.md'));
    spawnSync('mkfifo', [path.join(dir, 'rawr-heads-up.md')]);
    fs.mkdirSync(path.join(dir, 'rawr-handoff.md'));
    fs.writeFileSync(path.join(dir, 'rawr-scratch-write.md'), 'x'.repeat(300 * 1024));
    for (const set of [await loadPromptDirs([dir, shippedPromptsDir()]), loadPromptSet([dirReader(dir), dirReader(shippedPromptsDir())])]) {
      const messages = set.problems.map((p) => p.message).join('\n');
      assert.match(messages, /rawr-auto-compact\.md is a character device, not a regular file/);
      assert.match(messages, /rawr-heads-up\.md is a FIFO \(named pipe\), not a regular file/);
      assert.match(messages, /rawr-handoff\.md is a directory, not a regular file/);
      assert.match(messages, /rawr-scratch-write\.md is 300 KiB, over rawr's 256 KiB limit/);
      assert.deepEqual(set.settings, DEFAULT_SETTINGS);
      assert.equal(set.sources.packetRequest, path.join(shippedPromptsDir(), 'rawr-auto-compact.md'));
      assert.notEqual(set.prompts.headsUp, FALLBACK_BODIES.headsUp);
    }
  });

  it('prompt overrides are read without blocking the event loop', async () => {
    fs.writeFileSync(path.join(dir, 'rawr-auto-compact.md'), '---\ncooldown_turns: 5\n---\nWrite the packet.\n');
    let ticked = false;
    setImmediate(() => (ticked = true));
    const pending = loadPromptDirs([dir, shippedPromptsDir()]);
    assert.equal(ticked, false);
    const set = await pending;
    assert.equal(ticked, true, 'the event loop ran while the files were read');
    assert.equal(set.settings.cooldown_turns, 5);
  });
});

describe('hardening: rawr replay on hostile files', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-harden-replay-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a FIFO is refused at once (no hang), with exit 1', function () {
    if (!posix) this.skip();
    const fifo = path.join(dir, 'session.jsonl');
    spawnSync('mkfifo', [fifo]);
    const r = rawr('replay', fifo);
    assert.equal(r.signal, null, 'no timeout');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /is a FIFO \(named pipe\), not a regular file/);
  });

  it('/dev/zero is refused (no endless read), with exit 1', function () {
    if (!posix) this.skip();
    const r = rawr('replay', '/dev/zero');
    assert.equal(r.signal, null);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /character device, not a regular file/);
  });

  it('a file whose every record is invalid is an error, not "no compaction needed"', () => {
    const file = path.join(dir, 'bad.jsonl');
    fs.writeFileSync(
      file,
      `${CLAUDE_LINE.replace('"content":"Build', '"content":7,"x":"Build')}\n{"type":"user","uuid":"u2","message":{"content":42}}\nnot json\n`,
    );
    const r = rawr('replay', file, '--format', 'claude');
    assert.equal(r.code, 1, r.stdout);
    assert.doesNotMatch(r.stdout, /VERDICT/);
    assert.match(r.stderr, /no record could be read as claude \(3 problems; first: line 1: /);
  });

  it('a UTF-8 byte-order mark does not cost line 1; UTF-16 is named as such', () => {
    const file = path.join(dir, 'bom.jsonl');
    fs.writeFileSync(file, `\ufeff${CLAUDE_LINE}\n`);
    const r = rawr('replay', file, '--json');
    assert.equal(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout.trim().split('\n').pop()!) as { format: string; problems: number };
    assert.equal(summary.format, 'claude');
    assert.equal(summary.problems, 0);
    const utf16 = path.join(dir, 'utf16.jsonl');
    fs.writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${CLAUDE_LINE}\n`, 'utf16le')]));
    const u = rawr('replay', utf16);
    assert.equal(u.code, 1);
    assert.match(u.stderr, /is UTF-16 LE text; rawr reads UTF-8/);
  });

  it('a --prompts folder that does not exist (or is a file) is a usage error', () => {
    const file = path.join(dir, 'ok.jsonl');
    fs.writeFileSync(file, `${CLAUDE_LINE}\n`);
    const missing = rawr('replay', file, '--prompts', path.join(dir, 'no-such-folder'));
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--prompts: prompt folder .*no-such-folder does not exist/);
    const notDir = rawr('replay', file, '--prompts', file);
    assert.equal(notDir.code, 2);
    assert.match(notDir.stderr, /is not a folder/);
  });
});
