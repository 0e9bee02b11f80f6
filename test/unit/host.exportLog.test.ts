/**
 * "Rawr: Export Decision Log" (src/host/commands.ts): the thread's log copied as written to where the person
 * saves it — file to file, never through the core as one string (a long thread's log is hundreds of MB).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CoreApi } from '../../src/core/protocol/coreProtocol';
import { registerCommands } from '../../src/host/commands';
import type { Participant } from '../../src/host/participant/participant';

describe('Export Decision Log', () => {
  const win = vscode.window as unknown as Record<string, unknown>;
  const saved = { ...win };
  const said: Array<{ kind: string; text: string }> = [];
  let tmp = '';
  let saveTo: vscode.Uri | undefined;
  const subscriptions: Array<{ dispose(): unknown }> = [];
  before(() => {
    tmp = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'rawr-export-'));
    const logDir = path.join(tmp, 'threads');
    fs.mkdirSync(logDir);
    win.showSaveDialog = async () => saveTo;
    win.showInformationMessage = async (text: string) => void said.push({ kind: 'info', text });
    win.showErrorMessage = async (text: string) => void said.push({ kind: 'error', text });
    // Only what the command asks of the core: which threads have a log (the log itself is copied from disk).
    const core = {
      listThreads: async () => fs.readdirSync(logDir).map((n) => n.replace(/\.jsonl$/, '')),
      exportLog: async () => assert.fail('the log went through the core as one string'),
    } as unknown as CoreApi;
    const context = { subscriptions } as unknown as vscode.ExtensionContext;
    registerCommands(context, {
      core: () => core,
      participant: { activeThreadId: undefined } as unknown as Participant,
      log: {} as vscode.LogOutputChannel,
      logDir,
    });
  });
  after(() => {
    for (const d of subscriptions) d.dispose();
    Object.assign(win, saved);
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  beforeEach(() => (said.length = 0));

  it('copies the log byte for byte, over a file already there, and says where', async () => {
    // 12 MB, multi-byte text and a torn last line: exactly as written, not re-encoded or cut
    const line = `{"rawr":1,"thread":"t1","kind":"message","at":1,"message":{"role":"user","text":"naïve — ${'x'.repeat(200)}"}}\n`;
    const bytes = Buffer.from(line.repeat(Math.ceil((12 * 1024 * 1024) / line.length)) + '{"rawr":1,"thr');
    fs.writeFileSync(path.join(tmp, 'threads', 't1.jsonl'), bytes);
    saveTo = vscode.Uri.file(path.join(tmp, 'out.jsonl'));
    fs.writeFileSync(saveTo.fsPath, 'an older export\n');
    await vscode.commands.executeCommand('rawr.exportDecisionLog', 't1');
    assert.ok(fs.readFileSync(saveTo.fsPath).equals(bytes), 'the same bytes');
    assert.deepEqual(said, [{ kind: 'info', text: `Rawr: exported the log of t1 to ${saveTo.fsPath}` }]);
  });

  it('a target that cannot be written: an error naming it, no exception', async () => {
    saveTo = vscode.Uri.file(path.join(tmp, 'no-such-folder', 'out.jsonl'));
    await vscode.commands.executeCommand('rawr.exportDecisionLog', 't1');
    assert.equal(said.length, 1);
    assert.equal(said[0]!.kind, 'error');
    assert.ok(said[0]!.text.startsWith(`Rawr: could not export the log of t1 to ${saveTo.fsPath}: `), said[0]!.text);
  });

  it('the save dialog dismissed: nothing written, nothing said', async () => {
    saveTo = undefined;
    await vscode.commands.executeCommand('rawr.exportDecisionLog', 't1');
    assert.deepEqual(said, []);
  });
});
