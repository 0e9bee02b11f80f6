/**
 * The core service: the single arbiter for every @rawr thread of a workspace, plus its persistence.
 * It owns the event logs (one JSON Lines file per thread) and the engine states, and is what the core
 * process serves over JSON-RPC (src/server) — or what the extension host uses in-process when the core
 * process is unavailable. A thread not in memory is rebuilt from its log on first use: from the last
 * checkpoint in the log (log/checkpoint.ts) on, or, without one, from the start (cold replay),
 * so a restart of the core process loses nothing — and an idle thread can leave memory (threadCache.ts):
 * what is held is bounded by the threads in use, not by every thread the workspace ever had.
 */
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { step } from '../engine/step';
import { MAX_LOG_BYTES, safeReadTextIfExistsSync } from '../io/safeRead';
import { initialState } from '../engine/state';
import { statusOf } from '../engine/status';
import { messageOf } from '../thread/commandMessage';
import type { EngineEvent, EngineState, StepOutput } from '../engine/types';
import { EventLog } from '../log/eventLog';
import { stepRecords } from '../log/loggedEffect';
import type { DecisionRecord, NewLogRecord } from '../logformat/records';
import { AppliedRequests, pushUndoable, rebuild, type CompactionMeta, type RebuildStart } from '../log/rebuild';
import { CHECKPOINT_EVERY_BYTES, CHECKPOINT_GROWTH, CHECKPOINT_V, lastCheckpoint, readArchive, type Checkpoint } from '../log/checkpoint';
import { streamLog, type LogProblem } from '../logformat/reader';
import type { PromptSet } from '../prompts/promptSet';
import type { Applied, Compaction, ThreadInput, ThreadSnapshot } from '../protocol/coreProtocol';
import { isThreadId } from '../protocol/threadId';
import { THREAD_CACHE_DEFAULTS, ThreadCache, type ThreadCacheOptions } from './threadCache';
import { threadBeforeSequence, type ThreadMessage } from '../thread/thread';

interface Loaded {
  log: EventLog;
  state: EngineState;
  messages: ThreadMessage[];
  /** Undoable compactions, oldest first: metadata and where each record is (the archive stays in the log). */
  compactions: CompactionMeta[];
  decisions: DecisionRecord[];
  problems: string[];
  /** The recent identified requests and their results, for answering a retry without applying it twice. */
  requests: AppliedRequests;
  /** Engine events in the thread's history (a checkpoint says how many came before it). */
  events: number;
  /** Bytes written since the last checkpoint (or, after a load, after it), and that checkpoint's size. */
  sinceCheckpoint: number;
  checkpointBytes: number;
}

/** How a CoreService loads threads; `checkpoints: false` ignores them (a full replay: tests and the bench compare). */
export interface LoadOptions {
  checkpoints?: boolean;
  /** Log growth between checkpoints (default CHECKPOINT_EVERY_BYTES; tests use a small one to write many). */
  checkpointEvery?: number;
}

/** What a load re-stepped (the bench's load row): the events after the checkpoint it started from. */
export interface LoadStats {
  events: number;
  stepped: number;
  /** Records read from the log (after the checkpoint, when it started from one). */
  read: number;
  fromCheckpoint: boolean;
}

export class CoreService {
  private readonly threads: ThreadCache<Loaded>;
  private readonly useCheckpoints: boolean;
  private readonly checkpointEvery: number;
  /** What the last cold load re-stepped (for the bench and the tests). */
  lastLoad: LoadStats | undefined;

  constructor(
    private readonly logDir: string,
    private config: PromptSet,
    cache: Partial<Pick<ThreadCacheOptions<Loaded>, 'max' | 'idleMs' | 'now'>> & LoadOptions = {},
  ) {
    this.useCheckpoints = cache.checkpoints ?? true;
    this.checkpointEvery = cache.checkpointEvery ?? CHECKPOINT_EVERY_BYTES;
    this.threads = new ThreadCache<Loaded>({
      ...THREAD_CACHE_DEFAULTS,
      ...cache,
      // Everything a thread holds is in its log, so any thread could be rebuilt exactly; one in the
      // middle of a compaction sequence stays anyway (it is in use, and would be reloaded at once).
      evictable: (_id, t) => t.state.seq.phase === 'idle',
      evict: (_id, t) => t.log.close(),
    });
  }

