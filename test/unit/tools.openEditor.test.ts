/**
 * The agent's file tools beside a person's editors (fileTools.ts): a file open with unsaved changes is
 * edited in its editor — the person's unsaved text is the text edited, never overwritten by the disk's —
 * and saved; a file the editor decoded with losses (U+FFFD where the disk has bytes that are not UTF-8) is
 * refused, as saving it would corrupt it; and create never replaces an existing file unless asked.
 * Through the unit tier's vscode shim, whose open documents and applyEdit behave like VS Code's.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createFileTool, editFileTool } from '../../src/host/tools/fileTools';
import { closeDocuments, openDocument } from '../support/vscode';
import { runTool } from '../support/tools';

describe('agent tools beside open editors: unsaved changes are the text edited', () => {
  let ws: string;
  const file = (rel: string) => path.join(ws, rel);
  beforeEach(() => {
    ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-editors-')));
  });
  afterEach(() => {
    closeDocuments();
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it("edits the editor's unsaved text, not the disk's, and saves it: the person's unsaved change stays", async () => {
    fs.writeFileSync(file('a.ts'), 'const a = 1;\nconst b = 2;\n');
    const doc = openDocument(file('a.ts'), 'const a = 1;\nconst b = 2; // unsaved note\nconst c = 3;\n');
    const r = await runTool(editFileTool, { path: 'a.ts', old_string: 'const c = 3;', new_string: 'const c = 4;' }, [ws]);
    assert.deepEqual(r, { ok: true, text: 'Edited a.ts: replaced 1 occurrence.' });
    assert.equal(doc.getText(), 'const a = 1;\nconst b = 2; // unsaved note\nconst c = 4;\n');
    assert.equal(fs.readFileSync(file('a.ts'), 'utf8'), 'const a = 1;\nconst b = 2; // unsaved note\nconst c = 4;\n', 'saved through the editor');
    assert.equal(doc.saved, 1);
  });

  it('a file the editor decoded with losses is refused with the reason, and neither the editor nor the disk changes', async () => {
    const latin1 = Buffer.from('caf\u00e9 = 1\n', 'latin1');
    fs.writeFileSync(file('legacy.txt'), latin1);
    const doc = openDocument(file('legacy.txt'), 'caf\ufffd = 1\n');
    const r = await runTool(editFileTool, { path: 'legacy.txt', old_string: '1', new_string: '2' }, [ws]);
    assert.equal(r.ok, false);
    assert.match(r.text, /is not UTF-8 text \(it may be Latin-1/);
    assert.equal(doc.getText(), 'caf\ufffd = 1\n');
    assert.deepEqual(fs.readFileSync(file('legacy.txt')), latin1);
    // Decoded without loss by the editor (the person set its encoding): its text is edited and saved by VS Code.
    closeDocuments();
    const right = openDocument(file('legacy.txt'), 'caf\u00e9 = 1\n');
    assert.equal((await runTool(editFileTool, { path: 'legacy.txt', old_string: '1', new_string: '2' }, [ws])).ok, true);
    assert.equal(right.getText(), 'caf\u00e9 = 2\n');
  });

  it('create never replaces an existing file unless overwrite is set; with it, an open file is replaced in its editor', async () => {
    fs.writeFileSync(file('notes.md'), '# mine\n');
    const refused = await runTool(createFileTool, { path: 'notes.md', content: '# new\n' }, [ws]);
    assert.deepEqual(refused, { ok: false, text: 'notes.md already exists: use rawr_edit_file to change it, or overwrite: true to replace it.' });
    assert.equal(fs.readFileSync(file('notes.md'), 'utf8'), '# mine\n');
    fs.mkdirSync(file('folder'));
    assert.deepEqual(await runTool(createFileTool, { path: 'folder', content: 'x', overwrite: true }, [ws]), {
      ok: false,
      text: 'folder exists and is not a regular file.',
    });
    assert.deepEqual(await runTool(createFileTool, { path: 'notes.md', content: '# new\n', overwrite: true }, [ws]), {
      ok: true,
      text: 'Overwrote notes.md (2 lines).',
    });
    assert.equal(fs.readFileSync(file('notes.md'), 'utf8'), '# new\n');
    const doc = openDocument(file('notes.md'), '# new\nunsaved\n');
    assert.equal((await runTool(createFileTool, { path: 'notes.md', content: '# newer\n', overwrite: true }, [ws])).ok, true);
    assert.equal(doc.getText(), '# newer\n');
    assert.equal(fs.readFileSync(file('notes.md'), 'utf8'), '# newer\n');
  });
});
