/**
 * rawr_search_text under hostile input (issue 22): a pattern from the model runs in a worker thread with a
 * per-file and a total time budget, so the extension host's event loop keeps turning — measured with a
 * heartbeat — while `(a+)+$` or `.*foo.*bar` grinds through a 2 MB single-line file; the answer says the
 * search stopped on its time budget. Real files in a temporary workspace, through the vscode shim's
 * findFiles (which follows links as VS Code's search does).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { makeSearchTextTool } from '../../src/host/tools/fileTools';
import { matchLines, MATCH_WINDOW } from '../../src/host/tools/lineMatch';
import { runTool } from '../support/tools';

/**
 * Runs `work` while a 5 ms heartbeat measures the event loop: the longest time between two beats (wall
 * clock), and the longest time between two beats that the loop spent running code rather than waiting
 * (performance.eventLoopUtilization's `active`) — a stall. The second is what a blocked thread shows; the
 * first also counts the time a loaded machine did not schedule an idle process at all, which is no
 * stall of rawr's (on this 2-core machine under a load of 20, an idle process sees wall gaps of 80 ms).
 */
async function withHeartbeat<T>(work: () => Promise<T>): Promise<{ result: T; maxStallMs: number; maxGapMs: number }> {
  let last = performance.now();
  let lastElu = performance.eventLoopUtilization();
  let maxGapMs = 0;
  let maxStallMs = 0;
  const measure = () => {
    const now = performance.now();
    const elu = performance.eventLoopUtilization();
    maxGapMs = Math.max(maxGapMs, now - last);
    maxStallMs = Math.max(maxStallMs, performance.eventLoopUtilization(elu, lastElu).active);
    last = now;
    lastElu = elu;
  };
  const beat = setInterval(measure, 5);
  try {
    const result = await work();
    measure();
    return { result, maxStallMs, maxGapMs };
  } finally {
    clearInterval(beat);
  }
}

const TWO_MB = 2 * 1024 * 1024 - 16;
const BUDGET = { perFileMs: 1_500, totalMs: 4_000 };
/** Time to answer after the budget runs out (terminating the worker, a loaded 2-core machine). */
const SLACK_MS = 3_000;
/**
 * The event loop's bound while a pattern grinds: what tells a worker from the host thread, not a speed.
 * On the host thread a runaway pattern holds the loop for the whole per-file budget (or for ever, with
 * nothing left to stop it); in a worker the loop only reads files and posts messages. Half the per-file
 * budget sits far from both, so neither a loaded machine nor a slow one decides the verdict.
 */
const STALL_BOUND_MS = BUDGET.perFileMs / 2;

describe('rawr_search_text: never on the extension host thread', () => {
  let tmp: string;
  let ws: string;
  before(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-search-')));
    ws = path.join(tmp, 'ws');
    fs.mkdirSync(path.join(ws, 'big'), { recursive: true });
    fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
    // One line of a's and a '!': `(a+)+$` backtracks exponentially on it.
    fs.writeFileSync(path.join(ws, 'big/aaa.txt'), 'a'.repeat(TWO_MB - 1) + '!');
    // A minified bundle: one 2 MB line with many "foo" and no "bar".
    fs.writeFileSync(path.join(ws, 'big/bundle.min.js'), 'var foo=1;function f(){return foo+2};'.repeat(TWO_MB / 38).slice(0, TWO_MB));
    fs.writeFileSync(path.join(ws, 'src/a.ts'), 'export const a = 1;\n// needle here\n');
    fs.writeFileSync(path.join(ws, 'src/long.min.js'), 'x'.repeat(100_000) + 'needle' + 'y'.repeat(100_000) + '\nend\n');
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  for (const query of ['(a+)+$', '.*foo.*bar']) {
    it(`${query} over a 2 MB single-line file: answers within its budget, says the search stopped, the event loop keeps turning (the pattern runs elsewhere)`, async () => {
      const started = performance.now();
      const { result, maxStallMs, maxGapMs } = await withHeartbeat(() => runTool(makeSearchTextTool(BUDGET), { query, isRegex: true, glob: 'big/**' }, [ws]));
      const took = performance.now() - started;
      assert.ok(result.ok, result.text);
      assert.match(result.text, /search stopped: time budget/);
      assert.ok(took < BUDGET.totalMs + SLACK_MS, `answered after ${took.toFixed(0)} ms (budget ${BUDGET.totalMs} ms)`);
      assert.ok(
        maxStallMs < STALL_BOUND_MS,
        `the event loop stalled ${maxStallMs.toFixed(0)} ms while searching (longest gap between beats ${maxGapMs.toFixed(0)} ms)`,
      );
      // The same on the wall clock, with room for a loaded machine's scheduling (the old search blocked for seconds).
      assert.ok(maxGapMs < BUDGET.perFileMs, `no heartbeat for ${maxGapMs.toFixed(0)} ms while searching`);
    });
  }

  it('a file past its own budget is named and the search goes on with the next files', async () => {
    const r = await runTool(makeSearchTextTool(BUDGET), { query: '(a+)+$|needle', isRegex: true }, [ws]);
    assert.ok(r.ok, r.text);
    assert.match(r.text, /^src\/a\.ts:2: \/\/ needle here$/m);
    assert.match(r.text, /search stopped: time budget — the pattern ran past 1\.5 s in \d+ files? \([^)]*big\/aaa\.txt/);
  });

  it('cancelling stops a runaway match at once', async () => {
    const source = new vscode.CancellationTokenSource();
    setTimeout(() => source.cancel(), 300);
    const started = performance.now();
    await assert.rejects(
      runTool(makeSearchTextTool({ perFileMs: 60_000, totalMs: 60_000 }), { query: '(a+)+$', isRegex: true, glob: 'big/aaa.txt' }, [ws], source.token),
      (e: Error) => e instanceof vscode.CancellationError,
    );
    assert.ok(performance.now() - started < 300 + SLACK_MS);
  });

  it('still finds: plain text in the middle of a 200 kB line (with its column), other files, no false hit from a cut line', async () => {
    const r = await runTool(makeSearchTextTool(BUDGET), { query: 'needle', glob: 'src/**' }, [ws]);
    assert.ok(r.ok, r.text);
    assert.match(r.text, /^src\/a\.ts:2: \/\/ needle here$/m);
    assert.match(r.text, /^src\/long\.min\.js:1:100001: …x+needley+…$/m);
    // `x$` matches the end of every piece of the long line, but not the line: no hit.
    assert.deepEqual(matchLines(/x$/, 'x'.repeat(3 * MATCH_WINDOW) + 'y', 10), []);
    assert.deepEqual(matchLines(/^y/, 'x'.repeat(3 * MATCH_WINDOW) + 'y', 10), []);
    assert.deepEqual(
      matchLines(/y$/, 'x'.repeat(3 * MATCH_WINDOW) + 'y', 10).map((h) => h.column),
      [3 * MATCH_WINDOW + 1],
    );
    const none = await runTool(makeSearchTextTool(BUDGET), { query: 'no such text anywhere', glob: 'src/**' }, [ws]);
    assert.equal(none.text, 'No matches for "no such text anywhere" in 2 files.');
    const bad = await runTool(makeSearchTextTool(BUDGET), { query: '(', isRegex: true }, [ws]);
    assert.deepEqual([bad.ok, /invalid regular expression/.test(bad.text)], [false, true]);
  });
});