  /** How many threads are in memory (the rest are in their logs only). */
  threadsInMemory(): number {
    return this.threads.size;
  }

  /** Whether the thread is in memory now (asking does not count as a use). */
  inMemory(threadId: string): boolean {
    return this.threads.has(threadId);
  }

  /** New settings or prompt texts apply to every thread from the next event on. */
  configure(config: PromptSet): void {
    this.config = config;
    for (const t of this.threads.values())
      t.state = step(t.state, { type: 'settings', at: Date.now(), settings: config.settings, prompts: config.prompts }).state;
  }

  private load(threadId: string): Loaded {
    if (!isThreadId(threadId)) throw new Error(`invalid thread id "${threadId}"`);
    let t = this.threads.get(threadId);
    if (t) return t;
    const path = join(this.logDir, `${threadId}.jsonl`);
    const problems: LogProblem[] = [];
    const cpProblems: string[] = [];
    // From the last checkpoint (checkpoint.ts), else from the start: each record after it is stepped as
    // it is read and none is kept (a long thread's log holds hundreds of thousands); only the decisions
    // the panel lists are gathered on the way.
    const cp = this.useCheckpoints ? lastCheckpoint(path, threadId, cpProblems) : undefined;
    let records = 0;
    let decisions: DecisionRecord[] = cp ? cp.checkpoint.decisions.slice(-KEPT_DECISIONS) : [];
    let lastEnd = 0;
    let sinceCheckpoint = 0;
    let checkpointBytes = cp?.bytes ?? 0;
    const read = function* () {
      for (const r of streamLog(path, problems, undefined, cp?.after ?? 0)) {
        records++;
        if (r.offset !== undefined && r.bytes !== undefined) lastEnd = r.offset + r.bytes + 1;
        if (r.record.kind === 'checkpoint') {
          // A checkpoint the scan did not use (beyond its reach, or ignored): growth is counted from it.
          sinceCheckpoint = 0;
          checkpointBytes = r.bytes ?? 0;
          continue;
        }
        sinceCheckpoint += (r.bytes ?? 0) + 1;
        if (r.record.kind === 'decision') {
          decisions.push(r.record.decision);
          if (decisions.length >= 2 * KEPT_DECISIONS) decisions = decisions.slice(-KEPT_DECISIONS);
        }
        yield r;
      }
    };
    const init = initialState({ threadId, settings: this.config.settings, prompts: this.config.prompts });
    const archiveOf = (c: CompactionMeta) => readArchive(path, threadId, c, cpProblems);
    const start: EngineState | RebuildStart = cp
      ? {
          state: cp.checkpoint.state,
          thread: cp.checkpoint.messages,
          compactions: cp.checkpoint.compactions,
          requests: new AppliedRequests(cp.checkpoint.requests),
          events: cp.checkpoint.events,
        }
      : init;
    const rebuilt = rebuild(read(), start, archiveOf);
    this.lastLoad = { events: rebuilt.events, stepped: rebuilt.stepped, read: records, fromCheckpoint: cp !== undefined };
    // The current configuration wins over whatever the log's last settings event said.
    let state = step(rebuilt.state, { type: 'settings', at: Date.now(), settings: this.config.settings, prompts: this.config.prompts }).state;
    const log = new EventLog(path, threadId);
    if (records === 0 && !cp) {
      // A new thread: the phases of earlier threads in this workspace are its forecast's prior. The
      // event is logged, so a rebuild sees the same prior.
      const phases = workspacePhasePrior(this.logDir, threadId);
      if (phases.length > 0) {
        const ev: EngineEvent = { type: 'phase_prior', at: Date.now(), phases };
        log.append({ kind: 'event', at: ev.at, event: ev });
        state = step(state, ev).state;
      }
    }
    // A log with no checkpoint in reach (an older rawr's) gets one at its next write.
    if (!cp && checkpointBytes === 0) sinceCheckpoint = Math.max(sinceCheckpoint, lastEnd);
    const where = (p: LogProblem) =>
      cp ? `${path}: line ${p.line} after the checkpoint at byte ${cp.offset}: ${p.message}` : `${path}:${p.line}: ${p.message}`;
    t = {
      log,
      state,
      messages: rebuilt.thread,
      compactions: rebuilt.compactions,
      decisions: decisions.slice(-KEPT_DECISIONS),
      problems: [...cpProblems.map((m) => `${path}: ${m}`), ...[...problems, ...rebuilt.problems].map(where)],
      requests: rebuilt.requests,
      events: rebuilt.events,
      sinceCheckpoint,
      checkpointBytes,
    };
    this.threads.set(threadId, t);
    return t;
  }

