/**
 * Fuzz tier for the agent's file tools (issue 22's probes): random and mutated bytes through the
 * decoder (a ToolError or an exact round trip, never a crash or a lossy read), random edits (a ToolError
 * or a real replacement), random path strings through the workspace check (a ToolError or a place inside
 * the workspace and outside every `.git`), and hostile patterns over random long lines in the search
 * worker (an answer within the time budget, never a hang). Bounded like the rest of the tier
 * (RAWR_FUZZ_RUNS, RAWR_FUZZ_SEED).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { applyEdit } from '../../src/host/tools/fileText';
import { decodeText, encodeText } from '../../src/host/tools/textEncoding';
import { PatternMatcher } from '../../src/host/tools/textSearch';
import { ToolError } from '../../src/host/tools/toolError';
import { isGitSegment, resolveInWorkspace } from '../../src/host/tools/workspacePath';

const RUNS = Number(process.env.RAWR_FUZZ_RUNS ?? 200);
const opts = { numRuns: RUNS, ...(process.env.RAWR_FUZZ_SEED ? { seed: Number(process.env.RAWR_FUZZ_SEED) } : {}) };

/** Bytes that look like text files: encodings of random text, mutated, or random bytes. */
const fileBytes = fc.oneof(
  fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
  fc
    .tuple(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.constantFrom('utf8', 'utf8bom', 'utf16le', 'utf16be', 'latin1'))
    .map(([t, e]) => (e === 'latin1' ? Buffer.from(t, 'latin1') : encodeText(t, e as 'utf8'))),
  fc.tuple(fc.string({ maxLength: 60 }), fc.nat(), fc.integer({ min: 0, max: 255 })).map(([t, at, byte]) => {
    const b = Buffer.from(`\ufeff${t}`, 'utf16le');
    if (b.length) b[at % b.length] = byte;
    return b;
  }),
);

describe('fuzz: the agent tools', () => {
  it('decodeText: a ToolError or an exact round trip, never a crash', () => {
    fc.assert(
      fc.property(fileBytes, (buf) => {
        try {
          const d = decodeText(buf, 'f');
          assert.deepEqual(encodeText(d.text, d.encoding), buf);
        } catch (err) {
          if (!(err instanceof ToolError)) throw err;
        }
      }),
      opts,
    );
  });

  it('applyEdit: a ToolError or a replacement that changed the text', () => {
    const piece = fc.constantFrom('a', 'b', '\n', '\r\n', '\r', ' ', '$&', 'é');
    const text = fc.array(piece, { maxLength: 30 }).map((a) => a.join(''));
    fc.assert(
      fc.property(
        text,
        text.filter((t) => t.length > 0),
        text,
        fc.boolean(),
        (t, o, n, all) => {
          try {
            const r = applyEdit(t, o, n, all);
            assert.ok(r.count >= 1);
            assert.notEqual(r.text, t, 'a successful edit changes the text');
          } catch (err) {
            if (!(err instanceof ToolError)) throw err;
          }
        },
      ),
      opts,
    );
  });

  it('resolveInWorkspace: a ToolError or a place inside the workspace and outside every .git', async () => {
    const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-fuzz-paths-')));
    const ws = path.join(tmp, 'ws');
    fs.mkdirSync(path.join(ws, 'sub/.git'), { recursive: true });
    fs.symlinkSync(tmp, path.join(ws, 'up'));
    fs.symlinkSync(path.join(ws, 'sub/.git'), path.join(ws, 'g'));
    const seg = fc.oneof(fc.constantFrom('..', '.', '.git', '.Git', '.git ', 'up', 'g', 'sub', '~', '', ' ', 'file:', '%2e%2e'), fc.string({ maxLength: 6 }));
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(seg, { maxLength: 6 }), fc.boolean(), async (segs, absolute) => {
          const input = (absolute ? `${ws}/` : '') + segs.join('/');
          try {
            const r = await resolveInWorkspace([ws], input);
            assert.ok(r.abs === ws || r.abs.startsWith(`${ws}/`), `${JSON.stringify(input)} → ${r.abs}`);
            assert.ok(!r.rel.split('/').some(isGitSegment), `${JSON.stringify(input)} → ${r.rel}`);
          } catch (err) {
            if (!(err instanceof ToolError)) throw err;
          }
        }),
        opts,
      );
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('hostile patterns over random long lines: the search worker answers within its time budget', async function () {
    this.timeout(120_000);
    const BUDGET_MS = 300;
    const pattern = fc.constantFrom('(a+)+$', '(a|aa)+b', '.*a.*b.*c', '(x+x+)+y', '^(\\w+\\s?)*$', 'a{1,30}a{1,30}$', '(?=a)', '\\b', '$', '');
    const line = fc
      .tuple(fc.constantFrom('a', 'x', 'ab', ' ', '\n'), fc.integer({ min: 1, max: 20_000 }), fc.constantFrom('', '!', 'b', 'c'))
      .map(([u, n, end]) => u.repeat(n) + end);
    await fc.assert(
      fc.asyncProperty(pattern, line, async (p, l) => {
        const m = new PatternMatcher(p, 'i');
        try {
          const started = performance.now();
          const r = await m.match(Buffer.from(l), 'f', 50, BUDGET_MS);
          assert.ok(r.kind === 'hits' || r.kind === 'timeout', JSON.stringify(r).slice(0, 200));
          // Answered: the budget plus the worker's start-up (not counted in the budget) on a loaded machine.
          assert.ok(performance.now() - started < BUDGET_MS + 15_000);
        } finally {
          m.dispose();
        }
      }),
      { ...opts, numRuns: Math.min(RUNS, 25) },
    );
  });
});
