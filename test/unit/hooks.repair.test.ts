/**
 * The repair of an agent's own compaction summary (src/core/hooks/shared/repair.ts): only the facts the
 * summary lost, bounded to half its size, quoted; the tool's summary read back from a transcript
 * (nativeSummaryAt), and `rawr handoff FILE --line N --native` printing what the hooks would inject.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nativeSummaryAt } from '../../src/core/hooks/shared/repair';
import { keeps, repairFor, repairOf, trailFacts, type RepairFact } from '../../src/core/sequence/repair';
import { importCodex } from '../../src/core/replay/import/codex';
import { stateBefore } from '../../src/core/replay/handoffAt';
import { dirReader, shippedPromptsDir } from '../../src/core/prompts/fs';
import { loadPromptSet } from '../../src/core/prompts/promptSet';
import { linesOfText } from '../../src/core/io/lines';
import type { Trail } from '../../src/core/engine/types';
import { needShared, TRANSCRIPTS_DIR } from '../support/sharedData';

const CLI = path.resolve(__dirname, '../../src/cli/main.js');

const trail = (o: Partial<Trail> = {}): Trail => ({
  userRequests: [{ turn: 1, at: 0, text: 'Add the export button to the report page and wire it to the CSV endpoint' }],
  actions: [],
  toolTail: [],
  files: [],
  lastAgentMessage: 'Next I will run the integration tests.',
  excerpt: [],
  commits: ['3f2a1c9 add export button', '3f2a1c9 add export button'],
  edited: ['/repo/src/report/page.tsx', '/repo/src/api/csv.ts'],
  errors: [{ id: 't1', name: 'Bash', input: 'npm test', output: 'Exit code 1\nTypeError: cannot read properties of undefined (reading map)', isError: true }],
  ...o,
});

describe('repair of the agent summary', () => {
  it('adds only what the summary lost, once per fact, quoted, within half the summary', () => {
    const summary =
      'The user asked to add the export button to the report page and wire it to the CSV endpoint. Files: src/report/page.tsx. ' +
      'Next: run the integration tests. '.repeat(30);
    const r = repairFor(summary, trailFacts(trail(), [{ text: 'Write the [rawr handoff] docs', status: 'pending' }]));
    assert.match(r.text, /^\[rawr repair\] /);
    assert.equal(r.text.split('3f2a1c9').length - 1, 1, r.text);
    assert.match(r.text, /TypeError: cannot read properties of undefined/);
    assert.match(r.text, /Edited: \/repo\/src\/api\/csv\.ts/);
    assert.doesNotMatch(r.text, /page\.tsx|Current ask/, 'kept by the summary: not repeated');
    assert.match(r.text, /\[quoted:rawr handoff\] docs/, 'plan text cannot speak as rawr');
    assert.equal(r.text.split('[rawr').length - 1, 1);
    assert.ok(r.text.length <= r.budgetChars && r.budgetChars === Math.floor(summary.length / 2), `${r.text.length} > ${r.budgetChars}`);
    assert.deepEqual(r.classes.commits, { facts: 1, kept: 0, added: 1 });
  });

  // issue 34 item 5: Codex's hooks repair from its rollout through the same engine; a quiet commit named by the
  // git log that follows it is one fact there too ('3f2a1c9 phase 1 done'), never 'commit ?'.
  it("Codex: 'git commit -q … && git log --oneline -1' in a rollout is one commit, named by its hash, in the repair", () => {
    let t = 0;
    const rec = (type: string, payload: unknown) => JSON.stringify({ timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, t++)).toISOString(), type, payload });
    const rollout = [
      rec('session_meta', { id: 's', cwd: '/repo', cli_version: '0.171.0' }),
      rec('event_msg', { type: 'user_message', message: 'Finish phase 1 and commit it' }),
      rec('response_item', {
        type: 'function_call',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: 'git add -A && git commit -q -m "phase 1 done" && git log --oneline -1' }),
        call_id: 'c1',
      }),
      rec('response_item', { type: 'function_call_output', call_id: 'c1', output: 'Process exited with code 0\nOutput:\n3f2a1c9 phase 1 done\n' }),
      rec('compacted', { message: 'The user asked to finish phase 1. Work continues.' }),
    ].join('\n');
    const r = importCodex(rollout);
    const line = r.items.find((i) => i.type === 'native_compaction')!.line;
    const set = loadPromptSet([dirReader(shippedPromptsDir())]);
    const { state } = stateBefore(r, line, set.settings, set.prompts);
    const repair = repairOf('The user asked to finish phase 1. Work continues.', state);
    assert.match(repair.text, /Commit: 3f2a1c9 phase 1 done/, repair.text);
    assert.doesNotMatch(repair.text, /commit \?|Commit: \?/, repair.text);
    assert.deepEqual(repair.classes.commits, { facts: 1, kept: 0, added: 1 });
  });

  it('a summary that keeps everything gets nothing; a short budget drops what does not fit', () => {
    const facts: RepairFact[] = [{ cls: 'commits', text: 'Commit: abcdef1', match: { kind: 'exact', needles: ['abcdef1'] } }];
    assert.equal(repairFor('committed abcdef1 already', facts).text, '');
    const long: RepairFact[] = Array.from({ length: 50 }, (_, k) => ({
      cls: 'files_edited' as const,
      text: `Edited: src/module${k}/a-rather-long-file-name-${k}.ts`,
      match: { kind: 'exact' as const, needles: [`module${k}/`] },
    }));
    const r = repairFor('x'.repeat(1000), long);
    assert.ok(r.text.length <= 500 && r.classes.files_edited!.added < 50, r.text);
    assert.ok(keeps({ cls: 'current_ask', text: '', match: { kind: 'words', text: 'deploy staging now', share: 0.7 } }, 'we will deploy to staging now'));
  });

  it('reads the tool summary at a compaction line: Claude Code and Codex; null elsewhere', () => {
    const claude = [
      JSON.stringify({ type: 'user', message: { role: 'user', content: 'hi' } }),
      JSON.stringify({ type: 'system', subtype: 'compact_boundary', compactMetadata: { trigger: 'manual', preTokens: 5 } }),
      JSON.stringify({ type: 'user', isCompactSummary: true, message: { role: 'user', content: [{ type: 'text', text: 'SUMMARY' }] } }),
    ].join('\n');
    assert.deepEqual(nativeSummaryAt(linesOfText(claude), 2), { trigger: 'manual', summary: 'SUMMARY' });
    assert.equal(nativeSummaryAt(linesOfText(claude), 1), null);
    const codex = JSON.stringify({ type: 'compacted', payload: { message: 'M', replacement_history: [{ content: [{ text: 'H' }] }] } });
    assert.deepEqual(nativeSummaryAt(linesOfText(codex), 1), { trigger: 'auto', summary: 'M\n\nH' });
    assert.equal(nativeSummaryAt(linesOfText('not json\n'), 1), null);
  });

  it('rawr handoff --native prints the repair at a recorded compaction, and refuses a line that is not one', function () {
    needShared(this);
    const file = path.join(TRANSCRIPTS_DIR, 'claude-spotter-258c7280.jsonl');
    if (!fs.existsSync(file)) this.skip();
    const r = spawnSync(process.execPath, [CLI, 'handoff', file, '--line', '1256', '--native', '--json'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const o = JSON.parse(r.stdout) as { repair: string; tokens: { summary: number; repair: number }; classes: Record<string, { added: number }> };
    assert.match(o.repair, /^\[rawr repair\]/);
    assert.ok(o.classes.commits!.added >= 1);
    assert.ok(o.tokens.repair <= o.tokens.summary / 2, JSON.stringify(o.tokens));
    const bad = spawnSync(process.execPath, [CLI, 'handoff', file, '--line', '1200', '--native'], { encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /not a compaction recorded by the tool/);
  });
});
