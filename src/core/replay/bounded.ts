/**
 * Bounded memory for the replay of a file of any size (docs/ARCHITECTURE.md#replay): the lookups the
 * importers and the replay keep by id (seen message ids, open tool calls) forget their oldest entries
 * beyond a cap, so a 1 GB recording costs what a 10 MB one does. The caps are far above what one
 * recorded session needs at a time (the records of one API response, or a call and its result, are
 * close together), so dropping the oldest never changes a real recording's replay.
 */

/** Drops the oldest entries (insertion order) of a Map or Set until it holds at most `cap`. */
export function trimOldest<K>(m: Map<K, unknown> | Set<K>, cap: number): void {
  while (m.size > cap) {
    const oldest = m.keys().next();
    if (oldest.done) return;
    m.delete(oldest.value);
  }
}

/** How many ids a dedupe set or a pending-call map remembers. */
export const ID_MEMORY = 10_000;
