/**
 * What a loaded thread holds of its compactions' archives (docs/benchmarks.md, "Engine speed"): a thread
 * with 200 compactions, each archiving a 100-message thread (~100 KB), is written through CoreService, then
 * loaded cold in a fresh CoreService; the heap grown by the load (after a full collection, with
 * --expose-gc) is printed. The build to measure is an argument, so an older build can be compared:
 * `node --expose-gc out/test/bench/loadMemory.js [<other build's out dir>]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { dirReader, shippedPromptsDir } from '../../src/core/prompts/fs';
import { loadPromptSet } from '../../src/core/prompts/promptSet';
import type { CoreService as Service } from '../../src/core/service/coreService';

const COMPACTIONS = 200;
const MESSAGES = 100;

const out = resolve(process.argv[2] ?? join(__dirname, '..', '..'));
const { CoreService } = require(join(out, 'src/core/service/coreService.js')) as { CoreService: typeof Service };
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const set = loadPromptSet([dirReader(shippedPromptsDir())]);
const dir = mkdtempSync(join(tmpdir(), 'rawr-load-memory-'));
try {
  const writer = new CoreService(dir, set);
  for (let c = 0; c < COMPACTIONS; c++) {
    for (let m = 0; m < MESSAGES; m++) writer.appendMessage('mem', { role: 'assistant', text: `compaction ${c} message ${m} ${'x'.repeat(1000)}` });
    writer.swap('mem', { seqId: `s${c}`, tokensBefore: 150_000, tokensAfter: 30_000, replacement: [{ role: 'user', text: `summary ${c}` }] });
  }
  writer.dispose();
  // From the last checkpoint, and by a full replay (a build without checkpoints ignores the option).
  for (const checkpoints of [true, false]) {
    gc();
    const before = process.memoryUsage().heapUsed;
    const reader = new CoreService(dir, set, { checkpoints } as object);
    const undoable = reader.snapshot('mem').compactions.length;
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    console.log(
      `${out}: a thread of ${COMPACTIONS} compactions (${MESSAGES} ~1 KB messages archived each), loaded${checkpoints ? '' : ' ignoring checkpoints'}: heap +${(grown / 1024 / 1024).toFixed(1)} MB, ${undoable} undoable`,
    );
    reader.dispose();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
