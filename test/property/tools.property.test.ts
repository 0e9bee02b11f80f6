/**
 * rawr's file tools on random workspaces (issue 22): random paths (`..`, `.git` at any depth and in any
 * spelling, absolute, `file://`, leading spaces), random symlinks (out of the workspace, into a `.git`
 * folder, dangling, loops) and files in random encodings (UTF-8, Latin-1, UTF-16 with and without a mark,
 * binary), then random calls of read, list, search, create and edit — and never does a tool read or
 * write outside the workspace or inside any `.git`: everything there is byte-identical afterwards, no
 * answer carries a secret from there (nor a listing or a search a name from there — the workspace's parent
 * folder is watched whole, so a write that escapes anywhere next to the workspace is seen), and no file is
 * re-encoded: every file ends as it was, as the edit made it in its own encoding (only where docs/TOOLS.md
 * says the encoding round-trips), or replaced by a create — decided from the encoding the test wrote it
 * in, never by the tools' own decoder. Real folders, through the unit tier's vscode shim.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { createFileTool, editFileTool, listFilesTool, makeSearchTextTool, readFileTool } from '../../src/host/tools/fileTools';
import { runTool } from '../support/tools';

// Each run builds a workspace and may start a search worker: a fraction of the pure properties' runs.
const RUNS = Math.max(10, Math.round(Number(process.env.RAWR_PROPERTY_RUNS ?? 10_000) / 200)); // 50 by default: 20–45 s on two cores
const SECRET_OUT = 'SECRET-OUT';
const SECRET_GIT = 'SECRET-GIT';
/** In every file, inside and out: an edit that reached a file it must not would change it. */
const EDIT_ME = 'EDITME';

/** What the test writes in each file, in the encoding it picks. */
const TEXT = `text ${EDIT_ME}\nline two\n`;
const ENCODINGS: Record<string, (t: string) => Buffer> = {
  utf8: (t) => Buffer.from(t, 'utf8'),
  utf8bom: (t) => Buffer.from(`\ufeff${t}`, 'utf8'),
  latin1: (t) => Buffer.from(`${t} café crème`, 'latin1'),
  utf16le: (t) => Buffer.from(t, 'utf16le'),
  utf16leBom: (t) => Buffer.from(`\ufeff${t}`, 'utf16le'),
  utf16beBom: (t) => Buffer.from(`\ufeff${t}`, 'utf16le').swap16(),
  binary: (t) => Buffer.concat([Buffer.from(t), Buffer.from([0, 1, 2, 0xff])]),
};

/**
 * The encodings an edit may write back (docs/TOOLS.md: "UTF-8, or UTF-16 with its byte-order mark"; a
 * Latin-1 file, unmarked UTF-16 or a binary "is never edited") — the spec, not the code's decoder.
 */
const ROUND_TRIPS: Record<keyof typeof ENCODINGS, boolean> = {
  utf8: true,
  utf8bom: true,
  latin1: false,
  utf16le: false,
  utf16leBom: true,
  utf16beBom: true,
  binary: false,
};

const LINK_NAMES = ['link0', 'link1', 'src/link2', 'vendor/link3', ' link4'];
/** Link targets, relative to the temporary folder (`ws/…` inside the workspace). */
const TARGETS = [
  'outside',
  'outside/out-key.txt',
  'ws/.git',
  'ws/.git/git-secret-config',
  'ws/vendor/lib/.git',
  'ws/src',
  'ws/src/a.txt',
  'ws/nowhere',
  'ws/link0',
  'ws',
  '..',
];
const SEGMENTS = [
  '..',
  '.',
  '.git',
  '.GIT',
  '.git.',
  'vendor',
  'lib',
  'src',
  'a.txt',
  ' a.txt',
  'new.txt',
  ...LINK_NAMES.map((l) => path.basename(l)),
  'outside',
  'out-key.txt',
  'hooks',
];

