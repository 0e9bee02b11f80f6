// @rawr as a working coding agent, end to end in the real Chat view (issue 12). The scripted model
// (out/test/support/codingScript.js, over HTTP through rawr's OpenAI-compatible provider) plays a two-phase
// session through rawr's real tools: it lists and reads the workspace, creates src/limiter.js and its test,
// runs the test in rawr's terminal, commits, and — after rawr compacts at that commit — edits both files,
// runs the test again, proposes a `git clean` that this test SKIPS, commits phase 2 and says "All done".
//
// Asserted in the real workbench (Playwright through the harness's bridge):
//  - each writing/executing tool call showed VS Code's confirmation in the Chat view, with what it will
//    do (file preview, diff, command); the test clicked Allow, and Skip once: the model got "declined" and
//    the session went on;
//  - the agent's commits were seen through the git extension API, and the first one triggered the golden
//    path: the heads-up names its short sha, followed by the packet, "Context compacted", the handoff;
//  - the files exist with the expected content; the test command's exit code 0 reached the model;
//  - a file attached to the request reached the model (the scripted server recorded it);
//  - the chat shows one line per tool call and the plan as a checklist, not the notes file the agent read.
// Also: what VS Code 1.139 itself offers as language-model tools (vscode.lm.tools), so an update that
// changes it is noticed (docs/TOOLS.md), and rawr's tools' errors (outside the workspace, huge file).
'use strict';
const assert = require('assert');
const path = require('path');
const fs = require('fs');
const cp = require('child_process');
const vscode = require('vscode');
const { poll, bridge, skipWithoutBridge, sleep, info } = require('./index');
const { copyToDocs, sendInChat } = require('./support');

const repo = path.resolve(__dirname, '../../..');
const coding = require(path.join(repo, 'out/test/support/codingScript.js'));
const { startScriptedModel } = require(path.join(repo, 'out/test/support/scriptedModel.js'));

const MODEL = { id: 'scripted-coding', name: 'Scripted coding agent' };
const PROMPT = '@rawr Build a token-bucket rate limiter with HTTP middleware, phase by phase.';
const SPEC = 'docs/limiter-spec.md';
const SPEC_TEXT = '# Limiter spec\n\nCapacity 2, refill 1 token/s; answer 429 when empty. (attached-spec-marker-7f3a)\n';
const ART = process.env.VSCODE_TEST_ARTIFACTS || path.join(repo, 'test-artifacts/vscode');

const SEL = {
  response: '.interactive-item-container.interactive-response',
  // The pending confirmation (answered ones, and tool progress lines that share the widget classes, have no buttons).
  pending: '.chat-confirmation-widget-container:has(.chat-confirmation-widget-buttons .monaco-button)',
  pendingTitle: '.chat-confirmation-widget-container:has(.chat-confirmation-widget-buttons .monaco-button) .chat-confirmation-widget-title .chat-title',
  confirmButtons: '.chat-confirmation-widget-buttons .monaco-button',
  skip: '.chat-confirmation-widget-buttons .monaco-button:text-is("Skip") >> visible=true',
  // The primary button: approves this call and every later call of the same tool in this chat.
  allow: '.chat-confirmation-widget-buttons .monaco-button:has-text("Allow in this Session") >> visible=true',
  scrollDown: '.interactive-session .chat-scroll-down',
};

/** The tools VS Code 1.139.1 registers without Copilot (docs/TOOLS.md; measured, see the design notes there). */
const VSCODE_1139_TOOLS = [
  'create_and_run_task',
  'get_task_output',
  'get_terminal_output',
  'inline_chat_exit',
  'kill_terminal',
  'manage_todo_list',
  'renderMermaidDiagram',
  'runSubagent',
  'runTests',
  'run_in_terminal',
  'run_task',
  'send_to_terminal',
  'setup_tools_createNewWorkspace',
  'task_complete',
  'terminal_last_command',
  'terminal_selection',
  'testFailure',
  'vscode_askQuestions',
  'vscode_editFile_internal',
  'vscode_get_confirmation',
  'vscode_get_confirmation_with_options',
  'vscode_get_modified_files_confirmation',
  'vscode_get_terminal_confirmation',
  'vscode_listCodeUsages',
  'vscode_renameSymbol',
  'vscode_reviewPlan',
  'vscode_searchExtensions_internal',
];

