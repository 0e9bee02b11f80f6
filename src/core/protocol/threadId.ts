/**
 * A thread id, as the core accepts it: it names the thread's log file, so it is 1–80 characters of
 * A–Z, a–z, 0–9, "_" or "-" (no path separators, no dots). The one definition, used by the core
 * service, the protocol (coreProtocol.ts), the participant and the panel's messages.
 */
import * as z from 'zod';

export const THREAD_ID = /^[A-Za-z0-9_-]{1,80}$/;
export const isThreadId = (id: string): boolean => THREAD_ID.test(id);
export const ThreadIdSchema = z.string().regex(THREAD_ID, 'thread id must be 1–80 characters of A–Z, a–z, 0–9, "_" or "-"');
