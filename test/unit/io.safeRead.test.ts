/**
 * safeRead (src/core/io/safeRead.ts), the one way rawr reads a file it did not write, async and sync alike:
 * what it returns — the whole file within the cap, the tail from its first line start over the cap, a file
 * whose size the kernel does not report read to its end — and what it refuses. The callers' tests meet
 * these paths only through whole features (hook state, transcripts, logs); a tail read from the wrong
 * place or a read stopped at a stale size passed all of them.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SafeReadError, safeReadBytes, safeReadBytesSync, type SafeReadOptions } from '../../src/core/io/safeRead';

const readers: Array<[string, (file: string, o: SafeReadOptions) => Promise<Buffer>]> = [
  ['async', (file, o) => safeReadBytes(file, o)],
  ['sync', (file, o) => Promise.resolve().then(() => safeReadBytesSync(file, o))],
];

async function problemOf(read: Promise<unknown>): Promise<string> {
  try {
    await read;
  } catch (err) {
    assert.ok(err instanceof SafeReadError, `a SafeReadError, got ${String(err)}`);
    return `${err.problem}: ${err.message}`;
  }
  return 'read';
}

describe('safeRead: what a capped read returns and refuses', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-saferead-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const [name, read] of readers) {
    describe(name, () => {
      it('a file within the cap, to its last byte (a file exactly at the cap too)', async () => {
        const file = path.join(dir, `${name}-small`);
        fs.writeFileSync(file, 'one\ntwo\n');
        assert.equal((await read(file, { maxBytes: 1024 })).toString(), 'one\ntwo\n');
        assert.equal((await read(file, { maxBytes: 8 })).toString(), 'one\ntwo\n');
      });

      it('over the cap: refused with the size and the limit, or with tail the last bytes from their first line start', async () => {
        const file = path.join(dir, `${name}-large`);
        const lines = Array.from({ length: 400 }, (_, k) => `line ${String(k).padStart(4, '0')}`);
        fs.writeFileSync(file, `${lines.join('\n')}\n`);
        assert.match(await problemOf(read(file, { maxBytes: 100 })), /^too_large: .* is 4 KiB, over rawr's 1 KiB limit/);
        // The last 100 bytes start mid-line; the tail drops that partial line and keeps the whole ones after it.
        const tail = (await read(file, { maxBytes: 100, tail: true })).toString();
        const whole = `${lines.join('\n')}\n`;
        const from = whole.indexOf('\n', whole.length - 100) + 1;
        assert.equal(tail, whole.slice(from));
        assert.ok(tail.startsWith('line 0') && tail.endsWith('line 0399\n'), tail);
      });

      it('a file whose size the kernel does not report (/proc) is read to its end, not to its zero size', async function () {
        if (process.platform !== 'linux') this.skip(); // /proc files report size 0 only on Linux
        const proc = '/proc/self/mountinfo';
        assert.equal(fs.statSync(proc).size, 0, 'the kernel reports no size');
        const text = (await read(proc, { maxBytes: 4 * 1024 * 1024 })).toString();
        assert.ok(text.length > 0 && text.endsWith('\n'), `read ${text.length} bytes`);
        assert.equal(text.split('\n').length, fs.readFileSync(proc, 'utf8').split('\n').length);
      });

      it('what is not a regular file: a directory, a FIFO (without waiting for a writer), a device through a symlink, nothing', async () => {
        assert.match(await problemOf(read(dir, { maxBytes: 1024 })), /^not_regular: .* is a directory/);
        const fifo = path.join(dir, `${name}-fifo`);
        execFileSync('mkfifo', [fifo]);
        assert.match(await problemOf(read(fifo, { maxBytes: 1024 })), /^not_regular: .* is a FIFO/);
        const link = path.join(dir, `${name}-zero`);
        fs.symlinkSync('/dev/zero', link);
        assert.match(await problemOf(read(link, { maxBytes: 1024 })), /^not_regular: .* is a character device/);
        assert.match(await problemOf(read(path.join(dir, 'absent'), { maxBytes: 1024 })), /^not_found: no such file/);
      });
    });
  }
});
