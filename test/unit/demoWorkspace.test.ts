/** `npm start`'s demo workspace (scripts/demoWorkspace.cjs) starts clean: committed, nothing for `git status`. */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const { createDemoWorkspace } = require(resolve(__dirname, '../../../scripts/demoWorkspace.cjs')) as {
  createDemoWorkspace: (ws: string, extra?: Record<string, string>) => string | undefined;
};

describe('npm start: the demo workspace', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'rawr-demo-test-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('is a git repo with one commit and a clean working tree (no settings file left uncommitted)', () => {
    const ws = join(root, 'workspace');
    assert.equal(createDemoWorkspace(ws, { 'docs/notes.md': '# notes\n' }), undefined);
    const git = (...a: string[]) => execFileSync('git', a, { cwd: ws, encoding: 'utf8' }).trim();
    assert.equal(git('rev-list', '--count', 'HEAD'), '1');
    assert.equal(git('status', '--porcelain', '--untracked-files=all'), '');
    assert.deepEqual(git('ls-files').split('\n').sort(), ['README.md', 'docs/limiter-spec.md', 'docs/notes.md']);
    assert.ok(!existsSync(join(ws, '.vscode')), 'no workspace settings: the demo configures its throw-away user profile');
    assert.match(readFileSync(join(ws, 'README.md'), 'utf8'), /@rawr Build a token-bucket rate limiter/);
  });

  it('start.mjs writes the demo model settings to the user profile, not the workspace', () => {
    const start = readFileSync(resolve(__dirname, '../../../scripts/start.mjs'), 'utf8');
    assert.doesNotMatch(start, /D\.ws, '\.vscode/);
    assert.match(start, /path\.join\(D\.ud, 'User\/settings\.json'\)[\s\S]{0,400}'rawr\.openai\.baseUrl'/);
  });
});
