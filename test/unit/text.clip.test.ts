/** src/core/text/clip.ts: the one text shortener (prompts, packets, log lines, the panel). */
import * as assert from 'node:assert/strict';
import { clip, moreCharacters } from '../../src/core/text/clip';

describe('clip', () => {
  it('leaves a text of at most max characters unchanged', () => {
    assert.equal(clip('', 3), '');
    assert.equal(clip('abc', 3), 'abc');
  });

  it('keeps max characters and marks the cut with …', () => {
    assert.equal(clip('abcdef', 3), 'abc…');
  });

  it('a marker can say how much was cut', () => {
    assert.equal(clip('abcdef', 2, { marker: moreCharacters }), 'ab… [4 more characters]');
    assert.equal(clip('abcdef', 4, { marker: (k) => ` (+${k})` }), 'abcd (+2)');
  });

  it('length: the marker counts from the original when the text is already a clip of it', () => {
    assert.equal(clip('abcdef…', 2, { marker: moreCharacters, length: 1_000 }), 'ab… [998 more characters]');
    assert.equal(clip('abcdef', 2, { marker: moreCharacters, length: 3 }), 'ab… [4 more characters]', 'never less than the text itself');
  });

  it('total: the result, … included, is at most max characters', () => {
    assert.equal(clip('abcdef', 4, { total: true }), 'abc…');
    assert.equal(clip('abcd', 4, { total: true }), 'abcd');
    assert.equal(clip('abcdef', 1, { total: true }), '…');
    for (let n = 1; n < 10; n++) assert.ok(clip('x'.repeat(20), n, { total: true }).length <= n);
  });
});
