// Real VS Code: boundary sources and settings, exercised against the real git extension, real integrated
// terminals with shell integration and the real configuration service.
//
// The tests build their own BoundaryBus + watchGit + watchTerminals from the compiled modules in
// out/src/host/ (they need only `vscode` and a log channel), so they do not depend on how activate()
// wires them. The log passed in records every line, so a test can wait for "the watcher processed it"
// (e.g. the amend it classified, the command it analysed) instead of sleeping.
//
// The workspace is the harness's git repo with one commit; every test that changes it is undone in
// after() (HEAD reset to the initial commit, files, remote and settings removed).
'use strict';
const assert = require('assert');
const cp = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const vscode = require('vscode');
const { poll, waitFor, sleep, info, bridge, skipWithoutBridge } = require('./index');

const REPO_ROOT = path.resolve(__dirname, '../../..');
const OUT = path.join(REPO_ROOT, 'out/src/host');
const { BoundaryBus } = require(path.join(OUT, 'boundaryBus'));
const { DEFAULT_ALLOWED_TOOLS } = require(path.join(OUT, 'tools/catalog'));
const { watchGit, RepoWatcher } = require(path.join(OUT, 'signals/gitSource'));
const { watchTerminals, stripAnsi } = require(path.join(OUT, 'signals/terminalSource'));
const { loadSettings, onSettingsChanged } = require(path.join(OUT, 'settings'));
const { RawrStatusBar } = require(path.join(OUT, 'ui/statusBar'));

