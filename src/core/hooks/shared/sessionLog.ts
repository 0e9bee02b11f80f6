/**
 * The session logs' one writer (`steer-log.jsonl`, claude/steer.ts; `hook-log.jsonl`, repairHook.ts): one
 * JSON object a line, appended; rotated once to `.1` past 1 MiB, so a session of thousands of hook calls
 * keeps a bounded log. Their readers (readFrom.ts jsonLinesTail) take the newest lines that parse.
 */
import * as fs from 'node:fs';
import { endsTorn } from '../../io/tornLine';

/** Past this a log moves to `<file>.1` (replacing an older one) and starts again. */
export const MAX_SESSION_LOG_BYTES = 1024 * 1024;

/**
 * Appends `entry` as one line. A log whose last line was cut (a hook killed by Claude Code's timeout while
 * it wrote) does not end in a newline: the entry then starts on a line of its own, or it would be glued to
 * the torn one and lost to every reader with it — the newest answer above all, the one PostCompact reads
 * (the engine's event log does the same: core/log/eventLog.ts).
 */
export function appendSessionLog(file: string, entry: unknown): void {
  try {
    if (fs.lstatSync(file).size > MAX_SESSION_LOG_BYTES) fs.renameSync(file, `${file}.1`);
  } catch {
    /* no log yet */
  }
  // One open for the check and the append.
  const fd = fs.openSync(file, 'a+');
  try {
    fs.writeFileSync(fd, `${endsTorn(fd, fs.fstatSync(fd).size) ? '\n' : ''}${JSON.stringify(entry)}\n`);
  } finally {
    fs.closeSync(fd);
  }
}
