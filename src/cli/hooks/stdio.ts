/**
 * A hook process's stdin and stdout, without Node's stream objects: `process.stdin` on a pipe builds a
 * net.Socket and loads the whole stream machinery (~9 ms measured here for a few hundred bytes, in a hook
 * that runs before every model request); fs.read on fd 0 and fs.writeSync on fds 1 and 2 cost ~1 ms. Where
 * the descriptors do not allow that (a non-blocking pipe answers EAGAIN), the stream objects are used.
 */
import * as fs from 'node:fs';

/** Hook input is small; anything beyond this is not a hook input. */
export const MAX_STDIN = 16 * 1024 * 1024;
export const STDIN_TIMEOUT_MS = 5_000;

let abandoned = false;

/**
 * Whether a read of stdin was given up at its time limit while still pending: the read holds the
 * process open until stdin closes, so the hook ends itself once its output is written (main.ts finishHook).
 */
export function stdinAbandoned(): boolean {
  return abandoned;
}

/** stdin as text, at most `max` bytes (more: what was read so far), '' for a terminal; never rejects. */
export function readStdin(max = MAX_STDIN, timeoutMs = STDIN_TIMEOUT_MS): Promise<string> {
  return new Promise((resolve) => {
    // A terminal (a person running the hook by hand) gives no hook input. node:tty would load net and
    // the streams (~7 ms): a character device is a terminal or /dev/null, and neither holds an input.
    try {
      if (fs.fstatSync(0).isCharacterDevice()) return resolve('');
    } catch {
      return resolve(''); // no stdin at all
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const timer = setTimeout(() => {
      abandoned = true;
      done();
    }, timeoutMs);
    const buf = Buffer.allocUnsafe(64 * 1024);
    const next = () =>
      fs.read(0, buf, 0, buf.length, null, (err, n) => {
        if (settled) return;
        if (err) {
          // A non-blocking pipe (inherited O_NONBLOCK) cannot be read this way: the stream reader can.
          if ((err as NodeJS.ErrnoException).code === 'EAGAIN' && size === 0) {
            settled = true;
            clearTimeout(timer);
            return resolve(readStdinStream(max, timeoutMs));
          }
          return done();
        }
        if (n === 0) return done();
        size += n;
        if (size > max) return done();
        chunks.push(Buffer.from(buf.subarray(0, n)));
        next();
      });
    next();
  });
}

/** The stream reader, for a stdin fs.read cannot read. */
function readStdinStream(max: number, timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      clearTimeout(timer);
      process.stdin.destroy();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const timer = setTimeout(done, timeoutMs);
    process.stdin.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= max) chunks.push(c);
      else done();
    });
    process.stdin.on('end', done);
    process.stdin.on('error', done);
  });
}

/** Writes all of `text` to fd 1 or 2, synchronously; falls back to the stream where the fd refuses (EAGAIN). False: nobody reads it. */
export function writeFd(fd: 1 | 2, text: string): boolean {
  if (!text) return true;
  const data = Buffer.from(text, 'utf8');
  let off = 0;
  try {
    while (off < data.length) off += fs.writeSync(fd, data, off, data.length - off);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') return false; // a closed stdout/stderr: nobody reads it
    (fd === 1 ? process.stdout : process.stderr).write(data.subarray(off));
  }
  return true;
}
