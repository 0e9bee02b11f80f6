/**
 * Which bytes rawr's file tools read as text, and how they write text back: only encodings a file
 * round-trips through byte for byte. Pure (no I/O): the search worker decodes with it too.
 */
import { ToolError } from './toolError';

/**
 * The encodings rawr reads and writes back byte for byte: UTF-8 (with or without a byte-order mark) and
 * UTF-16 with its byte-order mark. Anything else (Latin-1, Windows-1252, UTF-16 without a mark…) is
 * refused: decoding it as UTF-8 would turn every é into U+FFFD, and an edit would write that back.
 */
export type TextEncoding = 'utf8' | 'utf8bom' | 'utf16le' | 'utf16be';

export interface DecodedText {
  /** Without the byte-order mark (encodeText puts it back). */
  text: string;
  encoding: TextEncoding;
}

const BOMS: Record<TextEncoding, Buffer> = {
  utf8: Buffer.alloc(0),
  utf8bom: Buffer.from([0xef, 0xbb, 0xbf]),
  utf16le: Buffer.from([0xff, 0xfe]),
  utf16be: Buffer.from([0xfe, 0xff]),
};

/** The bytes of `text` in `encoding`, byte-order mark included. */
export function encodeText(text: string, encoding: TextEncoding): Buffer {
  switch (encoding) {
    case 'utf8':
    case 'utf8bom':
      return Buffer.concat([BOMS[encoding], Buffer.from(text, 'utf8')]);
    case 'utf16le':
      return Buffer.concat([BOMS.utf16le, Buffer.from(text, 'utf16le')]);
    case 'utf16be':
      return Buffer.concat([BOMS.utf16be, Buffer.from(text, 'utf16le').swap16()]);
  }
}

/** The share of NUL bytes at even and at odd offsets: ASCII-heavy UTF-16 without a mark has one side full of them. */
function nulSides(buf: Buffer): { even: number; odd: number } {
  let even = 0;
  let odd = 0;
  const n = Math.min(buf.length, 8192);
  for (let i = 0; i < n; i++) {
    if (buf[i] !== 0) continue;
    if (i % 2) odd++;
    else even++;
  }
  return { even: even / Math.max(1, n / 2), odd: odd / Math.max(1, n / 2) };
}

/** Whether `buf` decodes as `label` into text, not noise: no control characters but tab and line ends. */
function decodesAsText(buf: Buffer, label: 'utf-16le' | 'utf-16be'): boolean {
  try {
    const text = new TextDecoder(label, { fatal: true }).decode(buf);
    // eslint-disable-next-line no-control-regex
    return !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/.test(text);
  } catch {
    return false;
  }
}

/**
 * Whether `buf` reads as UTF-16 text without a byte-order mark (for the refusal's wording only). Not when
 * it is mostly ASCII: that is a legacy 8-bit encoding (Latin-1 text with a few é), which also decodes as
 * "UTF-16" — into CJK-looking noise.
 */
function looksUtf16(buf: Buffer): 'UTF-16 LE' | 'UTF-16 BE' | undefined {
  if (buf.length < 2 || buf.length % 2) return undefined;
  let ascii = 0;
  for (const byte of buf) if ((byte >= 0x20 && byte < 0x7f) || byte === 0x0a || byte === 0x0d || byte === 0x09) ascii++;
  if (ascii / buf.length > 0.8) return undefined;
  if (decodesAsText(buf, 'utf-16le')) return 'UTF-16 LE';
  if (decodesAsText(buf, 'utf-16be')) return 'UTF-16 BE';
  return undefined;
}

/**
 * Decodes a file's bytes in the one encoding they round-trip through, or throws a ToolError saying why
 * rawr will not read (or edit) it: binary (NUL bytes), UTF-32, or not UTF-8 and no UTF-16 mark.
 */
export function decodeText(buf: Buffer, rel: string): DecodedText {
  let encoding: TextEncoding;
  let decoded: string;
  const [a, b, c, d] = buf;
  if (a === 0xff && b === 0xfe && c === 0 && d === 0) throw new ToolError(`${rel} is UTF-32 text; rawr reads and edits UTF-8 and UTF-16 only.`);
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) throw new ToolError(`${rel} is UTF-32 text; rawr reads and edits UTF-8 and UTF-16 only.`);
  try {
    if (a === 0xff && b === 0xfe) [encoding, decoded] = ['utf16le', new TextDecoder('utf-16le', { fatal: true }).decode(buf.subarray(2))];
    else if (a === 0xfe && b === 0xff) [encoding, decoded] = ['utf16be', new TextDecoder('utf-16be', { fatal: true }).decode(buf.subarray(2))];
    else {
      if (buf.includes(0)) {
        const s = nulSides(buf);
        // Enough text to tell (a few bytes with a NUL are just binary), NULs on one side only, and it decodes.
        const side = buf.length < 16 ? undefined : s.odd > 0.3 && s.even < 0.05 ? 'utf-16le' : s.even > 0.3 && s.odd < 0.05 ? 'utf-16be' : undefined;
        const utf16 = side && decodesAsText(buf, side) ? (side === 'utf-16le' ? 'UTF-16 LE' : 'UTF-16 BE') : undefined;
        throw new ToolError(
          utf16
            ? `${rel} looks like ${utf16} text without a byte-order mark; rawr reads and edits UTF-8, and UTF-16 only with its byte-order mark. It was not changed.`
            : `${rel} looks binary (it contains NUL bytes); rawr reads text files only.`,
        );
      }
      const bom = a === 0xef && b === 0xbb && c === 0xbf;
      encoding = bom ? 'utf8bom' : 'utf8';
      decoded = new TextDecoder('utf-8', { fatal: true }).decode(bom ? buf.subarray(3) : buf);
    }
  } catch (err) {
    if (err instanceof ToolError) throw err;
    const utf16 = looksUtf16(buf);
    throw new ToolError(
      utf16
        ? `${rel} looks like ${utf16} text without a byte-order mark; rawr reads and edits UTF-8, and UTF-16 only with its byte-order mark. It was not changed.`
        : a === 0xff || a === 0xfe
          ? `${rel} is not valid UTF-16 text (its byte-order mark says UTF-16); rawr does not read or change it.`
          : `${rel} is not UTF-8 text (it may be Latin-1 / Windows-1252 or another legacy encoding); rawr reads and edits UTF-8 and UTF-16 only, so it does not read or change it — convert it to UTF-8 first (e.g. iconv -f latin1 -t utf-8).`,
    );
  }
  // The rule itself: what rawr would write back must be the bytes that are there.
  if (!encodeText(decoded, encoding).equals(buf)) throw new ToolError(`${rel} does not round-trip through ${encoding}; rawr does not read or change it.`);
  return { text: decoded, encoding };
}
