/** The hook-latency bench alone (hookLatency.ts), without the rest of `npm run bench`: `npm run bench:hooks`. */
import { hookLatencyBench } from './hookLatency';

void hookLatencyBench().then((text) => console.log(text));
