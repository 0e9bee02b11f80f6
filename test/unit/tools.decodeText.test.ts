/**
 * Which files rawr's tools read, and in which encoding (textEncoding.ts `decodeText`): only bytes that
 * round-trip — what an edit writes back is the bytes that were there — and every other file refused with
 * the reason a person can act on (binary, UTF-32, UTF-16 without its mark, a legacy 8-bit encoding, a
 * broken UTF-16 file). tools.encoding drives the same through the tools; this is the table of cases.
 */
import * as assert from 'node:assert/strict';
import { decodeText, encodeText } from '../../src/host/tools/textEncoding';

const utf16le = (s: string) => Buffer.from(s, 'utf16le');
const utf16be = (s: string) => Buffer.from(s, 'utf16le').swap16();

describe('decodeText: the files rawr reads, in the encoding they round-trip through', () => {
  it('reads UTF-8 (with or without its mark) and UTF-16 with its mark; what it would write back is the same bytes', () => {
    for (const [buf, encoding, text] of [
      [Buffer.from('x¿y', 'utf8'), 'utf8', 'x¿y'], // a third byte 0xBF is no mark
      [Buffer.alloc(0), 'utf8', ''],
      [Buffer.from('\uFEFFhi\r\n', 'utf8'), 'utf8bom', 'hi\r\n'],
      [Buffer.concat([Buffer.from([0xff, 0xfe]), utf16le('hé')]), 'utf16le', 'hé'],
      [Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be('hé')]), 'utf16be', 'hé'],
    ] as const) {
      assert.deepEqual(decodeText(buf, 'f'), { text, encoding }, buf.toString('hex'));
      assert.ok(encodeText(text, encoding).equals(buf), `${encoding} round-trips`);
    }
  });

  it('refuses every other file with what it is and what to do, never a guess', () => {
    const ascii = 'hello world, this is text';
    for (const [buf, why] of [
      [Buffer.from([0xff, 0xfe, 0, 0, 0x68, 0, 0, 0]), /Error: f is UTF-32 text; rawr reads and edits UTF-8 and UTF-16 only\.$/],
      [Buffer.from([0, 0, 0xfe, 0xff, 0, 0, 0, 0x68]), /Error: f is UTF-32 text/],
      [utf16le(ascii), /Error: f looks like UTF-16 LE text without a byte-order mark; .* It was not changed\.$/],
      [utf16be(ascii), /Error: f looks like UTF-16 BE text without a byte-order mark/],
      [utf16le('日本語のテキストです'), /Error: f looks like UTF-16 LE text without a byte-order mark/], // no NUL bytes at all
      [Buffer.from([0x68, 0, 0x69, 0]), /Error: f looks binary \(it contains NUL bytes\)/], // too short to tell UTF-16
      [Buffer.from([0, 1, 2, 0, 0, 0, 5, 0, 0, 0, 0, 1, 0, 0, 0, 9, 0, 0]), /Error: f looks binary/], // NULs on both sides
      [Buffer.from('café au lait', 'latin1'), /Error: f is not UTF-8 text \(it may be Latin-1 .*iconv -f latin1 -t utf-8\)\.$/],
      [Buffer.from('déjà vu', 'latin1'), /Error: f is not UTF-8 text/], // mostly ASCII with an odd length: not UTF-16 either
      [Buffer.from([0xff, 0xfe, 0x68]), /Error: f is not valid UTF-16 text \(its byte-order mark says UTF-16\)/],
    ] as const)
      assert.throws(() => decodeText(buf, 'f'), why, buf.toString('hex'));
  });
});
