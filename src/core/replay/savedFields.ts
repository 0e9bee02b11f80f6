/**
 * One field list per saved class (Replayer, SessionFollower): the fields a class saves as they are,
 * named once, as the keys of a Record over its saved type's plain keys — a new field of the saved type
 * does not compile until it is listed — and both save and restore come from that list.
 */

/**
 * The list `list` of the saved type S's plain fields K, as a function: the listed fields of an object
 * holding them (the instance, whose fields may be private, on save; the saved JSON on restore).
 */
export function savedFields<S, K extends keyof S & string>(list: Record<K, true>): (from: object) => Pick<S, K> {
  const keys = Object.keys(list) as K[];
  return (from) => {
    const source = from as Pick<S, K>;
    const out = {} as Pick<S, K>;
    for (const k of keys) out[k] = source[k];
    return out;
  };
}
