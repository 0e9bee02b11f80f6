/**
 * The threads held in memory, bounded by the threads in use (issue 22, defect 13): a workspace collects
 * hundreds of chats, and each thread kept forever (its messages, the archives of its compactions, its
 * decisions) made both processes grow with every thread ever opened. Used by the core's CoreService and
 * by the extension host's Participant; each owner says when one of its threads may leave memory
 * (`evictable`) and how (`evict`), and brings it back from its event log on first use (cold replay).
 *
 * A thread leaves memory when it is idle for `idleMs`, or, least recently used first, when more than
 * `max` are held. One that is busy (`evictable` false: mid-turn, mid-sequence) is never evicted, however
 * many there are — the bound is then exceeded until it is idle: memory is bounded by the threads in use,
 * never bought with lost data.
 */

export interface ThreadCacheOptions<V> {
  /** Threads kept in memory before the least recently used idle one leaves. */
  max: number;
  /** A thread unused this long leaves memory (checked at every sweep). */
  idleMs: number;
  /**
   * Whether the thread may leave memory now (false while it is in use). `why`: it has been idle for
   * `idleMs`, or the cache holds more than `max` (an owner may keep a thread for one and not the other).
   */
  evictable: (id: string, value: V, why: 'idle' | 'over') => boolean;
  /** Releases what the thread holds (files, subscriptions); called once, after it left the cache. */
  evict: (id: string, value: V) => void;
  now?: () => number;
}

/** The defaults of both processes: enough for the chats a person has open at once. */
export const THREAD_CACHE_DEFAULTS = { max: 8, idleMs: 10 * 60_000 } as const;

export class ThreadCache<V> {
  /** In the order of last use, least recent first (a Map keeps insertion order: a use re-inserts). */
  private readonly entries = new Map<string, { value: V; usedAt: number }>();
  private readonly now: () => number;
  private lastSweep = 0;

  constructor(private readonly opts: ThreadCacheOptions<V>) {
    if (!(opts.max >= 1) || !(opts.idleMs > 0)) throw new Error(`thread cache: max must be ≥ 1 and idleMs > 0 (got ${opts.max}, ${opts.idleMs})`);
    this.now = opts.now ?? Date.now;
  }

  /** The thread, marked as just used; undefined when it is not in memory. */
  get(id: string): V | undefined {
    const e = this.entries.get(id);
    if (!e) return undefined;
    this.entries.delete(id);
    e.usedAt = this.now();
    this.entries.set(id, e);
    // Idle threads also leave when no new one comes (at most one sweep per sixteenth of the idle time).
    if (e.usedAt - this.lastSweep >= this.opts.idleMs / 16) this.sweep(id);
    return e.value;
  }

  /** Whether the thread is in memory (does not count as a use). */
  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** Adds a thread just loaded (as used now), then lets idle or surplus threads go. */
  set(id: string, value: V): void {
    this.entries.delete(id);
    this.entries.set(id, { value, usedAt: this.now() });
    this.sweep(id);
  }

  /**
   * Evicts every evictable thread idle for `idleMs`, then, least recently used first, evictable threads
   * until at most `max` are held. `keep` (the thread being used) never leaves. Returns the evicted ids.
   */
  sweep(keep?: string): string[] {
    const now = this.now();
    this.lastSweep = now;
    let over = this.entries.size - this.opts.max;
    const out: string[] = [];
    for (const [id, e] of [...this.entries]) {
      if (id === keep) continue;
      const why = now - e.usedAt >= this.opts.idleMs ? 'idle' : over > 0 ? 'over' : undefined;
      if (why && this.opts.evictable(id, e.value, why)) {
        this.entries.delete(id);
        over--;
        out.push(id);
        this.opts.evict(id, e.value);
      }
    }
    return out;
  }

  get size(): number {
    return this.entries.size;
  }

  values(): IterableIterator<V> {
    return [...this.entries.values()].map((e) => e.value)[Symbol.iterator]();
  }

  /** Empties the cache, releasing every thread (on dispose: nothing is in use any more). */
  clear(): void {
    const all = [...this.entries];
    this.entries.clear();
    for (const [id, e] of all) this.opts.evict(id, e.value);
  }
}
