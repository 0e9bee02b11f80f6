/**
 * rawr's file tools on random workspaces (issue 22): random paths (`..`, `.git` at any depth and in any
 * spelling, absolute, `file://`, leading spaces), random symlinks (out of the workspace, into a `.git`
 * folder, dangling, loops) and files in random encodings (UTF-8, Latin-1, UTF-16 with and without a mark,
 * binary), then random calls of read, list, search, create and edit — and never does a tool read or
 * write outside the workspace or inside any `.git`: everything there is byte-identical afterwards, no
 * answer carries a secret from there (nor a listing or a search a name from there), and a file that does not round-trip through its encoding is never
 * changed. Real folders, through the unit tier's vscode shim.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { createFileTool, editFileTool, listFilesTool, makeSearchTextTool, readFileTool } from '../../src/host/tools/fileTools';
import { decodeText } from '../../src/host/tools/textEncoding';
import { runTool } from '../support/tools';

// Each run builds a workspace and may start a search worker: a fraction of the pure properties' runs.
const RUNS = Math.max(10, Math.round(Number(process.env.RAWR_PROPERTY_RUNS ?? 10_000) / 400));
const SECRET_OUT = 'SECRET-OUT';
const SECRET_GIT = 'SECRET-GIT';
/** In every file, inside and out: an edit that reached a file it must not would change it. */
const EDIT_ME = 'EDITME';

const ENCODINGS: Record<string, (t: string) => Buffer> = {
  utf8: (t) => Buffer.from(t, 'utf8'),
  utf8bom: (t) => Buffer.from(`\ufeff${t}`, 'utf8'),
  latin1: (t) => Buffer.from(`${t} café crème`, 'latin1'),
  utf16le: (t) => Buffer.from(t, 'utf16le'),
  utf16leBom: (t) => Buffer.from(`\ufeff${t}`, 'utf16le'),
  utf16beBom: (t) => Buffer.from(`\ufeff${t}`, 'utf16le').swap16(),
  binary: (t) => Buffer.concat([Buffer.from(t), Buffer.from([0, 1, 2, 0xff])]),
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
          for (const f of s.files) fs.writeFileSync(path.join(ws, 'src', f.name), ENCODINGS[f.encoding]!(`text ${EDIT_ME}\nline two\n`));
          for (const l of s.links) {
            const at = path.join(ws, l.name);
            const target = path.join(tmp, l.target);
            try {
              fs.symlinkSync(l.relative ? path.relative(path.dirname(at), target) || '.' : target, at);
            } catch {
              // that name is taken already
            }
          }
          const protectedBefore = new Map([...snapshot(outside), ...snapshot(path.join(ws, '.git')), ...snapshot(path.join(ws, 'vendor/lib/.git'))]);
          const wsBefore = snapshot(ws);
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
          // Contents from there never reach an answer; names from there never reach a listing or a search.
          for (const a of answers) for (const secret of [SECRET_OUT, SECRET_GIT]) assert.ok(!a.includes(secret), `an answer carries ${secret}:\n${a}`);
          // (A name the calls themselves created inside the workspace, e.g. a folder `out-key.txt/`, may be listed.)
          const createdInside = realPathsInside(ws);
          for (const a of listings)
            for (const name of ['out-key', 'git-secret'].filter((n) => !createdInside.some((p) => p.includes(n))))
              assert.ok(!a.includes(name), `a listing names ${name}:\n${a}`);
          const protectedAfter = new Map([...snapshot(outside), ...snapshot(path.join(ws, '.git')), ...snapshot(path.join(ws, 'vendor/lib/.git'))]);
          assert.deepEqual(protectedAfter, protectedBefore, 'outside the workspace or a .git folder changed');
          // A file that does not round-trip through its encoding is never changed.
          for (const [p, was] of wsBefore) {
            if (!was.startsWith('file:')) continue;
            const bytes = Buffer.from(was.slice(5), 'base64');
            let decodable = true;
            try {
              decodeText(bytes, p);
            } catch {
              decodable = false;
            }
            if (!decodable) assert.deepEqual(fs.readFileSync(p), bytes, `${p} (not round-trippable) was changed`);
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
