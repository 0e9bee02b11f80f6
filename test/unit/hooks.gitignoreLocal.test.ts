/**
 * The one line rawr adds to git's personal ignore file (`.git/info/exclude`) so that the settings holding
 * this machine's paths never show in `git status` or a commit, and how uninstall takes exactly that line
 * back (gitignoreLocal.ts), in real repositories made by real git. hooks.install drives the same through
 * the CLI; these reach the cases a person's own edits of the exclude file make.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ignoreLocalSettings, unignoreLocalSettings, type IgnoreAdded } from '../../src/core/hooks/shared/gitignoreLocal';
import { UndoLog } from '../../src/core/hooks/shared/undoLog';

const REL = '.claude/settings.local.json';

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

/**
 * The git that rawr runs inherits this process's environment: a developer's own global ignore file (say
 * `.claude/` in ~/.config/git/ignore) would answer "already ignored". Each test sees none.
 */
const ISOLATED = ['HOME', 'XDG_CONFIG_HOME', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_NOSYSTEM'] as const;

/** `ignoreLocalSettings` that must add its rule: what it added. */
function ignore(dir: string, undo = new UndoLog()): IgnoreAdded {
  const r = ignoreLocalSettings(dir, REL, undo);
  assert.ok(r.ok && r.added, JSON.stringify(r));
  return r.added;
}

describe('gitignoreLocal: the personal ignore rule and taking it back', function () {
  this.timeout(30_000);
  let dir = '';
  let exclude = '';
  let saved: Record<string, string | undefined> = {};
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'rawr-exclude-'));
    saved = Object.fromEntries(ISOLATED.map((k) => [k, process.env[k]]));
    Object.assign(process.env, { HOME: dir, XDG_CONFIG_HOME: path.join(dir, '.config'), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' });
    git(dir, 'init', '-q');
    exclude = path.join(dir, '.git/info/exclude');
  });
  afterEach(() => {
    for (const k of ISOLATED)
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('appends the rule (after a newline where the file lacked one), git then ignores the settings, and taking it back gives every byte back', () => {
    fs.writeFileSync(exclude, '# mine\n*.log'); // no newline at the end
    const before = fs.readFileSync(exclude);
    const added = ignore(dir);
    assert.deepEqual(added, { file: exclude, appended: `\n/${REL}\n`, rule: `/${REL}` });
    assert.equal(fs.readFileSync(exclude, 'utf8'), `# mine\n*.log\n/${REL}\n`);
    fs.mkdirSync(path.join(dir, '.claude'));
    fs.writeFileSync(path.join(dir, REL), '{}');
    assert.equal(git(dir, 'status', '--porcelain'), '', 'the settings do not show in git status');
    assert.equal(unignoreLocalSettings(added, new UndoLog()), `rawr: removed /${REL} from ${exclude}`);
    assert.deepEqual(fs.readFileSync(exclude), before);
  });

  it('in a subfolder the rule names the path from the top; already ignored (by any rule) or outside a work tree: nothing added', () => {
    const sub = path.join(dir, 'pkg/app');
    fs.mkdirSync(sub, { recursive: true });
    assert.equal(ignore(sub).rule, `/pkg/app/${REL}`);
    assert.deepEqual(ignoreLocalSettings(sub, REL, new UndoLog()), { ok: true, line: null }, 'the rule is there now');
    fs.writeFileSync(path.join(dir, '.gitignore'), 'settings.local.json\n');
    assert.deepEqual(ignoreLocalSettings(dir, REL, new UndoLog()), { ok: true, line: null }, "the team's own rule covers it");
    const outside = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'rawr-no-git-'));
    try {
      assert.deepEqual(ignoreLocalSettings(outside, REL, new UndoLog()), { ok: true, line: null });
      assert.ok(!fs.existsSync(path.join(outside, '.git')));
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it("the person's lines after rawr's rule stay when it is taken back; a rule they removed themselves is not looked for twice", () => {
    fs.writeFileSync(exclude, '# mine\n');
    const added = ignore(dir);
    fs.appendFileSync(exclude, 'build/\n');
    unignoreLocalSettings(added, new UndoLog());
    assert.equal(fs.readFileSync(exclude, 'utf8'), '# mine\nbuild/\n');
    fs.writeFileSync(exclude, '# mine\ndist/\n');
    assert.equal(unignoreLocalSettings(added, new UndoLog()), null);
    assert.equal(fs.readFileSync(exclude, 'utf8'), '# mine\ndist/\n', 'untouched');
  });

  it('an exclude file rawr created goes when it is empty again; one the person had stays, even emptied', () => {
    fs.rmSync(exclude);
    const created = ignore(dir);
    assert.equal(created.created, true);
    unignoreLocalSettings(created, new UndoLog());
    assert.ok(!fs.existsSync(exclude), 'created by rawr, removed by rawr');
    fs.writeFileSync(exclude, '');
    const theirs = ignore(dir);
    assert.equal(theirs.created, undefined);
    unignoreLocalSettings(theirs, new UndoLog());
    assert.equal(fs.readFileSync(exclude, 'utf8'), '', 'their empty file is still there');
  });

  it('an exclude that is a symlink: install is refused with the rule to add by hand, and nothing is written through it', () => {
    const target = path.join(dir, 'elsewhere');
    fs.writeFileSync(target, 'x\n');
    fs.rmSync(exclude);
    fs.symlinkSync(target, exclude);
    const r = ignoreLocalSettings(dir, REL, new UndoLog());
    assert.equal(r.ok, false);
    assert.match(r.line, /exclude is not a regular file; nothing written: add \/\.claude\/settings\.local\.json to your ignore rules yourself/);
    assert.equal(fs.readFileSync(target, 'utf8'), 'x\n');
    const added: IgnoreAdded = { file: exclude, appended: `/${REL}\n`, rule: `/${REL}` };
    fs.writeFileSync(target, `x\n/${REL}\n`);
    assert.equal(unignoreLocalSettings(added, new UndoLog()), null, 'nor on the way back');
    assert.equal(fs.readFileSync(target, 'utf8'), `x\n/${REL}\n`);
    // A folder there breaks git itself ("cannot use .git/info/exclude as an exclude file"): git cannot say, rawr leaves it.
    fs.rmSync(exclude);
    fs.mkdirSync(exclude);
    assert.deepEqual(ignoreLocalSettings(dir, REL, new UndoLog()), { ok: true, line: null });
    assert.deepEqual(fs.readdirSync(exclude), []);
  });

  it('an install rolled back (a later write refused) takes the rule and the info folder rawr made with it', () => {
    fs.rmSync(path.join(dir, '.git/info'), { recursive: true });
    const undo = new UndoLog();
    ignore(dir, undo);
    assert.ok(fs.existsSync(exclude));
    assert.deepEqual(undo.rollback(), []);
    assert.ok(!fs.existsSync(path.join(dir, '.git/info')), 'the folder rawr made is gone with its file');
  });
});
