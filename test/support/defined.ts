/**
 * A value without its keys set to undefined: the engine writes some optional keys as undefined
 * (`judgment: undefined`), which JSON (the log, a checkpoint, JSON-RPC) does not carry. Nothing else is
 * loosened: a comparison of two `defined` values stays strict about every value.
 */
export function defined(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(defined);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([, x]) => x !== undefined)
      .map(([key, x]) => [key, defined(x)]),
  );
}
