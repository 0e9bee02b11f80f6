/**
 * rawr_search_text's engine, vscode-free: the files a search found go through the workspace check
 * (workspacePath.ts: a link out of the workspace or into a `.git` folder is not read), are read like
 * rawr_read_file reads (fileText.ts), and are matched in a worker thread (searchWorker.ts) — never on the
 * extension host's thread, which a pattern such as `(a+)+$` or `.*foo.*bar` over a minified file could
 * otherwise freeze for seconds or forever (JavaScript cannot interrupt a running match; a worker can be
 * terminated). Each file gets a time budget, the whole search another; a file that runs past its budget
 * is stopped (the worker is terminated and a fresh one takes the next file) and the answer says so.
 */
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { MAX_FILE_BYTES, readWorkspaceBytes } from './fileText';
import type { LineHit } from './lineMatch';
import type { SearchReply, SearchRequest, SearchWorkerData } from './searchWorker';
import { foundInWorkspace, relativeTo, ToolError } from './workspacePath';

/** How long one file's match and the whole search may take. */
export interface SearchBudget {
  perFileMs: number;
  totalMs: number;
}
export const DEFAULT_SEARCH_BUDGET: SearchBudget = { perFileMs: 3_000, totalMs: 15_000 };

/** Next to this file: out/src/host/tools/ when compiled, dist/ when bundled (scripts/bundle.mjs). */
export const SEARCH_WORKER_FILE = path.join(__dirname, 'searchWorker.js');
/** How long a new worker may take to start (a loaded machine), not counted in a file's budget. */
const WORKER_START_MS = 10_000;
/** A worker's heap: a hostile pattern cannot grow the extension host's process without bound. */
const WORKER_HEAP_MB = 256;

export type MatchOutcome =
  { kind: 'hits'; hits: LineHit[] } | { kind: 'notText'; message: string } | { kind: 'timeout' } | { kind: 'cancelled' } | { kind: 'error'; message: string };

/** One pattern, matched in a worker thread that is terminated when a match runs past its time. */
export class PatternMatcher {
  private worker: Promise<Worker> | undefined;
  private seq = 0;
  private pending: ((o: MatchOutcome) => void) | undefined;
  private disposed = false;

  constructor(
    private readonly source: string,
    private readonly flags: string,
    private readonly workerFile = SEARCH_WORKER_FILE,
  ) {}

  private start(): Promise<Worker> {
    const data: SearchWorkerData = { source: this.source, flags: this.flags };
    const w = new Worker(this.workerFile, { workerData: data, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB }, stdout: true, stderr: true });
    w.unref();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error(`the search worker did not start within ${WORKER_START_MS / 1000} s`)), WORKER_START_MS);
      const fail = (err: Error) => {
        clearTimeout(timer);
        void w.terminate();
        reject(err);
      };
      w.once('error', fail);
      w.once('online', () => {
        clearTimeout(timer);
        w.off('error', fail);
        resolve(w);
      });
    });
  }

  private discard(): void {
    const w = this.worker;
    this.worker = undefined;
    void w?.then((x) => x.terminate()).catch(() => undefined);
  }

  /**
   * The lines of a file the pattern matches (at most `max`), or why not, within `timeoutMs` of matching.
   * `bytes` is handed to the worker (transferred: unusable here afterwards).
   */
  async match(bytes: Buffer, rel: string, max: number, timeoutMs: number): Promise<MatchOutcome> {
    if (this.disposed) return { kind: 'cancelled' };
    let w: Worker;
    try {
      w = await (this.worker ??= this.start());
    } catch (err) {
      this.worker = undefined;
      return { kind: 'error', message: (err as Error).message };
    }
    // Disposed while the worker was starting.
    if (this.disposed) return { kind: 'cancelled' };
    const id = ++this.seq;
    return new Promise<MatchOutcome>((resolve) => {
      const done = (o: MatchOutcome) => {
        clearTimeout(timer);
        w.off('message', onMessage);
        w.off('error', onError);
        w.off('exit', onExit);
        this.pending = undefined;
        resolve(o);
      };
      const onMessage = (m: SearchReply) => {
        if (m.id !== id) return;
        done('hits' in m ? { kind: 'hits', hits: m.hits } : 'notText' in m ? { kind: 'notText', message: m.notText } : { kind: 'error', message: m.error });
      };
      const onError = (err: Error) => {
        done({ kind: 'error', message: err.message });
        this.discard();
      };
      const onExit = () => {
        done({ kind: 'error', message: 'the search worker stopped' });
        this.worker = undefined;
      };
      const timer = setTimeout(() => {
        done({ kind: 'timeout' });
        this.discard();
      }, timeoutMs);
      this.pending = done;
      w.on('message', onMessage);
      w.on('error', onError);
      w.on('exit', onExit);
      // Transferred, not copied — unless it may be a slice of Node's shared small-buffer pool (a slab of
      // Buffer.poolSize bytes), which must not be taken away: then a copy (at most a few KiB) is.
      const own = bytes.buffer.byteLength > Buffer.poolSize ? bytes : new Uint8Array(bytes);
      const req: SearchRequest = { id, bytes: own.buffer as ArrayBuffer, offset: own.byteOffset, length: own.byteLength, rel, max };
      w.postMessage(req, [req.bytes]);
    });
  }

  /** Stops the worker; a match in progress answers `cancelled`. */
  dispose(): void {
    this.disposed = true;
    this.pending?.({ kind: 'cancelled' });
    this.discard();
  }
}

