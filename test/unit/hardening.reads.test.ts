/**
 * Every file rawr reads from a place a cloned repository controls is a regular file within a cap, read
 * without blocking (docs/robustness.md, "Files rawr reads"): the reads that went around safeRead, each
 * given what a repository can commit where a small text file is expected — a FIFO (which would hang a
 * plain open for ever: raced against a guard here, see hostileFiles.ts), a link to /dev/zero, a folder,
 * a file over the cap.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { FileTail } from '../../src/host/follow/tail';
import { readHead } from '../../src/host/follow/discover';
import { withAttachments } from '../../src/host/participant/attachments';
import { gitBranchOf, MAX_GIT_POINTER_BYTES } from '../../src/host/participant/agentPrompt';
import { HANG_GUARD_MS, HUNG, mkfifo, posix, releaseFifo, unlessHung } from '../support/hostileFiles';

const TMP = fs.realpathSync(os.tmpdir());
const OUT = path.resolve(__dirname, '../..');
const CLI = path.join(OUT, 'src/cli/main.js');

/**
 * A synchronous read (the CLI, install) stuck on a FIFO blocks its whole process: it runs in a child,
 * stopped at the guard (then `status` is null and the test fails on that, not on a time).
 */
function child(args: string[], cwd: string, home: string) {
  const r = spawnSync(process.execPath, args, { cwd, env: { ...process.env, HOME: home }, encoding: 'utf8', timeout: HANG_GUARD_MS });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

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
  describe("install's own files in the project (.rawr/claude/: the record, the lock, the backups)", function () {
    this.timeout(4 * HANG_GUARD_MS);
    let project: string;
    let home: string;
    const install = () => child([CLI, 'hooks', 'claude', 'install', '--write'], project, home);
    beforeEach(() => {
      project = path.join(dir, 'project');
      home = path.join(dir, 'home');
      fs.mkdirSync(path.join(project, '.rawr', 'claude', 'backup'), { recursive: true });
      fs.mkdirSync(home);
    });

    it('an install.lock that is a FIFO or a link to /dev/zero: install stops at once and says what it is', () => {
      const lock = fifo(path.join(project, '.rawr', 'claude', 'install.lock'));
      let r = install();
      assert.equal(r.status, 1, `install did not end (or ended otherwise): ${r.out}`);
      assert.match(r.out, /install\.lock is a FIFO \(named pipe\), not a regular file.*remove it, then try again/);
      assert.equal(fs.existsSync(path.join(project, '.claude')), false, 'nothing written');
      fs.rmSync(lock);
      fs.symlinkSync('/dev/zero', lock);
      r = install();
      assert.equal(r.status, 1, r.out);
      assert.match(r.out, /install\.lock is a character device, not a regular file/);
    });

    it('an install.json that is a FIFO is no record (as an unreadable one): install goes on and writes a real one', () => {
      fifo(path.join(project, '.rawr', 'claude', 'install.json'));
      const r = install();
      assert.equal(r.status, 0, r.out);
      assert.ok(fs.lstatSync(path.join(project, '.rawr', 'claude', 'install.json')).isFile());
      assert.match(fs.readFileSync(path.join(project, '.claude', 'settings.local.json'), 'utf8'), /PreCompact/);
    });

    it('a backup of the settings that is a FIFO: install refuses, names it, and leaves the settings as they were', () => {
      fs.mkdirSync(path.join(project, '.claude'));
      fs.writeFileSync(path.join(project, '.claude', 'settings.local.json'), '{"model":"opus"}\n');
      fifo(path.join(project, '.rawr', 'claude', 'backup', 'settings.local.json.rawr-backup'));
      const r = install();
      assert.equal(r.status, 1, r.out);
      assert.match(r.out, /settings\.local\.json\.rawr-backup is a FIFO \(named pipe\), not a regular file; rawr reads only regular files; nothing written/);
      assert.equal(fs.readFileSync(path.join(project, '.claude', 'settings.local.json'), 'utf8'), '{"model":"opus"}\n');
    });

    it('settings.local.json of 1 GB (sparse), or a link to /dev/zero followed on request: refused, named, nothing written', () => {
      const settings = path.join(project, '.claude', 'settings.local.json');
      fs.mkdirSync(path.dirname(settings));
      fs.writeFileSync(settings, '');
      fs.truncateSync(settings, 1024 * 1024 * 1024);
      let r = install();
      assert.equal(r.status, 1, r.out);
      assert.match(r.out, /settings\.local\.json is 1024 MiB, over rawr's 4 MiB limit/);
      fs.rmSync(settings);
      fs.symlinkSync('/dev/zero', settings);
      r = child([CLI, 'hooks', 'claude', 'install', '--write', '--follow-symlinks'], project, home);
      assert.equal(r.status, 1, r.out);
      assert.match(r.out, /\/dev\/zero is a character device, not a regular file/);
      assert.equal(fs.readlinkSync(settings), '/dev/zero', 'the link is left as it was');
    });

    it('replaceFile and removeFile (the exclude file, a settings file) refuse a FIFO, a folder, a file over 4 MiB; a regular file as before', () => {
      const f = (name: string) => path.join(dir, name);
      fifo(f('fifo'));
      fs.mkdirSync(f('folder'));
      fs.writeFileSync(f('huge'), '');
      fs.truncateSync(f('huge'), 4 * 1024 * 1024 + 1);
      fs.writeFileSync(f('plain'), 'a\n');
      fs.writeFileSync(f('gone'), 'b\n');
      const script = `
        const { replaceFile, removeFile } = require(${JSON.stringify(path.join(OUT, 'src/core/hooks/shared/configFile.js'))});
        const { UndoLog } = require(${JSON.stringify(path.join(OUT, 'src/core/hooks/shared/undoLog.js'))});
        const said = (fn) => { try { fn(); return 'done'; } catch (e) { return e.message; } };
        const undo = new UndoLog();
        console.log(JSON.stringify([
          said(() => replaceFile(${JSON.stringify(f('fifo'))}, 'x', undo)),
          said(() => removeFile(${JSON.stringify(f('fifo'))}, undo)),
          said(() => replaceFile(${JSON.stringify(f('folder'))}, 'x', undo)),
          said(() => replaceFile(${JSON.stringify(f('huge'))}, 'x', undo)),
          said(() => removeFile(${JSON.stringify(f('huge'))}, undo)),
          said(() => replaceFile(${JSON.stringify(f('plain'))}, 'c\\n', undo)),
          said(() => removeFile(${JSON.stringify(f('gone'))}, undo)),
        ]));
        undo.rollback();`;
      const r = child(['-e', script], dir, dir);
      assert.equal(r.status, 0, `the child did not end: ${r.out}`);
      const [fifoReplace, fifoRemove, folder, hugeReplace, hugeRemove, plain, gone] = JSON.parse(r.out) as string[];
      assert.match(fifoReplace!, /fifo is a FIFO \(named pipe\), not a regular file.*nothing written/);
      assert.match(fifoRemove!, /fifo is a FIFO \(named pipe\), not a regular file.*nothing written/);
      assert.match(folder!, /folder is a directory, not a regular file/);
      assert.match(hugeReplace!, /huge is 4\.0 MiB, over rawr's 4 MiB limit/);
      assert.match(hugeRemove!, /huge is 4\.0 MiB, over rawr's 4 MiB limit/);
      assert.deepEqual([plain, gone], ['done', 'done']);
      assert.ok(fs.lstatSync(f('fifo')).isFIFO() && fs.statSync(f('huge')).size === 4 * 1024 * 1024 + 1, 'what was refused is left as it was');
      assert.equal(fs.readFileSync(f('plain'), 'utf8'), 'a\n', 'the undo put the bytes back');
      assert.equal(fs.readFileSync(f('gone'), 'utf8'), 'b\n');
    });
  });
});