  /**
   * Writes a checkpoint when the log has grown by CHECKPOINT_GROWTH times the last one's size since it
   * (so all checkpoints but the last are at most 1/CHECKPOINT_GROWTH of the rest of the log), and by
   * CHECKPOINT_EVERY_BYTES — or, right after a compaction record (`compacted`: the thread is small then,
   * and the history before it need never be re-stepped), by the first alone.
   */
  private checkpoint(t: Loaded, compacted = false): void {
    if (t.sinceCheckpoint < CHECKPOINT_GROWTH * t.checkpointBytes) return;
    if (!compacted && t.sinceCheckpoint < this.checkpointEvery) return;
    const w = t.log.append({ kind: 'checkpoint', at: Date.now(), v: CHECKPOINT_V, checkpoint: heldBy(t) });
    t.sinceCheckpoint = 0;
    t.checkpointBytes = w.bytes;
  }

  /** Appends a record, counting what it adds towards the next checkpoint. */
  private write(t: Loaded, record: NewLogRecord): { offset: number; bytes: number } {
    const w = t.log.append(record);
    t.sinceCheckpoint += w.bytes + 1;
    return w;
  }

  /** True (and the stored result is to be returned) when `rid` is a retry of a recently applied request. */
  private replayed(t: Loaded, rid: string | undefined): boolean {
    return rid !== undefined && t.requests.has(rid);
  }

  /**
   * The host's inputs in order, each applied as by the methods below; input k is identified as `rid:k`, so
   * a retry applies only what the lost request had not (and answers the rest from what was recorded). The
   * messages the steps' commands append are applied here (messageOf), and returned with the commands.
   */
  apply(threadId: string, inputs: readonly ThreadInput[], rid?: string): Applied {
    const out: Applied = { commands: [], facts: [], appended: [], length: 0, status: statusOf(this.load(threadId).state) };
    inputs.forEach((input, k) => {
      const id = rid === undefined ? undefined : `${rid}:${k}`;
      switch (input.kind) {
        case 'message':
          this.appendMessage(threadId, input.message, id);
          break;
        case 'swap':
          this.swap(threadId, input.compaction, id);
          break;
        case 'event': {
          const r = this.step(threadId, input.event, id);
          out.commands.push(...r.commands);
          out.facts.push(...r.facts);
          out.appended.push(...r.appended);
          break;
        }
        default: {
          const unknown: never = input;
          throw new Error(`unknown input ${JSON.stringify(unknown)}`);
        }
      }
    });
    const t = this.load(threadId);
    out.length = t.messages.length;
    out.status = statusOf(t.state);
    return out;
  }

