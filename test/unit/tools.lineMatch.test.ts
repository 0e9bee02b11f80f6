/**
 * The matching half of rawr_search_text (lineMatch.ts), called directly: it runs in the search worker,
 * where tools.search reaches it only through a thread. A line longer than the match window (a minified
 * bundle) is matched in overlapping pieces: a plain match across a cut is still found, and an anchor or a
 * word boundary that only holds at a piece's edge is not taken for a match of the whole line.
 */
import * as assert from 'node:assert/strict';
import { MATCH_OVERLAP, MATCH_WINDOW, MAX_HIT_CHARS, matchLines } from '../../src/host/tools/lineMatch';

/** A line of `n` filler characters with `insert` placed at `at`. */
const longLine = (n: number, at: number, insert: string) => `${'-'.repeat(at)}${insert}${'-'.repeat(n - at - insert.length)}`;
const STEP = MATCH_WINDOW - MATCH_OVERLAP; // where each piece after the first starts

describe('lineMatch: lines that match, long ones in pieces', () => {
  it('short lines: 1-based, trimmed and cut to the hit length, CRLF or LF, at most `max`', () => {
    const text = `  alpha one  \r\nbeta\nalpha ${'z'.repeat(400)}\nalpha three`;
    const hits = matchLines(/alpha/, text, 2);
    assert.deepEqual(hits, [
      { line: 1, text: 'alpha one' },
      { line: 3, text: `alpha ${'z'.repeat(400)}`.slice(0, MAX_HIT_CHARS) },
    ]);
    assert.deepEqual(
      matchLines(/alpha/, text, 10).map((h) => h.line),
      [1, 3, 4],
    );
    assert.deepEqual(matchLines(/^beta$/, text, 10), [{ line: 2, text: 'beta' }], 'the CR is not part of the line');
  });

  it('a long line: the hit is an excerpt around the match with its column; from the line start, no leading ellipsis', () => {
    const line = longLine(20_000, 9_000, 'NEEDLE');
    assert.deepEqual(matchLines(/NEEDLE/, `short\n${line}`, 5), [{ line: 2, column: 9_001, text: `…${line.slice(8_900, 8_900 + MAX_HIT_CHARS)}…` }]);
    assert.deepEqual(matchLines(/NEEDLE/, longLine(20_000, 50, 'NEEDLE'), 5), [
      { line: 1, column: 51, text: `${longLine(20_000, 50, 'NEEDLE').slice(0, MAX_HIT_CHARS)}…` },
    ]);
  });

  it('a match across the cut between two pieces is found, at its place in the whole line', () => {
    for (const at of [MATCH_WINDOW - 3, STEP - 2, STEP + MATCH_WINDOW - 5, 2 * STEP + MATCH_WINDOW - 1]) {
      const line = longLine(30_000, at, 'ACROSS-THE-CUT');
      assert.deepEqual(
        matchLines(/ACROSS-THE-CUT/, line, 1).map((h) => h.column),
        [at + 1],
        `at ${at}`,
      );
    }
  });

  it("an anchor or a word boundary that holds only at a piece's edge is no match; at the line's own end it is", () => {
    const edge = MATCH_WINDOW; // the first piece ends here, the second does not start here
    assert.deepEqual(matchLines(/x$/, longLine(10_000, edge - 1, 'x'), 1), [], '$ at the end of the first piece');
    assert.deepEqual(matchLines(/^y/, longLine(10_000, STEP, 'y'), 1), [], '^ at the start of the second piece');
    assert.deepEqual(matchLines(/\bword/, longLine(10_000, STEP - 1, 'aword'), 1), [], '\\b at a cut inside a word');
    const ends = `${'-'.repeat(9_999)}x`;
    assert.deepEqual(
      matchLines(/x$/, ends, 1).map((h) => h.column),
      [10_000],
    );
    assert.deepEqual(
      matchLines(/-x$/, `${'x'.repeat(edge)}${'-'.repeat(5_000)}x`, 1).map((h) => h.column),
      [edge + 5_000],
    );
  });

  it('a pattern that matches the empty string does not loop on a long line', () => {
    assert.deepEqual(
      matchLines(/(?=-)/, longLine(10_000, 0, ''), 1).map((h) => h.column),
      [1],
    );
    assert.deepEqual(
      matchLines(/z*$/, longLine(10_000, 0, ''), 1).map((h) => h.column),
      [10_001],
    );
  });
});
