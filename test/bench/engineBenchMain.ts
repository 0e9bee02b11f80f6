/** The engine's speed benches alone (engineBench.ts), without the rest of `npm run bench`: `npm run bench:engine`. */
import { engineBench } from './engineBench';

for (const line of engineBench()) console.log(line);
