/**
 * One field list per saved class (Replayer, SessionFollower): the fields a class saves as they are,
 * named once, as the keys of a Record over its saved type's plain keys — a new field of the saved type
 * does not compile until it is listed — and both save and restore come from that list.
 */

/** The fields of `from` named by `list` (a Record, so that every plain key of the saved type is named). */
export function savedFields<T, K extends keyof T & string>(from: T, list: Record<K, true>): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of Object.keys(list) as K[]) out[k] = from[k];
  return out;
}
