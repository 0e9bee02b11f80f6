/**
 * The prompt set for a hook process, kept parsed between runs. A steered PreCompact runs before every
 * model request while the context is over the threshold, each time a fresh process that would parse the
 * prompt files' YAML frontmatter and resolve the settings again (~30-50 ms). The files are still read
 * on every run (a few KB, through the same readers and the same safety checks); only their parse is
 * reused: the cache entry is keyed by a hash of what the readers returned (paths, texts, read errors),
 * the running code's identity (`codeKey`: a rawr upgrade parses again) and the cache's own version. A
 * missing, foreign or corrupt cache file, or one that cannot be written, only means parsing as before;
 * so does one another user could have written (../io/ownedCache.ts: the set becomes injected text).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { noteUntrustedCache, untrustedCache } from '../io/ownedCache';
import { loadPromptSet, PROMPT_FILES, type PromptReader, type PromptSet } from './promptSet';

const CACHE_VERSION = 1;
const MAX_CACHE_BYTES = 1024 * 1024;

type Read = { path: string; text: string } | undefined | { error: string };

/**
 * loadPromptSet(readers), answered from `cacheFile` when the files are the same as when it was written.
 * The answer is the same either way (the cache holds loadPromptSet's own result as JSON).
 */
export function loadPromptSetCached(readers: PromptReader[], cacheFile: string, codeKey: string): PromptSet {
  // Each file read once, in loadPromptSet's order (the first reader that has it); loadPromptSet reuses them.
  const reads = new Map<string, Read>();
  const memo: PromptReader[] = readers.map((read, i) => (fileName) => {
    const key = `${i}\0${fileName}`;
    let r = reads.get(key);
    if (!reads.has(key)) {
      try {
        r = read(fileName);
      } catch (err) {
        r = { error: (err as Error).message };
      }
      reads.set(key, r);
    }
    if (r && 'error' in r) throw new Error(r.error);
    return r;
  });
  const hash = createHash('sha256').update(`${CACHE_VERSION}\0${codeKey}\0`);
  for (const fileName of Object.values(PROMPT_FILES)) {
    for (const read of memo) {
      let r: Read;
      try {
        r = read(fileName);
      } catch (err) {
        r = { error: (err as Error).message };
      }
      hash.update(`${fileName}\0${JSON.stringify(r ?? null)}\0`);
      if (r && !('error' in r)) break;
    }
  }
  const key = hash.digest('hex');
  const held = inMemory.get(key);
  if (held) return held;
  const cached = readCache(cacheFile, key);
  if (cached) return hold(key, cached);
  const set = loadPromptSet(memo);
  writeCache(cacheFile, key, set);
  return hold(key, set);
}

/**
 * The sets this process parsed or read last, by the same key: the resident hook engine
 * (src/cli/hooks/server.ts) runs hook after hook and would otherwise read and parse the cache file each
 * time (~2 ms). A set is never changed by its users (the engine is pure), so the same object serves.
 */
const inMemory = new Map<string, PromptSet>();
const IN_MEMORY = 4;
/** Forgets the sets held in memory, so the next load reads the cache file (its tests). */
export function forgetHeldPromptSets(): void {
  inMemory.clear();
}
function hold(key: string, set: PromptSet): PromptSet {
  inMemory.delete(key);
  inMemory.set(key, set);
  if (inMemory.size > IN_MEMORY) inMemory.delete(inMemory.keys().next().value!);
  return set;
}

/** The cache file's entry for `key`; null when there is none, or when another user could have written it (`<rawr cache>/prompt-sets/<file>`: the set becomes injected text). */
function readCache(file: string, key: string): PromptSet | null {
  try {
    const st = fs.lstatSync(file);
    if (!st.isFile() || st.size > MAX_CACHE_BYTES) return null;
    const root = path.dirname(path.dirname(file));
    const why = untrustedCache(root, file);
    if (why !== null) {
      noteUntrustedCache(root, why);
      return null;
    }
    const entry = JSON.parse(fs.readFileSync(file, 'utf8')) as { key?: unknown; set?: unknown };
    if (entry.key !== key || typeof entry.set !== 'object' || entry.set === null) return null;
    const set = entry.set as PromptSet;
    return typeof set.settings === 'object' && typeof set.prompts === 'object' && Array.isArray(set.problems) ? set : null;
  } catch {
    return null;
  }
}

function writeCache(file: string, key: string, set: PromptSet): void {
  try {
    const text = JSON.stringify({ key, set });
    // Only a set that JSON gives back unchanged is kept (the cache must answer exactly as loadPromptSet).
    if (text.length > MAX_CACHE_BYTES || !sameJson(JSON.parse(text).set, set)) return;
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
    fs.writeFileSync(tmp, text, { flag: 'wx' });
    try {
      fs.renameSync(tmp, file);
    } catch {
      fs.rmSync(tmp, { force: true });
    }
  } catch {
    /* a cache only */
  }
}

/** Deep equality of plain data (what JSON can carry: objects, arrays, strings, finite numbers, booleans, null). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
