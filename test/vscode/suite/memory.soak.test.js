// Memory in the real extension host (issue 30, item 6; named to run before reload.test.js, whose reload
// checks that the window comes back on the last thread it used, not on the soak's): long @rawr threads one after another through the
// real extension host and the real core process (vscode-languageclient over IPC), the model being rawr's own
// OpenAI-compatible provider on the VS Code Language Model API, talking through the real `openai` client to
// the scripted multi-phase model over loopback HTTP. The model runs in a process of its own
// (out/test/support/scriptedModelProcess.js) so that its recordings do not weigh on the heap measured here.
//
// After every thread both processes collect their garbage and report heap and RSS:
//  - the extension host: this process (a full collection with gc exposed at run time);
//  - the core process: through its inspector, opened on a port of the test's choosing (the core is restarted
//    once with `--inspect-port` in NODE_OPTIONS, then SIGUSR1 opens the inspector; it is the real server the
//    extension started, its pid checked through the inspector).
// One line per thread is printed (and recorded in the harness's info); `npm run bench:soak-host` runs it with
// 30 threads (RAWR_SOAK_THREADS, RAWR_SOAK_STEPS) and prints the growth from the 10th thread to the last.
// RAWR_SOAK_SNAPSHOTS=DIR writes heap snapshots of both processes after the 10th thread and the last, for
// Chrome DevTools' Memory tab (compare them: what the later one holds more of is what each thread left).
//
// What is asserted (the CI run is 3 threads, about 30 s): every thread finishes and compacts, the
// structures keyed by request or thread that issue 30 found growing stay bounded (see the test), and both
// processes are measured. Memory growth itself is a figure, printed, not a pass/fail threshold of the tier.
'use strict';
const assert = require('assert');
const cp = require('child_process');
const fs = require('fs');
const http = require('http');
const net = require('net');
const path = require('path');
const v8 = require('v8');
const vm = require('vm');
const vscode = require('vscode');
const { info, poll } = require('./index');
const { recordingStream, request, configureModel, unconfigureModel } = require('./support');

const repo = path.resolve(__dirname, '../../..');
const THREADS = Number(process.env.RAWR_SOAK_THREADS || 2);
const STEPS = Number(process.env.RAWR_SOAK_STEPS || 12);
/** 'chat': each thread a new chat in the real Chat view (what users do); 'handler': the participant's handler called directly. */
const VIA = process.env.RAWR_SOAK_VIA || 'handler';
/** RAWR_SOAK_MODEL=host: the scripted model in the extension host, keeping its recordings (as issue 30 measured). */
const MODEL_IN_HOST = process.env.RAWR_SOAK_MODEL === 'host';
const ART = process.env.VSCODE_TEST_ARTIFACTS || path.join(repo, 'test-artifacts/vscode');
const SNAPSHOTS = process.env.RAWR_SOAK_SNAPSHOTS ? path.resolve(process.env.RAWR_SOAK_SNAPSHOTS) : '';
/** The thread the growth is measured from: once the first threads have filled the caches and warmed the JIT. */
const FROM_THREAD = 10;

const mb = (n) => (n / 1024 / 1024).toFixed(1);

/** A full collection in the extension host (gc exposed at run time: it is a global of a new context). */
function hostGc() {
  v8.setFlagsFromString('--expose-gc');
  vm.runInNewContext('gc')();
}

/** A process's resident set size in bytes, from /proc (Linux); undefined elsewhere. */
function procRss(pid) {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('net').AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
  });
}

function getJson(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => {
          try {
            resolve(JSON.parse(body));
          } catch (e) {
            reject(e);
          }
        });
      })
      .on('error', reject);
  });
}

/** A Chrome DevTools Protocol session with a process's inspector (Node's own WebSocket). */
async function inspectorSession(port) {
  const [target] = await getJson(`http://127.0.0.1:${port}/json/list`);
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error(`cannot connect to the inspector on port ${port}`));
  });
  let next = 1;
  const waiting = new Map();
  const events = new Map();
  ws.onmessage = (m) => {
    const msg = JSON.parse(String(m.data));
    if (msg.id !== undefined) {
      const w = waiting.get(msg.id);
      waiting.delete(msg.id);
      if (!w) return;
      if (msg.error) w.reject(new Error(msg.error.message));
      else w.resolve(msg.result);
    } else if (events.has(msg.method)) events.get(msg.method)(msg.params);
  };
  const post = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });
  const evaluate = async (expression) => {
    const r = await post('Runtime.evaluate', { expression, returnByValue: true });
    if (r.exceptionDetails) throw new Error(`inspector: ${expression}: ${r.exceptionDetails.text}`);
    return r.result.value;
  };
  return {
    evaluate,
    /** Heap and RSS after a full collection. */
    memory: async () => {
      await post('HeapProfiler.collectGarbage');
      return evaluate('(() => { const m = process.memoryUsage(); return { heapUsed: m.heapUsed, rss: m.rss }; })()');
    },
    snapshot: async (file) => {
      const out = fs.createWriteStream(file);
      events.set('HeapProfiler.addHeapSnapshotChunk', (p) => out.write(p.chunk));
      await post('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      events.delete('HeapProfiler.addHeapSnapshotChunk');
      await new Promise((r) => out.end(r));
    },
    /** Closes the process's inspector (Node's counterpart of SIGUSR1), then this session. */
    end: () => {
      ws.send(JSON.stringify({ id: next++, method: 'Runtime.evaluate', params: { expression: 'setImmediate(() => process._debugEnd()), 0' } }));
      setTimeout(() => ws.close(), 200);
    },
  };
}