const wsPath = () => process.env.VSCODE_TEST_WORKSPACE || vscode.workspace.workspaceFolders[0].uri.fsPath;
const git = (cwd, ...a) => cp.execFileSync('git', a, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** A LogOutputChannel stand-in that records lines (and forwards them to a real channel for the logs). */
function recordingLog(channel) {
  const lines = [];
  const emitter = new vscode.EventEmitter();
  const rec =
    (level) =>
    (msg, ...rest) => {
      const line = `[${level}] ${msg}`;
      lines.push(line);
      emitter.fire(line);
      channel[level](msg, ...rest);
    };
  return {
    lines,
    onLine: emitter.event,
    info: rec('info'),
    warn: rec('warn'),
    error: rec('error'),
    debug: rec('debug'),
    trace: rec('trace'),
    dispose: () => emitter.dispose(),
  };
}

/** Resolves when pred(state) holds for the repository: checked now, then on every state change. */
async function repoState(repo, pred, ms, what) {
  if (pred(repo.state)) return;
  await waitFor(repo.state.onDidChange, () => pred(repo.state), ms, what);
}

describe('signals: git and terminal boundary sources', function () {
  this.timeout(90000);
  let cwd, initialHead, channel, log, bus, reports, gitWatch, termWatch, repo, term, si, bare;
  const subs = [];

  before(async function () {
    cwd = wsPath();
    initialHead = git(cwd, 'rev-parse', 'HEAD');
    const api = (await vscode.extensions.getExtension('vscode.git').activate()).getAPI(1);
    repo = await poll(() => api.repositories.find((r) => r.rootUri.fsPath === cwd), 20000, 'the workspace repository in the git API');
    await poll(() => repo.state.HEAD && repo.state.HEAD.commit, 10000, 'HEAD in the git API');
    channel = vscode.window.createOutputChannel('rawr signals test', { log: true });
    log = recordingLog(channel);
    bus = new BoundaryBus();
    reports = [];
    subs.push(bus.onBoundary((r) => reports.push(r)));
    gitWatch = watchGit(bus, log);
    termWatch = watchTerminals(bus, log);
    await gitWatch.ready;
    assert.ok(
      log.lines.some((l) => l.includes(`git: watching ${cwd}`)),
      `watchGit attached the workspace repo: ${log.lines.join(' | ')}`,
    );
  });

  after(async () => {
    for (const d of subs) d.dispose();
    if (term) term.dispose();
    if (gitWatch) gitWatch.dispose();
    if (termWatch) termWatch.dispose();
    if (bus) bus.dispose();
    if (log) log.dispose();
    if (channel) channel.dispose();
    if (cwd && initialHead) {
      try {
        git(cwd, 'remote', 'remove', 'origin');
      } catch {
        /* no remote */
      }
      git(cwd, 'reset', '-q', '--hard', initialHead);
      for (const f of ['signals-a.txt', 'signals-b.txt', 'signals-c.txt']) fs.rmSync(path.join(cwd, f), { force: true });
    }
    if (bare) fs.rmSync(bare, { recursive: true, force: true });
  });

  it('a commit made with child_process arrives as a git commit boundary with its sha (via state.onDidChange)', async () => {
    const arrived = waitFor(bus.onBoundary, (r) => r.source === 'git' && r.boundary.kind === 'commit', 20000, 'git commit boundary');
    const t0 = Date.now();
    fs.writeFileSync(path.join(cwd, 'signals-a.txt'), 'a\n');
    git(cwd, 'add', 'signals-a.txt');
    git(cwd, 'commit', '-q', '-m', 'rawr e2e: first commit');
    const sha = git(cwd, 'rev-parse', 'HEAD');
    const r = await arrived;
    info().gitCommitBoundaryMs = Date.now() - t0;
    assert.strictEqual(r.boundary.key, sha);
    assert.strictEqual(r.boundary.detail, `${sha.slice(0, 7)} rawr e2e: first commit`);
    assert.ok(r.at >= t0);
  });

  it('git commit --amend is classified as an amend: no new commit boundary', async () => {
    const before = reports.length;
    const classified = waitFor(
      log.onLine,
      (l) => / amend: amend [0-9a-f]{7} → [0-9a-f]{7} rawr e2e: first commit \(amended\)/.test(l),
      20000,
      'the watcher classifying the amend',
    );
    git(cwd, 'commit', '-q', '--amend', '-m', 'rawr e2e: first commit (amended)');
    await classified;
    await sleep(300);
    assertNoReports(before);
  });

  it('shell integration activates in a new bash terminal', async function () {
    const shellPath = ['/bin/bash', '/usr/bin/bash'].find((p) => fs.existsSync(p));
    if (!shellPath) this.skip();
    const t0 = Date.now();
    const activated = waitFor(vscode.window.onDidChangeTerminalShellIntegration, (e) => e.terminal === term, 30000, 'terminal shell integration');
    term = vscode.window.createTerminal({ name: 'rawr signals', cwd, shellPath, env: { GIT_PAGER: 'cat', PAGER: 'cat' } });
    si = term.shellIntegration || (await activated).shellIntegration;
    info().shellIntegrationMs = Date.now() - t0;
    assert.ok(si, 'shell integration');
  });

  /** Nothing reported since `before`; on failure the message shows what was and the watchers' recent log. */
  function assertNoReports(before) {
    const got = reports.slice(before).map((r) => `${r.source}:${r.boundary.kind}:${r.boundary.detail}`);
    assert.deepStrictEqual(got, [], `unexpected boundaries ${JSON.stringify(got)}; watcher log:\n${log.lines.slice(-30).join('\n')}`);
  }

  /** Runs a command in the test terminal; resolves with the end event. */
  async function run(command) {
    assert.ok(si, 'shell integration is not active (previous test failed)');
    const ended = waitFor(vscode.window.onDidEndTerminalShellExecution, (e) => e.terminal === term, 30000, `end of: ${command}`);
    si.executeCommand(command);
    return ended;
  }

  it('a commit made in a VS Code terminal: a terminal commit boundary (exit 0) and the same commit from git', async () => {
    fs.writeFileSync(path.join(cwd, 'signals-b.txt'), 'b\n');
    const fromTerminal = waitFor(bus.onBoundary, (r) => r.source === 'terminal' && r.boundary.kind === 'commit', 30000, 'terminal commit boundary');
    const fromGit = waitFor(bus.onBoundary, (r) => r.source === 'git' && r.boundary.kind === 'commit', 30000, 'git commit boundary');
    const end = await run('git add signals-b.txt && git commit -m "rawr e2e: from the terminal"');
    assert.strictEqual(end.exitCode, 0);
    const t = await fromTerminal;
    const sha = git(cwd, 'rev-parse', 'HEAD');
    assert.match(t.boundary.key, /^[0-9a-f]{7,40}$/);
    assert.ok(sha.startsWith(t.boundary.key), `terminal key ${t.boundary.key} is a prefix of ${sha}`);
    assert.strictEqual(t.boundary.detail, `${t.boundary.key} rawr e2e: from the terminal`);
    const g = await fromGit;
    assert.strictEqual(g.boundary.key, sha);
    assert.ok(
      log.lines.some((l) => /\[info\] terminal "rawr signals": commit .* \(exit 0\)/.test(l)),
      'logged with its exit code',
    );
  });

  it('`echo git commit` and a commit with nothing to commit report nothing', async () => {
    const before = reports.length;
    const analysed = waitFor(log.onLine, (l) => l.includes('terminal "rawr signals": command ended (exit 0), no boundary'), 20000, 'the echo analysed');
    const end = await run('echo git commit -m "not a commit"');
    assert.strictEqual(end.exitCode, 0);
    await analysed;
    const failed = waitFor(
      log.onLine,
      (l) => /terminal "rawr signals": command ended \(exit [1-9]\d*\), no boundary/.test(l),
      20000,
      'the failed commit analysed',
    );
    const end2 = await run('git commit -m "nothing staged"');
    assert.notStrictEqual(end2.exitCode, 0);
    await failed;
    await sleep(300);
    assertNoReports(before);
  });

  it('a push: git sees ahead go 1 → 0 (pr_checkpoint), the terminal sees `git push`, with the same key', async () => {
    bare = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-signals-remote-'));
    git(bare, 'init', '-q', '--bare', '-b', 'main');
    git(cwd, 'remote', 'add', 'origin', bare);
    const before = reports.length;
    git(cwd, 'push', '-q', '-u', 'origin', 'main');
    await repoState(repo, (s) => s.HEAD && s.HEAD.upstream && s.HEAD.ahead === 0, 20000, 'an upstream in the git API');
    await sleep(500); // the watcher's baseline now has the upstream
    // Setting an upstream is not a push boundary (nothing was ahead before).
    assertNoReports(before);

    const committed = waitFor(bus.onBoundary, (r) => r.source === 'git' && r.boundary.kind === 'commit', 20000, 'git commit boundary');
    fs.writeFileSync(path.join(cwd, 'signals-c.txt'), 'c\n');
    git(cwd, 'add', 'signals-c.txt');
    git(cwd, 'commit', '-q', '-m', 'rawr e2e: to push');
    await committed;
    await repoState(repo, (s) => s.HEAD && s.HEAD.ahead === 1, 20000, 'ahead 1');
    await sleep(300);

    const fromGit = waitFor(bus.onBoundary, (r) => r.source === 'git' && r.boundary.kind === 'pr_checkpoint', 30000, 'git push boundary');
    const fromTerminal = waitFor(bus.onBoundary, (r) => r.source === 'terminal' && r.boundary.kind === 'pr_checkpoint', 30000, 'terminal push boundary');
    const end = await run('git push');
    assert.strictEqual(end.exitCode, 0);
    const [g, t] = await Promise.all([fromGit, fromTerminal]);
    info().pushKeys = { git: g.boundary.key, terminal: t.boundary.key, gitDetail: g.boundary.detail, terminalDetail: t.boundary.detail };
    const sha = git(cwd, 'rev-parse', 'HEAD');
    assert.match(g.boundary.key, new RegExp(`^push:[0-9a-f]{7}\\.\\.${sha.slice(0, 7)}$`));
    assert.strictEqual(t.boundary.key, g.boundary.key, 'one push seen by git and by the terminal has one key (the arbiter dedupes)');
    assert.match(g.boundary.detail, /^pushed main -> origin\/main/);
  });

  it('stripAnsi removes colours, OSC shell-integration marks and control characters', () => {
    const raw = '\x1b]633;C\x07\x1b[32m[main 1a2b3c4]\x1b[0m subject\r\n\x1b]0;title\x1b\\done\x07\x08';
    assert.strictEqual(stripAnsi(raw), '[main 1a2b3c4] subject\r\ndone');
  });
});

/**
 * A git API Repository whose HEAD the test scripts (the reads the git extension reported, including the
 * failed ones) while log / getMergeBase / getCommit answer from a real repository on disk. Any other
 * member is an unexpected call and throws, so the watcher cannot depend on something not modelled here.
 */
function scriptedRepository(dir) {
  const changed = new vscode.EventEmitter();
  let head;
  const sep = '\x1e';
  const parse = (out) =>
    out
      .split(sep)
      .map((r) => r.replace(/^\n/, ''))
      .filter(Boolean)
      .map((r) => {
        const [hash, parents, message] = r.split('\x00');
        return { hash, parents: parents ? parents.split(' ') : [], message: message.trim() };
      });
  const real = {
    rootUri: vscode.Uri.file(dir),
    state: {
      get HEAD() {
        return head;
      },
      onDidChange: changed.event,
    },
    async log(opts = {}) {
      const a = ['log', `--format=%H%x00%P%x00%B${sep}`];
      if (opts.maxEntries) a.push(`-n${opts.maxEntries}`);
      if (opts.range) a.push(opts.range);
      return parse(git(dir, ...a));
    },
    async getMergeBase(a, b) {
      try {
        return git(dir, 'merge-base', a, b);
      } catch {
        return undefined;
      }
    },
    async getCommit(ref) {
      return parse(git(dir, 'log', '-n1', `--format=%H%x00%P%x00%B${sep}`, ref))[0];
    },
  };
  const repo = new Proxy(real, {
    get(target, key) {
      if (key in target) return target[key];
      if (key === 'then' || typeof key === 'symbol') return undefined;
      throw new Error(`unexpected use of repository.${String(key)}`);
    },
  });
  return {
    repo,
    setHead(h) {
      head = h;
      changed.fire();
    },
    dispose: () => changed.dispose(),
  };
}

describe('signals: git source against flickering HEAD reads', function () {
  this.timeout(30000);
  let dir, channel, log, bus, scripted, watcher;
  const commit = (msg) => {
    fs.writeFileSync(path.join(dir, 'f.txt'), `${msg}\n`);
    git(dir, 'add', 'f.txt');
    git(dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', msg);
    return git(dir, 'rev-parse', 'HEAD');
  };

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-flicker-'));
    git(dir, 'init', '-q', '-b', 'main');
    channel = vscode.window.createOutputChannel('rawr flicker test', { log: true });
    log = recordingLog(channel);
    bus = new BoundaryBus();
  });
  after(() => {
    if (watcher) watcher.dispose();
    if (scripted) scripted.dispose();
    if (bus) bus.dispose();
    if (log) log.dispose();
    if (channel) channel.dispose();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a HEAD read without its commit, and HEAD flickering back to a stale commit, never report a commit twice', async () => {
    const a = commit('A');
    const b = commit('B');
    const reports = [];
    bus.onBoundary((r) => reports.push(`${r.boundary.kind}:${r.boundary.key.slice(0, 7)}`));
    scripted = scriptedRepository(dir);
    scripted.setHead({ type: 0, name: 'main', commit: a });
    watcher = new RepoWatcher(scripted.repo, bus, log);
    const seen = (re, what) => waitFor(log.onLine, (l) => re.test(l), 10000, what);

    let logged = seen(/new_commits: .* B/, 'B reported');
    scripted.setHead({ type: 0, name: 'main', commit: b });
    await logged;

    // What the git extension reports for one refresh when getBranch fails: the branch, no commit.
    logged = seen(/HEAD read without a commit on main; keeping/, 'the commitless read skipped');
    scripted.setHead({ type: 0, name: 'main', commit: undefined });
    await logged;
    scripted.setHead({ type: 0, name: 'main', commit: b });
    await sleep(250);

    // A stale read (HEAD back at A) and the fresh one again.
    logged = seen(/reset_or_rebase/, 'the stale read classified');
    scripted.setHead({ type: 0, name: 'main', commit: a });
    await logged;
    logged = seen(/was already reported; not a new boundary/, 'B not reported again');
    scripted.setHead({ type: 0, name: 'main', commit: b });
    await logged;

    // A real new commit still is a boundary.
    const c = commit('C');
    logged = seen(/new_commits: .* C/, 'C reported');
    scripted.setHead({ type: 0, name: 'main', commit: c });
    await logged;
    assert.deepStrictEqual(reports, [`commit:${b.slice(0, 7)}`, `commit:${c.slice(0, 7)}`], log.lines.join('\n'));
  });
});

