/**
 * What `rawr hooks claude|codex install` leaves in a person's repository and settings, and that
 * `uninstall` takes exactly that back (issue 29 items 3–4, issue 30 item 4): one test per defect found,
 * each run through the CLI as a person runs it, in a fresh git repository with its own HOME.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sleep } from '../support/until';
import { REFUSE_OPEN_ENV } from '../support/refuseOpen';

const OUT_CLI = path.resolve(__dirname, '../../src/cli/main.js');
const REFUSE_OPEN = path.resolve(__dirname, '../support/refuseOpen.js');
const TMP = fs.realpathSync(os.tmpdir());

/** `.claude/settings.json` as a team commits it: a comment, a trailing comma, their own hook. */
const TEAM_SETTINGS = `{
  // shared by the team: keep the formatter hook
  "permissions": { "allow": ["Bash(npm test)"] },
  "hooks": {
    "PostToolUse": [{ "matcher": "Edit", "hooks": [{ "type": "command", "command": "npx prettier --write ." }] }],
  },
}
`;
/** A person's own `.claude/settings.local.json`: a comment, their own hook. */
const PERSONAL_SETTINGS = `{
  /* mine */
  "model": "opus",
  "hooks": {
    "Stop": [
      { "hooks": [{ "type": "command", "command": "notify-send done" }] } // ping me
    ]
  }
}
`;

interface Repo {
  dir: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

function git(cwd: string, env: NodeJS.ProcessEnv, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, env, encoding: 'utf8' });
  assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** A git repository with `files` committed and `personal` files written after (not committed). */
function repo(files: Record<string, string> = {}, personal: Record<string, string> = {}): Repo {
  const root = fs.mkdtempSync(path.join(TMP, 'rawr-install-'));
  const dir = path.join(root, 'repo');
  const home = path.join(root, 'home');
  fs.mkdirSync(dir);
  fs.mkdirSync(home);
  const env = {
    ...process.env,
    HOME: home,
    GIT_CEILING_DIRECTORIES: root,
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@example.invalid',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@example.invalid',
  };
  git(dir, env, 'init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(dir, 'README.md'), '# demo\n');
  fs.writeFileSync(path.join(dir, '.gitignore'), 'node_modules'); // no newline at the end
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), text);
  }
  git(dir, env, 'add', '-A');
  git(dir, env, 'commit', '-qm', 'init');
  for (const [f, text] of Object.entries(personal)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), text);
  }
  return { dir, home, env };
}

function rawr(r: Repo, args: string[], env: NodeJS.ProcessEnv = r.env) {
  const p = spawnSync(process.execPath, [OUT_CLI, ...args], { cwd: r.dir, env, encoding: 'utf8', timeout: 60_000 });
  return { code: p.status, out: `${p.stdout}${p.stderr}` };
}

/** Every file under `dir` (but .git/objects, logs and the index, which git itself rewrites) with its bytes. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const rel = path.relative(dir, path.join(e.parentPath, e.name));
    if (!e.isFile() || /^\.git\/(objects|logs|index|ORIG_HEAD|FETCH_HEAD|COMMIT_EDITMSG)/.test(rel)) continue;
    out[rel] = fs.readFileSync(path.join(dir, rel), 'utf8');
  }
  return out;
}

/** The CLI while the system refuses every open(2) under `folder` with `code` (refuseOpen.ts: we run as root, chmod stops no write). */
function rawrRefused(r: Repo, args: string[], code: string, folder: string) {
  const env = { ...r.env, [REFUSE_OPEN_ENV]: `${code}:${folder}` };
  const p = spawnSync(process.execPath, ['--require', REFUSE_OPEN, OUT_CLI, ...args], { cwd: r.dir, env, encoding: 'utf8', timeout: 60_000 });
  return { code: p.status, stdout: p.stdout, stderr: p.stderr };
}

/** The repository's `.claude/settings.local.json`, parsed. */
const localSettings = (r: Repo) => JSON.parse(fs.readFileSync(path.join(r.dir, '.claude/settings.local.json'), 'utf8')) as Record<string, unknown>;

const status = (r: Repo) => git(r.dir, r.env, 'status', '--porcelain', '--ignored', '--untracked-files=all');

