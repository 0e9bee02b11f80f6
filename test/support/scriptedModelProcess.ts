/**
 * The scripted multi-phase model (scriptedModel.ts) in a process of its own, for measurements of the
 * process that talks to it: the double's recordings (every request's messages) and its HTTP server then
 * weigh on its own heap, not on the one being measured. The memory soak of the real-VS-Code tier
 * (test/vscode/suite/memory.soak.test.js) starts it with child_process.fork.
 *
 *   fork('out/test/support/scriptedModelProcess.js', [JSON.stringify({ steps, fillerChars })])
 *
 * Messages: it sends `{ url }` once listening; it takes `{ type: 'clear' }` (forget the recorded requests,
 * answering `{ cleared: n, bytes }`: how many requests, and the characters of their messages) and `{ type: 'close' }` (stop the server and exit).
 */
import { multiPhaseScript, startScriptedModel, type MultiPhaseOptions } from './scriptedModel';

async function main(): Promise<void> {
  const opts = JSON.parse(process.argv[2] ?? '{}') as MultiPhaseOptions;
  const server = await startScriptedModel(multiPhaseScript(opts));
  process.on('message', (m: { type?: string }) => {
    if (m.type === 'clear') {
      // What the recordings held: the messages of every request, as a double in the measured process keeps them.
      const bytes = server.requests.reduce((sum, r) => sum + JSON.stringify(r.messages).length, 0);
      const n = server.requests.length;
      server.requests.length = 0;
      process.send?.({ cleared: n, bytes });
    } else if (m.type === 'close') void server.close().then(() => process.exit(0));
  });
  // The parent went away without saying so: nothing is left serving.
  process.on('disconnect', () => void server.close().then(() => process.exit(0)));
  process.send?.({ url: server.url });
}

void main();
