/**
 * "Rawr: Install / Remove Claude Code Hooks" and "… Codex Hooks" (src/host/hooks/installCommands.ts) as a
 * person meets them in the editor, through the registered commands and the `vscode` shim's windows: what
 * they write into a fresh git repository (and its team's and the person's own settings files, with a BOM,
 * CRLF and comments), what Remove gives back (every byte and file mode of the tree, `.git` included), what
 * each notification says, and the windows where there is nothing to do (no folder, a dismissed folder
 * pick, Restricted Mode, nothing installed). The real-VS-Code tier (test/vscode/suite/hooksInstall.test.js)
 * runs the installed hook commands.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { registerHookInstallCommands } from '../../src/host/hooks/installCommands';
import { refuseOpenUnder } from '../support/refuseOpen';

type Shown = { kind: 'info' | 'warn' | 'error'; text: string };
type Result = { ok: boolean; lines: string[] };

/** Every file and folder under `dir` with its mode (and a file's hash): equal trees are byte- and mode-identical. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const st = fs.lstatSync(p);
      const rel = path.relative(dir, p);
      if (st.isDirectory()) {
        out[`${rel}/`] = st.mode.toString(8);
        walk(p);
      } else out[rel] = `${st.mode.toString(8)} ${crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex')}`;
    }
  };
  walk(dir);
  return out;
}

describe('agent-hook commands in the editor (install and remove, as a person runs them)', function () {
  this.timeout(60_000);
  const win = vscode.window as unknown as Record<string, unknown>;
  const ws = vscode.workspace as unknown as { workspaceFolders: unknown; isTrusted: boolean };
  const saved = { ...win };
  const savedEnv = { HOME: process.env.HOME, CODEX_HOME: process.env.CODEX_HOME };
  let tmp = '';
  let shown: Shown[] = [];
  let pick: string | undefined;

  before(() => {
    tmp = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'rawr-cmds-'));
    process.env.HOME = path.join(tmp, 'home');
    delete process.env.CODEX_HOME;
    fs.mkdirSync(process.env.HOME);
    const say = (kind: Shown['kind']) => async (text: string) => {
      shown.push({ kind, text });
      return kind === 'warn' ? pick : undefined;
    };
    win.showInformationMessage = say('info');
    win.showWarningMessage = say('warn');
    win.showErrorMessage = say('error');
    win.showWorkspaceFolderPick = async () => undefined; // the person dismisses the pick
    const context = {
      subscriptions: [] as Array<{ dispose(): unknown }>,
      globalStorageUri: { fsPath: path.join(tmp, 'globalStorage') },
      extensionPath: path.resolve(__dirname, '../../..'),
      extension: { id: 'rawr.rawr' },
    };
    const log = { info: () => undefined, warn: () => undefined };
    registerHookInstallCommands(context as unknown as vscode.ExtensionContext, log as unknown as vscode.LogOutputChannel);
  });
  after(() => {
    Object.assign(win, saved);
    ws.workspaceFolders = undefined;
    ws.isTrusted = true;
    process.env.HOME = savedEnv.HOME;
    if (savedEnv.CODEX_HOME !== undefined) process.env.CODEX_HOME = savedEnv.CODEX_HOME;
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  beforeEach(() => {
    shown = [];
    pick = undefined;
    ws.workspaceFolders = undefined;
    ws.isTrusted = true;
  });

  /** `fn` with a ~/.codex of the person's own (hooks.json, config.toml), `before` its snapshot; removed after. */
  const inCodexHome = async (fn: (codex: string, home: string, before: Record<string, string>) => Promise<void>) => {
    const home = process.env.HOME!;
    const codex = path.join(home, '.codex');
    fs.mkdirSync(codex, { mode: 0o700 });
    fs.writeFileSync(path.join(codex, 'hooks.json'), '{\n  "hooks": {}\n}\n', { mode: 0o600 });
    fs.writeFileSync(path.join(codex, 'config.toml'), 'model = "o3"\n', { mode: 0o600 });
    try {
      await fn(codex, home, snapshot(home));
    } finally {
      fs.rmSync(codex, { recursive: true, force: true });
    }
  };
  const run = async (id: string, args?: Record<string, unknown>) => (await vscode.commands.executeCommand(id, args)) as Result;
  /**
   * `fn` while the system refuses every open(2) under `folder` with `code` (refuseOpen.ts: we run as root, chmod
   * stops no write); `thenAlso`: and, once one was refused, every open under that path too.
   */
  const refused = async <T>(folder: string, code: string, fn: () => Promise<T>, o: { thenAlso?: string } = {}): Promise<T> => {
    const lift = refuseOpenUnder(folder, code, o);
    try {
      return await fn();
    } finally {
      lift();
    }
  };
  /**
   * A Remove the system refuses (open(2) under `refuse`): one error naming `file` and why, and `root` as
   * installed (nothing half-removed, the record kept); once the system lets it, the same Remove gives `pristine` back.
   */
  const refusedRemove = async (o: {
    id: string;
    args: Record<string, unknown>;
    root: string;
    pristine: Record<string, string>;
    refuse: string;
    code: string;
    said: RegExp;
    file: string;
    what: string;
  }) => {
    const installed = snapshot(o.root);
    shown = [];
    const name = `${o.code} at ${o.refuse}`;
    const r = await refused(o.refuse, o.code, () => run(o.id, o.args));
    assert.equal(r.ok, false, name);
    assert.equal(r.lines.length, 1, `${name}: one sentence: ${r.lines.join('\n')}`);
    assert.equal(shown.at(-1)!.kind, 'error', name);
    const text = shown.at(-1)!.text;
    assert.ok(text.startsWith(`Rawr: ${o.what} not removed: cannot write ${o.file}: `), text);
    assert.match(text, o.said, name);
    assert.match(text, /nothing removed/, name);
    assert.deepEqual(snapshot(o.root), installed, `${name}: nothing half-removed`);
    assert.ok((await run(o.id, o.args)).ok, name);
    assert.deepEqual(snapshot(o.root), o.pristine, name);
  };
  /** The refusals a person meets, and the words rawr says them in. */
  const REFUSALS = [
    ['EACCES', /permission denied/],
    ['EROFS', /the file system is read-only/],
    ['ENOSPC', /no space left on the device/],
  ] as const;
  const folders = (...dirs: string[]) => (ws.workspaceFolders = dirs.map((d, index) => ({ uri: vscode.Uri.file(d), name: path.basename(d), index })));
  const gitRepo = (name: string) => {
    const dir = path.join(tmp, name);
    fs.mkdirSync(dir, { recursive: true });
    const git = (...a: string[]) => execFileSync('git', a, { cwd: dir, encoding: 'utf8' });
    git('init', '-q');
    git('config', 'user.email', 'dev@example.com');
    git('config', 'user.name', 'dev');
    return { dir, git };
  };

  it("install leaves the team's file and git status alone, says how to undo in the editor's words; remove restores every byte", async () => {
    const { dir, git } = gitRepo('team');
    fs.mkdirSync(path.join(dir, '.claude'));
    const team =
      '\ufeff{\r\n  // the team\'s\r\n  "permissions": { "allow": ["Bash(ls)"] },\r\n  "hooks": { "Stop": [{ "hooks": [{ "type": "command", "command": "echo team" }] }] }\r\n}\r\n';
    fs.writeFileSync(path.join(dir, '.claude/settings.json'), team);
    const mine =
      '\ufeff{\r\n  // mine\r\n  "hooks": { "PreCompact": [{ "hooks": [{ "type": "command", "command": "echo mine" }] }] },\r\n  "model": "opus", // trailing comma next\r\n}\r\n';
    fs.writeFileSync(path.join(dir, '.claude/settings.local.json'), mine, { mode: 0o600 });
    fs.writeFileSync(path.join(dir, '.gitignore'), '/.claude/settings.local.json\n');
    git('add', '.');
    git('commit', '-qm', 'team settings');
    const before = snapshot(dir);
    folders(dir);

    const r = await run('rawr.installClaudeHooks');
    assert.ok(r.ok, r.lines.join('\n'));
    assert.equal(git('status', '--porcelain'), '', 'nothing of rawr shows up for a commit');
    assert.equal(fs.readFileSync(path.join(dir, '.claude/settings.json'), 'utf8'), team, "the team's file is untouched");
    const installed = shown.find((s) => s.kind === 'info')?.text ?? '';
    assert.match(installed, /^Rawr: Claude Code hooks installed\. /);
    assert.match(installed, /\.claude\/settings\.local\.json/, 'says where');
    assert.match(installed, /Remove them: run Rawr: Remove Claude Code Hooks\./, 'says how to undo, in the editor');
    assert.match(installed, /Start a new Claude Code session/, 'says what to do next');
    assert.doesNotMatch(installed, /rawr hooks claude uninstall|install --write/, 'no CLI command a VS Code user may not have');

    const u = await run('rawr.uninstallClaudeHooks', { purge: false });
    assert.ok(u.ok, u.lines.join('\n'));
    assert.match(shown.at(-1)!.text, /^Rawr: Claude Code hooks removed\. /);
    assert.deepEqual(snapshot(dir), before, 'every byte and mode is back, .git included');
  });

  it('in a fresh repository with no .claude/, remove takes back the folder, the exclude line and its own state', async () => {
    const { dir, git } = gitRepo('fresh');
    fs.writeFileSync(path.join(dir, 'a.txt'), 'a\n');
    git('add', '.');
    git('commit', '-qm', 'a');
    const before = snapshot(dir);
    assert.ok((await run('rawr.installClaudeHooks', { folder: dir })).ok);
    assert.equal(git('status', '--porcelain'), '');
    assert.ok((await run('rawr.uninstallClaudeHooks', { folder: dir, purge: false })).ok);
    assert.deepEqual(snapshot(dir), before);
  });

  it('kept session state: the notification says how to remove it from the editor, not with a CLI flag', async () => {
    const { dir } = gitRepo('state');
    assert.ok((await run('rawr.installClaudeHooks', { folder: dir })).ok);
    fs.writeFileSync(path.join(dir, '.rawr/claude/snapshot-1.json'), '{}');
    shown = [];
    assert.ok((await run('rawr.uninstallClaudeHooks', { folder: dir, purge: false })).ok);
    const text = shown.at(-1)!.text;
    assert.match(text, /session state kept in .*Remove hooks and state/);
    assert.doesNotMatch(text, /--purge/);
  });

  it('Remove with no folder open says to open one (not silence)', async () => {
    const r = await run('rawr.uninstallClaudeHooks');
    assert.equal(r.ok, false);
    assert.equal(shown.length, 1, JSON.stringify(shown));
    assert.match(shown[0]!.text, /open the project folder first/);
    const i = await run('rawr.installClaudeHooks');
    assert.equal(i.ok, false);
    assert.match(shown.at(-1)!.text, /open a folder first/);
  });

  it('a multi-root window whose folder pick is dismissed: nothing written, and no "open a folder first"', async () => {
    const a = gitRepo('multi-a').dir;
    const b = gitRepo('multi-b').dir;
    folders(a, b);
    const before = [snapshot(a), snapshot(b)];
    assert.equal((await run('rawr.installClaudeHooks')).ok, false);
    assert.equal((await run('rawr.uninstallClaudeHooks')).ok, false);
    assert.deepEqual(shown, [], 'dismissing the pick is the person’s own choice: no message contradicting it');
    assert.deepEqual([snapshot(a), snapshot(b)], before);
  });

  it('Remove where nothing is installed does not claim "removed"', async () => {
    const { dir } = gitRepo('nothing');
    const before = snapshot(dir);
    const r = await run('rawr.uninstallClaudeHooks', { folder: dir, purge: false });
    assert.ok(r.ok);
    assert.doesNotMatch(shown.at(-1)!.text, /hooks removed/);
    assert.match(shown.at(-1)!.text, /nothing removed/);
    assert.deepEqual(snapshot(dir), before);
  });

  it('a refused install leaves no trace and says why in a sentence (not valid JSON, a folder where the file goes, a .rawr that is a file)', async () => {
    const cases: Array<[string, (dir: string) => void, RegExp]> = [
      [
        'bad-json',
        (d) => {
          fs.mkdirSync(path.join(d, '.claude'));
          fs.writeFileSync(path.join(d, '.claude/settings.local.json'), '{ "model": ');
        },
        /is not valid JSON .*nothing written.*The full text is in the Rawr output/,
      ],
      ['local-is-dir', (d) => fs.mkdirSync(path.join(d, '.claude/settings.local.json'), { recursive: true }), /is a directory, not a regular file/],
      ['rawr-is-file', (d) => fs.writeFileSync(path.join(d, '.rawr'), 'mine\n'), /\.rawr is not a folder/],
    ];
    for (const [name, setup, said] of cases) {
      const { dir } = gitRepo(`refused-${name}`);
      setup(dir);
      const before = snapshot(dir);
      shown = [];
      const r = await run('rawr.installClaudeHooks', { folder: dir });
      assert.equal(r.ok, false, name);
      assert.equal(shown.length, 1, `${name}: ${JSON.stringify(shown)}`);
      assert.equal(shown[0]!.kind, 'error', name);
      assert.match(shown[0]!.text, /^Rawr: Claude Code hooks not installed: /, name);
      assert.match(shown[0]!.text, said, name);
      assert.doesNotMatch(shown[0]!.text, /\n/, `${name}: one paragraph, the JSON to merge is in the output`);
      assert.doesNotMatch(shown[0]!.text, /hooks in /, `${name}: a refusal does not read as where the hooks went`);
      assert.deepEqual(snapshot(dir), before, `${name}: nothing half-written (no .rawr/claude left behind)`);
    }
  });

  it('a .claude/settings.local.json the team committed: nothing written (git would show and commit it), and the notification says so', async () => {
    const { dir, git } = gitRepo('tracked-local');
    fs.mkdirSync(path.join(dir, '.claude'));
    fs.writeFileSync(path.join(dir, '.claude/settings.local.json'), '{ "model": "opus" }\n');
    git('add', '.');
    git('commit', '-qm', 'committed by mistake');
    const before = snapshot(dir);
    const r = await run('rawr.installClaudeHooks', { folder: dir });
    assert.equal(r.ok, false);
    assert.equal(git('status', '--porcelain'), '');
    assert.match(shown.at(-1)!.text, /^Rawr: Claude Code hooks not installed: .*tracked by git.*git rm --cached \.claude\/settings\.local\.json/);
    assert.deepEqual(snapshot(dir), before);
  });

  it('Restricted Mode: both installs refuse with a warning that says why and how, and write nothing', async () => {
    const { dir } = gitRepo('restricted');
    const before = snapshot(dir);
    const home = snapshot(process.env.HOME!);
    ws.isTrusted = false;
    for (const id of ['rawr.installClaudeHooks', 'rawr.installCodexHooks']) {
      const r = await run(id, { folder: dir, trust: true });
      assert.equal(r.ok, false);
      assert.equal(shown.at(-1)!.kind, 'warn');
      assert.match(shown.at(-1)!.text, /Restricted Mode.*Manage Workspace Trust/);
    }
    assert.deepEqual(snapshot(dir), before);
    assert.deepEqual(snapshot(process.env.HOME!), home);
  });

  it('Codex: install into ~/.codex says how to undo; remove gives the home back byte for byte', async () => {
    const home = process.env.HOME!;
    fs.mkdirSync(path.join(home, '.codex'), { mode: 0o700 });
    fs.writeFileSync(path.join(home, '.codex/config.toml'), '# mine\r\nmodel = "o3"\r\n', { mode: 0o600 });
    const before = snapshot(home);
    const r = await run('rawr.installCodexHooks', { trust: true });
    assert.ok(r.ok, r.lines.join('\n'));
    const installed = shown.at(-1)!.text;
    assert.match(installed, /hooks\.json/);
    assert.match(installed, /Remove them: run Rawr: Remove Codex Hooks\./);
    assert.ok((await run('rawr.uninstallCodexHooks', { purge: false })).ok);
    assert.deepEqual(snapshot(home), before);
  });
  it('Codex: a refused install (hooks.json not valid JSON, or not a JSON object) leaves ~/.codex byte for byte as it was, no .rawr in it', async () => {
    const home = process.env.HOME!;
    const codex = path.join(home, '.codex');
    for (const [text, said] of [
      ['{ "hooks": ', /is not valid JSON/],
      ['[]\n', /not a JSON object/],
    ] as const) {
      fs.rmSync(codex, { recursive: true, force: true });
      fs.mkdirSync(codex, { mode: 0o700 });
      fs.writeFileSync(path.join(codex, 'hooks.json'), text, { mode: 0o600 });
      const before = snapshot(home);
      shown = [];
      const r = await run('rawr.installCodexHooks', { trust: true });
      assert.equal(r.ok, false);
      assert.match(shown.at(-1)!.text, /^Rawr: Codex hooks not installed: /);
      assert.match(shown.at(-1)!.text, said);
      assert.deepEqual(snapshot(home), before, 'no ~/.codex/.rawr (record, lock, backup) left by a refused install');
    }
    fs.rmSync(codex, { recursive: true, force: true });
  });
  it('Codex: "Remove hooks and state" in a multi-root window asks about and clears every folder that has Codex state, and says so', async () => {
    const home = process.env.HOME!;
    const a = gitRepo('codex-multi-a').dir;
    const b = gitRepo('codex-multi-b').dir;
    const c = gitRepo('codex-multi-c').dir; // no Codex state: not named, untouched
    fs.mkdirSync(path.join(a, '.rawr/codex/s1'), { recursive: true });
    fs.mkdirSync(path.join(b, '.rawr/codex/s2'), { recursive: true });
    fs.mkdirSync(path.join(b, '.rawr/prompts'), { recursive: true }); // the team's prompts stay
    const cBefore = snapshot(c);
    const homeBefore = snapshot(home);
    folders(a, b, c);
    assert.ok((await run('rawr.installCodexHooks', { trust: false })).ok);
    shown = [];
    pick = 'Remove hooks and state';
    const r = await run('rawr.uninstallCodexHooks');
    assert.ok(r.ok, r.lines.join('\n'));
    const question = shown.find((s) => s.kind === 'warn')!.text;
    assert.ok(question.includes(path.join(a, '.rawr', 'codex')) && question.includes(path.join(b, '.rawr', 'codex')), question);
    assert.ok(!question.includes(c), `a folder without Codex state is not named: ${question}`);
    assert.ok(!fs.existsSync(path.join(a, '.rawr')), 'the first folder: its .rawr (only Codex state) is gone');
    assert.deepEqual(fs.readdirSync(path.join(b, '.rawr')), ['prompts'], 'the second folder: Codex state gone, the prompts kept');
    assert.deepEqual(snapshot(c), cBefore);
    assert.deepEqual(snapshot(home), homeBefore);
    const result = shown.at(-1)!.text;
    assert.match(result, /^Rawr: Codex hooks removed\. /);
    assert.ok(result.includes(`removed ${path.join(a, '.rawr', 'codex')}`) && result.includes(`removed ${path.join(b, '.rawr', 'codex')}`), result);
  });

  it('Codex: Remove where no folder has Codex state does not offer to remove state', async () => {
    const a = gitRepo('codex-nostate').dir;
    folders(a);
    assert.ok((await run('rawr.installCodexHooks', { trust: false })).ok);
    shown = [];
    pick = 'Remove hooks';
    assert.ok((await run('rawr.uninstallCodexHooks')).ok);
    const question = shown.find((s) => s.kind === 'warn')!.text;
    assert.match(question, /No session state of rawr's in this window's folders/);
    assert.doesNotMatch(question, /can go too/);
  });
  describe('a symlinked settings file (a dotfiles repository): the editor asks, since it has no --follow-symlinks', () => {
    const dotfiles = () => {
      const d = path.join(tmp, 'dotfiles');
      fs.mkdirSync(d, { recursive: true });
      return d;
    };
    const linkedRepo = (name: string) => {
      const { dir } = gitRepo(name);
      const target = path.join(dotfiles(), `${name}.json`);
      fs.writeFileSync(target, '{\n  // mine, shared across machines\n  "model": "opus"\n}\n', { mode: 0o640 });
      fs.mkdirSync(path.join(dir, '.claude'));
      fs.symlinkSync(target, path.join(dir, '.claude/settings.local.json'));
      return { dir, target };
    };
    const noCliFlag = () => assert.ok(!shown.some((s) => s.text.includes('--follow-symlinks')), `no CLI flag in the editor: ${JSON.stringify(shown)}`);

    it('Claude Code: the question names the link and its target; dismissing it writes nothing and says nothing more', async () => {
      const { dir, target } = linkedRepo('link-dismiss');
      const before = [snapshot(dir), snapshot(dotfiles())];
      const r = await run('rawr.installClaudeHooks', { folder: dir });
      assert.equal(r.ok, false);
      assert.equal(shown.length, 1, JSON.stringify(shown));
      assert.equal(shown[0]!.kind, 'warn');
      assert.ok(shown[0]!.text.includes(`${path.join(dir, '.claude/settings.local.json')} is a symlink to ${target}`), shown[0]!.text);
      assert.match(shown[0]!.text, /replace the link with a copy of the file/);
      noCliFlag();
      assert.deepEqual([snapshot(dir), snapshot(dotfiles())], before);
    });

    it('Claude Code: "Write through the symlink" installs into the target, the link stays; Remove gives every byte back', async () => {
      const { dir, target } = linkedRepo('link-through');
      const before = [snapshot(dir), snapshot(dotfiles())];
      pick = 'Write through the symlink';
      const r = await run('rawr.installClaudeHooks', { folder: dir });
      assert.ok(r.ok, r.lines.join('\n'));
      assert.ok(fs.lstatSync(path.join(dir, '.claude/settings.local.json')).isSymbolicLink(), 'the link stays a link');
      assert.match(fs.readFileSync(target, 'utf8'), /hooks claude PreCompact/);
      assert.match(shown.at(-1)!.text, /^Rawr: Claude Code hooks installed\. .*through the symlink/);
      const u = await run('rawr.uninstallClaudeHooks', { folder: dir, purge: false });
      assert.ok(u.ok, u.lines.join('\n'));
      assert.deepEqual([snapshot(dir), snapshot(dotfiles())], before, 'the repository (.git/info/exclude included) and the target, byte for byte');
      noCliFlag();
    });

    it('a multi-root Remove: the folder pick, then one question naming the folder, its state and the symlink it writes through', async () => {
      const other = gitRepo('link-multi-other').dir;
      const { dir, target } = linkedRepo('link-multi');
      const before = [snapshot(dir), snapshot(dotfiles()), snapshot(other)];
      assert.ok((await run('rawr.installClaudeHooks', { folder: dir, followSymlinks: true })).ok);
      folders(other, dir);
      let picks = 0;
      win.showWorkspaceFolderPick = async () => {
        picks++;
        return { uri: vscode.Uri.file(dir), name: path.basename(dir), index: 1 };
      };
      shown = [];
      pick = 'Remove hooks';
      try {
        const u = await run('rawr.uninstallClaudeHooks');
        assert.ok(u.ok, u.lines.join('\n'));
      } finally {
        win.showWorkspaceFolderPick = async () => undefined;
      }
      assert.equal(picks, 1);
      const questions = shown.filter((s) => s.kind === 'warn');
      assert.equal(questions.length, 1, `one question after the pick: ${JSON.stringify(questions)}`);
      const q = questions[0]!.text;
      for (const named of [dir, path.join(dir, '.rawr', 'claude'), `${path.join(dir, '.claude/settings.local.json')} is a symlink to ${target}`])
        assert.ok(q.includes(named), `the question names ${named}: ${q}`);
      assert.ok(!q.includes(other), `the folder not picked is not named: ${q}`);
      noCliFlag();
      assert.deepEqual([snapshot(dir), snapshot(dotfiles()), snapshot(other)], before, 'removed through the link, every byte back');
    });

    it("Install over an earlier rawr's hooks in the shared settings.json: one question, the move and the symlink together", async () => {
      const { dir, target } = linkedRepo('link-legacy');
      const team = { hooks: { PreCompact: [{ hooks: [{ type: 'command', command: 'node /opt/rawr/out/src/cli/main.js hooks claude PreCompact' }] }] } };
      fs.writeFileSync(path.join(dir, '.claude/settings.json'), JSON.stringify(team));
      pick = 'Move';
      const r = await run('rawr.installClaudeHooks', { folder: dir });
      assert.ok(r.ok, r.lines.join('\n'));
      const questions = shown.filter((s) => s.kind === 'warn');
      assert.equal(questions.length, 1, `one question: ${JSON.stringify(questions)}`);
      assert.match(questions[0]!.text, /Move them into the personal \.claude\/settings\.local\.json\?/);
      assert.ok(questions[0]!.text.includes(`${path.join(dir, '.claude/settings.local.json')} is a symlink to ${target}`), questions[0]!.text);
      assert.ok(fs.lstatSync(path.join(dir, '.claude/settings.local.json')).isSymbolicLink(), 'the link stays a link');
      assert.match(fs.readFileSync(target, 'utf8'), /hooks claude PreCompact/, 'installed through the link');
      assert.doesNotMatch(fs.readFileSync(path.join(dir, '.claude/settings.json'), 'utf8'), /hooks claude/, 'moved out of the shared file');
      noCliFlag();
    });

    it('Codex install into a symlinked hooks.json: one question, where the hooks go, the trust and the link together', async () => {
      const codex = path.join(process.env.HOME!, '.codex');
      fs.mkdirSync(codex, { recursive: true });
      const linked = path.join(dotfiles(), 'codex-hooks.json');
      fs.writeFileSync(linked, '{}\n');
      fs.symlinkSync(linked, path.join(codex, 'hooks.json'));
      try {
        pick = 'Install only';
        const r = await run('rawr.installCodexHooks');
        assert.ok(r.ok, r.lines.join('\n'));
        const questions = shown.filter((s) => s.kind === 'warn');
        assert.equal(questions.length, 1, `one question: ${JSON.stringify(questions)}`);
        assert.ok(questions[0]!.text.includes(`${path.join(codex, 'hooks.json')} is a symlink to ${linked}`), questions[0]!.text);
        assert.ok(fs.lstatSync(path.join(codex, 'hooks.json')).isSymbolicLink(), 'the link stays a link');
        assert.match(fs.readFileSync(linked, 'utf8'), /hooks codex/, 'installed through the link');
        assert.ok(!fs.existsSync(path.join(codex, 'config.toml')), '"Install only" trusts nothing');
        noCliFlag();
        assert.ok((await run('rawr.uninstallCodexHooks', { purge: false, followSymlinks: true })).ok);
        assert.equal(fs.readFileSync(linked, 'utf8'), '{}\n', 'Remove gives the target back');
      } finally {
        fs.rmSync(codex, { recursive: true, force: true });
      }
    });

    it('a refusal that reaches a notification says what to do in the editor (Claude Code, a symlinked .claude/, Codex)', async () => {
      const { dir } = linkedRepo('link-refused');
      const outside = gitRepo('link-folder').dir;
      fs.symlinkSync(dotfiles(), path.join(outside, '.claude'));
      const codex = path.join(process.env.HOME!, '.codex');
      fs.mkdirSync(codex, { recursive: true });
      fs.writeFileSync(path.join(dotfiles(), 'hooks.json'), '{}\n');
      fs.symlinkSync(path.join(dotfiles(), 'hooks.json'), path.join(codex, 'hooks.json'));
      try {
        for (const [id, args] of [
          ['rawr.installClaudeHooks', { folder: dir }],
          ['rawr.installClaudeHooks', { folder: outside }],
          ['rawr.installCodexHooks', { trust: false }],
        ] as const) {
          shown = [];
          const r = await run(id, { ...args, followSymlinks: false });
          assert.equal(r.ok, false, id);
          assert.equal(shown.at(-1)!.kind, 'error');
          assert.match(shown.at(-1)!.text, /symlink.*run the command again and choose "Write through the symlink"/, shown.at(-1)!.text);
          noCliFlag();
        }
      } finally {
        fs.rmSync(codex, { recursive: true, force: true });
      }
    });
  });
  it('a .claude/ the system will not let rawr write (EACCES, EROFS): a clear message naming the settings file, nothing half-written', async () => {
    for (const [code, said] of [
      ['EACCES', /permission denied/],
      ['EROFS', /the file system is read-only/],
    ] as const) {
      for (const existing of [false, true]) {
        const { dir, git } = gitRepo(`denied-${code}-${existing}`);
        if (existing) {
          fs.mkdirSync(path.join(dir, '.claude'));
          fs.writeFileSync(path.join(dir, '.claude/settings.local.json'), '{ "model": "opus" }\n');
        }
        const before = snapshot(dir);
        const r = await refused(path.join(dir, '.claude') + path.sep, code, () => run('rawr.installClaudeHooks', { folder: dir }));
        const name = `${code}, settings ${existing ? 'there' : 'absent'}`;
        assert.equal(r.ok, false, name);
        assert.equal(shown.at(-1)!.kind, 'error', name);
        assert.ok(shown.at(-1)!.text.includes(`cannot write ${path.join(dir, '.claude/settings.local.json')}: `), shown.at(-1)!.text);
        assert.match(shown.at(-1)!.text, said, name);
        assert.doesNotMatch(shown.at(-1)!.text, /\.tmp\b/, `${name}: not rawr's temp file`);
        assert.deepEqual(snapshot(dir), before, `${name}: no .claude/ made, no backup or .rawr/ left, exclude untouched`);
        if (!existing) assert.equal(git('status', '--porcelain'), '', name);
      }
    }
  });

  it('install where .git/info/exclude cannot be written: the settings write is taken back, "nothing written", git status clean', async () => {
    for (const [code, said] of REFUSALS) {
      for (const existing of [false, true]) {
        const { dir, git } = gitRepo(`exclude-denied-${code}-${existing}`);
        if (existing) {
          fs.mkdirSync(path.join(dir, '.claude'));
          fs.writeFileSync(path.join(dir, '.claude/settings.local.json'), '{\n  "model": "opus"\n}\n', { mode: 0o640 });
        }
        const before = snapshot(dir);
        const statusBefore = git('status', '--porcelain');
        const r = await refused(path.join(dir, '.git/info') + path.sep, code, () => run('rawr.installClaudeHooks', { folder: dir }));
        const name = `${code}, settings ${existing ? 'there' : 'absent'}`;
        assert.equal(r.ok, false, name);
        assert.equal(r.lines.length, 1, `${name}: one line: ${r.lines.join('\n')}`);
        assert.equal(shown.at(-1)!.kind, 'error', name);
        const text = shown.at(-1)!.text;
        assert.ok(text.startsWith(`Rawr: Claude Code hooks not installed: cannot write ${path.join(dir, '.git/info/exclude')}: `), text);
        assert.match(text, said, name);
        assert.match(text, /nothing written/, name);
        assert.deepEqual(snapshot(dir), before, `${name}: the settings as they were, no .rawr/ left`);
        assert.equal(git('status', '--porcelain'), statusBefore, name);
      }
    }
  });

  it('install whose rollback is refused too (the disk fills at the exclude write): the error says what is left, and a Remove then takes it out', async () => {
    const { dir, git } = gitRepo('rollback-refused');
    fs.mkdirSync(path.join(dir, '.claude'));
    fs.writeFileSync(path.join(dir, '.claude/settings.local.json'), '{\n  "model": "opus"\n}\n', { mode: 0o640 });
    const before = snapshot(dir);
    const statusBefore = git('status', '--porcelain');
    const r = await refused(path.join(dir, '.git/info') + path.sep, 'ENOSPC', () => run('rawr.installClaudeHooks', { folder: dir }), {
      thenAlso: path.join(dir, '.claude') + path.sep,
    });
    assert.equal(r.ok, false);
    const text = shown.at(-1)!.text;
    assert.equal(shown.at(-1)!.kind, 'error', text);
    assert.ok(text.includes(`cannot write ${path.join(dir, '.git/info/exclude')}`), text);
    assert.ok(
      text.includes(`could not put ${path.join(dir, '.claude/settings.local.json')} back as it was before this command: no space left on the device`),
      `the person must know which file is left changed, and why: ${text}`,
    );
    assert.doesNotMatch(text, /nothing written/, `not "nothing written" when something is: ${text}`);
    // Once the system lets it, Remove takes rawr's entries out of what was left.
    shown = [];
    const u = await run('rawr.uninstallClaudeHooks', { folder: dir, purge: true });
    assert.ok(u.ok, u.lines.join('\n'));
    assert.doesNotMatch(fs.readFileSync(path.join(dir, '.claude/settings.local.json'), 'utf8'), /hooks claude/);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, '.claude/settings.local.json'), 'utf8')), { model: 'opus' });
    assert.deepEqual(snapshot(dir), before, 'Remove gave every byte back');
    assert.equal(git('status', '--porcelain'), statusBefore, 'nothing of rawr shows up for a commit');
  });

  it("install whose record cannot be written (the disk fills at rawr's own state): taken back whole; over an earlier install, steer.json goes back too", async () => {
    const { dir, git } = gitRepo('record-refused');
    fs.mkdirSync(path.join(dir, '.claude'));
    fs.writeFileSync(path.join(dir, '.claude/settings.local.json'), '{\n  "model": "opus"\n}\n', { mode: 0o640 });
    const pristine = snapshot(dir);
    const statusBefore = git('status', '--porcelain');
    const state = path.join(dir, '.rawr/claude');
    // A first install: refused at its record (written last, through a temp file beside it)
    let r = await refused(path.join(state, '.install.json'), 'ENOSPC', () => run('rawr.installClaudeHooks', { folder: dir }));
    assert.equal(r.ok, false, r.lines.join('\n'));
    let text = shown.at(-1)!.text;
    assert.equal(shown.at(-1)!.kind, 'error', text);
    assert.ok(text.includes(`cannot write rawr's record of this install in ${state}: no space left on the device; nothing written`), text);
    assert.deepEqual(snapshot(dir), pristine, 'nothing of the install is left: settings, exclude, steer.json, .rawr/');
    assert.equal(git('status', '--porcelain'), statusBefore);
    // Installed, then installed again with steering off, refused at the record: steer.json goes back too
    assert.ok((await run('rawr.installClaudeHooks', { folder: dir })).ok);
    const installed = snapshot(dir);
    shown = [];
    r = await refused(path.join(state, '.install.json'), 'ENOSPC', () => run('rawr.installClaudeHooks', { folder: dir, steer: false }));
    assert.equal(r.ok, false, r.lines.join('\n'));
    text = shown.at(-1)!.text;
    assert.ok(text.includes('nothing written'), text);
    assert.deepEqual(snapshot(dir), installed, 'the earlier install as it was, steer.json byte for byte');
    assert.ok((await run('rawr.uninstallClaudeHooks', { folder: dir, purge: true })).ok);
    assert.deepEqual(snapshot(dir), pristine, 'and Remove still gives every byte back');
  });

  it('install whose record cannot be written, over a steer.json of bytes that are not UTF-8: they come back exactly, mode too', async () => {
    const { dir } = gitRepo('record-refused-bytes');
    assert.ok((await run('rawr.installClaudeHooks', { folder: dir })).ok);
    const steer = path.join(dir, '.rawr/claude/steer.json');
    fs.writeFileSync(steer, Buffer.concat([fs.readFileSync(steer), Buffer.from([0xff, 0xfe, 0x0a])]));
    fs.chmodSync(steer, 0o640);
    const before = snapshot(dir);
    shown = [];
    const r = await refused(path.join(dir, '.rawr/claude/.install.json'), 'ENOSPC', () => run('rawr.installClaudeHooks', { folder: dir, steer: false }));
    assert.equal(r.ok, false, r.lines.join('\n'));
    assert.deepEqual(snapshot(dir), before, 'steer.json byte for byte and mode for mode');
  });

  it('Codex install whose record cannot be written: hooks.json and config.toml as they were', async () => {
    await inCodexHome(async (codex, home, before) => {
      const r = await refused(path.join(codex, '.rawr', '.install.json'), 'ENOSPC', () => run('rawr.installCodexHooks', { trust: true }));
      assert.equal(r.ok, false, r.lines.join('\n'));
      const text = shown.at(-1)!.text;
      assert.ok(text.includes("cannot write rawr's record of this install"), text);
      assert.ok(text.includes('nothing written'), text);
      assert.deepEqual(snapshot(home), before, 'every byte as before, no .rawr/ left');
    });
  });

  it('Codex install whose trust write and then its rollback are refused: the error names hooks.json as left changed, and a Remove gives ~/.codex back', async () => {
    await inCodexHome(async (codex, home, before) => {
      // each file is written through a temp file beside it (.config.toml.<pid>.<n>.tmp)
      const r = await refused(path.join(codex, '.config.toml'), 'ENOSPC', () => run('rawr.installCodexHooks', { trust: true }), {
        thenAlso: path.join(codex, '.hooks.json'),
      });
      assert.equal(r.ok, false);
      const text = shown.at(-1)!.text;
      assert.ok(text.includes(`could not put ${path.join(codex, 'hooks.json')} back as it was before this command`), text);
      assert.doesNotMatch(text, /nothing written/, text);
      const u = await run('rawr.uninstallCodexHooks', { purge: false });
      assert.ok(u.ok, u.lines.join('\n'));
      assert.deepEqual(snapshot(home), before, 'Remove gave every byte back');
    });
  });

  it('Remove where a write is refused (settings, .git/info/exclude): an error naming the file and why, and every file as it was before Remove', async () => {
    for (const [code, said] of REFUSALS) {
      for (const [where, file, existing] of [
        // restoring the person's own settings file is refused: nothing else was changed yet
        ['.claude', '.claude/settings.local.json', true],
        // the settings file rawr created is already removed when the exclude write is refused: it is put back
        ['.git/info', '.git/info/exclude', false],
      ] as const) {
        const { dir } = gitRepo(`remove-denied-${code}-${where.replace(/\W/g, '')}`);
        if (existing) {
          fs.mkdirSync(path.join(dir, '.claude'));
          fs.writeFileSync(path.join(dir, '.claude/settings.local.json'), '{ "model": "opus" }\n', { mode: 0o600 });
        }
        const pristine = snapshot(dir);
        assert.ok((await run('rawr.installClaudeHooks', { folder: dir })).ok);
        await refusedRemove({
          id: 'rawr.uninstallClaudeHooks',
          args: { folder: dir, purge: false },
          root: dir,
          pristine,
          refuse: path.join(dir, where) + path.sep,
          code,
          said,
          file: path.join(dir, file),
          what: 'Claude Code hooks',
        });
      }
    }
  });

  it('Codex: Remove where config.toml or hooks.json cannot be written leaves ~/.codex as installed, and says which file and why', async () => {
    const home = process.env.HOME!;
    const codex = path.join(home, '.codex');
    for (const [code, said] of REFUSALS) {
      for (const file of ['config.toml', 'hooks.json']) {
        fs.rmSync(codex, { recursive: true, force: true });
        fs.mkdirSync(codex, { mode: 0o700 });
        fs.writeFileSync(path.join(codex, 'config.toml'), '# mine\nmodel = "o3"\n', { mode: 0o600 });
        fs.writeFileSync(path.join(codex, 'hooks.json'), '{ "hooks": {} }\n', { mode: 0o600 });
        const pristine = snapshot(home);
        assert.ok((await run('rawr.installCodexHooks', { trust: true })).ok);
        // rawr's temp file beside it is what open(2) creates (config.toml is written after hooks.json was restored)
        await refusedRemove({
          id: 'rawr.uninstallCodexHooks',
          args: { purge: false },
          root: home,
          pristine,
          refuse: path.join(codex, `.${file}.`),
          code,
          said,
          file: path.join(codex, file),
          what: 'Codex hooks',
        });
      }
    }
    fs.rmSync(codex, { recursive: true, force: true });
  });
});