describe('rawr hooks install/uninstall leave nothing of rawr in the repository (issue 29)', function () {
  this.timeout(120_000);

  it('a JSONC settings file (comments, trailing commas) is edited in place, its comments kept', () => {
    const r = repo({}, { '.claude/settings.local.json': PERSONAL_SETTINGS });
    const i = rawr(r, ['hooks', 'claude', 'install', '--write']);
    assert.equal(i.code, 0, i.out);
    const text = fs.readFileSync(path.join(r.dir, '.claude/settings.local.json'), 'utf8');
    assert.match(text, /\/\* mine \*\//);
    assert.match(text, /\/\/ ping me/);
    assert.match(text, /notify-send done/);
    assert.match(text, /hooks claude PreCompact/);
    assert.match(text, /"autoCompactWindow": 1000000/, "rawr's line: every model's own window, asked from a share of it");
    assert.match(text, /"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "54"/);
  });

  it('a settings file that is not JSON: nothing written, and the text to merge by hand includes autoCompactWindow', () => {
    const r = repo({}, { '.claude/settings.local.json': '{ "model": "opus" oops }\n' }); // personal: untracked (a tracked one is refused before it is read)
    const i = rawr(r, ['hooks', 'claude', 'install', '--write']);
    assert.equal(i.code, 1);
    assert.match(i.out, /not valid JSON/);
    assert.match(i.out, /"autoCompactWindow": 1000000/);
    assert.match(i.out, /"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "54"/);
    assert.equal(fs.readFileSync(path.join(r.dir, '.claude/settings.local.json'), 'utf8'), '{ "model": "opus" oops }\n');
  });

  it("a team's autoCompactWindow in the committed settings.json is kept, and the install says so", () => {
    const r = repo({ '.claude/settings.json': '{\n  // the team threshold\n  "autoCompactWindow": 700000\n}\n' });
    const i = rawr(r, ['hooks', 'claude', 'install', '--write']);
    assert.equal(i.code, 0, i.out);
    const local = localSettings(r);
    assert.equal(local.autoCompactWindow, undefined, 'no personal value that would win over the team');
    assert.match(i.out, /your team's autoCompactWindow in \.claude\/settings\.json \(700000\) is kept/);
    const steer = JSON.parse(fs.readFileSync(path.join(r.dir, '.rawr/claude/steer.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual([steer.steer, steer.autoCompactWindow], [true, null]);
  });

  it('the personal settings are ignored through .git/info/exclude; the tracked .gitignore is untouched; no backup beside the settings', () => {
    const r = repo({}, { '.claude/settings.local.json': PERSONAL_SETTINGS });
    for (const args of [[], ['--no-steer'], []]) assert.equal(rawr(r, ['hooks', 'claude', 'install', '--write', ...args]).code, 0);
    assert.equal(fs.readFileSync(path.join(r.dir, '.gitignore'), 'utf8'), 'node_modules');
    assert.match(fs.readFileSync(path.join(r.dir, '.git/info/exclude'), 'utf8'), /^\/\.claude\/settings\.local\.json$/m);
    assert.deepEqual(fs.readdirSync(path.join(r.dir, '.claude')).sort(), ['settings.local.json'], 'no .rawr-backup beside it');
    assert.equal(git(r.dir, r.env, 'status', '--porcelain'), '', 'git status is clean: nothing to commit');
  });

  it('a .git/info/exclude over 1 MiB is not read whole: install refuses, names the limit, writes nothing', () => {
    const r = repo({}, { '.claude/settings.local.json': PERSONAL_SETTINGS });
    fs.writeFileSync(path.join(r.dir, '.git/info/exclude'), `${'# a line of notes\n'.repeat(70_000)}`); // 1.2 MiB
    const pristine = tree(r.dir);
    const i = rawr(r, ['hooks', 'claude', 'install', '--write']);
    assert.equal(i.code, 1, i.out);
    assert.match(i.out, /exclude is 1\.2 MiB, over rawr's 1 MiB limit for this file\); nothing written/);
    assert.deepEqual(tree(r.dir), pristine, 'the settings write taken back, no .rawr/ left');
  });

  it('in a subfolder of a repository the exclude rule names the path from the top', () => {
    const r = repo({ 'pkg/a/README.md': 'x\n' });
    const sub = { ...r, dir: path.join(r.dir, 'pkg/a') };
    assert.equal(rawr(sub, ['hooks', 'claude', 'install', '--write']).code, 0);
    assert.match(fs.readFileSync(path.join(r.dir, '.git/info/exclude'), 'utf8'), /^\/pkg\/a\/\.claude\/settings\.local\.json$/m);
    assert.equal(git(r.dir, r.env, 'status', '--porcelain'), '');
  });

  for (const [name, files, personal] of [
    ['no settings of its own', { '.claude/settings.json': TEAM_SETTINGS }, {}],
    ['its own commented settings.local.json', { '.claude/settings.json': TEAM_SETTINGS }, { '.claude/settings.local.json': PERSONAL_SETTINGS }],
  ] as const) {
    it(`install, install --no-steer, install, uninstall --purge: every byte back (${name})`, () => {
      const r = repo(files, personal);
      if (Object.keys(personal).length) {
        // the personal file is not committed: ignored the person's own way, so git status starts clean
        fs.appendFileSync(path.join(r.dir, '.git/info/exclude'), '.claude/settings.local.json\n');
      }
      const before = tree(r.dir);
      const statusBefore = status(r);
      for (const args of [[], ['--no-steer'], []]) {
        const i = rawr(r, ['hooks', 'claude', 'install', '--write', ...args]);
        assert.equal(i.code, 0, i.out);
      }
      const u = rawr(r, ['hooks', 'claude', 'uninstall', '--purge']);
      assert.equal(u.code, 0, u.out);
      assert.deepEqual(tree(r.dir), before);
      assert.equal(status(r), statusBefore);
    });
  }

  it('a settings file with a UTF-8 byte-order mark and CRLF lines: install keeps the mark, uninstall gives back every byte', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const own = Buffer.concat([bom, Buffer.from('{ // mine\r\n\t"model": "opus",\r\n\t"env": { "FOO": "1", },\r\n}\r\n')]);
    const r = repo({}, { '.claude/settings.local.json': '' });
    const file = path.join(r.dir, '.claude/settings.local.json');
    fs.writeFileSync(file, own);
    fs.appendFileSync(path.join(r.dir, '.git/info/exclude'), '.claude/settings.local.json\n');
    const i = rawr(r, ['hooks', 'claude', 'install', '--write']);
    assert.equal(i.code, 0, i.out);
    assert.deepEqual(fs.readFileSync(file).subarray(0, 3), bom, 'the mark stays at the start of the edited file');
    assert.match(fs.readFileSync(file, 'utf8'), /hooks claude PreCompact/);
    const u = rawr(r, ['hooks', 'claude', 'uninstall', '--purge']);
    assert.equal(u.code, 0, u.out);
    assert.deepEqual(fs.readFileSync(file), own, 'the same bytes, the mark included');
  });

  it("the person's own compact entries keep their text as written: install and an uninstall after their change reformat none of it", () => {
    const mine = '{"matcher":"Edit","hooks":[{"type":"command","command":"prettier"}]}';
    const own = `{\n  "hooks": {\n    "PostToolUse": [${mine}],\n    "Stop":[]\n  },\n  "env": {"FOO":"1"},\n  /* pinned */ "model":"opus"\n}\n`;
    const r = repo({}, { '.claude/settings.local.json': own });
    const file = path.join(r.dir, '.claude/settings.local.json');
    const i = rawr(r, ['hooks', 'claude', 'install', '--write']);
    assert.equal(i.code, 0, i.out);
    const installed = fs.readFileSync(file, 'utf8');
    for (const text of [`"PostToolUse": [${mine},`, '"Stop":[]', '"env": {"FOO":"1",', '/* pinned */ "model":"opus",'])
      assert.ok(installed.includes(text), `${JSON.stringify(text)} kept as written in:\n${installed}`);
    assert.match(installed, /^ {6}\{\n {8}"matcher": "",\n/m, "rawr's own entry laid out like the file");
    fs.writeFileSync(file, installed.replace('"Stop":[]', '"Stop":[ ]')); // the person's change: uninstall edits what is there
    const u = rawr(r, ['hooks', 'claude', 'uninstall']);
    assert.equal(u.code, 0, u.out);
    assert.equal(fs.readFileSync(file, 'utf8'), own.replace('"Stop":[]', '"Stop":[ ]'));
  });

  it("the person's empty event list that rawr filled is theirs again after an uninstall that follows their change; no backup named that uninstall deletes", () => {
    const own = '{\n  "hooks": {\n    "PreCompact": []\n  },\n  "model": "opus"\n}\n';
    const r = repo({}, { '.claude/settings.local.json': own });
    const file = path.join(r.dir, '.claude/settings.local.json');
    assert.equal(rawr(r, ['hooks', 'claude', 'install', '--write']).code, 0);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"opus"', '"sonnet"'));
    const u = rawr(r, ['hooks', 'claude', 'uninstall']);
    assert.equal(u.code, 0, u.out);
    assert.equal(fs.readFileSync(file, 'utf8'), own.replace('"opus"', '"sonnet"'));
    assert.doesNotMatch(u.out, /previous version kept/, 'uninstall deletes its backups: it must not point to one');
  });

  it("after the person changed the settings, uninstall removes only rawr's entries and rawr's autoCompactWindow; without --purge the session state stays", () => {
    const r = repo({ '.rawr/prompts/rawr-auto-compact.md': '# team prompts\n' });
    assert.equal(rawr(r, ['hooks', 'claude', 'install', '--write']).code, 0);
    const file = path.join(r.dir, '.claude/settings.local.json');
    const text = fs.readFileSync(file, 'utf8').replace('{\n', '{\n  // added later\n  "model": "sonnet",\n');
    fs.writeFileSync(file, text);
    fs.mkdirSync(path.join(r.dir, '.rawr/claude/some-session'));
    const u = rawr(r, ['hooks', 'claude', 'uninstall']);
    assert.equal(u.code, 0, u.out);
    assert.equal(fs.readFileSync(file, 'utf8'), '{\n  // added later\n  "model": "sonnet"\n}\n');
    assert.ok(fs.existsSync(path.join(r.dir, '.rawr/claude/some-session')), 'session state kept without --purge');
    assert.ok(!fs.existsSync(path.join(r.dir, '.rawr/claude/steer.json')), 'steering off');
    assert.equal(rawr(r, ['hooks', 'claude', 'uninstall', '--purge']).code, 0);
    assert.ok(!fs.existsSync(path.join(r.dir, '.rawr/claude')));
    assert.equal(fs.readFileSync(path.join(r.dir, '.rawr/prompts/rawr-auto-compact.md'), 'utf8'), '# team prompts\n', "the team's .rawr/prompts stays");
    assert.doesNotMatch(fs.readFileSync(path.join(r.dir, '.git/info/exclude'), 'utf8'), /settings\.local/);
  });

  it("the person's change between two installs survives the uninstall: the second install does not take the file for rawr's own", () => {
    // The record keeps the file as it was before the first install only while the file is as rawr wrote it:
    // once the person has changed it, uninstall must remove rawr's entries, never put the old bytes back.
    const r = repo({}, { '.claude/settings.local.json': PERSONAL_SETTINGS });
    const file = path.join(r.dir, '.claude/settings.local.json');
    assert.equal(rawr(r, ['hooks', 'claude', 'install', '--write']).code, 0);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"opus"', '"sonnet"'));
    assert.equal(rawr(r, ['hooks', 'claude', 'install', '--write', '--no-steer']).code, 0);
    const u = rawr(r, ['hooks', 'claude', 'uninstall']);
    assert.equal(u.code, 0, u.out);
    assert.equal(fs.readFileSync(file, 'utf8'), PERSONAL_SETTINGS.replace('"opus"', '"sonnet"'));
  });

  it("the person's own autoCompactWindow survives install and uninstall, also when it is the value rawr would write (1M)", () => {
    for (const theirs of [400000, 1000000]) {
      const own = `{ "autoCompactWindow": ${theirs} }\n`;
      const r = repo({}, { '.claude/settings.local.json': own });
      fs.appendFileSync(path.join(r.dir, '.git/info/exclude'), '.claude/\n');
      const before = tree(r.dir);
      const i = rawr(r, ['hooks', 'claude', 'install', '--write']);
      assert.match(i.out, new RegExp(`your autoCompactWindow ${theirs} is kept`));
      assert.equal(localSettings(r).autoCompactWindow, theirs);
      fs.appendFileSync(path.join(r.dir, '.claude/settings.local.json'), '\n'); // changed since: removed by what it is
      const u = rawr(r, ['hooks', 'claude', 'uninstall', '--purge']);
      assert.equal(u.code, 0, u.out);
      assert.deepEqual(tree(r.dir), { ...before, '.claude/settings.local.json': `${own}\n` }, `${theirs}`);
    }
  });

  it('an install waits for the install lock another install holds, and writes nothing before it has it (issue 30)', async () => {
    const r = repo();
    // Another install in the middle of its work: the lock held by a live process (this one).
    const lock = path.join(r.dir, '.rawr/claude/install.lock');
    fs.mkdirSync(path.dirname(lock), { recursive: true });
    fs.writeFileSync(lock, `${process.pid}\n`);
    let exited: number | null | undefined;
    const c = spawn(process.execPath, [OUT_CLI, 'hooks', 'claude', 'install', '--write'], { cwd: r.dir, env: r.env, stdio: 'ignore' });
    const done = new Promise<void>((resolve) =>
      c.on('close', (code) => {
        exited = code;
        resolve();
      }),
    );
    // Long enough for an install that does not wait (~0.3 s here) to have written its settings.
    await sleep(2_000);
    assert.equal(exited, undefined, 'the install waits while the lock is held');
    assert.equal(fs.existsSync(path.join(r.dir, '.claude/settings.local.json')), false, 'nothing written before it holds the lock');
    assert.equal(fs.existsSync(path.join(r.dir, '.rawr/claude/steer.json')), false, 'no steering record either');
    fs.unlinkSync(lock);
    await done;
    assert.equal(exited, 0);
    const local = localSettings(r);
    // What it wrote is what it recorded as its own (so --no-steer and uninstall take back exactly that).
    const steer = JSON.parse(fs.readFileSync(path.join(r.dir, '.rawr/claude/steer.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(typeof local.autoCompactWindow, 'number');
    assert.equal(local.autoCompactWindow, steer.autoCompactWindow);
    assert.equal(fs.existsSync(lock), false, 'the lock released');
  });

  it('12 installs at once (half --no-steer) leave no orphaned autoCompactWindow, and one uninstall removes everything', async () => {
    const r = repo();
    const runs = Array.from(
      { length: 12 },
      (_, k) =>
        new Promise<number | null>((resolve) => {
          const c = spawn(process.execPath, [OUT_CLI, 'hooks', 'claude', 'install', '--write', ...(k % 2 ? ['--no-steer'] : [])], {
            cwd: r.dir,
            env: r.env,
            stdio: 'ignore',
          });
          c.on('close', resolve);
        }),
    );
    assert.deepEqual(await Promise.all(runs), Array(12).fill(0));
    const local = localSettings(r);
    const steer = JSON.parse(fs.readFileSync(path.join(r.dir, '.rawr/claude/steer.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(
      local.autoCompactWindow ?? null,
      steer.autoCompactWindow,
      `settings and steer.json agree: ${JSON.stringify([local.autoCompactWindow, steer])}`,
    );
    assert.equal(rawr(r, ['hooks', 'claude', 'install', '--write', '--no-steer']).code, 0);
    assert.equal(localSettings(r).autoCompactWindow, undefined);
    assert.equal(rawr(r, ['hooks', 'claude', 'uninstall', '--purge']).code, 0);
    assert.deepEqual(fs.readdirSync(r.dir).sort(), ['.git', '.gitignore', 'README.md']);
  });

  it("from a checkout's compiled CLI, install writes the fast hook (the bash client of dist/), not node out/…/main.js", () => {
    const r = repo();
    assert.equal(rawr(r, ['hooks', 'claude', 'install', '--write']).code, 0);
    const text = fs.readFileSync(path.join(r.dir, '.claude/settings.local.json'), 'utf8');
    assert.match(text, /bash -p \S*\/dist\/hook\.sh \S+ hooks claude PreCompact/);
    assert.doesNotMatch(text, /out\/src\/cli\/main\.js/);
  });

  it('Codex: install --trust then uninstall leaves $CODEX_HOME byte for byte as it was', () => {
    const r = repo();
    const codexHome = path.join(r.home, '.codex');
    fs.mkdirSync(codexHome);
    fs.writeFileSync(path.join(codexHome, 'config.toml'), '# mine\nmodel = "o3"\n');
    const before = tree(codexHome);
    const i = rawr(r, ['hooks', 'codex', 'install', '--write', '--trust']);
    assert.equal(i.code, 0, i.out);
    assert.match(fs.readFileSync(path.join(codexHome, 'config.toml'), 'utf8'), /trusted_hash/);
    const u = rawr(r, ['hooks', 'codex', 'uninstall']);
    assert.equal(u.code, 0, u.out);
    assert.deepEqual(tree(codexHome), before);
  });

  it('Codex: where $CODEX_HOME did not exist, install --trust then uninstall leaves no folder behind', () => {
    const r = repo();
    const homeBefore = fs.readdirSync(r.home).sort();
    const i = rawr(r, ['hooks', 'codex', 'install', '--write', '--trust']);
    assert.equal(i.code, 0, i.out);
    assert.ok(fs.existsSync(path.join(r.home, '.codex', 'hooks.json')));
    const u = rawr(r, ['hooks', 'codex', 'uninstall']);
    assert.equal(u.code, 0, u.out);
    assert.deepEqual(fs.readdirSync(r.home).sort(), homeBefore, 'no empty ~/.codex left: rawr created it');
    // The person's own ~/.codex, empty as they made it, is theirs: it stays.
    fs.mkdirSync(path.join(r.home, '.codex'));
    assert.equal(rawr(r, ['hooks', 'codex', 'install', '--write', '--trust']).code, 0);
    assert.equal(rawr(r, ['hooks', 'codex', 'uninstall']).code, 0);
    assert.deepEqual(fs.readdirSync(path.join(r.home, '.codex')), [], 'their empty ~/.codex is still there');
  });

  it("a percentage the person set after rawr's install is theirs: a second install keeps it and says so, and uninstall leaves it", () => {
    const r = repo();
    const file = path.join(r.dir, '.claude/settings.local.json');
    assert.equal(rawr(r, ['hooks', 'claude', 'install', '--write']).code, 0);
    assert.deepEqual(localSettings(r).env, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '54' }, "rawr's own");
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"54"', '"70"'));
    const again = rawr(r, ['hooks', 'claude', 'install', '--write']);
    assert.match(again.out, /your CLAUDE_AUTOCOMPACT_PCT_OVERRIDE in \.claude\/settings\.local\.json \(70\) is kept/);
    assert.deepEqual(localSettings(r).env, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '70' });
    const u = rawr(r, ['hooks', 'claude', 'uninstall']);
    assert.equal(u.code, 0, u.out);
    assert.deepEqual(localSettings(r), { env: { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '70' } }, "rawr's window and hooks gone, their percentage kept");
  });

  it('what install cannot do (a .rawr that is a file, a Codex home inside it) is one line and exit 1, never a stack trace', () => {
    const r = repo();
    fs.writeFileSync(path.join(r.dir, '.rawr'), 'mine\n');
    const before = tree(r.dir);
    for (const [args, env, said] of [
      [['hooks', 'claude', 'install', '--write'], r.env, /^rawr hooks claude install: .*\.rawr is not a folder/m],
      [['hooks', 'codex', 'install', '--write'], { ...r.env, CODEX_HOME: path.join(r.dir, '.rawr', 'codex') }, /^rawr hooks codex install: .*not a directory/m],
    ] as const) {
      const u = rawr(r, [...args], env);
      assert.equal(u.code, 1, `${args.join(' ')}: ${u.out}`);
      assert.match(u.out, said, args.join(' '));
      assert.doesNotMatch(u.out, /^\s+at /m, `${args.join(' ')}: no stack trace`);
    }
    assert.deepEqual(tree(r.dir), before);
  });

  it('a write the system refuses (.git/info/exclude on install; the settings or the exclude on uninstall): exit 1, one line on stderr naming the file and why, nothing changed', () => {
    for (const [code, said] of [
      ['EACCES', /permission denied/],
      ['EROFS', /the file system is read-only/],
      ['ENOSPC', /no space left on the device/],
    ] as const) {
      const r = repo({ '.claude/settings.json': TEAM_SETTINGS }, { '.claude/settings.local.json': PERSONAL_SETTINGS });
      const exclude = path.join(r.dir, '.git/info/exclude');
      const pristine = tree(r.dir);
      const statusBefore = status(r);
      const i = rawrRefused(r, ['hooks', 'claude', 'install', '--write'], code, path.join(r.dir, '.git/info') + path.sep);
      assert.equal(i.code, 1, `${code}: ${i.stdout}${i.stderr}`);
      assert.equal(i.stdout, '', code);
      assert.match(i.stderr, new RegExp(`^rawr: cannot write ${exclude.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: [^\n]*nothing written[^\n]*\n$`), code);
      assert.match(i.stderr, said, code);
      assert.deepEqual(tree(r.dir), pristine, `${code}: the settings write taken back, no .rawr/ left`);
      assert.equal(status(r), statusBefore, code);

      assert.equal(rawr(r, ['hooks', 'claude', 'install', '--write']).code, 0);
      const installed = tree(r.dir);
      for (const [where, file] of [
        ['.claude', '.claude/settings.local.json'],
        ['.git/info', '.git/info/exclude'],
      ] as const) {
        const u = rawrRefused(r, ['hooks', 'claude', 'uninstall'], code, path.join(r.dir, where) + path.sep);
        assert.equal(u.code, 1, `${code} in ${where}: ${u.stdout}${u.stderr}`);
        assert.equal(u.stdout, '', `${code} in ${where}`);
        assert.equal(u.stderr.split('\n').length, 2, `one line: ${u.stderr}`);
        assert.ok(u.stderr.startsWith(`rawr: cannot write ${path.join(r.dir, file)}: `), u.stderr);
        assert.match(u.stderr, said, `${code} in ${where}`);
        assert.match(u.stderr, /nothing removed/, `${code} in ${where}`);
        assert.deepEqual(tree(r.dir), installed, `${code} in ${where}: nothing half-removed`);
      }
      const u = rawr(r, ['hooks', 'claude', 'uninstall', '--purge']);
      assert.equal(u.code, 0, u.out);
      assert.deepEqual(tree(r.dir), pristine, `${code}: after the refusals, uninstall still gives every byte back`);
    }
  });

  it('a command line install or uninstall cannot run is a usage error (exit 2, the message and the usage), and writes nothing', () => {
    const r = repo();
    const before = tree(r.dir);
    for (const [args, message] of [
      [['hooks', 'claude', 'install', '--write', '--no-hooks', '--no-steer'], /--no-hooks with --no-steer leaves nothing to install/],
      [['hooks', 'claude', 'install', '--no-steer', '--no-hooks'], /--no-hooks with --no-steer leaves nothing to install/],
      [['hooks', 'claude', 'install', '--write', '--frob'], /unknown argument --frob/],
      [['hooks', 'claude', 'install', '--window', 'lots'], /--window needs a number of tokens/],
      [['hooks', 'claude', 'uninstall', '--frob'], /unknown argument --frob/],
      [['hooks', 'codex', 'install', '--trust'], /--trust needs --write/],
    ] as const) {
      const u = rawr(r, [...args]);
      assert.equal(u.code, 2, `${args.join(' ')}: ${u.out}`);
      assert.match(u.out, message, args.join(' '));
      assert.match(u.out, /\n {7}rawr hooks claude install \[--write/, `the usage follows: ${args.join(' ')}`);
    }
    assert.deepEqual(tree(r.dir), before, 'nothing written');
    assert.deepEqual(fs.readdirSync(r.home), [], 'nothing in HOME');
  });

  it('Codex: without HOME or CODEX_HOME, nothing is written', () => {
    const r = repo();
    const { HOME: _home, CODEX_HOME: _codex, ...noHome } = r.env;
    const n = rawr(r, ['hooks', 'codex', 'install', '--write'], noHome);
    assert.equal(n.code, 1);
    assert.match(n.out, /neither CODEX_HOME nor HOME is set/);
  });
});
