/**
 * Membership in the engine state's capped lists of strings (the 200 boundary ids seen, the 200 plan steps
 * completed) in O(1) instead of a scan of the list: looked up at every boundary and plan update, the scan
 * was a tenth of a cold replay's step time (docs/ARCHITECTURE.md#the-event-log).
 *
 * The state's lists are never mutated (each change is a new array), so a Set built for one array stays
 * right for it. It is kept beside the array in a WeakMap, not in the state: the state's shape (what the
 * tests, the golden replays and the log compare) does not change, and the Set goes with its array. When a
 * list grows into the next one (items appended, the oldest dropped) the Set is handed on and updated for
 * the few items that changed, not rebuilt; the old array loses it, and gets a new one only if it is read
 * again (an older state stepped again).
 */
const sets = new WeakMap<readonly string[], Set<string>>();

/** The items of `list` as a Set (built once per array; read-only: it may be handed on to the next list). */
export function memberSet(list: readonly string[]): ReadonlySet<string> {
  let set = sets.get(list);
  if (!set) {
    set = new Set(list);
    sets.set(list, set);
  }
  return set;
}

/**
 * Hands the Set of `from` on to `to`, which is `from` with `appended` pushed and its oldest items dropped
 * (pushCapped, or a concatenation cut to its last items). Only a Set that describes `to` exactly is
 * handed on: every item of both lists distinct, nothing appended already there; otherwise `to` builds
 * its own when it is first read.
 */
export function handOnMemberSet(from: readonly string[], to: readonly string[], appended: readonly string[]): void {
  const set = sets.get(from);
  const dropped = from.length + appended.length - to.length;
  if (!set || set.size !== from.length || dropped < 0 || dropped > from.length) return;
  for (const item of appended) if (set.has(item)) return;
  sets.delete(from);
  for (let k = 0; k < dropped; k++) set.delete(from[k]!);
  for (const item of appended) set.add(item);
  if (set.size === to.length) sets.set(to, set); // else `appended` repeated an item: `to` builds its own
}
