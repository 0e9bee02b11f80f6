/**
 * Core round trips of a chat message (issue 32): one @rawr request driven by the scripted model double
 * (a multi-phase session with a compaction) through the real participant, the core client's requests
 * (coreClient.ts clientApi: what startCore sends on its language client, here on a plain JSON-RPC
 * connection, since vscode-languageclient needs VS Code) and the real core process (src/server), every
 * request counted where it is sent. Printed per user message and per model call (the agent's calls and
 * rawr's own: judgment, packet, summary), with the count by method.
 */
import '../support/vscode/register';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as rpc from 'vscode-jsonrpc/node';
import { shippedPromptsDir } from '../../src/core/prompts/fs';
import { CORE_METHODS } from '../../src/core/protocol/coreProtocol';
import { clientApi } from '../../src/host/core/clientApi';
import { shipped } from '../support/engine';
import { participantHarness } from '../support/participantHarness';
import { multiPhaseScript } from '../support/scriptedModel';

/** Measured by this bench at 861646c, before issue 32 (the host appended what the core said to append). */
export const BEFORE_ISSUE_32 = { perMessage: 60.5, perModelCall: 7.56 };

export interface RoundTrips {
  messages: number;
  modelCalls: number;
  compactions: number;
  trips: number;
  byMethod: Record<string, number>;
}

const REPO = path.resolve(__dirname, '../../..');

export async function runRoundTrips(): Promise<RoundTrips> {
  const root = mkdtempSync(path.join(tmpdir(), 'rawr-trips-'));
  const settings = { forecast_enabled: false }; // tiers alone: the session compacts at its phase boundaries
  const byMethod: Record<string, number> = {};
  const child = fork(path.join(REPO, 'out', 'src', 'server', 'main.js'), ['--node-ipc'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: [] });
  const conn = rpc.createMessageConnection(new rpc.IPCMessageReader(child), new rpc.IPCMessageWriter(child));
  conn.onNotification(() => undefined); // window/logMessage and friends
  conn.listen();
  await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: null,
    capabilities: {},
    initializationOptions: { logDir: path.join(root, 'threads'), promptDirs: [shippedPromptsDir()] },
  });
  await conn.sendNotification('initialized', {});
  const core = clientApi(<R>(name: keyof typeof CORE_METHODS, params: object) => {
    const method = CORE_METHODS[name];
    byMethod[method] = (byMethod[method] ?? 0) + 1;
    return conn.sendRequest<R>(method, params);
  });
  await core.configure({ ...shipped, settings: { ...shipped.settings, ...settings } });
  for (const k of Object.keys(byMethod)) delete byMethod[k];
  const script = multiPhaseScript({
    steps: ['Research the API', 'Draft the limiter', 'Implement the middleware', 'Harden: edge cases', 'Write the tests', 'Ship: docs and changelog'],
    fillerChars: 9000,
  });
  const h = participantHarness({ script, window: 20_000, settings, coreApi: core });
  try {
    const first = await h.ask('Build a token-bucket rate limiter for our HTTP server, phase by phase.');
    if (first.result.errorDetails) throw new Error(first.result.errorDetails.message);
    const second = await h.ask('Thanks. Anything left to do?', { threadId: first.threadId });
    if (second.result.errorDetails) throw new Error(second.result.errorDetails.message);
    // Counted before the bench's own snapshot request below.
    const counted = { ...byMethod };
    const trips = Object.values(counted).reduce((n, c) => n + c, 0);
    const compactions = (await core.snapshot(first.threadId)).compactions.length;
    return { messages: 2, modelCalls: h.model.requests.length, compactions, trips, byMethod: counted };
  } finally {
    h.dispose();
    conn.dispose();
    child.kill();
    rmSync(root, { recursive: true, force: true });
  }
}

export function formatRoundTrips(r: RoundTrips): string {
  const per = (n: number) => (n > 0 ? (r.trips / n).toFixed(2) : '-');
  const methods = Object.entries(r.byMethod)
    .filter(([, c]) => c > 0)
    .map(([m, c]) => `${m.replace(/^rawr\//, '')} ${c}`)
    .join(', ');
  const before = `\n  before issue 32 (861646c, same session): ${BEFORE_ISSUE_32.perMessage.toFixed(2)} per user message, ${BEFORE_ISSUE_32.perModelCall.toFixed(2)} per model call`;
  return [
    `core round trips (scripted model → participant → core client → core process; ${r.messages} user messages, ${r.modelCalls} model calls, ${r.compactions} compactions):`,
    `  ${r.trips} requests to the core: ${per(r.messages)} per user message, ${per(r.modelCalls)} per model call (${methods})${before}`,
  ].join('\n');
}

if (require.main === module) {
  runRoundTrips().then(
    (r) => console.log(formatRoundTrips(r)),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
