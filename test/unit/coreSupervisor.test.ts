/**
 * The core client's lifecycle with the real core process (src/host/core/coreSupervisor.ts): the compiled
 * server forked over IPC (test/support/forkedCore.ts), killed, restarted, given up on, disposed — each
 * state the supervisor passes through, and what becomes of the requests in flight or waiting at each
 * transition. The pure transitions are test/unit/coreLifecycle.test.ts; the LanguageClient the extension
 * wraps the same supervisor around is exercised by the real VS Code tier (test/vscode/suite/core.test.js).
 */
import * as assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { shippedPromptsDir } from '../../src/core/prompts/fs';
import { MAX_RESTARTS } from '../../src/host/core/coreLifecycle';
import { CoreSupervisor } from '../../src/host/core/coreSupervisor';
import { forkedCoreConnection, type ForkedCore } from '../support/forkedCore';
import { until } from '../support/until';

/** The tsc build by default; RAWR_SERVER_MODULE=dist/server.js runs the same tests on the esbuild bundle. */
const SERVER = path.resolve(process.env.RAWR_SERVER_MODULE || path.join(__dirname, '../../src/server/main.js'));

const gone = (c: ChildProcess) => c.exitCode !== null || c.signalCode !== null;

describe('core client lifecycle with the real core process (CoreSupervisor)', function () {
  this.timeout(60_000);
  let logDir: string;
  const made: Array<{ core: CoreSupervisor; conn: () => ForkedCore | undefined }> = [];

  beforeEach(() => {
    logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-core-supervisor-'));
  });
  afterEach(async () => {
    for (const { core, conn } of made.splice(0)) {
      await core.dispose();
      for (const c of conn()?.forked ?? []) if (!gone(c)) c.kill('SIGKILL');
    }
    fs.rmSync(logDir, { recursive: true, force: true });
  });

  /** A supervisor whose lines are recorded, and a start on a forked server. */
  function supervise() {
    const lines: string[] = [];
    const log = {
      info: (m: string) => lines.push(`[info] ${m}`),
      warn: (m: string) => lines.push(`[warn] ${m}`),
      error: (m: string) => lines.push(`[error] ${m}`),
    };
    const core = new CoreSupervisor(logDir, [shippedPromptsDir()], log);
    let conn: ForkedCore | undefined;
    made.push({ core, conn: () => conn });
    const start = (server = SERVER) =>
      core.start((policy) => (conn = forkedCoreConnection(server, policy)), { timeoutMs: 20_000, server: path.basename(server) });
    return { core, lines, start, conn: () => conn! };
  }

  const message = (text: string) => ({ kind: 'message' as const, message: { role: 'user' as const, text } });

  it('starting → running: a request made while starting waits and goes to the process; dispose stops it and fails later requests', async () => {
    const { core, start, conn, lines } = supervise();
    assert.equal(core.phase, 'starting');
    const early = core.pid();
    await start();
    assert.equal(core.phase, 'running');
    assert.equal(core.generation, 1);
    assert.equal(core.mode, 'process');
    const child = conn().child()!;
    assert.equal(await early, child.pid, 'the waiting request went to the process');
    assert.notEqual(child.pid, process.pid);
    assert.ok(
      lines.some((l) => l.startsWith(`[info] rawr core process running (pid ${child.pid}, main.js)`)),
      lines.join('\n'),
    );

    await core.dispose();
    assert.equal(core.phase, 'disposed');
    assert.ok(gone(child), 'no process left serving');
    await assert.rejects(core.pid(), /rawr core client disposed/);
  });

  it('running → restarting → running: a write in flight when the process dies is sent once more to the next process and applied once', async () => {
    const { core, start, conn, lines } = supervise();
    await start();
    await core.apply('t1', [message('first')]);
    const first = conn().child()!;
    const inFlight = core.apply('t1', [message('second')]);
    first.kill('SIGKILL');
    await once(first, 'exit');
    assert.equal(core.phase, 'restarting');
    await inFlight;
    assert.equal(core.phase, 'running');
    assert.equal(core.generation, 2);
    const second = conn().child()!;
    assert.notEqual(second.pid, first.pid);
    assert.equal(await core.pid(), second.pid);
    // The new process rebuilt the thread from the log: both messages, the second once.
    assert.deepEqual(
      (await core.snapshot('t1')).messages.map((m) => m.text),
      ['first', 'second'],
    );
    assert.ok(
      lines.some((l) => /^\[warn\] rawr core process exited; restarting it \(1\/5/.test(l)),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) => /^\[warn\] rawr\/apply: the connection to the rawr core process was lost; retrying once/.test(l)),
      lines.join('\n'),
    );
  });

  it(`a process that keeps dying: restarted ${MAX_RESTARTS} times, then in_process on the same logs; the request waiting is answered in-process`, async () => {
    const { core, start, conn, lines } = supervise();
    await start();
    await core.apply('t1', [message('kept')]);
    for (let i = 1; i <= MAX_RESTARTS; i++) {
      await until(`generation ${i} running`, () => core.phase === 'running' && core.generation === i);
      const child = conn().child()!;
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    await until(`generation ${MAX_RESTARTS + 1} running`, () => core.phase === 'running' && core.generation === MAX_RESTARTS + 1);
    const last = conn().child()!;
    last.kill('SIGKILL');
    await once(last, 'exit');
    assert.equal(core.phase, 'in_process');
    const waiting = core.snapshot('t1');
    assert.deepEqual(
      (await waiting).messages.map((m) => m.text),
      ['kept'],
    );
    assert.equal(core.mode, 'in-process');
    assert.equal(await core.pid(), undefined);
    assert.ok(conn().forked.every(gone), 'no process restarted after giving up');
    assert.ok(
      lines.some((l) => /^\[error\] rawr core process exited 6 times in 3 minutes; not restarting it/.test(l)),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) => /^\[error\] rawr core process unavailable \(it kept exiting\); running the arbiter in-process/.test(l)),
      lines.join('\n'),
    );
  });

  it('a server that dies on start: in_process from the start, said once; requests are answered on the same logs', async () => {
    const bad = path.join(logDir, 'crash.js');
    fs.writeFileSync(bad, 'process.exit(3);\n');
    const { core, start, lines } = supervise();
    await start(bad);
    assert.equal(core.phase, 'in_process');
    assert.equal(core.mode, 'in-process');
    await core.apply('t1', [message('hi')]);
    assert.deepEqual(
      (await core.snapshot('t1')).messages.map((m) => m.text),
      ['hi'],
    );
    assert.equal(lines.filter((l) => l.includes('running the arbiter in-process')).length, 1, lines.join('\n'));
  });

  it('no server module: in_process at once, said once', async () => {
    const { core, lines } = supervise();
    core.startInProcess('server module missing.js not found');
    assert.equal(core.phase, 'in_process');
    assert.equal(await core.pid(), undefined);
    assert.deepEqual(lines, ['[error] rawr core process unavailable (server module missing.js not found); running the arbiter in-process on the same logs']);
  });

  it('dispose while restarting: the request waiting for the next process fails, and no process is left', async () => {
    const { core, start, conn } = supervise();
    await start();
    const child = conn().child()!;
    child.kill('SIGKILL');
    await once(child, 'exit');
    assert.equal(core.phase, 'restarting');
    const refused = assert.rejects(core.pid(), /rawr core client disposed/);
    await core.dispose();
    await refused;
    await until('every forked process gone', () => conn().forked.every(gone));
  });
});
