// "Rawr: Install Claude Code Hooks" in the real VS Code: the command writes the workspace's
// .claude/settings.local.json (personal; steering on: autoCompactWindow) with hook commands that run the extension's stable launcher
// (<globalStorage>/bin/rawr-hooks -> this extension's bundled dist/cli.js), and those commands work
// when run through a shell the way Claude Code runs them: PreCompact, PostCompact, then the injection.
'use strict';
const assert = require('assert');
const cp = require('child_process');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');

describe('agent hooks: install from VS Code (no clone needed)', function () {
  this.timeout(60000);

  it('rawr.installClaudeHooks writes launcher commands that run the bundled CLI', async () => {
    const ext = vscode.extensions.getExtension('rawr.rawr');
    await ext.activate();
    assert.strictEqual(vscode.workspace.isTrusted, true, 'the harness workspace is trusted');
    const folder = vscode.workspace.workspaceFolders[0].uri.fsPath;
    const r = /** @type {{ ok: boolean, lines: string[] }} */ (await vscode.commands.executeCommand('rawr.installClaudeHooks', { folder }));
    assert.ok(r && r.ok, `install failed: ${JSON.stringify(r)}`);
    const settings = JSON.parse(fs.readFileSync(path.join(folder, '.claude', 'settings.local.json'), 'utf8'));
    assert.strictEqual(typeof settings.autoCompactWindow, 'number', 'steering: Claude Code asks rawr from its early line');
    assert.strictEqual(fs.existsSync(path.join(folder, '.claude', 'settings.json')), false, 'nothing in the shared settings');
    const command = (event) => settings.hooks[event][0].hooks[0].command;
    for (const event of ['PreCompact', 'PostCompact', 'SessionStart', 'UserPromptSubmit']) {
      assert.match(command(event), new RegExp(`/bin/rawr-hooks hooks claude ${event}$`), command(event));
    }
    const launcher = command('PreCompact')
      .replace(/ hooks claude PreCompact$/, '')
      .replace(/^'|'$/g, '');
    assert.ok(fs.readFileSync(launcher, 'utf8').includes(path.join(ext.extensionPath, 'dist', 'cli.js')), 'the launcher points at this version');

    const run = (event, extra) =>
      cp.spawnSync('/bin/sh', ['-c', command(event)], {
        input: JSON.stringify({ session_id: 'vscode-e2e', cwd: folder, hook_event_name: event, ...extra }),
        encoding: 'utf8',
        cwd: folder,
        env: { ...process.env, CLAUDE_PROJECT_DIR: folder },
        timeout: 30000,
      });
    const pre = run('PreCompact', { trigger: 'manual' });
    assert.strictEqual(pre.status, 0, pre.stderr);
    assert.strictEqual(run('PostCompact', { trigger: 'manual', compact_summary: 'summary' }).status, 0);
    const prompt = run('UserPromptSubmit', { prompt: 'continue' });
    assert.strictEqual(prompt.status, 0, prompt.stderr);
    const out = JSON.parse(prompt.stdout);
    assert.match(out.hookSpecificOutput.additionalContext, /CONTEXT COMPACTION DETECTED/);

    // installing again changes nothing
    const again = /** @type {{ ok: boolean, lines: string[] }} */ (await vscode.commands.executeCommand('rawr.installClaudeHooks', { folder }));
    assert.ok(again.ok && /already present/.test(again.lines.join(' ')), JSON.stringify(again));
    fs.rmSync(path.join(folder, '.claude'), { recursive: true, force: true });
    fs.rmSync(path.join(folder, '.rawr', 'claude'), { recursive: true, force: true });
  });
});
