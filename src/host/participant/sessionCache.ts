/**
 * The extension host's sessions in memory (issue 22, defect 13): at most a few threads in use, the
 * others reopened from the core on first use (Session.open reads the thread's snapshot, which the core
 * rebuilds from its log when it let the thread go too). A session leaves only when nothing of it is
 * running — no chat request, no compaction sequence or call, no arbiter timer, no recent use or step (a
 * caller may be about to start a request on it, an effect of a step may still be executing) — and is not
 * the window's active thread. A background summary being
 * prepared keeps it while it is one of the `max` most recent; idle for `idleMs`, it goes anyway (the
 * compaction then summarises the thread itself: nothing is lost).
 */
import { THREAD_CACHE_DEFAULTS, ThreadCache, type ThreadCacheOptions } from '../../core/service/threadCache';
import type { Session } from './session';

/** After its last use or step a session stays this long: its caller or the effects of that step may still be running. */
export const QUIET_MS = 30_000;

export type SessionCacheOptions = Partial<Pick<ThreadCacheOptions<Session>, 'max' | 'idleMs' | 'now'>>;

export class SessionCache {
  private readonly cache: ThreadCache<Session>;
  private readonly lastUse = new Map<string, number>();
  private readonly now: () => number;

  constructor(isActive: (threadId: string) => boolean, opts: SessionCacheOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.cache = new ThreadCache<Session>({
      ...THREAD_CACHE_DEFAULTS,
      ...opts,
      evictable: (id, s, why) => !isActive(id) && !this.busy(s) && !(why === 'over' && s.preparer.running),
      evict: (id, s) => {
        this.lastUse.delete(id);
        s.dispose();
      },
    });
  }

  private busy(s: Session): boolean {
    const now = this.now();
    if (s.busy(now)) return true;
    return now - (this.lastUse.get(s.threadId) ?? -Infinity) < QUIET_MS;
  }

  /** The session marked as used, or undefined when it is not in memory. */
  get(threadId: string): Session | undefined {
    const s = this.cache.get(threadId);
    if (s) this.lastUse.set(threadId, this.now());
    return s;
  }

  has(threadId: string): boolean {
    return this.cache.has(threadId);
  }

  add(s: Session): void {
    this.lastUse.set(s.threadId, this.now());
    this.cache.set(s.threadId, s);
  }

  /** A step of the session's arbiter (its activity): it stays at least QUIET_MS from now. */
  stepped(threadId: string): void {
    if (this.cache.has(threadId)) this.lastUse.set(threadId, this.now());
  }

  get size(): number {
    return this.cache.size;
  }

  sweep(): string[] {
    return this.cache.sweep();
  }

  clear(): void {
    this.cache.clear();
  }
}
