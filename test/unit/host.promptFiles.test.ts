/**
 * "Rawr: Open Prompt Files" (src/host/promptFiles.ts) in a workspace a cloned repository controls: its
 * `.rawr` or `.rawr/prompts` may be a symlink out of the workspace, or a prompt's name a dangling link to
 * a file of the person's. Nothing is written through either; a plain workspace gets every shipped prompt
 * and keeps the person's edits.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { PROMPT_FILES } from '../../src/core/prompts/promptSet';
import { openPromptFiles } from '../../src/host/promptFiles';

describe('Open Prompt Files in a workspace the repository controls', () => {
  const win = vscode.window as unknown as Record<string, unknown>;
  const saved = win.showWarningMessage;
  const warned: string[] = [];
  const extensionUri = vscode.Uri.file(path.resolve(__dirname, '../../..'));
  const log = { info: () => undefined };
  let tmp = '';
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'rawr-promptfiles-'));
    warned.length = 0;
    win.showWarningMessage = async (m: string) => void warned.push(m);
  });
  afterEach(() => {
    win.showWarningMessage = saved;
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  const dirs = () => {
    const ws = path.join(tmp, 'ws');
    const elsewhere = path.join(tmp, 'elsewhere');
    fs.mkdirSync(ws);
    fs.mkdirSync(elsewhere);
    return { ws, elsewhere };
  };

  it('a plain workspace: every shipped prompt copied, an edited one kept', async () => {
    const { ws } = dirs();
    const edited = path.join(ws, '.rawr/prompts', PROMPT_FILES.packetRequest);
    fs.mkdirSync(path.dirname(edited), { recursive: true });
    fs.writeFileSync(edited, 'mine\n');
    assert.equal(await openPromptFiles(vscode.Uri.file(ws), extensionUri, log), true);
    for (const name of Object.values(PROMPT_FILES)) assert.ok(fs.existsSync(path.join(ws, '.rawr/prompts', name)), name);
    assert.equal(fs.readFileSync(edited, 'utf8'), 'mine\n');
  });

  for (const linked of ['.rawr', '.rawr/prompts']) {
    it(`${linked} a symlink out of the workspace: nothing written there, and the warning names the link`, async () => {
      const { ws, elsewhere } = dirs();
      fs.mkdirSync(path.dirname(path.join(ws, linked)), { recursive: true });
      fs.symlinkSync(elsewhere, path.join(ws, linked));
      assert.equal(await openPromptFiles(vscode.Uri.file(ws), extensionUri, log), false);
      assert.deepEqual(fs.readdirSync(elsewhere), [], 'nothing written outside the workspace');
      assert.equal(warned.length, 1);
      assert.ok(warned[0]!.includes(path.join(ws, linked)) && warned[0]!.includes(elsewhere), warned[0]);
    });
  }

  it("a prompt's name a dangling link to a file of the person's: the link is left, nothing is created where it points", async () => {
    const { ws, elsewhere } = dirs();
    const prompts = path.join(ws, '.rawr/prompts');
    fs.mkdirSync(prompts, { recursive: true });
    const victim = path.join(elsewhere, 'profile');
    fs.symlinkSync(victim, path.join(prompts, PROMPT_FILES.handoff));
    assert.equal(await openPromptFiles(vscode.Uri.file(ws), extensionUri, log), true);
    assert.ok(!fs.existsSync(victim), 'written through the dangling link');
    assert.ok(fs.lstatSync(path.join(prompts, PROMPT_FILES.handoff)).isSymbolicLink());
  });
});
