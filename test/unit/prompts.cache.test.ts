/** The hooks' prompt-set cache (src/core/prompts/cache.ts): the same answer as loadPromptSet, whatever the cache file holds. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { untrustedCacheNotes } from '../../src/core/io/ownedCache';
import { forgetHeldPromptSets, loadPromptSetCached } from '../../src/core/prompts/cache';
import { dirReader, shippedPromptsDir } from '../../src/core/prompts/fs';
import { loadPromptSet, PROMPT_FILES } from '../../src/core/prompts/promptSet';

describe('prompt-set cache for the hooks', () => {
  let tmp = '';
  let cache = '';
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-pcache-'));
    // Where the hooks keep it (<rawr cache>/prompt-sets/<file>): only a cache in the user's own rawr cache
    // folder is read (core/io/ownedCache.ts), and the OS temp folder itself is writable by everyone.
    cache = path.join(tmp, 'rawr', 'prompt-sets', 'p.json');
    fs.mkdirSync(path.dirname(cache), { recursive: true, mode: 0o700 });
    forgetHeldPromptSets();
  });
  afterEach(() => {
    fs.rmSync(tmp, { recursive: true, force: true });
    untrustedCacheNotes();
  });

  it('answers exactly as loadPromptSet: first parse, then from the cache, then again after a file changed', () => {
    const over = path.join(tmp, 'prompts');
    fs.mkdirSync(over);
    const readers = () => [dirReader(over), dirReader(shippedPromptsDir())];
    assert.deepEqual(loadPromptSetCached(readers(), cache, 'k'), loadPromptSet(readers()));
    assert.ok(fs.existsSync(cache), 'kept');
    assert.deepEqual(loadPromptSetCached(readers(), cache, 'k'), loadPromptSet(readers()), 'from the cache');

    // an override with a bad setting (a located problem) and a changed template
    const shipped = fs.readFileSync(path.join(shippedPromptsDir(), PROMPT_FILES.packetRequest), 'utf8');
    fs.writeFileSync(path.join(over, PROMPT_FILES.packetRequest), shipped.replace(/^---\n/, '---\nno_such_setting: 3\n'));
    fs.writeFileSync(path.join(over, PROMPT_FILES.handoff), 'HANDOFF {x}');
    const changed = loadPromptSetCached(readers(), cache, 'k');
    assert.deepEqual(changed, loadPromptSet(readers()));
    assert.ok(changed.problems.length > 0 && changed.prompts.handoff === 'HANDOFF {x}');
    assert.deepEqual(loadPromptSetCached(readers(), cache, 'k'), changed, 'from the cache, problems included');
  });

  it('in one process (the resident hook engine) the same files give the same set without reading the cache file again', () => {
    const over = path.join(tmp, 'prompts');
    fs.mkdirSync(over);
    const readers = () => [dirReader(over), dirReader(shippedPromptsDir())];
    const first = loadPromptSetCached(readers(), cache, 'k');
    fs.writeFileSync(cache, '{"key":'); // were the file read, it would parse again (a new object)
    assert.equal(loadPromptSetCached(readers(), cache, 'k'), first, 'held');
    fs.writeFileSync(path.join(over, PROMPT_FILES.handoff), 'HANDOFF {x}');
    const changed = loadPromptSetCached(readers(), cache, 'k');
    assert.equal(changed.prompts.handoff, 'HANDOFF {x}', 'a changed file is a new key');
    assert.deepEqual(changed, loadPromptSet(readers()));
  });

  it('a corrupt, foreign or symlinked cache file, or another code key, only means parsing again', () => {
    const readers = [dirReader(shippedPromptsDir())];
    const want = loadPromptSet(readers);
    fs.writeFileSync(cache, '{"key":');
    assert.deepEqual(loadPromptSetCached(readers, cache, 'k'), want);
    const entry = JSON.parse(fs.readFileSync(cache, 'utf8')) as { key: string; set: { prompts: { handoff: string } } };
    entry.set.prompts.handoff = 'FORGED';
    fs.writeFileSync(cache, JSON.stringify(entry));
    forgetHeldPromptSets();
    assert.equal(loadPromptSetCached(readers, cache, 'k').prompts.handoff, 'FORGED', 'the same key answers from the file (it is rawr’s own state)');
    forgetHeldPromptSets();
    assert.deepEqual(loadPromptSetCached(readers, cache, 'other code'), want, 'another code key parses again');
    fs.rmSync(cache);
    const target = path.join(tmp, 'target.json');
    fs.writeFileSync(target, JSON.stringify(entry));
    fs.symlinkSync(target, cache);
    assert.deepEqual(loadPromptSetCached(readers, cache, 'k'), want, 'a symlink is not read');
  });
});
