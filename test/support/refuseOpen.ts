/**
 * The system refusing a write (EACCES, EROFS, ENOSPC) where the tests cannot make it refuse: they run
 * as root, where chmod stops no write, and mounting a read-only or full file system needs more. So the
 * refusal is made where the system makes it, at open(2): every `fs.openSync` for writing of a path under
 * `folder` fails with `code`, as the real call does (rawr writes only through open: a temp file renamed over the
 * file). In this process: refuseOpenUnder(); in a CLI child: `node --require <this file>` with
 * RAWR_TEST_REFUSE_OPEN=<code>:<folder>.
 */
import type * as fsType from 'node:fs';
import { createRequire } from 'node:module';

type OpenSync = (p: fsType.PathLike, ...rest: unknown[]) => number;
const realFs = createRequire(__filename)('node:fs') as { openSync: OpenSync };

const { constants } = realFs as unknown as typeof fsType;
const WRITING = constants.O_WRONLY | constants.O_RDWR | constants.O_CREAT | constants.O_APPEND | constants.O_TRUNC;

/** An open(2) that writes: a flags string other than 'r' ('w', 'wx', 'a', 'r+'…) or numeric flags with a write bit. */
const writes = (flags: unknown) => (typeof flags === 'string' ? flags !== 'r' && flags !== 'rs' : typeof flags === 'number' && (flags & WRITING) !== 0);

/**
 * Refuses every open for writing of a path under `folder` (a path prefix) with `code`, as a folder the user
 * cannot write or a read-only or full file system does (reading what is there still works); returns what
 * lifts the refusal.
 */
export function refuseOpenUnder(folder: string, code: string, o: { thenAlso?: string } = {}): () => void {
  const open = realFs.openSync;
  // `thenAlso`: once a write under `folder` was refused, writes under it are refused too (the disk that
  // fills up at that moment): what a rollback that itself fails meets.
  let refusedOnce = false;
  realFs.openSync = (p, ...rest) => {
    const under = String(p).startsWith(folder) || (refusedOnce && o.thenAlso !== undefined && String(p).startsWith(o.thenAlso));
    if (under && writes(rest[0]) && (refusedOnce = true))
      throw Object.assign(new Error(`${code}: refused, open '${String(p)}'`), { code, errno: -1, syscall: 'open', path: String(p) });
    return open(p, ...rest);
  };
  return () => {
    realFs.openSync = open;
  };
}

/** The environment that makes a CLI child (run with `--require` of this file) refuse opens under `folder`. */
export const REFUSE_OPEN_ENV = 'RAWR_TEST_REFUSE_OPEN';

const asked = process.env[REFUSE_OPEN_ENV];
if (asked) {
  const at = asked.indexOf(':');
  refuseOpenUnder(asked.slice(at + 1), asked.slice(0, at));
}
