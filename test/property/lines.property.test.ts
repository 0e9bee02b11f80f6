/**
 * The line reader (src/core/io/lines.ts) on random files, read in tiny chunks so that lines start, end
 * and break across chunk boundaries: the same lines as the in-memory reader (linesOfText), a line over
 * the length cap reported with its length, CRLF endings and a last line without a newline; each line's
 * byte offset and length, and a read that starts at a line's offset.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { linesOfText, openLines, type RawLine } from '../../src/core/io/lines';

const RUNS = Number(process.env.RAWR_PROPERTY_RUNS ?? 10_000) / 20;

const lineText = fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 12 }), fc.constantFrom('', '\r', '{"a":1}'));
const file = fc.record({
  lines: fc.array(
    lineText.map((t) => t.replace(/\n/g, ' ')),
    { maxLength: 12 },
  ),
  crlf: fc.boolean(),
  finalNewline: fc.boolean(),
  chunk: fc.integer({ min: 1, max: 9 }),
  maxLine: fc.integer({ min: 1, max: 40 }),
});

/** What the reader must give: linesOfText's lines, except those over `maxLine` bytes (their length instead). */
function expected(text: string, maxLine: number): RawLine[] {
  const out: RawLine[] = [];
  if (text === '') return out;
  const hasFinal = text.endsWith('\n');
  const parts = text.split('\n');
  if (hasFinal) parts.pop();
  const inMemory = [...linesOfText(text)];
  let offset = 0;
  parts.forEach((raw, i) => {
    const bytes = Buffer.byteLength(raw, 'utf8');
    const unterminated = !hasFinal && i === parts.length - 1;
    // A file read also says where each line is (its bytes without the newline, a "\r" included).
    if (bytes > maxLine) out.push({ line: i + 1, tooLong: bytes, offset, bytes, ...(unterminated ? { unterminated } : {}) });
    else out.push({ ...inMemory[i]!, offset, bytes });
    offset += bytes + 1;
  });
  return out;
}

describe('line reader (property)', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-lines-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads any file in any chunk size as the in-memory reader splits its text', () => {
    let k = 0;
    fc.assert(
      fc.property(file, ({ lines, crlf, finalNewline, chunk, maxLine }) => {
        // A lone "\r" line followed by "\n" would make "\r\r\n": kept, as a file may hold it.
        const text = lines.join(crlf ? '\r\n' : '\n') + (finalNewline && lines.length ? (crlf ? '\r\n' : '\n') : '');
        // The reader works on UTF-8 bytes: compare with the text those bytes decode to (lone surrogates become U+FFFD).
        const bytes = Buffer.from(text, 'utf8');
        if (bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))) return; // a BOM is tested elsewhere
        const f = path.join(dir, `f${k++}.jsonl`);
        fs.writeFileSync(f, bytes);
        const got = [...openLines(f, { chunkBytes: chunk, maxLineBytes: maxLine }).lines()];
        const want = expected(bytes.toString('utf8'), maxLine);
        assert.deepStrictEqual(got, want);
        // Read from a line's offset (the records after a checkpoint): the lines from there, counted from 1.
        if (want.length > 0) {
          const k0 = chunk % want.length;
          const from = [...openLines(f, { chunkBytes: chunk, maxLineBytes: maxLine, from: want[k0]!.offset }).lines()];
          assert.deepStrictEqual(
            from,
            want.slice(k0).map((l) => ({ ...l, line: l.line - k0 })),
          );
        }
      }),
      { numRuns: RUNS },
    );
  });
});