const scenario = fc.record({
  files: fc.array(fc.record({ name: fc.constantFrom('a.txt', 'b.md', 'c.py', ' d.txt'), encoding: fc.constantFrom(...Object.keys(ENCODINGS)) }), {
    maxLength: 4,
  }),
  links: fc.array(fc.record({ name: fc.constantFrom(...LINK_NAMES), target: fc.constantFrom(...TARGETS), relative: fc.boolean() }), { maxLength: 4 }),
  calls: fc.array(
    fc.record({
      tool: fc.constantFrom('read', 'create', 'edit', 'list', 'search'),
      path: fc.oneof(
        fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 5 }).map((s) => s.join('/')),
        fc.constantFrom('/etc/hostname', '@tmp/outside', '@tmp/outside/out-key.txt', '@tmp/ws/.git/x', 'file://@tmp/ws/vendor/lib/.git/hooks/post-checkout'),
        // The files the scenario wrote, by their plain names: edits of real files in every encoding are common.
        fc.constantFrom('src/a.txt', 'src/b.md', 'src/c.py', 'src/ d.txt', '@tmp/ws/src/a.txt', '../ws/src/b.md'),
      ),
      overwrite: fc.boolean(),
    }),
    { minLength: 1, maxLength: 5 },
  ),
  searchFirst: fc.boolean(),
});

