/**
 * The panel's journals: one per thread looked at, each fed the new lines of that thread's log as the panel
 * refreshes. Bounded by what is in use: a journal holds at most LogTail's cap of the log and its own caps
 * (viewModel.ts), and only the threads looked at most recently keep one — a thread picked again after
 * that is read again from its log.
 */
import { join } from 'node:path';
import { LogTail } from './logTail';
import { ThreadJournal } from './viewModel';

/** Lines fed to a journal between two turns of the event loop. */
export const INGEST_SLICE = 2_000;
/** Journals kept for the threads looked at most recently (each bounded by LogTail's cap and its own). */
export const KEPT_JOURNALS = 4;

export class ThreadJournals {
  /** In order of use, the least recently used first (a Map keeps insertion order). */
  private readonly entries = new Map<string, { journal: ThreadJournal; tail: LogTail }>();

  constructor(
    /** Where the core writes the thread logs (`<logDir>/<threadId>.jsonl`). */
    private readonly logDir: string,
    private readonly options: { kept?: number; slice?: number; maxBytes?: number } = {},
  ) {}

  /** The threads holding a journal now, the least recently used first. */
  get held(): string[] {
    return [...this.entries.keys()];
  }

  /** The thread's journal as it is now, if it holds one (not read further; not counted as a use). */
  peek(threadId: string): ThreadJournal | undefined {
    return this.entries.get(threadId)?.journal;
  }

  /**
   * The thread's journal with every line its log gained since the last call. Not reentrant for one
   * thread: the panel runs one refresh at a time.
   */
  async journalFor(threadId: string): Promise<ThreadJournal> {
    let entry = this.entries.get(threadId);
    if (entry)
      this.entries.delete(threadId); // put back last below: the most recently used
    else entry = { journal: new ThreadJournal(threadId), tail: new LogTail(join(this.logDir, `${threadId}.jsonl`), this.options.maxBytes) };
    this.entries.set(threadId, entry);
    const kept = this.options.kept ?? KEPT_JOURNALS;
    // The threads looked at longest ago leave memory (read again from their logs when picked again).
    for (const id of this.entries.keys()) if (this.entries.size > kept && id !== threadId) this.entries.delete(id);
    const { lines, reset, skipped } = await entry.tail.read();
    if (reset) {
      // The log was replaced (it shrank): what the journal holds is of another log.
      this.entries.delete(threadId);
      return this.journalFor(threadId);
    }
    entry.journal.skip(skipped, entry.tail.maxBytes);
    // A first read of a long log is tens of thousands of lines: fed in slices, so the extension host's
    // thread is never held for the whole of it.
    const slice = this.options.slice ?? INGEST_SLICE;
    for (let k = 0; k < lines.length; k++) {
      entry.journal.ingestLine(lines[k]!);
      if (k % slice === slice - 1) await new Promise((done) => setImmediate(done));
    }
    return entry.journal;
  }

  clear(): void {
    this.entries.clear();
  }
}