export interface SearchQuery {
  query: string;
  isRegex?: boolean;
  caseSensitive?: boolean;
  /** At most this many matching lines. */
  max: number;
}

/** The pattern a query means (validated here, on the host: a syntax error is the model's to fix). */
export function compileQuery(q: Pick<SearchQuery, 'query' | 'isRegex' | 'caseSensitive'>): { source: string; flags: string } {
  const source = q.isRegex ? q.query : q.query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const flags = q.caseSensitive ? '' : 'i';
  try {
    new RegExp(source, flags);
  } catch (err) {
    throw new ToolError(`invalid regular expression: ${(err as Error).message}`);
  }
  return { source, flags };
}

/** What the search needs of a cancellation token (vscode's, structurally). */
export interface Cancellable {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => unknown): { dispose(): unknown };
}

export type SearchResult = { kind: 'done'; text: string } | { kind: 'cancelled' };

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * Searches `files` (absolute paths a listing found; `more` = whether it found more than these) and
 * returns the tool's answer: `path:line: text` per matching line, then notes on what was not searched
 * and why — time budget, links out of the workspace, binary or non-UTF-8 files.
 */
export async function searchFiles(
  roots: readonly string[],
  files: readonly string[],
  q: SearchQuery,
  token: Cancellable,
  budget: SearchBudget = DEFAULT_SEARCH_BUDGET,
  more = false,
): Promise<SearchResult> {
  const { source, flags } = compileQuery(q);
  const matcher = new PatternMatcher(source, flags);
  const sub = token.onCancellationRequested(() => matcher.dispose());
  const started = Date.now();
  const hits: string[] = [];
  const stoppedFiles: string[] = [];
  let searched = 0;
  let refused = 0;
  let notText = 0;
  let failed: string | undefined;
  let stopped: string | undefined;
  try {
    for (const [i, f] of files.entries()) {
      if (token.isCancellationRequested) return { kind: 'cancelled' };
      const left = budget.totalMs - (Date.now() - started);
      if (left <= 0) {
        stopped = `[search stopped: time budget — the search's ${budget.totalMs / 1000} s ran out after ${i} of ${files.length} files; narrow the glob or simplify the pattern]`;
        break;
      }
      const p = await foundInWorkspace(roots, f);
      if (!p) {
        refused++;
        continue;
      }
      let bytes: Buffer;
      try {
        bytes = await readWorkspaceBytes(roots, p);
      } catch (err) {
        if (!(err instanceof ToolError)) throw err;
        notText++;
        continue;
      }
      const rel = relativeTo(roots, f);
      const outcome = await matcher.match(bytes, rel, q.max + 1 - hits.length, Math.min(budget.perFileMs, left));
      switch (outcome.kind) {
        case 'cancelled':
          return { kind: 'cancelled' };
        case 'notText':
          notText++;
          continue;
        case 'timeout':
          if (left <= budget.perFileMs) {
            stopped = `[search stopped: time budget — the search's ${budget.totalMs / 1000} s ran out while matching ${rel} (${i + 1} of ${files.length} files); narrow the glob or simplify the pattern]`;
            break;
          }
          stoppedFiles.push(rel);
          continue;
        case 'error':
          failed = `[search stopped: matching ${rel} failed (${outcome.message}); simplify the pattern]`;
          break;
        case 'hits':
          searched++;
          for (const h of outcome.hits) hits.push(`${rel}:${h.line}:${h.column ? `${h.column}:` : ''} ${h.text}`);
          if (hits.length > q.max) stopped = `[more than ${q.max} matching lines; narrow the query or the glob]`;
          break;
      }
      if (stopped || failed) break;
    }
  } finally {
    sub.dispose();
    matcher.dispose();
  }
  const notes: string[] = [];
  if (stoppedFiles.length)
    notes.push(
      `[search stopped: time budget — the pattern ran past ${budget.perFileMs / 1000} s in ${plural(stoppedFiles.length, 'file')} (${stoppedFiles.slice(0, 5).join(', ')}${stoppedFiles.length > 5 ? ', …' : ''}), which ${stoppedFiles.length === 1 ? 'was' : 'were'} not searched to the end; simplify the regular expression (nested quantifiers such as (a+)+ or several .* backtrack without end)]`,
    );
  if (failed) notes.push(failed);
  if (stopped) notes.push(stopped);
  if (more) notes.push(`[only the first ${files.length} files were searched; narrow the glob]`);
  if (refused) notes.push(`[${plural(refused, 'file')} not searched: links that lead outside the workspace or into a .git folder]`);
  if (notText) notes.push(`[${plural(notText, 'file')} not searched: binary, over ${MAX_FILE_BYTES / 1024 / 1024} MB, or not UTF-8/UTF-16 text]`);
  const tail = notes.length ? `\n${notes.join('\n')}` : '';
  if (hits.length === 0) return { kind: 'done', text: `No matches for ${JSON.stringify(q.query)} in ${plural(searched, 'file')}.${tail}` };
  return { kind: 'done', text: hits.slice(0, q.max).join('\n') + tail };
}
