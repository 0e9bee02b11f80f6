/**
 * The terminal tool's child-process fallback (a shell without shell integration) under hostile commands
 * (issue 22): it answers when the shell exits plus a short grace — not when its output pipes close, which a
 * `setsid` background process can delay for as long as it lives — kills what the command left behind,
 * and honours its timeout and cancel. Real processes (POSIX shell; the leftover hunt reads Linux /proc).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import { runInChildProcess } from '../../src/host/tools/childProcessRunner';

/** Whether a process is gone (a zombie waiting for its reaper counts as gone: it runs no more). */
function gone(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

async function eventuallyGone(pid: number, ms = 3000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (gone(pid)) return true;
  return gone(pid);
}

/** The documented bounds (README "The terminal's child-process fallback", docs/TOOLS.md), not the code's constants. */
const EXIT_GRACE_MS = 500; // "answers when the shell exits plus 0.5 s"
const KILL_GRACE_MS = 2_000; // "kills the command's process group and answers at most 2 s later"

/** Time to answer beyond the bound under test (process start-up on a loaded 2-core machine). */
const SLACK_MS = 2_500;
const never = () => new vscode.CancellationTokenSource().token;

describe('terminal fallback: a child process bounded by its exit, its timeout and cancel', function () {
  before(function () {
    if (process.platform !== 'linux') this.skip(); // setsid and /proc: the probes are Linux's (CI runs Linux)
  });
  const cwd = os.tmpdir();

  it('`setsid sleep 40 & echo started` with a 3 s timeout answers after the shell exits, and the setsid process is killed', async () => {
    const started = Date.now();
    const r = await runInChildProcess('setsid sleep 40 & echo started $!', cwd, 3_000, never());
    const took = Date.now() - started;
    assert.ok(took < EXIT_GRACE_MS + SLACK_MS, `answered after ${took} ms`);
    assert.equal(r.exitCode, 0);
    assert.equal(r.interrupted, undefined);
    const pid = Number(/started (\d+)/.exec(r.output)?.[1]);
    assert.ok(pid > 0, r.output);
    assert.match(r.output, /\[rawr stopped 1 process the command left running in the background/);
    assert.ok(await eventuallyGone(pid), `the setsid'd sleep ${pid} still runs`);
  });

  it('a command that runs past its timeout is interrupted, its setsid child with it', async () => {
    const started = Date.now();
    const r = await runInChildProcess("setsid sh -c 'echo child $$; exec sleep 40'", cwd, 2_000, never());
    const took = Date.now() - started;
    assert.equal(r.interrupted, 'timeout');
    assert.equal(r.exitCode, undefined);
    assert.ok(took < 2_000 + KILL_GRACE_MS + SLACK_MS, `answered after ${took} ms`);
    const child = Number(/child (\d+)/.exec(r.output)?.[1]);
    assert.ok(child > 0, r.output);
    assert.ok(await eventuallyGone(child), `the setsid'd child ${child} still runs`);
  });

  it('cancel interrupts at once', async () => {
    const source = new vscode.CancellationTokenSource();
    setTimeout(() => source.cancel(), 300);
    const started = Date.now();
    const r = await runInChildProcess('echo begun; sleep 40; echo never', cwd, 60_000, source.token);
    assert.equal(r.interrupted, 'cancelled');
    assert.match(r.output, /begun/);
    assert.doesNotMatch(r.output, /never/);
    assert.ok(Date.now() - started < 300 + KILL_GRACE_MS + SLACK_MS);
  });

  it('an ordinary command: its exit code and output, nothing stopped; a background process that let go of the output is left alone', async () => {
    const r = await runInChildProcess('echo hi; echo err >&2; exit 3', cwd, 10_000, never());
    assert.deepEqual(r, { exitCode: 3, output: 'hi\nerr\n', via: 'process' });
    const bg = await runInChildProcess('sleep 30 > /dev/null 2>&1 & echo $!', cwd, 10_000, never());
    const pid = Number(bg.output.trim());
    try {
      assert.deepEqual([bg.exitCode, bg.output.includes('rawr stopped')], [0, false]);
      assert.equal(gone(pid), false);
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  });
});
