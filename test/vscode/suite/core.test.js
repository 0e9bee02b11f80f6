// The core process in a real extension host: the extension's CoreApi (activate() exports `core`) talks to
// a separate process started with vscode-languageclient over IPC; killing that process loses nothing
// (the client restarts it, the new process replays the thread's log); and the same process serves
// diagnostics, hover and completion for rawr-*.md prompt files.
'use strict';
const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const vscode = require('vscode');
const { info, poll, settlesWithin, sleep, waitFor } = require('./index');

/** One event through the core's one write (CoreApi.apply): what the engine said. */
const stepOn = async (core, threadId, event) => {
  const { commands, facts } = await core.apply(threadId, [{ kind: 'event', event }]);
  return { commands, facts };
};
/** One message of the host's into the thread (CoreApi.apply). */
const appendOn = (core, threadId, message) => core.apply(threadId, [{ kind: 'message', message }]);

const EXT_ID = 'rawr.rawr';

describe('core process', function () {
  this.timeout(60000);
  let core;

  before(async () => {
    const ext = vscode.extensions.getExtension(EXT_ID);
    const api = ext && (ext.isActive ? ext.exports : await ext.activate());
    core = api && api.core;
    assert.ok(core && typeof core.pid === 'function', 'activate() exports { core } with pid()');
  });

  it('runs out of process (a pid that is not the extension host)', async () => {
    const pid = await core.pid();
    assert.strictEqual(typeof pid, 'number', `pid() returned ${pid}: the core runs in-process (see the Rawr output channel)`);
    assert.notStrictEqual(pid, process.pid);
    process.kill(pid, 0); // alive
    info().corePid = pid;
  });

  // Declared before the prompt-file suites: those then run on a process the client restarted (twice),
  // and 'prompt files across a restart' kills it again with prompt files open.
  describe('after a crash', () => {
    it('survives being killed: the next step() is answered (not hung) and the snapshot has everything logged before', async () => {
      const threadId = `core-e2e-${Date.now()}`;
      let at = Date.now();
      const tick = () => (at += 1000);
      // No compaction is due: the engine says the message goes straight into the thread, nothing else.
      assert.deepStrictEqual(await stepOn(core, threadId, { type: 'user_message', at: tick(), text: 'Implement the importer, then commit.' }), {
        commands: [{ type: 'append_user_message', text: 'Implement the importer, then commit.' }],
        facts: [],
      });
      await stepOn(core, threadId, {
        type: 'boundary',
        at: tick(),
        source: 'terminal',
        boundary: { kind: 'commit', key: 'a1b2c3d', detail: 'a1b2c3d importer' },
      });
      // 90% left: the evaluation decides "none", so no sequence queues the next user message.
      await stepOn(core, threadId, { type: 'tokens', at: tick(), used: 20000, window: 200000 });
      const fx = await stepOn(core, threadId, { type: 'evaluate', at: tick(), point: 'turn_complete' });
      assert.ok(
        fx.facts.some((e) => e.type === 'decision'),
        'the evaluation point decides',
      );
      await appendOn(core, threadId, { role: 'assistant', text: 'Committed a1b2c3d.' });
      const before = await core.snapshot(threadId);
      assert.strictEqual(before.state.turn, 1);
      assert.strictEqual(before.messages.length, 2);
      assert.ok(before.decisions.length >= 1);

      const pid = await core.pid();
      process.kill(pid, 'SIGKILL');
      // Issued at once, while the client still thinks the old process is there: the request is lost with
      // the connection and retried on the restarted process.
      const t0 = Date.now();
      await settlesWithin(
        stepOn(core, threadId, { type: 'user_message', at: tick(), text: 'Now the CLI.' }),
        30000,
        'step() after the core process was killed',
      );
      info().coreRecoveryMs = Date.now() - t0; // reported, not asserted: a figure, not a guarantee
      await poll(
        () => {
          try {
            process.kill(pid, 0);
            return false;
          } catch {
            return true;
          }
        },
        5000,
        `core process ${pid} to be gone`,
      );

      const newPid = await core.pid();
      assert.strictEqual(typeof newPid, 'number', 'restarted as a process, not in-process');
      assert.notStrictEqual(newPid, pid);
      const after = await core.snapshot(threadId);
      // What was logged before the kill, then the new message, which the core put into the thread once
      // although its request was sent twice.
      assert.deepStrictEqual(after.messages, [...before.messages, { role: 'user', text: 'Now the CLI.' }], 'messages logged before the kill');
      assert.deepStrictEqual(after.decisions, before.decisions, 'decisions logged before the kill');
      assert.strictEqual(after.state.turn, 2, 'the replayed turn plus the new one');
      assert.deepStrictEqual(after.state.tokens, before.state.tokens);
      assert.ok((await core.listThreads()).includes(threadId));
    });

    it('requests issued together during a restart all succeed, on one new process', async () => {
      const threadId = `core-e2e-burst-${Date.now()}`;
      await appendOn(core, threadId, { role: 'user', text: 'hello' });
      const pid = await core.pid();
      process.kill(pid, 'SIGKILL');
      const [snap, threads, pids, log] = await Promise.all([
        core.snapshot(threadId),
        core.listThreads(),
        Promise.all([core.pid(), core.pid(), core.pid()]),
        core.exportLog(threadId),
      ]);
      assert.deepStrictEqual(snap.messages, [{ role: 'user', text: 'hello' }]);
      assert.ok(threads.includes(threadId));
      assert.strictEqual(new Set(pids).size, 1, `one process: ${pids}`);
      assert.strictEqual(typeof pids[0], 'number', 'restarted as a process, not in-process');
      assert.notStrictEqual(pids[0], pid);
      assert.match(log, /"kind":"message"/);
    });
  });

  describe('startCore fallbacks (own client, own log folder)', () => {
    // startCore only needs context.asAbsolutePath from the extension context.
    const REPO_ROOT = path.resolve(__dirname, '../../..');
    const { startCore } = require(path.join(REPO_ROOT, 'out/src/host/core/coreClient.js'));
    const context = { asAbsolutePath: (p) => path.join(REPO_ROOT, p) };
    let tmp;
    let channel;
    let log;
    const handles = [];
    const lines = [];
    const start = (extra = {}) =>
      startCore(context, { logDir: path.join(tmp, 'threads'), promptDirs: [path.join(REPO_ROOT, 'prompts')], log, ...extra }).then((h) => (handles.push(h), h));
    before(() => {
      channel = vscode.window.createOutputChannel('Rawr core test', { log: true });
      // Records what is logged (the LogOutputChannel methods), and still writes it to the channel.
      log = Object.assign(
        Object.create(channel),
        Object.fromEntries(
          ['trace', 'debug', 'info', 'warn', 'error'].map((k) => [
            k,
            (m, ...a) => {
              lines.push(`[${k}] ${m}`);
              channel[k](m, ...a);
            },
          ]),
        ),
      );
    });
    after(() => channel.dispose());
    beforeEach(() => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-e2e-core-'));
      lines.length = 0;
    });
    afterEach(async () => {
      for (const h of handles.splice(0)) await h.dispose();
      fs.rmSync(tmp, { recursive: true, force: true });
    });

    it('a missing server module: the arbiter runs in-process, and the log says so', async () => {
      const core = await start({ serverModule: path.join(tmp, 'missing.js') });
      assert.strictEqual(core.mode, 'in-process');
      assert.strictEqual(await core.pid(), undefined);
      await stepOn(core, 't1', { type: 'user_message', at: 1, text: 'hi' });
      assert.strictEqual((await core.snapshot('t1')).state.turn, 1);
      assert.ok(
        lines.some((l) => /^\[error\] rawr core process unavailable \(server module .*missing\.js not found\); running the arbiter in-process/.test(l)),
        lines.join('\n'),
      );
    });

    it('a server that dies on start: falls back in-process', async () => {
      const bad = path.join(tmp, 'crash.js');
      fs.writeFileSync(bad, 'process.exit(3);\n');
      const t0 = Date.now();
      const core = await start({ serverModule: bad });
      info().crashOnStartFallbackMs = Date.now() - t0;
      assert.strictEqual(core.mode, 'in-process');
      await appendOn(core, 't1', { role: 'user', text: 'hi' });
      assert.deepStrictEqual((await core.snapshot('t1')).messages, [{ role: 'user', text: 'hi' }]);
      assert.ok(
        lines.some((l) => l.includes('running the arbiter in-process')),
        lines.join('\n'),
      );
    });

    it('a process whose channel closes before its exit is seen: requests meeting the closed channel do not stop the client, the process is restarted', async () => {
      // Between a crash and the exit the client sees, writes fail (EPIPE / channel closed). This server
      // holds that window open: on SIGUSR2 it closes its end of the channel, stays for 1.5 s, then exits.
      const server = path.join(tmp, 'slow-death.js');
      fs.writeFileSync(
        server,
        [
          "process.on('SIGUSR2', () => {",
          '  process.disconnect();',
          '  setTimeout(() => {',
          '    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500);',
          '    process.exit(1);',
          '  }, 0);',
          '});',
          `require(${JSON.stringify(path.join(REPO_ROOT, 'out/src/server/main.js'))});`,
        ].join('\n'),
      );
      const core = await start({ serverModule: server });
      assert.strictEqual(core.mode, 'process');
      await appendOn(core, 't1', { role: 'user', text: 'before the crash' });
      const pid = await core.pid();
      process.kill(pid, 'SIGUSR2');
      await sleep(300); // the channel is closed; the process is still there
      const pids = await Promise.all([core.pid(), core.pid(), core.pid(), core.pid()]);
      assert.strictEqual(core.mode, 'process', lines.join('\n'));
      assert.strictEqual(new Set(pids).size, 1, `one process: ${pids}`);
      assert.strictEqual(typeof pids[0], 'number', 'restarted as a process, not in-process');
      assert.notStrictEqual(pids[0], pid);
      assert.deepStrictEqual((await core.snapshot('t1')).messages, [{ role: 'user', text: 'before the crash' }]);
      assert.ok(
        lines.some((l) => /^\[warn\] rawr core connection lost/.test(l)),
        `the requests met the closed channel:\n${lines.join('\n')}`,
      );
      assert.ok(!lines.some((l) => /keeps failing/.test(l)), lines.join('\n'));
    });

    it('a process that keeps dying: restarted 5 times, then in-process on the same logs', async () => {
      const core = await start();
      assert.strictEqual(core.mode, 'process');
      await appendOn(core, 't1', { role: 'user', text: 'before the crashes' });
      const pids = new Set();
      for (let i = 0; i < 5; i++) {
        const pid = await core.pid();
        assert.strictEqual(typeof pid, 'number');
        pids.add(pid);
        process.kill(pid, 'SIGKILL');
        await stepOn(core, 't1', { type: 'tokens', at: 1 + i, used: 1000 * (i + 1), window: 200000 });
      }
      assert.strictEqual(pids.size, 5);
      assert.strictEqual(core.mode, 'process');
      process.kill(await core.pid(), 'SIGKILL'); // the 6th exit in 3 minutes
      const snap = await core.snapshot('t1');
      assert.strictEqual(core.mode, 'in-process');
      assert.strictEqual(await core.pid(), undefined);
      assert.deepStrictEqual(snap.messages, [{ role: 'user', text: 'before the crashes' }]);
      assert.deepStrictEqual(snap.state.tokens, { used: 5000, window: 200000 }, 'every step made before the fallback is in the log');
      assert.strictEqual(lines.filter((l) => /rawr core process exited; restarting it \(\d\/5/.test(l)).length, 5, lines.join('\n'));
      assert.ok(
        lines.some((l) => /exited 6 times in 3 minutes; not restarting it/.test(l)),
        lines.join('\n'),
      );
    });
  });

  describe('prompt files (rawr-*.md)', () => {
    let dir;
    let doc;
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-e2e-prompts-'));
      const file = path.join(dir, 'rawr-auto-compact.md');
      fs.writeFileSync(file, '---\nmode: loud\ncooldown_turns: 2\n---\nWrite your packet.\n');
      const uri = vscode.Uri.file(file);
      const changed = waitFor(
        vscode.languages.onDidChangeDiagnostics,
        (e) => e.uris.some((u) => u.toString() === uri.toString()),
        20000,
        'diagnostics for rawr-auto-compact.md',
      );
      doc = await vscode.workspace.openTextDocument(uri);
      assert.strictEqual(doc.languageId, 'markdown');
      await vscode.window.showTextDocument(doc);
      await changed;
    });
    after(async () => {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it('underlines an invalid knob value at its position', () => {
      const diags = vscode.languages.getDiagnostics(doc.uri);
      assert.strictEqual(diags.length, 1, JSON.stringify(diags));
      assert.match(diags[0].message, /^invalid value for "mode": Invalid option/);
      assert.strictEqual(diags[0].severity, vscode.DiagnosticSeverity.Error);
      assert.deepStrictEqual([diags[0].range.start.line, diags[0].range.start.character, diags[0].range.end.character], [1, 6, 10]);
    });

    it('hover on a knob shows its documentation, default and allowed values', async () => {
      const hovers = /** @type {vscode.Hover[]} */ (await vscode.commands.executeCommand('vscode.executeHoverProvider', doc.uri, new vscode.Position(2, 3)));
      const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
      assert.match(text, /cooldown_turns/);
      assert.match(text, /Default: `2`/);
      assert.match(text, /a whole number from 0 to 1000/);
    });

    it('completes the enum values of mode', async () => {
      const list = /** @type {vscode.CompletionList} */ (
        await vscode.commands.executeCommand('vscode.executeCompletionItemProvider', doc.uri, new vscode.Position(1, 6))
      );
      const labels = list.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
      for (const v of ['off', 'tag', 'suggest', 'auto']) assert.ok(labels.includes(v), `${v} in ${labels.slice(0, 20).join(', ')}`);
    });
  });

  // The prompt-file features are served by the same process: after it is killed, the restarted process
  // must serve them again, for a prompt file that stayed open across the restart and for one opened after.
  describe('prompt files across a restart', () => {
    let dir;
    // The knobs live in rawr-auto-compact.md: each test writes its own copy, in a folder of its own.
    const write = (sub, text) => {
      const file = path.join(dir, sub, 'rawr-auto-compact.md');
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
      return vscode.Uri.file(file);
    };
    /** The diagnostics of uri that flag mode's value, as [line, start, end] ranges. */
    const modeProblems = (uri) =>
      vscode.languages
        .getDiagnostics(uri)
        .filter((d) => /^invalid value for "mode"/.test(d.message))
        .map((d) => [d.range.start.line, d.range.start.character, d.range.end.character]);
    const hoverText = async (uri, position) => {
      const hovers = /** @type {vscode.Hover[]} */ (await vscode.commands.executeCommand('vscode.executeHoverProvider', uri, position));
      return hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    };
    const completionLabels = async (uri, position) => {
      const list = /** @type {vscode.CompletionList} */ (await vscode.commands.executeCommand('vscode.executeCompletionItemProvider', uri, position));
      return list.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
    };
    /** Kills the core process and resolves with the restarted one's pid. */
    const killAndRestart = async () => {
      const pid = await core.pid();
      assert.strictEqual(typeof pid, 'number', 'the core runs as a process');
      process.kill(pid, 'SIGKILL');
      return poll(
        async () => {
          const now = await core.pid();
          return typeof now === 'number' && now !== pid ? now : undefined;
        },
        20000,
        `a core process other than ${pid}`,
      );
    };

    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-e2e-restart-'));
    });
    after(async () => {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it('a prompt file open across the restart: its edits are diagnosed again, hover and completion answer', async () => {
      const uri = write('open-across', '---\nmode: loud\ncooldown_turns: 2\n---\nWrite your packet.\n');
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc);
      await poll(() => modeProblems(uri).length === 1, 20000, 'diagnostics for the open prompt file before the kill');

      await killAndRestart();
      // An edit after the restart: only a process that was given the open document can diagnose it.
      const edit = new vscode.WorkspaceEdit();
      edit.replace(uri, new vscode.Range(1, 6, 1, 10), 'louder');
      assert.ok(await vscode.workspace.applyEdit(edit));
      await doc.save();
      await poll(() => JSON.stringify(modeProblems(uri)) === '[[1,6,12]]', 20000, `the edited value flagged (now ${JSON.stringify(modeProblems(uri))})`);
      assert.match(await hoverText(uri, new vscode.Position(2, 3)), /cooldown_turns/);
      const labels = await completionLabels(uri, new vscode.Position(1, 6));
      for (const v of ['off', 'tag', 'suggest', 'auto']) assert.ok(labels.includes(v), `${v} in ${labels.slice(0, 20).join(', ')}`);
    });

    it('a prompt file opened after a restart: diagnostics, hover and completion', async () => {
      await killAndRestart();
      const uri = write('opened-after', '---\nmode: loud\ncooldown_turns: 2\n---\nWrite your packet.\n');
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc);
      await poll(
        () => JSON.stringify(modeProblems(uri)) === '[[1,6,10]]',
        20000,
        `diagnostics for a prompt file opened after the restart (now ${JSON.stringify(modeProblems(uri))})`,
      );
      const hover = await hoverText(uri, new vscode.Position(2, 3));
      assert.match(hover, /cooldown_turns/);
      assert.match(hover, /Default: `2`/);
      const labels = await completionLabels(uri, new vscode.Position(1, 6));
      for (const v of ['off', 'tag', 'suggest', 'auto']) assert.ok(labels.includes(v), `${v} in ${labels.slice(0, 20).join(', ')}`);
    });
  });
});
