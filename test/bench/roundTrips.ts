/**
 * Core round trips of a chat message (issue 32): one @rawr request driven by the scripted model double
 * (a multi-phase session with a compaction) through the real participant, the core client (the
 * CoreSupervisor the extension uses, on the forked-server connection of the unit tier, since
 * vscode-languageclient needs VS Code) and the real core process (src/server), every request counted
 * where the connection sends it. Printed per user message and per model call (the agent's calls and
 * rawr's own: judgment, packet, summary), with the count by method.
 */
import '../support/vscode/register';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { shippedPromptsDir } from '../../src/core/prompts/fs';
import { CoreSupervisor, type CoreConnection } from '../../src/host/core/coreSupervisor';
import { shipped } from '../support/engine';
import { forkedCoreConnection } from '../support/forkedCore';
import { participantHarness } from '../support/participantHarness';
import { multiPhaseScript } from '../support/scriptedModel';

/** Measured by this bench on 7c077d7 (before issue 32's change: the host appended what the core said to append). */
export const BEFORE_ISSUE_32 = { perMessage: 60.5, perModelCall: 7.56, entry: 4, mostPerModelCall: 8 };

export interface RoundTrips {
  messages: number;
  modelCalls: number;
  compactions: number;
  trips: number;
  byMethod: Record<string, number>;
  /** Requests from a message's arrival to its first model call, most over the messages. */
  entry: number;
  /** Requests between one model call and the next (or the end of its request), most over the calls. */
  mostPerModelCall: number;
}

const REPO = path.resolve(__dirname, '../../..');

export async function runRoundTrips(): Promise<RoundTrips> {
  const root = mkdtempSync(path.join(tmpdir(), 'rawr-trips-'));
  const settings = { forecast_enabled: false }; // tiers alone: the session compacts at its phase boundaries
  const byMethod: Record<string, number> = {};
  // Where each request falls: which message, after how many model calls.
  const at = { ask: -1, calls: () => 0 };
  const gaps = new Map<string, number>();
  const counting = (c: CoreConnection): CoreConnection => ({
    get state() {
      return c.state;
    },
    onDidChangeState: (listener) => c.onDidChangeState(listener),
    start: () => c.start(),
    stop: () => c.stop(),
    sendRequest: <R>(method: string, params: object) => {
      byMethod[method] = (byMethod[method] ?? 0) + 1;
      const gap = `${at.ask}:${at.calls()}`;
      if (at.ask >= 0) gaps.set(gap, (gaps.get(gap) ?? 0) + 1);
      return c.sendRequest<R>(method, params);
    },
  });
  const say = (m: string) => console.error(m);
  const core = new CoreSupervisor(path.join(root, 'threads'), [shippedPromptsDir()], { info: () => undefined, warn: say, error: say });
  const server = path.join(REPO, 'out', 'src', 'server', 'main.js');
  await core.start((policy) => counting(forkedCoreConnection(server, policy)), { timeoutMs: 20_000, server: 'main.js' });
  if (core.mode !== 'process') throw new Error('the core process did not start: nothing to count');
  await core.configure({ ...shipped, settings: { ...shipped.settings, ...settings } });
  for (const k of Object.keys(byMethod)) delete byMethod[k];
  const script = multiPhaseScript({
    steps: ['Research the API', 'Draft the limiter', 'Implement the middleware', 'Harden: edge cases', 'Write the tests', 'Ship: docs and changelog'],
    fillerChars: 9000,
  });
  const h = participantHarness({ script, window: 20_000, settings, coreApi: core });
  const starts: number[] = [];
  const ask = async (prompt: string, threadId?: string) => {
    at.ask++;
    starts.push(h.model.requests.length);
    const r = await h.ask(prompt, threadId ? { threadId } : {});
    if (r.result.errorDetails) throw new Error(r.result.errorDetails.message);
    return r.threadId;
  };
  at.calls = () => h.model.requests.length;
  try {
    const threadId = await ask('Build a token-bucket rate limiter for our HTTP server, phase by phase.');
    await ask('Thanks. Anything left to do?', threadId);
    at.ask = -1; // the bench's own snapshot request below is not counted
    if (core.mode !== 'process') throw new Error('the core process was given up on during the bench: the counts are not round trips');
    const counted = { ...byMethod };
    const trips = Object.values(counted).reduce((n, c) => n + c, 0);
    const compactions = (await core.snapshot(threadId)).compactions.length;
    let entry = 0;
    let mostPerModelCall = 0;
    for (const [gap, n] of gaps) {
      const [k, calls] = gap.split(':').map(Number) as [number, number];
      if (calls === starts[k]) entry = Math.max(entry, n);
      else mostPerModelCall = Math.max(mostPerModelCall, n);
    }
    return { messages: 2, modelCalls: h.model.requests.length, compactions, trips, byMethod: counted, entry, mostPerModelCall };
  } finally {
    h.dispose();
    await core.dispose();
    rmSync(root, { recursive: true, force: true });
  }
}

export function formatRoundTrips(r: RoundTrips): string {
  const per = (n: number) => (n > 0 ? (r.trips / n).toFixed(2) : '-');
  const methods = Object.entries(r.byMethod)
    .filter(([, c]) => c > 0)
    .map(([m, c]) => `${m.replace(/^rawr\//, '')} ${c}`)
    .join(', ');
  const b = BEFORE_ISSUE_32;
  const before = `\n  before issue 32 (7c077d7, same session): ${b.perMessage.toFixed(2)} per user message, ${b.perModelCall.toFixed(2)} per model call; at most ${b.entry} from a message to its first model call, ${b.mostPerModelCall} between two model calls`;
  return [
    `core round trips (scripted model → participant → core client → core process; ${r.messages} user messages, ${r.modelCalls} model calls, ${r.compactions} compactions):`,
    `  ${r.trips} requests to the core: ${per(r.messages)} per user message, ${per(r.modelCalls)} per model call (${methods})`,
    `  at most ${r.entry} from a message to its first model call, ${r.mostPerModelCall} between two model calls${before}`,
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