  /**
   * Feeds one event to the thread's arbiter, persists it (and the facts and commands it produced), applies
   * the commands that change the thread, returns the commands to execute, the facts and what was appended.
   * `rid` identifies the request: a retry returns its output without stepping again (and appends nothing).
   */
  step(threadId: string, event: EngineEvent, rid?: string): StepOutput & { appended: ThreadMessage[] } {
    const t = this.load(threadId);
    if (this.replayed(t, rid)) {
      const prev = t.requests.get(rid!);
      return { ...(prev && 'commands' in prev ? prev : { commands: [], facts: [] }), appended: [] };
    }
    this.write(t, { kind: 'event', at: event.at, event, ...(rid ? { rid } : {}) });
    const { state, ...out } = step(t.state, event);
    t.state = state;
    t.events++;
    if (rid) t.requests.add(rid, out);
    for (const record of stepRecords(out, event.at)) {
      this.write(t, record);
      if (record.kind === 'decision') {
        t.decisions.push(record.decision);
        if (t.decisions.length > KEPT_DECISIONS) t.decisions.shift();
      }
    }
    if (event.type === 'judgment_result') this.write(t, { kind: 'judgment', at: event.at, corrId: event.corrId, phase: 'result', text: event.text });
    const appended: ThreadMessage[] = [];
    for (const c of out.commands) {
      const message = messageOf(c);
      if (message) {
        this.appendMessage(threadId, message);
        appended.push(message);
      }
    }
    this.checkpoint(t);
    return { ...out, appended };
  }

  appendMessage(threadId: string, message: ThreadMessage, rid?: string): void {
    const t = this.load(threadId);
    if (this.replayed(t, rid)) return;
    this.write(t, { kind: 'message', at: Date.now(), message, ...(rid ? { rid } : {}) });
    t.messages.push(message);
    if (rid) t.requests.add(rid, null);
    this.checkpoint(t);
  }

  /**
   * The atomic swap: the archive and the replacement are written in one record, then applied. The archive
   * is the thread as it was before the sequence (without the heads-up, scratch and packet turns): what an
   * undo restores, read back from the log then (only where its record is is kept), and a checkpoint
   * follows, so no load re-steps the history before a compaction.
   */
  swap(threadId: string, c: Compaction, rid?: string): void {
    const t = this.load(threadId);
    if (this.replayed(t, rid)) return;
    const archived = threadBeforeSequence(t.messages);
    const at = Date.now();
    const w = this.write(t, {
      kind: 'compaction',
      at,
      seqId: c.seqId,
      tokensBefore: c.tokensBefore,
      tokensAfter: c.tokensAfter,
      archived,
      replacement: c.replacement,
      ...(rid ? { rid } : {}),
    });
    if (rid) t.requests.add(rid, null);
    pushUndoable(t.compactions, { seqId: c.seqId, tokensBefore: c.tokensBefore, tokensAfter: c.tokensAfter, at, offset: w.offset, bytes: w.bytes });
    t.messages = c.replacement.slice();
    this.checkpoint(t, true);
  }

  /** Restores the thread archived by the last compaction; null when there is nothing to undo. */
  undo(threadId: string, rid?: string): { seqId: string; messages: ThreadMessage[] } | null {
    const t = this.load(threadId);
    if (this.replayed(t, rid)) {
      const prev = t.requests.get(rid!);
      return prev && 'seqId' in prev ? prev : null;
    }
    const last = t.compactions.pop();
    if (!last) return null;
    const problems: string[] = [];
    const archived = readArchive(t.log.path, t.log.thread, last, problems);
    t.problems.push(...problems.map((m) => `${t.log.path}: ${m}`));
    // Not in the log (damaged, edited): nothing is undone and nothing is logged; the thread stays as it is.
    if (!archived) return null;
    this.write(t, { kind: 'undo', at: Date.now(), seqId: last.seqId, ...(rid ? { rid } : {}) });
    t.messages = archived;
    const result = { seqId: last.seqId, messages: t.messages.slice() };
    if (rid) t.requests.add(rid, result);
    this.checkpoint(t);
    return result;
  }

  snapshot(threadId: string): ThreadSnapshot {
    const t = this.load(threadId);
    return {
      threadId,
      messages: t.messages.slice(),
      state: t.state,
      decisions: t.decisions.slice(),
      compactions: t.compactions.map(({ seqId, tokensBefore, tokensAfter, at }) => ({ seqId, tokensBefore, tokensAfter, at })),
      problems: t.problems.slice(),
    };
  }

