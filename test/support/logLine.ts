/** A line of a thread's event log as the log tests write it by hand (thread `th-1`, stamped at T0). */
export const T0 = Date.parse('2026-03-02T10:00:00.000Z');

/** `o` as one log line: rawr 1, thread th-1, at T0, then `o`'s own fields (which may replace them). */
export const rec = (o: object) => JSON.stringify({ rawr: 1, thread: 'th-1', at: T0, ...o });
