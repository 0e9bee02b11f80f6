/**
 * The direction of the layers (docs/ARCHITECTURE.md#the-layers, issue 19): the core process (src/server)
 * and the extension host (src/host, src/extension.ts) meet only in the protocol module
 * (src/core/protocol), never import each other; no two files of src import each other, directly or round
 * a circle; types are not papered over with `as unknown as`; and what a shell tool is has one definition
 * (src/core/signals/tools.ts). And the core in tiers (docs/ARCHITECTURE.md#the-core, issue 32): a folder of
 * src/core imports only from its own tier or a lower one.
 */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(__dirname, '../../..');
const src = join(root, 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Relative module specifiers a file imports or re-exports, resolved to paths under the repository. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"](\.[^'"]+)['"]/g)) out.push(relative(root, resolve(dirname(file), m[1]!)));
  for (const m of text.matchAll(/(?:require|import)\(\s*['"](\.[^'"]+)['"]\s*\)/g)) out.push(relative(root, resolve(dirname(file), m[1]!)));
  return out;
}

const all = files(src);
const rel = (f: string) => relative(root, f);
const isHost = (p: string) => p.startsWith('src/host/') || p === 'src/extension.ts' || p === 'src/extension';
const isServer = (p: string) => p.startsWith('src/server/');

/**
 * The core's tiers, lowest first, with no exceptions. io and prompts sit in the kernel: what it reads
 * files with and is configured by; so does logformat, the event log's records and reader (what replays
 * and importers read), while log (the writer, the effect records, cold replay) is runtime.
 */
const TIERS: ReadonlyArray<readonly string[]> = [
  ['engine', 'arbiter', 'sequence', 'signals', 'settings', 'text', 'thread', 'io', 'prompts', 'logformat'], // kernel
  ['agent', 'replay', 'follow'], // adapters
  ['service', 'log', 'protocol'], // runtime
  ['hooks'], // integrations
];

const tierOf = (p: string): number | undefined => {
  const m = /^src\/core\/([^/.]+)/.exec(p);
  if (!m) return undefined;
  const k = TIERS.findIndex((t) => t.includes(m[1]!));
  if (k < 0) throw new Error(`${p}: src/core/${m[1]} is in no tier (add it to TIERS)`);
  return k;
};

/** The imports (from → to, repository paths) that go up a tier. */
export function upwardImports(edges: Iterable<readonly [string, string]>): string[] {
  const out: string[] = [];
  for (const [from, to] of edges) {
    const a = tierOf(from);
    const b = tierOf(to);
    if (a !== undefined && b !== undefined && b > a) out.push(`${from} → ${to}`);
  }
  return out;
}

describe('architecture: the layers', () => {
  it('reads the source tree', () => assert.ok(all.some((f) => rel(f).startsWith('src/server/')) && all.some((f) => isHost(rel(f)))));

  it('src/server and src/host never import each other (they share src/core/protocol)', () => {
    const offenders: string[] = [];
    for (const f of all) {
      const from = rel(f);
      for (const to of importsOf(f)) if ((isServer(from) && isHost(to)) || (isHost(from) && isServer(to))) offenders.push(`${from} → ${to}`);
    }
    assert.deepEqual(offenders, []);
  });

  it('no circle of imports between files of src (type-only imports count: a circle is a circle to read)', () => {
    // Each import resolved to the file it names; a depth-first walk reports every back edge as a circle.
    const known = new Set(all.map(rel));
    const edges = new Map<string, string[]>();
    for (const f of all) {
      const to = importsOf(f)
        .map((p) => [`${p}.ts`, `${p}/index.ts`, p].find((c) => known.has(c)))
        .filter((p): p is string => p !== undefined);
      edges.set(rel(f), to);
    }
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const path: string[] = [];
    const visit = (f: string): void => {
      state.set(f, 'open');
      path.push(f);
      for (const to of edges.get(f) ?? []) {
        if (state.get(to) === 'open') circles.push([...path.slice(path.indexOf(to)), to].join(' → '));
        else if (!state.has(to)) visit(to);
      }
      path.pop();
      state.set(f, 'done');
    };
    for (const f of edges.keys()) if (!state.has(f)) visit(f);
    assert.deepEqual(circles, []);
  });

  it('the core in tiers: kernel → adapters → runtime → integrations; nothing imports up a tier', () => {
    const edges = all.flatMap((f) => importsOf(f).map((to) => [rel(f), to] as const));
    assert.ok(edges.length > 100, 'the import graph was read');
    assert.deepEqual(upwardImports(edges), []);
  });

  it('a planted upward import is caught (the engine importing a hook; a replay importing the service)', () => {
    const planted = [
      ['src/core/engine/step.ts', 'src/core/hooks/shared/run'],
      ['src/core/replay/driver.ts', 'src/core/service/coreService'],
      ['src/core/replay/stream.ts', 'src/core/log/eventLog'], // a replay reading through the log's writer
      ['src/core/hooks/shared/run.ts', 'src/core/engine/step'], // down: fine
      ['src/core/replay/stream.ts', 'src/core/logformat/reader'], // down: fine
      ['src/core/agent/adapter.ts', 'src/core/replay/bounded'], // same tier: fine
    ] as const;
    assert.deepEqual(upwardImports(planted), [
      'src/core/engine/step.ts → src/core/hooks/shared/run',
      'src/core/replay/driver.ts → src/core/service/coreService',
      'src/core/replay/stream.ts → src/core/log/eventLog',
    ]);
  });

  it('no `as unknown as` in src: a type that does not fit is fixed, not cast', () => {
    const offenders = all.filter((f) => /\bas\s+unknown\s+as\b/.test(readFileSync(f, 'utf8'))).map(rel);
    assert.deepEqual(offenders, []);
  });

  it('one definition of what a shell tool is: src/core/signals/tools.ts', () => {
    // A list or pattern of shell tool names (bash, shell, exec_command, terminal…) anywhere else.
    const definitions = [
      /(?:const|let)\s+\w*(?:SHELL|TERMINAL)_TOOLS?\b/,
      /(?:const|function)\s+isShell\w*\s*[=(]/,
      /\/[^/\n]*\b(?:bash|exec_command)\b[^/\n]*\|[^/\n]*\/[gimsuy]*/i,
      /new Set\(\[[^\]]*['"](?:exec_command|local_shell|run_in_terminal)['"]/i,
    ];
    const defines = (f: string) => definitions.some((d) => d.test(readFileSync(f, 'utf8')));
    assert.deepEqual(all.filter((f) => rel(f) !== 'src/core/signals/tools.ts' && defines(f)).map(rel), []);
    assert.ok(defines(join(src, 'core/signals/tools.ts')), 'the definition is where this test looks for it');
  });
});
