#!/usr/bin/env node
// `npm run bench:soak-host`: the memory soak where users run it (issue 30, item 6) — long @rawr threads one
// after another, each a new chat in the real Chat view of a real VS Code (code-server), through the real
// extension host and the real core process; after every thread both processes collect their garbage and
// report heap and RSS (test/vscode/suite/memory.soak.test.js, run by test/vscode/run.mjs). Prints one row per
// thread and the growth from the 10th thread to the last.
//
//   node test/vscode/soak.mjs [--threads N] [--steps N] [--via chat|handler] [--model process|host] [--snapshots DIR]
//
// Defaults: 30 threads of 40 phases in a 20k window (about 8 compactions each), via the Chat view.
// --model host runs the scripted model inside the extension host, keeping its recordings (how issue 30
// measured: the double's own memory then grows the measured heap). --snapshots DIR also writes heap snapshots of both processes after the 10th and the last thread.
// Exit: run.mjs's (0 when the soak ran; the figures are printed, not judged).
import cp from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    threads: { type: 'string', default: '30' },
    steps: { type: 'string', default: '40' },
    via: { type: 'string', default: 'handler' },
    model: { type: 'string', default: 'process' },
    snapshots: { type: 'string' },
  },
});
const env = {
  ...process.env,
  RAWR_SOAK_THREADS: values.threads,
  RAWR_SOAK_STEPS: values.steps,
  RAWR_SOAK_VIA: values.via,
  RAWR_SOAK_MODEL: values.model,
  ...(values.snapshots ? { RAWR_SOAK_SNAPSHOTS: path.resolve(values.snapshots) } : {}),
};
// The tier's overall deadline, scaled to the soak (a thread takes 7–25 s depending on the machine's load).
const timeout = String(300 + Number(values.threads) * 90);
const r = cp.spawnSync(process.execPath, [path.join(ROOT, 'test/vscode/run.mjs'), '--grep', 'memory soak', '--timeout', timeout], {
  env,
  stdio: ['ignore', 'inherit', 'inherit'],
});

let soak;
try {
  soak = JSON.parse(fs.readFileSync(path.join(ROOT, 'test-artifacts/vscode/info.json'), 'utf8')).soak;
} catch {
  soak = undefined;
}
if (!soak) {
  console.error('soak: no measurements recorded (see the output above and test-artifacts/vscode/)');
  process.exit(r.status || 2);
}
const mb = (n) => (n / 1024 / 1024).toFixed(1).padStart(6);
console.log(
  `\nmemory soak in the real extension host: ${soak.rows.length} threads of ${soak.steps} phases, ${soak.via === 'chat' ? 'each a new chat in the Chat view' : "the participant's handler called directly"}; scripted model over HTTP (${soak.model}); after a full GC in each process`,
);
console.log(
  `${'thread'.padStart(6)} ${'calls'.padStart(5)} ${'compactions'.padStart(11)} ${'s'.padStart(6)}   host heap    RSS sessions   core heap    RSS  (RSS before its GC)`,
);
for (const x of soak.rows)
  console.log(
    `${String(x.thread).padStart(6)} ${String(x.calls).padStart(5)} ${String(x.compactions).padStart(11)} ${x.seconds.toFixed(1).padStart(6)}   ${mb(x.host.heapUsed)}    ${mb(x.host.rss)} ${String(x.host.sessions).padStart(8)}   ${mb(x.core.heapUsed)}    ${mb(x.core.rss)}  (${x.core.rssBeforeGc === undefined ? '   n/a' : mb(x.core.rssBeforeGc)})`,
  );
const g = soak.growth;
if (typeof g === 'object')
  console.log(
    `from thread ${g.from} to ${g.to}: host heap ${g.hostHeapPct >= 0 ? '+' : ''}${g.hostHeapPct}%, host RSS ${g.hostRssPct >= 0 ? '+' : ''}${g.hostRssPct}%, core heap ${g.corePct.heap >= 0 ? '+' : ''}${g.corePct.heap}%, core RSS ${g.corePct.rss >= 0 ? '+' : ''}${g.corePct.rss}%; thread time ${g.seconds[0]} → ${g.seconds[1]} s`,
  );
else console.log(g);
process.exit(r.status ?? 2);
