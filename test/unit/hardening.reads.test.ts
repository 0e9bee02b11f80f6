/**
 * Every file rawr reads from a place a cloned repository controls is a regular file within a cap, read
 * without blocking (docs/robustness.md, "Files rawr reads"): the reads that went around safeRead, each
 * given what a repository can commit where a small text file is expected — a FIFO (which would hang a
 * plain open for ever: raced against a guard here, see hostileFiles.ts), a link to /dev/zero, a folder,
 * a file over the cap.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { FileTail } from '../../src/host/follow/tail';
import { readHead } from '../../src/host/follow/discover';
import { withAttachments } from '../../src/host/participant/attachments';
import { gitBranchOf, MAX_GIT_POINTER_BYTES } from '../../src/host/participant/agentPrompt';
import { HUNG, mkfifo, posix, releaseFifo, unlessHung } from '../support/hostileFiles';

const TMP = fs.realpathSync(os.tmpdir());

describe('hardening: reads of repository files go through safeRead', function () {
  let dir: string;
  const fifos: string[] = [];
  const fifo = (file: string) => {
    mkfifo(file);
    fifos.push(file);
    return file;
  };
  beforeEach(function () {
    if (!posix) this.skip(); // FIFOs and /dev/zero: POSIX only (Windows has neither to hang on)
    dir = fs.mkdtempSync(path.join(TMP, 'rawr-reads-'));
  });
  afterEach(() => {
    for (const f of fifos.splice(0)) releaseFifo(f); // a reader the code under test left stuck (a failure) is let go
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('the git branch in the agent prompt (.git, .git/HEAD)', () => {
    const gitDir = () => path.join(dir, '.git');
    const head = (text: string) => {
      fs.mkdirSync(gitDir(), { recursive: true });
      fs.writeFileSync(path.join(gitDir(), 'HEAD'), text);
    };

    it('a branch and a detached HEAD read as before', async () => {
      head('ref: refs/heads/feature/x\n');
      assert.equal(await gitBranchOf(dir), 'feature/x');
      head('0123456789abcdef0123456789abcdef01234567\n');
      assert.equal(await gitBranchOf(dir), '(detached at 01234567)');
    });

    it('HEAD that is a FIFO: no branch, at once (the prompt of every @rawr turn waited on it for ever)', async () => {
      fs.mkdirSync(gitDir());
      fifo(path.join(gitDir(), 'HEAD'));
      assert.equal(await unlessHung(gitBranchOf(dir)), undefined);
    });

    it('a .git file that is a FIFO, HEAD a link to /dev/zero or a folder: no branch', async () => {
      fifo(gitDir());
      assert.equal(await unlessHung(gitBranchOf(dir)), undefined);
      fs.rmSync(gitDir());
      fs.mkdirSync(gitDir());
      fs.symlinkSync('/dev/zero', path.join(gitDir(), 'HEAD'));
      assert.equal(await unlessHung(gitBranchOf(dir)), undefined);
      fs.rmSync(path.join(gitDir(), 'HEAD'));
      fs.mkdirSync(path.join(gitDir(), 'HEAD'));
      assert.equal(await gitBranchOf(dir), undefined);
    });

    it('HEAD over its cap is not read (a huge file would be read whole): no branch', async () => {
      head(`ref: refs/heads/main${' '.repeat(MAX_GIT_POINTER_BYTES)}\n`);
      assert.equal(await gitBranchOf(dir), undefined);
      head(`ref: refs/heads/main${' '.repeat(MAX_GIT_POINTER_BYTES - 40)}\n`);
      assert.equal(await gitBranchOf(dir), 'main', 'within the cap it is read as before');
    });

    it('a worktree\'s "gitdir:" is followed into git\'s own layout; one pointing elsewhere is not', async () => {
      const main = path.join(dir, 'main');
      const wt = path.join(dir, 'wt');
      fs.mkdirSync(path.join(main, '.git', 'worktrees', 'wt'), { recursive: true });
      fs.writeFileSync(path.join(main, '.git', 'worktrees', 'wt', 'HEAD'), 'ref: refs/heads/side\n');
      fs.mkdirSync(wt);
      fs.writeFileSync(path.join(wt, '.git'), `gitdir: ${path.join(main, '.git', 'worktrees', 'wt')}\n`);
      assert.equal(await gitBranchOf(wt), 'side');
      const elsewhere = path.join(dir, 'elsewhere');
      fs.mkdirSync(elsewhere);
      fs.writeFileSync(path.join(elsewhere, 'HEAD'), 'ref: refs/heads/read-outside\n');
      fs.writeFileSync(path.join(wt, '.git'), `gitdir: ${elsewhere}\n`);
      assert.equal(await gitBranchOf(wt), undefined, 'a committed .git file cannot point rawr at any folder');
      fs.writeFileSync(path.join(wt, '.git'), `gitdir: .inside\n`);
      fs.mkdirSync(path.join(wt, '.inside'));
      fs.writeFileSync(path.join(wt, '.inside', 'HEAD'), 'ref: refs/heads/in\n');
      assert.equal(await gitBranchOf(wt), 'in', 'a gitdir inside the folder is followed');
    });
  });

  describe('an attachment from another file system (not file:)', () => {
    const model = { maxInputTokens: 100_000, countTokens: async (t: string) => Math.ceil(t.length / 4) } as unknown as vscode.LanguageModelChat;
    const attach = (file: string) =>
      withAttachments(
        {
          prompt: 'look',
          references: [{ id: 'a', value: vscode.Uri.from({ scheme: 'vscode-remote', path: file }) }],
          toolReferences: [],
        } as unknown as vscode.ChatRequest,
        model,
        new vscode.CancellationTokenSource().token,
      );

    it('a FIFO is named as not a regular file, at once (the whole-file read waited on it for ever)', async () => {
      const r = await unlessHung(attach(fifo(path.join(dir, 'notes.md'))));
      assert.notEqual(r, HUNG, 'the attachment read hung on a FIFO');
      assert.deepEqual(r === HUNG ? [] : r.lines, ['✗ Could not attach a: not a regular file']);
    });

    it('a file over the 2 MB cap is refused before it is read; a folder is named; a small file is attached', async () => {
      const big = path.join(dir, 'big.bin');
      fs.writeFileSync(big, '');
      fs.truncateSync(big, 3 * 1024 * 1024 * 1024); // sparse: 3 GB the old read would have loaded whole
      assert.deepEqual((await attach(big)).lines, ['✗ Could not attach a: larger than the 2 MB rawr reads']);
      fs.mkdirSync(path.join(dir, 'folder'));
      assert.deepEqual((await attach(path.join(dir, 'folder'))).lines, ['✗ Could not attach a: a folder, not a file']);
      fs.writeFileSync(path.join(dir, 'ok.md'), 'hello\n');
      const ok = await attach(path.join(dir, 'ok.md'));
      assert.match(ok.text, /1\| hello/);
    });
  });

  describe('a session file the person picks to follow', () => {
    it('readHead of a FIFO is empty, at once', async () => {
      assert.equal(await unlessHung(readHead(fifo(path.join(dir, 'session.jsonl')), 64 * 1024)), '');
    });

    it('the tail of a FIFO is refused as not a regular file, at once', async () => {
      const tail = new FileTail(fifo(path.join(dir, 'session.jsonl')));
      const r = await unlessHung(
        tail.read().then(
          () => 'read',
          (err: Error) => err.message,
        ),
      );
      assert.match(String(r), /is not a regular file/);
    });

    it('a regular session file reads as before', async () => {
      const file = path.join(dir, 'ok.jsonl');
      fs.writeFileSync(file, '{"a":1}\n');
      assert.equal(await readHead(file, 64 * 1024), '{"a":1}\n');
      assert.deepEqual(await new FileTail(file).read(), { text: '{"a":1}\n', reset: false, more: false });
    });
  });
});
