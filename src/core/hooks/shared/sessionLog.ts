/**
 * The session logs' one writer (`steer-log.jsonl`, claude/steer.ts; `hook-log.jsonl`, repairHook.ts): one
 * JSON object a line, appended; rotated once to `.1` past 1 MiB, so a session of thousands of hook calls
 * keeps a bounded log. Their readers (readFrom.ts jsonLinesTail) take the newest lines that parse.
 */
import * as fs from 'node:fs';

/** Past this a log moves to `<file>.1` (replacing an older one) and starts again. */
export const MAX_SESSION_LOG_BYTES = 1024 * 1024;

/**
 * Appends `entry` as one line. A log whose last line was cut (a hook killed by Claude Code's timeout while
 * it wrote) does not end in a newline: the entry then starts on a line of its own, or it would be glued to
 * the torn one and lost to every reader with it — the newest answer above all, the one PostCompact reads
 * (the engine's event log does the same: core/log/eventLog.ts).
 */
export function appendSessionLog(file: string, entry: unknown): void {
  let torn = false;
  try {
    const size = fs.lstatSync(file).size;
    if (size > MAX_SESSION_LOG_BYTES) fs.renameSync(file, `${file}.1`);
    else if (size > 0) torn = lastByte(file, size) !== 0x0a;
  } catch {
    /* no log yet */
  }
  fs.appendFileSync(file, `${torn ? '\n' : ''}${JSON.stringify(entry)}\n`);
}

function lastByte(file: string, size: number): number {
  const fd = fs.openSync(file, 'r');
  try {
    const b = Buffer.alloc(1);
    fs.readSync(fd, b, 0, 1, size - 1);
    return b[0]!;
  } finally {
    fs.closeSync(fd);
  }
}
