/**
 * The records of a Claude Code transcript's tail, newest first: how the steering hook finds the newest
 * model response with a usage (tailUsage.ts) and the newest tool call (packetCarried.ts) without parsing
 * the megabytes before it. A tail's lines are mostly tool results and messages that are not the record
 * looked for, so a line is parsed only when it holds every one of the caller's strings (a cheap filter
 * before JSON.parse). A line that does not parse (still being written, or cut by the read) is skipped.
 * Pure.
 */

/**
 * `tail`: the end of a transcript (JSON lines). Yields each line holding every string of `mustHold`,
 * parsed, newest first. `startsInside`: the tail starts inside the file, so its first line may be cut;
 * it is skipped even if what is left of it parses.
 */
export function* newestRecords(tail: string, mustHold: readonly string[], startsInside = false): Generator<unknown> {
  const lines = tail.split('\n');
  for (let i = lines.length - 1; i >= (startsInside ? 1 : 0); i--) {
    const line = lines[i]!;
    if (!mustHold.every((s) => line.includes(s))) continue;
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch {
      continue;
    }
    yield rec;
  }
}
