/** The engine's speed benches alone (engineBench.ts), without the rest of `npm run bench`: `npm run bench:engine`. */
import { engineBench, loadBench } from './engineBench';

for (const line of engineBench()) console.log(line);
// The load rows (a few minutes: the 300,000-event thread is written through CoreService first).
if (!process.argv.includes('--no-load')) for (const line of loadBench()) console.log(line);
