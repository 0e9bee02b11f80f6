/** The hook engine, bundled apart as dist/hookEngine.js for dist/hook.js (entry.ts) to load only when a hook has something to do. */
import * as z from 'zod';

// A hook is a short process that parses a few inputs once: zod's compiled object parsers (built with
// `new Function` on each schema's first parse) cost more to build than they save here.
z.config({ jitless: true });

export { hookEventOutput, lostPreCompactOutput, runHookEvent } from './event';
export { serveHooks } from './server';