/**
 * The scripted model in this process, keeping every request it recorded (RAWR_SOAK_MODEL=host): how issue 30
 * measured, for comparison — the double's recordings then grow this heap with every thread.
 */
async function modelInHost(opts) {
  const { startScriptedModel, multiPhaseScript } = require(path.join(repo, 'out/test/support/scriptedModel.js'));
  const server = await startScriptedModel(multiPhaseScript(opts));
  let seen = 0;
  return {
    url: server.url,
    clear: async () => {
      const fresh = server.requests.slice(seen);
      seen = server.requests.length;
      return { calls: fresh.length, bytes: fresh.reduce((sum, r) => sum + JSON.stringify(r.messages).length, 0) };
    },
    close: () => void server.close(),
  };
}

/** The scripted model in its own process; resolves with its URL and controls. */
function modelProcess(opts) {
  const child = cp.fork(path.join(repo, 'out/test/support/scriptedModelProcess.js'), [JSON.stringify(opts)], { stdio: 'inherit' });
  const next = (pred) =>
    new Promise((resolve, reject) => {
      const onMessage = (m) => {
        if (!pred(m)) return;
        child.off('message', onMessage);
        resolve(m);
      };
      child.on('message', onMessage);
      child.once('exit', (c) => reject(new Error(`the scripted model process exited (${c})`)));
    });
  return next((m) => typeof m.url === 'string').then(({ url }) => ({
    url,
    /** Forgets the recorded requests; resolves with how many there were (the thread's model calls) and their messages' size. */
    clear: () => {
      const p = next((m) => typeof m.cleared === 'number');
      child.send({ type: 'clear' });
      return p.then((m) => ({ calls: m.cleared, bytes: m.bytes }));
    },
    close: () => {
      if (child.exitCode === null) child.send({ type: 'close' });
    },
  }));
}

/**
 * `@rawr prompt` in a new chat of the real Chat view, as a person sends it (the chat service, the extension
 * host's chat participant API with its response stream and history, the result kept by the chat model),
 * the model picked by its selector; resolves with the chat result when the response is complete.
 */
async function inNewChat(prompt) {
  await vscode.commands.executeCommand('workbench.action.chat.newChat');
  return vscode.commands.executeCommand('workbench.action.chat.open', {
    query: `@rawr ${prompt}`,
    modelSelector: { vendor: 'rawr-openai', id: 'scripted-soak' },
    blockOnResponse: true,
  });
}