/** Every entry under `dir` (links not followed): its kind and bytes, or its link target. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isSymbolicLink()) out.set(p, `link:${fs.readlinkSync(p)}`);
      else if (e.isDirectory()) {
        out.set(p, 'dir');
        walk(p);
      } else out.set(p, `file:${fs.readFileSync(p).toString('base64')}`);
    }
  };
  walk(dir);
  return out;
}

describe('property: the file tools never reach outside the workspace or into .git', function () {
  this.timeout(10 * 60_000);
  const search = makeSearchTextTool({ perFileMs: 2_000, totalMs: 10_000 });

  it('random paths, links and encodings: outside and .git byte-identical, no secret in any answer, no file re-encoded', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-prop-tools-')));
        try {
          const ws = path.join(tmp, 'ws');
          const outside = path.join(tmp, 'outside');
          for (const d of ['ws/src', 'ws/.git/hooks', 'ws/vendor/lib/.git/hooks', 'outside']) fs.mkdirSync(path.join(tmp, d), { recursive: true });
          fs.writeFileSync(path.join(outside, 'out-key.txt'), `${SECRET_OUT} ${EDIT_ME}\n`);
          fs.writeFileSync(path.join(ws, '.git/git-secret-config'), `${SECRET_GIT} ${EDIT_ME}\n`);
          fs.writeFileSync(path.join(ws, 'vendor/lib/.git/git-secret-nested'), `${SECRET_GIT} ${EDIT_ME}\n`);
          fs.writeFileSync(path.join(ws, 'src/a.txt'), `inside ${EDIT_ME}\n`);
          /** Each file's text and the encoding it was written in (a later file of the same name replaces it). */
          const written = new Map<string, { text: string; encoding: string }>([
            [path.join(ws, 'src/a.txt'), { text: `inside ${EDIT_ME}\n`, encoding: 'utf8' }],
          ]);
          for (const f of s.files) {
            fs.writeFileSync(path.join(ws, 'src', f.name), ENCODINGS[f.encoding]!(TEXT));
            written.set(path.join(ws, 'src', f.name), { text: TEXT, encoding: f.encoding });
          }
          for (const l of s.links) {
            const at = path.join(ws, l.name);
            const target = path.join(tmp, l.target);
            try {
              fs.symlinkSync(l.relative ? path.relative(path.dirname(at), target) || '.' : target, at);
            } catch {
              // that name is taken already
            }
          }
          // Everything next to the workspace (its parent folder, `outside` included) and every .git folder.
          const guarded = () =>
            new Map([
              ...[...snapshot(tmp)].filter(([p]) => p !== ws && !p.startsWith(ws + path.sep)),
              ...snapshot(path.join(ws, '.git')),
              ...snapshot(path.join(ws, 'vendor/lib/.git')),
            ]);
          const protectedBefore = guarded();
          const answers: string[] = [];
          const listings: string[] = [];
          const calls = s.searchFirst ? [{ tool: 'search', path: '', overwrite: false }, ...s.calls] : s.calls;
          for (const c of calls) {
            const p = c.path.replace(/@tmp/g, tmp);
            const r =
              c.tool === 'read'
                ? await runTool(readFileTool, { path: p }, [ws])
                : c.tool === 'create'
                  ? await runTool(createFileTool, { path: p, content: `created ${EDIT_ME}\n`, overwrite: c.overwrite }, [ws])
                  : c.tool === 'edit'
                    ? await runTool(editFileTool, { path: p, old_string: EDIT_ME, new_string: 'CHANGED', replace_all: true }, [ws])
                    : c.tool === 'list'
                      ? await runTool(listFilesTool, {}, [ws])
                      : await runTool(search, { query: EDIT_ME.slice(0, 4) }, [ws]);
            answers.push(r.text);
            if (c.tool === 'list' || c.tool === 'search') listings.push(r.text);
          }
          // Then each file the scenario wrote is edited by its plain name, whatever the random calls did: every
          // run checks an edit of each of its encodings below (written back in it, or refused).
          for (const p of written.keys())
            answers.push(
              (await runTool(editFileTool, { path: path.relative(ws, p), old_string: EDIT_ME, new_string: 'CHANGED', replace_all: true }, [ws])).text,
            );
          // Contents from there never reach an answer; names from there never reach a listing or a search.
          for (const a of answers) for (const secret of [SECRET_OUT, SECRET_GIT]) assert.ok(!a.includes(secret), `an answer carries ${secret}:\n${a}`);
          // (A name the calls themselves created inside the workspace, e.g. a folder `out-key.txt/`, may be listed.)
          const createdInside = realPathsInside(ws);
          for (const a of listings)
            for (const name of ['out-key', 'git-secret'].filter((n) => !createdInside.some((p) => p.includes(n))))
              assert.ok(!a.includes(name), `a listing names ${name}:\n${a}`);
          assert.deepEqual(guarded(), protectedBefore, 'next to the workspace or in a .git folder, something changed');
          // No file re-encoded: each is as written, edited in its own encoding (where that round-trips),
          // or replaced by a create (UTF-8, the content the call gave, maybe edited after).
          for (const [p, w] of written) {
            const now = fs.readFileSync(p);
            const edited = (t: string) => t.replaceAll(EDIT_ME, 'CHANGED');
            const allowed = [
              ENCODINGS[w.encoding]!(w.text),
              ...(ROUND_TRIPS[w.encoding] ? [ENCODINGS[w.encoding]!(edited(w.text))] : []),
              Buffer.from(`created ${EDIT_ME}\n`, 'utf8'),
              Buffer.from(edited(`created ${EDIT_ME}\n`), 'utf8'),
            ];
            assert.ok(
              allowed.some((b) => b.equals(now)),
              `${p} (${w.encoding}) is neither as written, nor edited in its encoding${ROUND_TRIPS[w.encoding] ? '' : ' (which it must not be)'}, nor replaced: ${now.toString('hex').slice(0, 80)}`,
            );
          }
        } finally {
          fs.rmSync(tmp, { recursive: true, force: true });
        }
      }),
      { numRuns: RUNS, ...(process.env.RAWR_FUZZ_SEED ? { seed: Number(process.env.RAWR_FUZZ_SEED) } : {}) },
    );
  });
});

/** Every path under `dir` that is a real file or folder there (links not followed, `.git` folders left out), relative. */
function realPathsInside(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    if (e.isSymbolicLink() || e.name.toLowerCase().startsWith('.git')) continue;
    const p = path.join(rel, e.name);
    out.push(p);
    if (e.isDirectory()) out.push(...realPathsInside(dir, p));
  }
  return out;
}