  /**
   * Everything the thread holds in memory (loading it if needed), as a checkpoint would store it: what the
   * tests compare between a load from a checkpoint and a full replay, and what the memory bench measures.
   */
  held(threadId: string): Checkpoint {
    return heldBy(this.load(threadId));
  }

  /** Thread ids with a log in this workspace, most recently written first. */
  listThreads(): string[] {
    if (!existsSync(this.logDir)) return [];
    const found: Array<{ id: string; mtime: number }> = [];
    for (const n of readdirSync(this.logDir)) {
      if (!n.endsWith('.jsonl')) continue;
      const id = n.slice(0, -'.jsonl'.length);
      if (!isThreadId(id)) continue;
      try {
        found.push({ id, mtime: statSync(join(this.logDir, n)).mtimeMs });
      } catch {
        // deleted meanwhile
      }
    }
    return found.sort((a, b) => b.mtime - a.mtime || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((f) => f.id);
  }

  /** The log file as written (regular file within the log cap; "" when the thread has no log yet). */
  exportLog(threadId: string): string {
    if (!isThreadId(threadId)) throw new Error(`invalid thread id "${threadId}"`);
    return safeReadTextIfExistsSync(join(this.logDir, `${threadId}.jsonl`), { maxBytes: MAX_LOG_BYTES }) ?? '';
  }

  dispose(): void {
    this.threads.clear(); // closes every log
  }
}

/** What a loaded thread holds, in a checkpoint's shape. */
function heldBy(t: Loaded): Checkpoint {
  return { events: t.events, state: t.state, messages: t.messages, compactions: t.compactions, requests: t.requests.entries(), decisions: t.decisions };
}

/** Decisions a loaded thread keeps for the panel (its newest). */
const KEPT_DECISIONS = 500;
/** How much of the end of an earlier thread's log is read for its phase sizes (bounded work per thread). */
const PRIOR_TAIL_BYTES = 256 * 1024;
/** Earlier threads (the most recent logs) the prior reads; the bench's --workspace mode reads as many. */
export const PRIOR_THREADS = 5;

/**
 * The phase sizes of the most recent earlier threads in the workspace: from each of the last few logs
 * (by modification time), the last decision whose forecast rested on that thread's own phases. Only the
 * tail of each log is read; damaged or foreign lines are skipped.
 */
export function workspacePhasePrior(logDir: string, exceptThread: string): number[] {
  let files: Array<{ path: string; mtime: number }>;
  try {
    files = readdirSync(logDir)
      .filter((n) => n.endsWith('.jsonl') && n !== `${exceptThread}.jsonl` && isThreadId(n.slice(0, -'.jsonl'.length)))
      .map((n) => ({ path: join(logDir, n), mtime: statSync(join(logDir, n)).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime)
      .slice(0, PRIOR_THREADS);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const f of files.reverse()) out.push(...lastThreadPhases(f.path));
  return out.filter((x) => Number.isFinite(x) && x > 0).slice(-20);
}

function lastThreadPhases(path: string): number[] {
  let text: string;
  try {
    const size = statSync(path).size;
    const fd = openSync(path, 'r');
    try {
      const len = Math.min(size, PRIOR_TAIL_BYTES);
      const buf = Buffer.alloc(len);
      readSync(fd, buf, 0, len, size - len);
      text = buf.toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return [];
  }
  const lines = text.split('\n');
  for (let k = lines.length - 1; k >= 0; k--) {
    const line = lines[k]!;
    if (!line.includes('"decision"') || !line.includes('"samples"')) continue;
    try {
      const rec = JSON.parse(line) as { kind?: unknown; decision?: { forecast?: { basis?: unknown; samples?: unknown } } };
      const f = rec.kind === 'decision' ? rec.decision?.forecast : undefined;
      if (f && f.basis === 'thread' && Array.isArray(f.samples)) return f.samples.filter((x): x is number => typeof x === 'number').slice(-20);
    } catch {
      // a torn or foreign line: look further back
    }
  }
  return [];
}