describe('settings: VS Code settings over the policy file', function () {
  this.timeout(60000);
  let folder, extPath, settingsFile, hadSettingsFile;
  const keys = ['mode', 'earlyPercentRemainingLt'];
  const cfg = () => vscode.workspace.getConfiguration('rawr');

  before(() => {
    folder = vscode.workspace.workspaceFolders[0].uri;
    extPath = REPO_ROOT;
    settingsFile = path.join(folder.fsPath, '.vscode', 'settings.json');
    hadSettingsFile = fs.existsSync(settingsFile);
  });

  after(async () => {
    for (const k of keys) await cfg().update(k, undefined, vscode.ConfigurationTarget.Workspace);
    fs.rmSync(path.join(folder.fsPath, '.rawr'), { recursive: true, force: true });
    if (!hadSettingsFile) {
      fs.rmSync(settingsFile, { force: true });
      try {
        fs.rmdirSync(path.dirname(settingsFile));
      } catch {
        /* not empty or gone */
      }
    }
  });

  it('the contributed settings are known to VS Code with the core defaults', () => {
    assert.strictEqual(cfg().inspect('earlyPercentRemainingLt').defaultValue, 45);
    assert.strictEqual(cfg().inspect('mode').defaultValue, 'auto');
    // The agent's own tool set is the default (read, list, search, create, edit, git, terminal).
    assert.deepStrictEqual(cfg().inspect('tools.allowed').defaultValue, [...DEFAULT_ALLOWED_TOOLS]);
    assert.ok(DEFAULT_ALLOWED_TOOLS.includes('rawr_edit_file') && DEFAULT_ALLOWED_TOOLS.includes('rawr_run_in_terminal'));
    assert.strictEqual(cfg().inspect('judgment.model').defaultValue, '');
  });

  it('without explicit settings: the shipped policy file', async () => {
    const r = await loadSettings(folder, extPath);
    assert.deepStrictEqual(r.problems, []);
    assert.strictEqual(r.set.settings.mode, 'auto');
    assert.strictEqual(r.set.settings.early_percent_remaining_lt, 45);
    assert.strictEqual(r.set.sources.packetRequest, path.join(extPath, 'prompts', 'rawr-auto-compact.md'));
    assert.deepStrictEqual(r.host, { toolsAllowed: [...DEFAULT_ALLOWED_TOOLS], judgmentModel: undefined });
  });

  it('workspace settings override the YAML knob by knob, a change event fires, an invalid value keeps the YAML value', async () => {
    const changes = [];
    const sub = onSettingsChanged((reasons) => changes.push(...reasons));
    try {
      await cfg().update('mode', 'tag', vscode.ConfigurationTarget.Workspace);
      await cfg().update('earlyPercentRemainingLt', 50, vscode.ConfigurationTarget.Workspace);
      let r = await loadSettings(folder, extPath);
      assert.deepStrictEqual(r.problems, []);
      assert.strictEqual(r.set.settings.mode, 'tag');
      assert.strictEqual(r.set.settings.early_percent_remaining_lt, 50);
      assert.strictEqual(r.set.settings.ready_percent_remaining_lt, 35, 'other knobs keep the YAML value');
      await poll(() => changes.includes('configuration'), 5000, 'onSettingsChanged after a configuration update');

      await cfg().update('earlyPercentRemainingLt', 500, vscode.ConfigurationTarget.Workspace);
      assert.strictEqual(cfg().inspect('earlyPercentRemainingLt').workspaceValue, 500, 'VS Code stores the out-of-range value as written');
      r = await loadSettings(folder, extPath);
      assert.strictEqual(r.set.settings.early_percent_remaining_lt, 45, 'the YAML value is kept');
      assert.strictEqual(r.set.settings.mode, 'tag', 'the bad value costs only its own knob');
      assert.strictEqual(r.problems.length, 1, JSON.stringify(r.problems));
      assert.match(r.problems[0].message, /"rawr\.earlyPercentRemainingLt"/);
      assert.strictEqual(r.problems[0].severity, 'error');
      assert.strictEqual(r.problems[0].file, settingsFile);
      assert.deepStrictEqual(r.set.problems, r.problems);
    } finally {
      sub.dispose();
    }
  });

  it('a workspace policy file overrides the shipped one; explicit settings still win; edits are watched', async () => {
    const changes = [];
    const sub = onSettingsChanged((reasons) => changes.push(...reasons));
    try {
      const dir = path.join(folder.fsPath, '.rawr', 'prompts');
      fs.mkdirSync(dir, { recursive: true });
      const shipped = fs.readFileSync(path.join(extPath, 'prompts', 'rawr-auto-compact.md'), 'utf8');
      const file = path.join(dir, 'rawr-auto-compact.md');
      fs.writeFileSync(
        file,
        shipped.replace(/^early_percent_remaining_lt: 45$/m, 'early_percent_remaining_lt: 40').replace(/^cooldown_turns: 2$/m, 'cooldown_turns: 7'),
      );
      await poll(() => changes.includes('prompts'), 15000, 'onSettingsChanged after a prompt file was written');
      let r = await loadSettings(folder, extPath);
      assert.strictEqual(r.set.sources.packetRequest, file);
      assert.strictEqual(r.set.settings.cooldown_turns, 7);
      assert.strictEqual(r.set.settings.early_percent_remaining_lt, 40, 'the invalid explicit 500 falls back to the workspace YAML, not the built-in default');
      assert.strictEqual(r.set.settings.mode, 'tag');
      await cfg().update('earlyPercentRemainingLt', 42, vscode.ConfigurationTarget.Workspace);
      r = await loadSettings(folder, extPath);
      assert.strictEqual(r.set.settings.early_percent_remaining_lt, 42);
      assert.deepStrictEqual(r.problems, []);

      changes.length = 0;
      fs.rmSync(path.join(folder.fsPath, '.rawr'), { recursive: true, force: true });
      await poll(() => changes.includes('prompts'), 15000, 'onSettingsChanged after .rawr/ was deleted');
      for (const k of keys) await cfg().update(k, undefined, vscode.ConfigurationTarget.Workspace);
      r = await loadSettings(folder, extPath);
      assert.strictEqual(r.set.settings.early_percent_remaining_lt, 45);
      assert.strictEqual(r.set.settings.mode, 'auto');
      assert.strictEqual(r.set.settings.cooldown_turns, 2);
    } finally {
      sub.dispose();
    }
  });
});

