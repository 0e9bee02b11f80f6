/**
 * A hook process's stdin and stdout without Node's stream objects (src/cli/hooks/stdio.ts): the input as
 * the agent writes it, nothing from a terminal or /dev/null, a size cap, and a stdin that is never closed
 * given up at its time limit — after which the hook still ends (finishHook), by a signal, instead of waiting for it.
 * Each case is a real child process with the stdin an agent gives it.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as path from 'node:path';

const STDIO = path.resolve(__dirname, '../../src/cli/hooks/stdio.js');
const MAIN = path.resolve(__dirname, '../../src/cli/hooks/main.js');

/** A child that reads its stdin with readStdin(max, timeoutMs) and prints what it got as JSON. */
const reader = (max: number, timeoutMs: number) =>
  `const { readStdin, writeFd } = require(${JSON.stringify(STDIO)});` +
  `const { finishHook } = require(${JSON.stringify(MAIN)});` +
  `readStdin(${max}, ${timeoutMs}).then((s) => { writeFd(1, JSON.stringify({ length: s.length, head: s.slice(0, 20) })); finishHook(0); });`;

describe('hook stdin and stdout (hookStdio.ts)', function () {
  this.timeout(60_000);

  it('reads the whole input from a pipe, however it is cut, and prints it', () => {
    const input = JSON.stringify({ session_id: 's', pad: 'é'.repeat(200_000) });
    const r = spawnSync(process.execPath, ['-e', reader(16 * 1024 * 1024, 5000)], { input, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { length: input.length, head: input.slice(0, 20) });
  });

  it('gives no input for /dev/null (a character device, as a terminal is)', () => {
    const r = spawnSync(process.execPath, ['-e', reader(1024, 5000)], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { length: 0, head: '' });
  });

  it('stops at the size cap', () => {
    const r = spawnSync(process.execPath, ['-e', reader(100_000, 5000)], { input: 'x'.repeat(1_000_000), encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const got = JSON.parse(r.stdout) as { length: number };
    assert.ok(got.length <= 100_000, `read ${got.length}`);
  });

  it('a stdin that is never closed: what came is used at the time limit, and the process ends', async () => {
    const child = spawn(process.execPath, ['-e', reader(1024 * 1024, 300)], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.write('{"session_id":"s"}'); // and never closed
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const end = await new Promise<string>((resolve) => {
      const deadline = setTimeout(() => resolve('hung'), 20_000);
      child.on('exit', (c, signal) => {
        clearTimeout(deadline);
        resolve(signal ?? String(c));
      });
    });
    if (end === 'hung') child.kill('SIGKILL');
    // Node's exit would wait for the read still blocked in its worker thread: the hook ends by a signal.
    assert.equal(end, 'SIGKILL', 'the hook ended on its own while its stdin stayed open');
    assert.deepEqual(JSON.parse(out), { length: 18, head: '{"session_id":"s"}' });
  });
});
