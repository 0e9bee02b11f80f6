/**
 * rawr's file tools never corrupt a file's encoding (issue 22): a file is read and edited only in an
 * encoding it round-trips through byte for byte — UTF-8 (with or without its mark), UTF-16 with its mark —
 * and anything else (Latin-1 with é/è, UTF-16 without a mark and without NUL bytes) is refused with a clear
 * message and left as it was. An edit finds `old_string` verbatim first, so a file with mixed line
 * endings is edited where the text is. Real files, through the vscode shim.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { editFileTool, readFileTool, searchTextTool } from '../../src/host/tools/fileTools';
import { applyEdit } from '../../src/host/tools/fileText';
import { runTool } from '../support/tools';

describe('agent tools: encodings and line endings', () => {
  let ws: string;
  beforeEach(() => (ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-enc-')))));
  afterEach(() => fs.rmSync(ws, { recursive: true, force: true }));
  const put = (name: string, bytes: Buffer) => fs.writeFileSync(path.join(ws, name), bytes);
  const bytesOf = (name: string) => fs.readFileSync(path.join(ws, name));

  it('a Latin-1 file is refused with a clear message, never rewritten with U+FFFD', async () => {
    const latin1 = Buffer.from('# café crème\nx = 2\nprint("été")\n', 'latin1');
    put('conf.py', latin1);
    const edit = await runTool(editFileTool, { path: 'conf.py', old_string: 'x = 2', new_string: 'x = 3' }, [ws]);
    assert.equal(edit.ok, false, edit.text);
    assert.match(edit.text, /conf\.py is not UTF-8 text \(it may be Latin-1/);
    assert.deepEqual(bytesOf('conf.py'), latin1, 'the file is untouched');
    const read = await runTool(readFileTool, { path: 'conf.py' }, [ws]);
    assert.equal(read.ok, false);
    assert.ok(!read.text.includes('\ufffd'));
    const search = await runTool(searchTextTool, { query: 'x = 2' }, [ws]);
    assert.match(search.text, /No matches .*\n\[1 file not searched: binary, over 2 MB, or not UTF-8\/UTF-16 text\]/);
  });

  it('UTF-16 LE without a byte-order mark and without NUL bytes (CJK text) is refused, not read as mojibake', async () => {
    const cjk = Buffer.from('中文测试文本，这是简单的例子。', 'utf16le');
    assert.ok(!cjk.includes(0), 'the probe has no NUL byte (the binary check cannot catch it)');
    put('notes.txt', cjk);
    const read = await runTool(readFileTool, { path: 'notes.txt' }, [ws]);
    assert.equal(read.ok, false, read.text);
    assert.match(read.text, /notes\.txt looks like UTF-16 LE text without a byte-order mark/);
    const edit = await runTool(editFileTool, { path: 'notes.txt', old_string: '中文', new_string: '英文' }, [ws]);
    assert.equal(edit.ok, false);
    assert.deepEqual(bytesOf('notes.txt'), cjk);
    // ASCII-heavy UTF-16 without a mark has NUL bytes: named as UTF-16 too, not just "binary".
    put('ascii16.txt', Buffer.from('hello world\nsecond line\n', 'utf16le'));
    assert.match((await runTool(readFileTool, { path: 'ascii16.txt' }, [ws])).text, /looks like UTF-16 LE text/);
  });

  it('UTF-16 with its byte-order mark (LE and BE) is read and edited in place, mark and encoding kept', async () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Write-Host "héllo"\r\n$x = 2\r\n', 'utf16le')]);
    put('script.ps1', le);
    const read = await runTool(readFileTool, { path: 'script.ps1' }, [ws]);
    assert.equal(read.text, 'script.ps1 (lines 1-2 of 2)\n1| Write-Host "héllo"\n2| $x = 2');
    const edit = await runTool(editFileTool, { path: 'script.ps1', old_string: '$x = 2', new_string: '$x = 3' }, [ws]);
    assert.ok(edit.ok, edit.text);
    assert.deepEqual(bytesOf('script.ps1'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Write-Host "héllo"\r\n$x = 3\r\n', 'utf16le')]));
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('ünïcode = 1\n', 'utf16le').swap16()]);
    put('be.txt', be);
    assert.ok((await runTool(editFileTool, { path: 'be.txt', old_string: '= 1', new_string: '= 2' }, [ws])).ok);
    assert.deepEqual(bytesOf('be.txt'), Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('ünïcode = 2\n', 'utf16le').swap16()]));
  });

  it('a UTF-8 byte-order mark and Windows line endings are kept by an edit', async () => {
    put('bom.txt', Buffer.from('\ufeffé one\r\ntwo\r\n', 'utf8'));
    const edit = await runTool(editFileTool, { path: 'bom.txt', old_string: 'one\ntwo', new_string: 'one\nthree' }, [ws]);
    assert.ok(edit.ok, edit.text);
    assert.deepEqual(bytesOf('bom.txt'), Buffer.from('\ufeffé one\r\nthree\r\n', 'utf8'));
    assert.equal((await runTool(readFileTool, { path: 'bom.txt' }, [ws])).text, 'bom.txt (lines 1-2 of 2)\n1| é one\n2| three');
  });

  it('mixed line endings: an old_string present verbatim is found and replaced as it is', async () => {
    put('mixed.txt', Buffer.from('a\r\nb\nc\nd\r\n'));
    const edit = await runTool(editFileTool, { path: 'mixed.txt', old_string: 'b\nc', new_string: 'B\nC' }, [ws]);
    assert.ok(edit.ok, edit.text);
    assert.equal(bytesOf('mixed.txt').toString(), 'a\r\nB\nC\nd\r\n');
    // Not verbatim, but with the file's CRLF: still found (the model copies lines with \n).
    assert.deepEqual(applyEdit('a\r\nB\nC\nd\r\ne\r\n', 'd\ne', 'D\nE'), { text: 'a\r\nB\nC\nD\r\nE\r\n', count: 1 });
    // The model wrote \r\n where the file has \n.
    assert.deepEqual(applyEdit('x\ny\n', 'x\r\ny', 'x\r\nz'), { text: 'x\nz\n', count: 1 });
    // Only the line endings differ, and the file keeps its own: nothing to change (not a silent no-op "edit").
    assert.throws(() => applyEdit('x\r\ny\r\n', 'x\ny', 'x\r\ny'), /differ only in line endings/);
  });
});
