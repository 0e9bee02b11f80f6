/**
 * The search worker (a worker_thread; see textSearch.ts): compiles the pattern it is given once, then
 * answers each file's bytes with its matching lines. Decoding happens here too, so the extension host's
 * thread only reads bytes and hands them over (transferred, not copied). It may be terminated at any
 * moment — that is how a match that runs past its time budget is stopped — so it keeps no state worth
 * saving.
 *
 * Bundled on its own (scripts/bundle.mjs → dist/searchWorker.js); imports only pure modules.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { matchLines, type LineHit } from './lineMatch';
import { decodeText } from './textEncoding';
import { ToolError } from './toolError';

export interface SearchWorkerData {
  source: string;
  flags: string;
}
export interface SearchRequest {
  id: number;
  /** The file's bytes (transferred). */
  bytes: ArrayBuffer;
  offset: number;
  length: number;
  rel: string;
  max: number;
}
export type SearchReply = { id: number; hits: LineHit[] } | { id: number; notText: string } | { id: number; error: string };

/**
 * Linux: this thread runs at a lower priority than the rest of the process (setpriority on a thread id
 * affects that thread only), so a pattern grinding through its budget leaves the CPU to the extension
 * host's thread on a busy machine. Best effort: elsewhere it runs at the normal priority.
 */
function lowerPriority(): void {
  try {
    const tid = Number(/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'))?.[1]);
    if (tid > 0) setPriority(tid, 10);
  } catch {
    // not Linux, or not allowed: the normal priority
  }
}
lowerPriority();

const { source, flags } = workerData as SearchWorkerData;
const re = new RegExp(source, flags);
parentPort?.on('message', (req: SearchRequest) => {
  let reply: SearchReply;
  try {
    const { text } = decodeText(Buffer.from(req.bytes, req.offset, req.length), req.rel);
    reply = { id: req.id, hits: matchLines(re, text, req.max) };
  } catch (err) {
    // not text (binary, not UTF-8…), or e.g. "Maximum call stack size exceeded" inside the regex engine
    reply = err instanceof ToolError ? { id: req.id, notText: err.message } : { id: req.id, error: (err as Error)?.message ?? String(err) };
  }
  parentPort?.postMessage(reply);
});
