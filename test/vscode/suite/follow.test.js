// Live follow of an external agent's session in a real VS Code (issue 10, item 7). The test plays the
// agent: it writes a Claude Code transcript (records shaped as Claude Code 2.1 writes them) and appends
// to it while the panel follows it through "Rawr: Follow Agent Session…" (rawr.followSession, given the
// file). Checked in the rendered webview (Playwright, through the harness bridge):
//  - the followed session's gauge (1M window from the model table, and why) and the status-bar item;
//  - appended records (a commit at 69% of the window) reach the panel without reopening anything, with
//    "rawr would compact here: commit 3f2a1c9, 31% left" and, in suggest mode, the /compact text to copy;
//  - a snapshot written by the hooks into .rawr/claude/<session>/ shows up as the hooks' record.
// Screenshot: test-artifacts/vscode/follow-panel.png (docs/images/ with --update-docs).
'use strict';
const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const vscode = require('vscode');
const { poll, bridge, skipWithoutBridge, sleep, info } = require('./index');
const { panelText, copyToDocs, setForecast } = require('./support');

const SESSION = 'follow-test-session-1';
const usage = (n) => ({ input_tokens: n, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 1 });
const base = { sessionId: SESSION, version: '2.1.332', cwd: '/home/user/repo' };
const assistant = (id, block, n) =>
  JSON.stringify({
    ...base,
    type: 'assistant',
    uuid: `a-${id}`,
    timestamp: new Date().toISOString(),
    message: { id, model: 'claude-opus-5-5', role: 'assistant', content: [block], usage: usage(n) },
  });
const user = (content, extra = {}) =>
  JSON.stringify({ ...base, type: 'user', uuid: `u-${Math.random()}`, timestamp: new Date().toISOString(), message: { role: 'user', content }, ...extra });

