/**
 * `.scratch/` is kept out of git: rawr writes `.scratch/.gitignore` (`*`) when absent, never overwrites one
 * that is there, and follows no symlink (real temporary folders, real git where it matters).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { writeScratch } from '../../src/host/tools/rawrTools';
import { checkScratchTarget, ensureScratchFolder, SCRATCH_GITIGNORE } from '../../src/host/tools/scratchFolder';

describe('scratch folder: .scratch/.gitignore', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-scratch-')));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const ws = () => {
    const d = path.join(tmp, 'ws');
    fs.mkdirSync(d, { recursive: true });
    return d;
  };

  it('creating .scratch/ also writes .gitignore containing *, and git then ignores the notes', async () => {
    const root = ws();
    const r = await writeScratch(vscode.Uri.file(root), 'Rawr', { content: 'my notes' });
    assert.deepEqual(r, { ok: true, path: '.scratch/agent-rawr.scratch.md' });
    assert.equal(fs.readFileSync(path.join(root, '.scratch/.gitignore'), 'utf8'), SCRATCH_GITIGNORE);
    assert.equal(fs.readFileSync(path.join(root, '.scratch/agent-rawr.scratch.md'), 'utf8'), 'my notes');
    execFileSync('git', ['init', '-q', root]);
    fs.writeFileSync(path.join(root, 'a.txt'), 'a\n');
    execFileSync('git', ['-C', root, 'add', '-A']);
    const staged = execFileSync('git', ['-C', root, 'diff', '--cached', '--name-only'], { encoding: 'utf8' }).trim().split('\n');
    assert.deepEqual(staged, ['a.txt']);
  });

  it('a .gitignore that is already there is never overwritten; an existing .scratch/ without one gets one', async () => {
    const root = ws();
    fs.mkdirSync(path.join(root, '.scratch'));
    fs.writeFileSync(path.join(root, '.scratch/.gitignore'), '!keep-me\n');
    assert.equal((await ensureScratchFolder(root)).gitignore, 'kept');
    assert.equal((await writeScratch(vscode.Uri.file(root), 'a', { content: 'x' })).ok, true);
    assert.equal(fs.readFileSync(path.join(root, '.scratch/.gitignore'), 'utf8'), '!keep-me\n');

    const other = path.join(tmp, 'other');
    fs.mkdirSync(path.join(other, '.scratch'), { recursive: true });
    const r = await ensureScratchFolder(other);
    assert.deepEqual([r.created, r.gitignore], [false, 'written']);
    assert.equal(fs.readFileSync(path.join(other, '.scratch/.gitignore'), 'utf8'), SCRATCH_GITIGNORE);
    assert.deepEqual([(await ensureScratchFolder(other)).gitignore], ['kept']);
  });

  it('no symlink is followed: not .scratch/, not its .gitignore, not the notes file', async () => {
    const outside = path.join(tmp, 'outside');
    fs.mkdirSync(outside);
    // .scratch is a link to a folder outside the workspace: refused, nothing written there.
    const a = ws();
    fs.symlinkSync(outside, path.join(a, '.scratch'));
    const r = await writeScratch(vscode.Uri.file(a), 'a', { content: 'x' });
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.error : '', /symlink/);
    assert.deepEqual(fs.readdirSync(outside), []);
    // .gitignore is a dangling link to a file outside: left alone, the target is not created.
    const b = path.join(tmp, 'b');
    fs.mkdirSync(path.join(b, '.scratch'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'ignore'), path.join(b, '.scratch/.gitignore'));
    assert.equal((await ensureScratchFolder(b)).gitignore, 'kept');
    assert.equal(fs.existsSync(path.join(outside, 'ignore')), false);
    // The notes file is a link to a file outside: refused, the target unchanged.
    fs.writeFileSync(path.join(outside, 'target'), 'precious\n');
    fs.symlinkSync(path.join(outside, 'target'), path.join(b, '.scratch/agent-a.scratch.md'));
    const w = await writeScratch(vscode.Uri.file(b), 'a', { content: 'x' });
    assert.equal(w.ok, false);
    assert.equal(fs.readFileSync(path.join(outside, 'target'), 'utf8'), 'precious\n');
    // Not a regular file / not a folder: clear messages.
    fs.mkdirSync(path.join(b, '.scratch/agent-d.scratch.md'));
    assert.match((await checkScratchTarget(path.join(b, '.scratch/agent-d.scratch.md'))) ?? '', /not a regular file/);
    const c = path.join(tmp, 'c');
    fs.mkdirSync(c);
    fs.writeFileSync(path.join(c, '.scratch'), 'a file');
    await assert.rejects(ensureScratchFolder(c), /not a folder/);
  });
});