describe('status bar: RawrStatusBar in the real workbench', function () {
  this.timeout(30000);
  /** A bar in asap with a commit boundary, then in emergency mid-sequence; `look` runs after each update. */
  async function drive(look) {
    const bus = new BoundaryBus();
    const bar = new RawrStatusBar(bus);
    try {
      bus.fire({ source: 'git', boundary: { kind: 'commit', key: 'abc1234', detail: 'abc1234 e2e subject' }, at: Date.now() });
      bar.update({
        percentRemaining: 23.7,
        tier: 'asap',
        sequenceRunning: false,
        lastDecision: { action: 'compact', reason: 'tier asap (23%), boundary commit abc1234' },
      });
      await look(bar, 'asap');
      bar.update({ percentRemaining: 9, tier: 'emergency', sequenceRunning: true });
      await look(bar, 'emergency');
    } finally {
      bar.dispose();
      bus.dispose();
    }
  }

  it('shows percent and tier, warning background in asap, error background in emergency, the fallback command', async () => {
    await drive(async (bar, tier) => {
      if (tier === 'asap') {
        assert.strictEqual(bar.text, '$(fold) 23% · asap');
        assert.strictEqual(bar.item.backgroundColor.id, 'statusBarItem.warningBackground');
        assert.match(bar.item.tooltip.value, /abc1234 e2e subject/);
        const cmd = bar.item.command;
        assert.ok(cmd === 'rawr.openPanel' || cmd === 'rawr.showStatus', String(cmd));
      } else {
        assert.strictEqual(bar.text, '$(sync~spin) 9% · emergency');
        assert.strictEqual(bar.item.backgroundColor.id, 'statusBarItem.errorBackground');
      }
    });
  });

  it('the item is rendered in the workbench status bar (code-server tier: needs the DOM bridge)', async function () {
    skipWithoutBridge(this);
    await drive(async (_bar, tier) => {
      const want = tier === 'asap' ? '23% · asap' : '9% · emergency';
      const text = await poll(
        async () => (await bridge('text', { selector: '#workbench\\.parts\\.statusbar' })).find((t) => t.includes(want)),
        10000,
        `"${want}" in the status bar`,
      );
      assert.ok(text);
    });
  });
});