const wsPath = () => vscode.workspace.workspaceFolders[0].uri.fsPath;
const git = (...a) => cp.execFileSync('git', a, { cwd: wsPath(), encoding: 'utf8' }).trim();
const shots = [];
let shotNo = 0;
const shot = async (name) => {
  const p = await bridge('screenshot', { name: `coding-${String(++shotNo).padStart(2, '0')}-${name}` });
  shots.push(path.basename(p));
  return p;
};
const lastResponse = async () => (await bridge('text', { selector: SEL.response })).at(-1) || '';

describe("@rawr as a coding agent: rawr's tools in the real Chat view (scripted model over HTTP)", function () {
  this.timeout(300000);
  this.bail(true);
  let server;
  let session;
  let gitRepo;
  const heads = []; // HEAD commits the git extension API reported, in order
  const subs = [];
  const confirmations = []; // { title, message, answer }
  let shotTaken;
  const handoffShot = new Promise((r) => (shotTaken = r));

  afterEach(async function () {
    if (this.currentTest && this.currentTest.state === 'failed' && process.env.VSCODE_TEST_BRIDGE) {
      await bridge('screenshot', { name: `coding-FAILED-${this.currentTest.title.slice(0, 12).replace(/\W/g, '')}` }).catch(() => undefined);
    }
  });

  before(async function () {
    skipWithoutBridge(this);
    await vscode.extensions.getExtension('rawr.rawr').activate();
    // The workspace: a spec to attach and the long notes the agent reads, committed (a clean tree to start from).
    fs.mkdirSync(path.join(wsPath(), 'docs'), { recursive: true });
    fs.writeFileSync(path.join(wsPath(), SPEC), SPEC_TEXT);
    fs.writeFileSync(path.join(wsPath(), coding.NOTES_FILE), coding.notesFile(20000));
    git('add', 'docs');
    git('commit', '-q', '-m', 'docs: limiter spec and notes');
    const api = (await vscode.extensions.getExtension('vscode.git').activate()).getAPI(1);
    gitRepo = await poll(() => api.repositories.find((r) => r.rootUri.fsPath === wsPath()), 20000, 'the workspace repository in the git API');
    subs.push(
      gitRepo.state.onDidChange(() => {
        const c = gitRepo.state.HEAD && gitRepo.state.HEAD.commit;
        if (c && heads.at(-1) !== c) heads.push(c);
      }),
    );
    // The first answer after the handoff waits (at most 30 s) until the compaction has been photographed.
    session = coding.codingSessionScript({ afterHandoff: () => Promise.race([handoffShot, sleep(30000)]) });
    server = await startScriptedModel(session.script);
    const cfg = vscode.workspace.getConfiguration('rawr');
    await cfg.update('openai.baseUrl', server.url, vscode.ConfigurationTarget.Workspace);
    await cfg.update('openai.models', [{ ...MODEL, contextWindow: 12000, maxOutputTokens: 4000 }], vscode.ConfigurationTarget.Workspace);
    await vscode.workspace.getConfiguration('chat').update('agent.collapseCompletedResponses', false, vscode.ConfigurationTarget.Workspace);
    await poll(async () => (await vscode.lm.selectChatModels({ vendor: 'rawr-openai', id: MODEL.id }))[0], 15000, "the scripted model through rawr's provider");
  });

  after(async () => {
    for (const d of subs) d.dispose();
    await vscode.commands.executeCommand('workbench.action.chat.newChat').then(undefined, () => undefined);
    const cfg = vscode.workspace.getConfiguration('rawr');
    await cfg.update('openai.baseUrl', undefined, vscode.ConfigurationTarget.Workspace);
    await cfg.update('openai.models', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.workspace.getConfiguration('chat').update('agent.collapseCompletedResponses', undefined, vscode.ConfigurationTarget.Workspace);
    if (shotTaken) shotTaken();
    if (server) await server.close();
    info().codingScreenshots = shots;
    info().codingConfirmations = confirmations.map((c) => `${c.answer}: ${c.title}`);
  });

  it("VS Code 1.139 offers rawr's tools and its own; none of its own reads or writes files", async () => {
    const tools = vscode.lm.tools;
    const names = tools.map((t) => t.name);
    fs.mkdirSync(ART, { recursive: true });
    fs.writeFileSync(
      path.join(ART, 'vscode-lm-tools.json'),
      JSON.stringify(
        tools.map((t) => ({ name: t.name, tags: t.tags, description: (t.description || '').slice(0, 200) })),
        null,
        1,
      ),
    );
    const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'));
    for (const contributed of pkg.contributes.languageModelTools) {
      const t = tools.find((x) => x.name === contributed.name);
      assert.ok(t, `${contributed.name} is registered`);
      assert.deepStrictEqual(JSON.parse(JSON.stringify(t.inputSchema)), contributed.inputSchema, `${t.name}'s schema`);
    }
    const own = names.filter((n) => !n.startsWith('rawr_')).sort();
    info().vscodeLmTools = own;
    if (vscode.version.startsWith('1.139.')) {
      // If this fails after a VS Code update, see what changed (test-artifacts/vscode/vscode-lm-tools.json),
      // re-check which built-in tools work from a participant, and update docs/TOOLS.md and this list.
      assert.deepStrictEqual(own, [...VSCODE_1139_TOOLS].sort(), `VS Code ${vscode.version}'s own tools changed`);
    }
    assert.ok(!own.some((n) => /read_?file|find_?files|list_?dir|create_?file|replace_?string|apply_?patch/i.test(n)), `a file tool without Copilot: ${own}`);
  });

  it('read tools answer bad input with a clear error, in bounded time, and write nothing', async () => {
    const invoke = (name, input) => Promise.resolve(vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }));
    const text = (r) => r.content.map((p) => p.value || '').join('');
    assert.match(text(await invoke('rawr_read_file', { path: SPEC })), /attached-spec-marker-7f3a/);
    assert.match(text(await invoke('rawr_read_file', { path: coding.NOTES_FILE, startLine: 3, endLine: 4 })), /lines 3-4 of \d+/);
    await assert.rejects(invoke('rawr_read_file', { path: '../../etc/passwd' }), /outside the workspace/);
    await assert.rejects(invoke('rawr_read_file', { path: '/etc/hostname' }), /outside the workspace/);
    const big = path.join(wsPath(), 'big.log');
    fs.writeFileSync(big, 'x'.repeat(3 * 1024 * 1024));
    try {
      await assert.rejects(invoke('rawr_read_file', { path: 'big.log' }), /is more than the 2 MB rawr reads \(big\.log is 3 MiB/);
    } finally {
      fs.rmSync(big);
    }
    await assert.rejects(invoke('rawr_read_file', { path: 'docs' }), /is a directory/);
    assert.match(text(await invoke('rawr_list_files', { glob: 'docs/**' })), /docs\/limiter-spec\.md/);
    assert.match(text(await invoke('rawr_search_text', { query: 'attached-spec-marker' })), /docs\/limiter-spec\.md:3:/);
    assert.match(text(await invoke('rawr_git_status', {})), /^## main/);
  });

  it('plays a coding session: confirmations shown and answered (one Skip), files written, tests run, phases committed', async () => {
    const t0 = Date.now();
    const headBefore = git('rev-parse', 'HEAD');
    await bridge('press', { key: 'Control+Alt+KeyI' });
    await vscode.commands.executeCommand('workbench.action.chat.newChat').then(undefined, () => undefined);
    // Pick the model and attach the spec and a selection of the notes, as the paperclip would (the internal
    // command takes the workbench's own range shape, 1-based); then type the request like a person.
    await vscode.commands.executeCommand('workbench.action.chat.open', {
      modelSelector: { vendor: 'rawr-openai', id: MODEL.id },
      attachFiles: [
        vscode.Uri.file(path.join(wsPath(), SPEC)),
        { uri: vscode.Uri.file(path.join(wsPath(), coding.NOTES_FILE)), range: { startLineNumber: 3, startColumn: 1, endLineNumber: 5, endColumn: 1 } },
      ],
      query: '',
      isPartialQuery: true,
    });
    await sleep(1000);
    await shot('attached');
    await sendInChat(PROMPT);

    // Answer every confirmation as it appears, as a person would: "Allow in this Session", except the `git clean` (Skip).
    const deadline = Date.now() + 200000;
    let compactionShot = false;
    for (;;) {
      assert.ok(
        Date.now() < deadline,
        `the session did not end; confirmations so far: ${confirmations.map((c) => c.title).join(' | ')}; last response: ${(await lastResponse()).slice(-1500)}`,
      );
      const last = await lastResponse();
      if (/All done: both phases are committed/.test(last)) break;
      if (!compactionShot && /Continue from here\./.test(last)) {
        // The commit-triggered compaction, for the README (copied with --update-docs).
        compactionShot = true;
        await bridge('click', { selector: SEL.scrollDown }).catch(() => undefined);
        await sleep(600);
        copyToDocs(await shot('commit-compaction'), 'commit-compaction.png');
        shotTaken();
      }
      const pending = await bridge('text', { selector: SEL.pending });
      if (!pending.length) {
        await sleep(400);
        continue;
      }
      const title = (await bridge('text', { selector: SEL.pendingTitle })).at(-1) || '';
      // (code blocks render their spaces as no-break spaces)
      const whole = ((await bridge('text', { selector: SEL.pending })).at(-1) || '').replace(/\u00a0/g, ' ');
      const skip = whole.includes(coding.SKIPPABLE_COMMAND);
      // Still the one answered last (a click that did not land): answer it again, do not count it twice.
      const prev = confirmations.at(-1);
      const again = prev && !prev.done && prev.message === whole;
      const c = again ? prev : { title: title.trim(), message: whole, answer: skip ? 'Skip' : 'Allow in this Session', tries: 0 };
      c.tries++;
      assert.ok(c.tries <= 4, `the confirmation "${c.title}" could not be answered`);
      if (!again) confirmations.push(c);
      if (c.tries === 1) await shot(`confirm-${confirmations.length}`);
      await bridge('click', { selector: skip ? SEL.skip : SEL.allow });
      // The widget gives up its buttons once answered.
      c.done = await poll(
        async () => (await bridge('text', { selector: SEL.pending })).length === 0 || /All done/.test(await lastResponse()),
        6000,
        'the answer',
      ).catch(() => false);
    }
    info().codingSessionMs = Date.now() - t0;
    await bridge('click', { selector: SEL.scrollDown }).catch(() => undefined);
    await sleep(800);
    await shot('done');
    const text = (await lastResponse()).replace(/\u00a0/g, ' ');
    fs.writeFileSync(path.join(ART, 'coding-session-rendered.txt'), text);

    // Confirmations: shown with what they will do, answered in the Chat view.
    const find = (re) => confirmations.find((c) => re.test(c.message));
    assert.ok(
      find(/src\/limiter\.js/) && find(/class TokenBucket/),
      `the create confirmation previews the file: ${JSON.stringify(confirmations.map((c) => c.message.slice(0, 200)))}`,
    );
    assert.ok(find(new RegExp(coding.TEST_COMMAND.replace(/[.]/g, '\\.'))), 'the test command was shown before it ran');
    assert.ok(find(/git clean -fdX/), 'the skipped command was shown');
    assert.ok(find(/Too Many Requests/), 'the edit confirmation shows the new text');
    // Each tool asked on its first call (creating, running, editing); "Allow in this Session" covered the
    // later calls of the same tool. The skipped command asked, and so did the next command.
    assert.deepStrictEqual(
      confirmations.map((c) => `${c.answer}: ${c.title}`),
      [
        'Allow in this Session: Create src/limiter.js?',
        'Skip: Run this command?',
        'Allow in this Session: Run this command?',
        'Allow in this Session: Edit src/limiter.js?',
      ],
    );
    // The skipped command: the model was told, and went on.
    assert.strictEqual(session.log.declined.length, 1, 'the model got the Skip as a tool result');
    assert.match(session.log.declined[0], /The user declined this tool call/);
    info().codingDeclinedResult = session.log.declined[0];
    assert.ok(text.includes(`⊘ Skipped: run ${coding.SKIPPABLE_COMMAND} (you chose Skip)`), 'the chat shows the call as skipped');
    assert.ok(text.includes(`You skipped ${coding.SKIPPABLE_COMMAND}`), 'the agent says it goes on without the skipped command');

    // The work: files, test runs, commits (seen by the git extension API).
    assert.strictEqual(fs.readFileSync(path.join(wsPath(), 'src/limiter.js'), 'utf8'), coding.LIMITER_FINAL);
    assert.strictEqual(fs.readFileSync(path.join(wsPath(), 'test/limiter.test.js'), 'utf8'), coding.TEST_FINAL);
    assert.match(session.log.results.rawr_run_in_terminal || '', /exit code 0/);
    const log = git('log', '--format=%H %s', `${headBefore}..HEAD`).split('\n').reverse();
    assert.deepStrictEqual(
      log.map((l) => l.slice(41)),
      coding.COMMIT_MESSAGES,
      `the agent's commits: ${log}`,
    );
    const [first, second] = log.map((l) => l.slice(0, 40));
    await poll(() => heads.includes(second), 10000, 'the second commit in the git API');
    assert.ok(heads.includes(first) && heads.includes(second), `the git API saw both commits: ${heads}`);
    assert.strictEqual(git('status', '--porcelain'), '', 'everything committed');

    // The first commit triggered the golden path, and the heads-up names it.
    const hu = text.indexOf('rawr watcher → agent');
    assert.ok(hu >= 0, 'a heads-up in the chat');
    const headsUp = text.slice(hu, hu + 600);
    assert.ok(headsUp.includes(first.slice(0, 7)), `the heads-up names commit ${first.slice(0, 7)}: ${headsUp}`);
    for (const [what, re] of /** @type {Array<[string, RegExp]>} */ ([
      ['the packet', /What just completed/],
      ['the compaction', /Context compacted — /],
      ['the handoff', /rawr handoff → agent/],
      ['phase 2', /Edited src\/limiter\.js/],
    ])) {
      assert.ok(re.test(text.slice(hu)), `${what} after the heads-up`);
    }
    info().codingHeadsUp = headsUp.split('\n').slice(0, 3).join(' ');

    // The attached spec reached the model, with its path.
    assert.ok(session.log.prompt && session.log.prompt.includes('[rawr] Attached by the user:'), `the prompt as the model saw it: ${session.log.prompt}`);
    assert.ok(session.log.prompt.includes(`File \`${SPEC}\``) && session.log.prompt.includes('attached-spec-marker-7f3a'), session.log.prompt);
    assert.match(text, /📎 File docs\/limiter-spec\.md/);
    info().codingPromptAsSeen = session.log.prompt.slice(0, 1500);
    // …and the selection, with its file and line range (lines 3–5 of the notes).
    assert.ok(session.log.prompt.includes(`Selection of \`${coding.NOTES_FILE}\` (lines 3–5)`), session.log.prompt.slice(0, 2000));
    assert.ok(session.log.prompt.includes(`3| ${coding.NOTES_MARKER}`) || session.log.prompt.includes('## Note 1'), 'the selected lines themselves');

    // What the person saw: one line per tool call, the plan as a checklist; not the notes the agent read.
    // (inline code renders without its backticks)
    for (const line of [
      '✓ Created src/limiter.js',
      `✓ Ran ${coding.TEST_COMMAND} — exit 0`,
      '✓ Edited test/limiter.test.js',
      `✓ Read ${coding.NOTES_FILE}`,
      'Plan (0/2 done)',
      'Plan (1/2 done)',
      'Plan (2/2 done)',
    ]) {
      assert.ok(text.includes(line), `"${line}" in the rendered chat`);
    }
    assert.ok(!text.includes(coding.NOTES_MARKER), 'the notes file the agent read is not rendered');
  });
});