describe('live follow of an agent session (real VS Code, webview DOM via Playwright)', function () {
  this.timeout(120000);
  let dir, file, ws, stateDir, modeBefore, api;

  before(async function () {
    skipWithoutBridge(this);
    api = await vscode.extensions.getExtension('rawr.rawr').activate();
    // The decision checked here is the tier rule's at a commit; the phase forecast (its own unit tests)
    // would decide on this two-record session's 690k-token "phase" instead.
    await setForecast(api, false);
    ws = process.env.VSCODE_TEST_WORKSPACE || vscode.workspace.workspaceFolders[0].uri.fsPath;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-follow-'));
    file = path.join(dir, `${SESSION}.jsonl`);
    stateDir = path.join(ws, '.rawr', 'claude', SESSION);
    const cfg = vscode.workspace.getConfiguration('rawr');
    modeBefore = cfg.inspect('mode').globalValue;
    await cfg.update('mode', 'suggest', vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    if (api) await setForecast(api, undefined);
    await vscode.commands.executeCommand('rawr.followSession', { stop: true }).then(undefined, () => undefined);
    await vscode.workspace.getConfiguration('rawr').update('mode', modeBefore, vscode.ConfigurationTarget.Global);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    if (stateDir) {
      fs.rmSync(stateDir, { recursive: true, force: true });
      // the folders this test created, if nothing else is in them
      for (const d of [path.dirname(stateDir), path.dirname(path.dirname(stateDir))]) {
        try {
          fs.rmdirSync(d);
        } catch {
          /* not empty or gone */
        }
      }
    }
  });

  it('follows a transcript as it is written: gauge, status bar, "rawr would compact here", the /compact text, the hooks', async () => {
    assert.ok((await vscode.commands.getCommands(true)).includes('rawr.followSession'), 'rawr.followSession is registered');
    fs.writeFileSync(
      file,
      [user('DO_WORK implement step 1 of PLAN.md'), assistant('m1', { type: 'text', text: 'Working on step 1.' }, 300_000)].join('\n') + '\n',
    );

    await vscode.commands.executeCommand('rawr.followSession', { file, agent: 'claude' });
    const name = path.basename(file);
    const first = await poll(
      async () => {
        const t = await panelText();
        return t && t.includes(`Following Claude Code: ${name}`) && /70% left/.test(t) ? t : undefined;
      },
      30000,
      'the panel following the transcript',
    );
    assert.match(first, /Window 1,000,000 tokens: model claude-opus-5-5 \(1 calls\): Claude Opus \/ Sonnet 5\.x: 1M/);
    assert.match(first, /2 lines/);

    // The agent commits at 69% of its window: records appended to the same file, nothing reopened.
    fs.appendFileSync(
      file,
      [
        assistant('m2', { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'git commit -m "step 1: hello.txt"' } }, 690_000),
        user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: '[main 3f2a1c9] step 1: hello.txt\n 1 file changed' }], {
          toolUseResult: { stdout: '[main 3f2a1c9] step 1: hello.txt\n 1 file changed', stderr: '' },
        }),
      ].join('\n') + '\n',
    );
    await sleep(300);
    // Half a record first (a write in progress), then the rest: the panel waits for the whole line.
    const next = assistant('m3', { type: 'text', text: 'Step 1 is committed.' }, 691_000);
    fs.appendFileSync(file, next.slice(0, 40));
    await sleep(1500);
    fs.appendFileSync(file, next.slice(40) + '\n');

    const t = await poll(
      async () => {
        const x = await panelText();
        return x && /rawr would (compact|suggest compacting) here: commit 3f2a1c9, 3\d% left/.test(x) ? x : undefined;
      },
      30000,
      'the decision in the panel',
    );
    assert.match(t, /5 lines/);
    assert.match(t, /\/compact Keep the objective, the decisions made and the files in scope\. Just completed: commit 3f2a1c9/);
    assert.match(t, /line 4 · tool_loop · (compact|suggest)/);
    assert.match(t, /3\d% left/);

    // The status bar shows the followed session's context.
    const bar = await poll(
      async () => {
        const items = await bridge('text', { selector: '#workbench\\.parts\\.statusbar [aria-label^="rawr follow:"]' });
        return items.find((x) => /3\d% · (ready|early|asap)/.test(x));
      },
      15000,
      'the follow status-bar item',
    );
    info().followStatusBar = bar;

    // A PreCompact snapshot written by the hooks for this session appears in the panel.
    fs.mkdirSync(stateDir, { recursive: true });
    fs.writeFileSync(path.join(stateDir, 'snapshot-2026-11-26T10-00-00-000Z.json'), '{}');
    fs.appendFileSync(file, user('continue please') + '\n');
    const withHooks = await poll(
      async () => {
        const x = await panelText();
        return x && x.includes('snapshot-2026-11-26T10-00-00-000Z.json') ? x : undefined;
      },
      20000,
      'the hooks snapshot in the panel',
    );
    assert.match(withHooks, /rawr hooks: snapshots and injections/);
    info().followPanel = withHooks.slice(0, 1500);

    for (const c of ['workbench.action.closeSidebar', 'workbench.action.closePanel', 'workbench.action.closeAuxiliaryBar'])
      await vscode.commands.executeCommand(c).then(undefined, () => undefined);
    await vscode.commands.executeCommand('rawr.openPanel');
    // Show the state at the commit again for the picture: the decision with its /compact text.
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').split('\n').slice(0, 5).join('\n') + '\n');
    let seen;
    await poll(
      async () => {
        const x = (seen = await panelText());
        return x && /rawr would (compact|suggest compacting) here/.test(x) && /5 lines/.test(x) ? x : undefined;
      },
      20000,
      'the panel after the file was replaced',
    ).catch((e) => assert.fail(`${e.message}: ${String(seen).slice(0, 1500)}`));
    await sleep(500);
    const shot = await bridge('screenshot', { name: 'follow-panel' });
    assert.ok(fs.existsSync(shot), shot);
    copyToDocs(shot, 'follow-panel.png');

    // Records of the wrong shape (issue 22, item 12): skipped as replay skips them, and the panel says
    // how many, listing the first few with their lines.
    const wrong = (k) => JSON.stringify({ ...base, type: 'assistant', uuid: `w-${k}`, timestamp: new Date().toISOString(), message: 'not an object' });
    fs.appendFileSync(file, Array.from({ length: 300 }, (_, k) => wrong(k)).join('\n') + '\n');
    const skipped = await poll(
      async () => {
        const x = await panelText();
        return x && x.includes('Problems: 300 lines skipped (the first 20 listed)') ? x : undefined;
      },
      20000,
      'the skipped records in the panel',
    );
    assert.match(skipped, /line 6: /, 'the first skipped line is listed');
  });

  it("a Claude Code session rawr steers: the hook's refusal, silent in Claude Code, is said in the panel and the status bar; then the compaction at the commit", async () => {
    // rawr's PreCompact hook logs each answer in .rawr/claude/<session>/steer-log.jsonl (core/hooks/claude/steer.ts).
    fs.mkdirSync(stateDir, { recursive: true });
    const log = path.join(stateDir, 'steer-log.jsonl');
    const entry = (allow, why, text, used) =>
      JSON.stringify({ at: new Date().toISOString(), trigger: 'auto', allow, why, text, usedTokens: used, window: 1_000_000, line: 5 }) + '\n';
    fs.appendFileSync(file, user('next step please') + '\n'); // a change of the transcript (the watch) as in a live session
    fs.appendFileSync(log, entry(false, 'deferred', 'deferred to the next boundary (64% used; waiting for a commit or a completed task)', 640_000));
    const deferred = await poll(
      async () => {
        const x = await panelText();
        return x && x.includes("Claude Code's compaction: deferred to the next boundary (64% used; waiting for a commit or a completed task)") ? x : undefined;
      },
      20000,
      'the deferral in the panel',
    );
    assert.match(deferred, /rawr's answers to Claude Code's compaction \(newest first\)/);
    assert.match(deferred, /refused \(auto\): deferred to the next boundary/);
    const bar = await poll(
      async () => {
        const items = await bridge('text', { selector: '#workbench\\.parts\\.statusbar [aria-label^="rawr follow:"]' });
        return items.find((x) => /· deferred/.test(x));
      },
      15000,
      'the status bar saying deferred',
    );
    info().followSteerStatusBar = bar;
    fs.appendFileSync(log, entry(true, 'boundary', 'compacting at commit 3f2a1c9 (70% used)', 700_000));
    const allowed = await poll(
      async () => {
        const x = await panelText();
        return x && x.includes("Claude Code's compaction: compacting at commit 3f2a1c9 (70% used)") ? x : undefined;
      },
      20000,
      'the compaction at the commit in the panel',
    );
    assert.match(allowed, /allowed \(auto\): compacting at commit 3f2a1c9[\s\S]*refused \(auto\): deferred/);
    // After the compaction, the hooks' receipt (core/hooks/shared/repairHook.ts writes it to hook-log.jsonl):
    // tokens before and after, what Claude Code's summary kept of rawr's facts, what rawr re-injected.
    fs.appendFileSync(
      path.join(stateDir, 'hook-log.jsonl'),
      JSON.stringify({
        kind: 'receipt',
        at: new Date().toISOString(),
        trigger: 'auto',
        snapshot: 'snapshot-2026-11-26T10-00-00-000Z.json',
        tokensBefore: 700_000,
        tokensAfter: 21_000,
        summaryTokens: 20_000,
        repairTokens: 1_000,
        facts: { commits: { facts: 3, kept: 2, added: 1 }, current_ask: { facts: 1, kept: 0, added: 1 }, files_edited: { facts: 4, kept: 4, added: 0 } },
      }) + '\n',
    );
    const receipt = await poll(
      async () => {
        const x = await panelText();
        return x && x.includes("Receipts after Claude Code's compactions") ? x : undefined;
      },
      20000,
      'the receipt in the panel',
    );
    assert.match(receipt, /auto compaction: 700,000 → ~21,000 tokens/);
    assert.match(receipt, /the summary kept 6 of rawr's 8 facts; rawr re-injected 2 \(commits 1, current ask 1; ~1,000 tokens\)/);
    fs.mkdirSync(path.resolve(__dirname, '../../../test-artifacts/vscode'), { recursive: true });
    fs.writeFileSync(path.resolve(__dirname, '../../../test-artifacts/vscode/follow-steer-panel.txt'), receipt);
  });
});