describe('memory soak: long threads one after another in the real extension host and core process', function () {
  this.timeout(120000 + THREADS * 60000);
  let api;
  let model;
  let server;
  let core; // the core process's inspector session
  let corePid;
  const rows = [];

  before(async function () {
    api = await vscode.extensions.getExtension('rawr.rawr').activate();
    server = await (MODEL_IN_HOST ? modelInHost : modelProcess)({
      steps: Array.from({ length: STEPS }, (_x, k) => `Phase ${k + 1} of the importer`),
      fillerChars: 9000,
    });
    await configureModel(server.url, { id: 'scripted-soak', name: 'Scripted soak model', windowTokens: 20000 });
    model = await poll(
      async () => (await vscode.lm.selectChatModels({ vendor: 'rawr-openai', id: 'scripted-soak' }))[0],
      15000,
      "the soak's model through rawr's provider",
    );

    // The core process with an inspector port of our choosing: restarted once with it in its environment
    // (the client forks with the extension host's environment at each start), then opened with SIGUSR1.
    const port = await freePort();
    const before = await api.core.pid();
    assert.strictEqual(typeof before, 'number', 'the core runs as a process');
    const saved = process.env.NODE_OPTIONS;
    process.env.NODE_OPTIONS = `${saved ? `${saved} ` : ''}--inspect-port=127.0.0.1:${port}`;
    try {
      process.kill(before, 'SIGKILL');
      corePid = await poll(
        async () => {
          const pid = await api.core.pid();
          return pid !== before ? pid : undefined;
        },
        30000,
        'the restarted core process',
      );
    } finally {
      if (saved === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = saved;
    }
    process.kill(corePid, 'SIGUSR1');
    core = await poll(() => inspectorSession(port).catch(() => undefined), 10000, "the core process's inspector");
    assert.strictEqual(await core.evaluate('process.pid'), corePid, 'the inspector is the core process the extension talks to');
    if (SNAPSHOTS) fs.mkdirSync(SNAPSHOTS, { recursive: true });
    fs.mkdirSync(ART, { recursive: true });
    fs.rmSync(path.join(ART, 'soak.jsonl'), { force: true });
  });

  after(async () => {
    // The core serves on without its inspector (later suites, the window's remaining life).
    if (core) core.end();
    await unconfigureModel();
    if (server) server.close();
  });

  it(`runs ${THREADS} threads of ${STEPS} phases (${VIA === 'chat' ? 'each a new chat in the Chat view' : 'the handler called directly'}); heap and RSS of both processes after a full collection, per thread`, async () => {
    for (let k = 1; k <= THREADS; k++) {
      const rec = recordingStream();
      const cts = new vscode.CancellationTokenSource();
      const t0 = process.hrtime.bigint();
      const prompt = `Build the importer, phase by phase (chat ${k}).`;
      const result = VIA === 'chat' ? await inNewChat(prompt) : await api.participant.handler(request(model, prompt), { history: [] }, rec.stream, cts.token);
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      cts.dispose();
      assert.ok(result && !result.errorDetails, `thread ${k}: ${result ? result.errorDetails && result.errorDetails.message : 'no result'}`);
      const threadId = result.metadata && result.metadata.rawrThreadId;
      assert.ok(threadId, `thread ${k}: the result names its thread (${JSON.stringify(result)})`);
      const compactions = (await api.core.snapshot(threadId)).compactions.length;
      assert.ok(compactions >= 1, `thread ${k} compacted${VIA === 'chat' ? '' : ` (the transcript ends: ${rec.text().slice(-300)})`}`);
      // The model's recordings (what a double in this process would have kept: issue 30 measured with one).
      const { calls, bytes: modelBytes } = await server.clear();
      // The core's RSS as it is, before the collection (issue 30 read the core's RSS; a process that has not
      // collected holds its garbage too).
      const coreRssBeforeGc = procRss(corePid);
      hostGc();
      const mu = process.memoryUsage();
      const coreMem = { ...(await core.memory()), rssBeforeGc: coreRssBeforeGc };
      const row = {
        thread: k,
        calls,
        modelBytes,
        compactions,
        seconds: Number(seconds.toFixed(2)),
        host: { heapUsed: mu.heapUsed, rss: mu.rss, sessions: api.participant.sessionsInMemory() },
        core: coreMem,
      };
      rows.push(row);
      // Also as it happens (a long soak can be watched, and a cut-short one still leaves its rows).
      fs.appendFileSync(path.join(ART, 'soak.jsonl'), `${JSON.stringify(row)}\n`);
      console.log(
        `[soak] thread ${String(k).padStart(3)}  calls ${String(calls).padStart(3)} (${mb(modelBytes)} MB of messages)  compactions ${String(compactions).padStart(2)}  ${seconds.toFixed(1).padStart(5)} s` +
          `   host heap ${mb(mu.heapUsed).padStart(6)} MB  RSS ${mb(mu.rss).padStart(6)} MB  sessions ${row.host.sessions}` +
          `   core heap ${mb(coreMem.heapUsed).padStart(6)} MB  RSS ${mb(coreMem.rss).padStart(6)} MB`,
      );
      if (SNAPSHOTS && (k === FROM_THREAD || k === THREADS)) {
        v8.writeHeapSnapshot(path.join(SNAPSHOTS, `host-thread${k}.heapsnapshot`));
        await core.snapshot(path.join(SNAPSHOTS, `core-thread${k}.heapsnapshot`));
      }
    }
    const from = rows.find((r) => r.thread === FROM_THREAD);
    const last = rows.at(-1);
    const growth =
      from && last !== from
        ? {
            from: FROM_THREAD,
            to: last.thread,
            hostHeapPct: Number(((last.host.heapUsed / from.host.heapUsed - 1) * 100).toFixed(1)),
            corePct: {
              heap: Number(((last.core.heapUsed / from.core.heapUsed - 1) * 100).toFixed(1)),
              rss: Number(((last.core.rss / from.core.rss - 1) * 100).toFixed(1)),
            },
            hostRssPct: Number(((last.host.rss / from.host.rss - 1) * 100).toFixed(1)),
            seconds: [from.seconds, last.seconds],
          }
        : `fewer than ${FROM_THREAD + 1} threads: nothing to compare (npm run bench:soak-host runs 30)`;
    console.log(`[soak] growth: ${JSON.stringify(growth)}`);
    info().soak = {
      threads: THREADS,
      steps: STEPS,
      via: VIA,
      model: MODEL_IN_HOST ? 'in the extension host, recordings kept' : 'own process',
      corePid,
      growth,
      rows,
    };
  });
});
