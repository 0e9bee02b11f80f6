/**
 * The core service: the single arbiter for every @rawr thread of a workspace, plus its persistence.
 * It owns the event logs (one JSON Lines file per thread) and the engine states, and is what the core
 * process serves over JSON-RPC (src/server) — or what the extension host uses in-process when the core
 * process is unavailable. A thread not in memory is rebuilt from its log on first use (cold replay),
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
import type { DecisionRecord } from '../logformat/records';
import { AppliedRequests, rebuild } from '../log/rebuild';
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
  compactions: Array<{ seqId: string; archived: ThreadMessage[]; tokensBefore: number; tokensAfter: number; at: number }>;
  decisions: DecisionRecord[];
  problems: string[];
  /** The recent identified requests and their results, for answering a retry without applying it twice. */
  requests: AppliedRequests;
}

export class CoreService {
  private readonly threads: ThreadCache<Loaded>;

  constructor(
    private readonly logDir: string,
    private config: PromptSet,
    cache: Partial<Pick<ThreadCacheOptions<Loaded>, 'max' | 'idleMs' | 'now'>> = {},
  ) {
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
    // Cold replay: each record is stepped as it is read, none is kept (a long thread's log holds
    // hundreds of thousands); only the decisions the panel lists are gathered on the way.
    let records = 0;
    let decisions: DecisionRecord[] = [];
    const read = function* () {
      for (const r of streamLog(path, problems)) {
        records++;
        if (r.record.kind === 'decision') {
          decisions.push(r.record.decision);
          if (decisions.length >= 2 * KEPT_DECISIONS) decisions = decisions.slice(-KEPT_DECISIONS);
        }
        yield r;
      }
    };
    const init = initialState({ threadId, settings: this.config.settings, prompts: this.config.prompts });
    const rebuilt = rebuild(read(), init);
    // The current configuration wins over whatever the log's last settings event said.
    let state = step(rebuilt.state, { type: 'settings', at: Date.now(), settings: this.config.settings, prompts: this.config.prompts }).state;
    const log = new EventLog(path, threadId);
    if (records === 0) {
      // A new thread: the phases of earlier threads in this workspace are its forecast's prior. The
      // event is logged, so a rebuild sees the same prior.
      const phases = workspacePhasePrior(this.logDir, threadId);
      if (phases.length > 0) {
        const ev: EngineEvent = { type: 'phase_prior', at: Date.now(), phases };
        log.append({ kind: 'event', at: ev.at, event: ev });
        state = step(state, ev).state;
      }
    }
    t = {
      log,
      state,
      messages: rebuilt.thread,
      compactions: rebuilt.compactions,
      decisions: decisions.slice(-KEPT_DECISIONS),
      problems: [...problems, ...rebuilt.problems].map((p) => `${path}:${p.line}: ${p.message}`),
      requests: rebuilt.requests,
    };
    this.threads.set(threadId, t);
    return t;
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
    t.log.append({ kind: 'event', at: event.at, event, ...(rid ? { rid } : {}) });
    const { state, ...out } = step(t.state, event);
    t.state = state;
    if (rid) t.requests.add(rid, out);
    for (const record of stepRecords(out, event.at)) {
      t.log.append(record);
      if (record.kind === 'decision') {
        t.decisions.push(record.decision);
        if (t.decisions.length > KEPT_DECISIONS) t.decisions.shift();
      }
    }
    if (event.type === 'judgment_result') t.log.append({ kind: 'judgment', at: event.at, corrId: event.corrId, phase: 'result', text: event.text });
    const appended: ThreadMessage[] = [];
    for (const c of out.commands) {
      const message = messageOf(c);
      if (message) {
        this.appendMessage(threadId, message);
        appended.push(message);
      }
    }
    return { ...out, appended };
  }

  appendMessage(threadId: string, message: ThreadMessage, rid?: string): void {
    const t = this.load(threadId);
    if (this.replayed(t, rid)) return;
    t.log.append({ kind: 'message', at: Date.now(), message, ...(rid ? { rid } : {}) });
    t.messages.push(message);
    if (rid) t.requests.add(rid, null);
  }

  /**
   * The atomic swap: the archive and the replacement are written in one record, then applied. The archive
   * is the thread as it was before the sequence (without the heads-up, scratch and packet turns): what an
   * undo restores.
   */
  swap(threadId: string, c: Compaction, rid?: string): void {
    const t = this.load(threadId);
    if (this.replayed(t, rid)) return;
    const archived = threadBeforeSequence(t.messages);
    const at = Date.now();
    t.log.append({
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
    t.compactions.push({ seqId: c.seqId, archived, tokensBefore: c.tokensBefore, tokensAfter: c.tokensAfter, at });
    t.messages = c.replacement.slice();
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
    t.log.append({ kind: 'undo', at: Date.now(), seqId: last.seqId, ...(rid ? { rid } : {}) });
    t.messages = last.archived.slice();
    const result = { seqId: last.seqId, messages: t.messages.slice() };
    if (rid) t.requests.add(rid, result);
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
