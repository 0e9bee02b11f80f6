/**
 * rawr's default agent tools, the vscode-free parts: where a path may point (workspace only, symlinks
 * resolved, not .git/), reading text files (size cap, regular files, line ranges, output caps), exact edits,
 * the package.json contribution (generated from the zod schemas), and the chat lines of tool calls.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  DEFAULT_ALLOWED_TOOLS,
  DEFAULT_TOOL_SPECS,
  allowedInRestrictedMode,
  inputJsonSchema,
  languageModelToolsContribution,
  TOOL_SPECS,
} from '../../src/host/tools/catalog';
import { applyEdit, capText, MAX_READ_LINES, numberedRange, readTextFile } from '../../src/host/tools/fileText';
import { resolveInWorkspace, ToolError } from '../../src/host/tools/workspacePath';
import { describeToolCall, isSkippedResult, planChecklist, planUpdate } from '../../src/host/participant/toolDisplay';
import { modelErrorAdvice } from '../../src/host/participant/errorAdvice';

const ROOT = path.resolve(__dirname, '../../..');
let tmp: string;
let ws: string;
let outside: string;

describe('agent tools: workspace paths', () => {
  before(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-tools-')));
    ws = path.join(tmp, 'ws');
    outside = path.join(tmp, 'outside');
    fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
    fs.mkdirSync(path.join(ws, '.git'), { recursive: true });
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(ws, 'src/a.ts'), 'export const a = 1;\n');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret\n');
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'link-out.txt'));
    fs.symlinkSync(outside, path.join(ws, 'dir-out'));
    fs.symlinkSync(path.join(ws, 'src/a.ts'), path.join(ws, 'link-in.ts'));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('resolves relative and absolute paths inside the workspace', async () => {
    const r = await resolveInWorkspace([ws], 'src/a.ts');
    assert.deepEqual({ rel: r.rel, exists: r.exists }, { rel: 'src/a.ts', exists: true });
    assert.equal((await resolveInWorkspace([ws], path.join(ws, 'src/a.ts'))).rel, 'src/a.ts');
    const created = await resolveInWorkspace([ws], 'src/new/deep/b.ts');
    assert.deepEqual({ rel: created.rel, exists: created.exists }, { rel: 'src/new/deep/b.ts', exists: false });
    assert.equal((await resolveInWorkspace([ws], 'link-in.ts')).rel, 'src/a.ts', 'a link inside the workspace resolves to its target');
  });

  it('refuses paths outside the workspace, through .. or symlinks, and .git/', async () => {
    for (const bad of [
      '../outside/secret.txt',
      path.join(outside, 'secret.txt'),
      'link-out.txt',
      'dir-out/secret.txt',
      'dir-out/new.txt',
      '/etc/passwd',
      'src/../../outside/x',
    ]) {
      await assert.rejects(resolveInWorkspace([ws], bad), (e: Error) => e instanceof ToolError && /outside the workspace/.test(e.message), bad);
    }
    await assert.rejects(resolveInWorkspace([ws], '.git/config'), /inside a \.git folder/);
    await assert.rejects(resolveInWorkspace([], 'a'), /No workspace folder/);
    await assert.rejects(resolveInWorkspace([ws], 'a\0b'), /NUL/);
  });
});

describe('agent tools: reading and editing text', () => {
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-text-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads regular text files within the cap; directories, binaries and huge files are clear errors', async () => {
    const f = path.join(dir, 'a.txt');
    fs.writeFileSync(f, 'one\ntwo\n');
    assert.equal(await readTextFile(f, 'a.txt'), 'one\ntwo\n');
    await assert.rejects(readTextFile(dir, 'd'), /is a directory/);
    fs.writeFileSync(path.join(dir, 'bin'), Buffer.from([1, 0, 2]));
    await assert.rejects(readTextFile(path.join(dir, 'bin'), 'bin'), /binary/);
    fs.writeFileSync(path.join(dir, 'big'), 'x'.repeat(5000));
    await assert.rejects(readTextFile(path.join(dir, 'big'), 'big', 4096), /more than the 0 MB|MB, more than/);
    await assert.rejects(readTextFile(path.join(dir, 'missing'), 'missing'), /does not exist/);
  });

  it('numbers a line range and says where to continue past the output cap', () => {
    const text = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`).join('\n');
    const r = numberedRange(text, 'f.txt', 10, 12);
    assert.equal(r, 'f.txt (lines 10-12 of 5000)\n10| line 10\n11| line 11\n12| line 12');
    const capped = numberedRange(text, 'f.txt');
    assert.match(capped, new RegExp(`lines 1-${MAX_READ_LINES} of 5000`));
    assert.match(capped, new RegExp(`continue with startLine ${MAX_READ_LINES + 1}`));
    assert.throws(() => numberedRange(text, 'f.txt', 6000), /past the end/);
    assert.throws(() => numberedRange(text, 'f.txt', 5, 3), /before startLine/);
    assert.equal(numberedRange('', 'e.txt'), 'e.txt (lines 1-1 of 1)\n1| ');
  });

  it('applies exact edits: unique match, replace_all, CRLF files, $ patterns literal', () => {
    assert.deepEqual(applyEdit('a b a', 'b', 'c'), { text: 'a c a', count: 1 });
    assert.throws(() => applyEdit('a b a', 'a', 'c'), /occurs 2 times/);
    assert.deepEqual(applyEdit('a b a', 'a', 'c', true), { text: 'c b c', count: 2 });
    assert.throws(() => applyEdit('abc', 'x', 'y'), /was not found/);
    assert.throws(() => applyEdit('abc', 'b', 'b'), /nothing to change/);
    assert.deepEqual(applyEdit('x\r\ny\r\n', 'x\ny', 'x\nz'), { text: 'x\r\nz\r\n', count: 1 });
    assert.equal(applyEdit('price', 'price', '$& $1 $$').text, '$& $1 $$');
  });

  it('caps long output, keeping head and tail', () => {
    const t = capText('a'.repeat(100) + 'b'.repeat(100), 50);
    assert.ok(t.startsWith('a'.repeat(25)) && t.endsWith('b'.repeat(25)) && /150 characters not shown/.test(t), t);
  });
});

describe('agent tools: catalog and package.json', () => {
  it('package.json contributes exactly the generated languageModelTools (run `npm run gen-config`)', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    assert.deepEqual(pkg.contributes.languageModelTools, JSON.parse(JSON.stringify(languageModelToolsContribution())));
  });

  it('schemas come from zod: required fields, and what the schema accepts the zod parser accepts', () => {
    const edit = inputJsonSchema(TOOL_SPECS.editFile.schema) as { required: string[]; properties: Record<string, unknown> };
    assert.deepEqual(edit.required.sort(), ['new_string', 'old_string', 'path']);
    assert.ok(!('$schema' in edit));
    assert.ok(TOOL_SPECS.runInTerminal.schema.safeParse({ command: 'npm test' }).success);
    assert.ok(!TOOL_SPECS.runInTerminal.schema.safeParse({ command: '' }).success);
    assert.ok(!TOOL_SPECS.readFile.schema.safeParse({ path: 'a', startLine: 0 }).success);
  });

  it('defaults: every tool allowed; in Restricted Mode only read/list/search (git runs repository config)', () => {
    assert.deepEqual(
      [...DEFAULT_ALLOWED_TOOLS],
      DEFAULT_TOOL_SPECS.map((t) => t.name),
    );
    assert.deepEqual(
      DEFAULT_TOOL_SPECS.filter(allowedInRestrictedMode).map((t) => t.name),
      ['rawr_read_file', 'rawr_list_files', 'rawr_search_text'],
    );
    assert.deepEqual(
      DEFAULT_TOOL_SPECS.filter((t) => t.kind !== 'read').map((t) => t.name),
      ['rawr_create_file', 'rawr_edit_file', 'rawr_run_in_terminal'],
    );
  });
});

describe('agent tools: what the chat shows', () => {
  it('one short line per call', () => {
    assert.equal(
      describeToolCall('rawr_edit_file', { path: 'src/limiter.ts' }, 'Edited src/limiter.ts: replaced 1 occurrence.', 'ok'),
      '✓ Edited `src/limiter.ts`',
    );
    assert.equal(describeToolCall('rawr_run_in_terminal', { command: 'npm test' }, 'exit code 0\nok', 'ok'), '✓ Ran `npm test` — exit 0');
    assert.equal(describeToolCall('rawr_read_file', { path: 'a.ts' }, 'a.ts (lines 1-20 of 20)\n…', 'ok'), '✓ Read `a.ts` (lines 1–20 of 20)');
    assert.equal(describeToolCall('rawr_create_file', { path: 'b.ts' }, 'Created b.ts (3 lines).', 'ok'), '✓ Created `b.ts`');
    assert.equal(
      describeToolCall('rawr_run_in_terminal', { command: 'sleep 999' }, 'Error: The command did not finish within 5 s and was interrupted.', 'error'),
      '✗ Ran `sleep 999` — The command did not finish within 5 s and was interrupted.',
    );
    assert.equal(describeToolCall('mcp_x', {}, 'ok', 'ok'), '✓ Used `mcp_x`');
    assert.equal(describeToolCall('rawr_edit_file', { path: 'a`b' }, 'x', 'ok'), '✓ Edited `` a`b ``');
    assert.equal(
      describeToolCall('rawr_run_in_terminal', { command: 'git clean -fdX' }, 'The user declined', 'skipped'),
      '⊘ Skipped: run `git clean -fdX` (you chose Skip)',
    );
    assert.ok(isSkippedResult('The user chose to skip the tool call, they want to proceed without running it'));
    assert.ok(!isSkippedResult('exit code 0'));
  });

  it('the plan as a checklist, step text escaped', () => {
    assert.equal(
      planChecklist([
        { text: 'Add the limiter', status: 'completed' },
        { text: 'Wire *it*', status: 'in_progress' },
        { text: 'Tests', status: 'pending' },
      ]),
      '\n\n**Plan** (1/3 done)\n\n- ☑ ~~Add the limiter~~\n- ▶ Wire \\*it\\*\n- ☐ Tests\n\n',
    );
    // Only the step in progress moved: one line; a step completed or new steps: the checklist again.
    const p1 = [
      { text: 'A', status: 'in_progress' as const },
      { text: 'B', status: 'pending' as const },
    ];
    const p2 = [
      { text: 'A', status: 'completed' as const },
      { text: 'B', status: 'pending' as const },
    ];
    const p3 = [
      { text: 'A', status: 'completed' as const },
      { text: 'B', status: 'in_progress' as const },
    ];
    assert.match(planUpdate(p1, undefined), /\*\*Plan\*\* \(0\/2 done\)/);
    assert.match(planUpdate(p2, p1), /\*\*Plan\*\* \(1\/2 done\)/);
    assert.equal(planUpdate(p3, p2), '\n\n▶ Plan step 2/2: B\n\n');
    assert.match(planUpdate([...p3, { text: 'C', status: 'pending' }], p3), /\*\*Plan\*\* \(1\/3 done\)/);
  });
});

describe('agent: model errors say what to do next', () => {
  it('per LanguageModelError kind and per HTTP status', () => {
    assert.match(modelErrorAdvice('NoPermissions', 'HTTP 401: bad key')!, /Set OpenAI-Compatible API Key/);
    assert.match(modelErrorAdvice('NoPermissions', 'not allowed')!, /Manage Models/);
    assert.match(modelErrorAdvice('Blocked', 'quota')!, /wait a moment/);
    assert.match(modelErrorAdvice('NotFound', 'gone')!, /Pick another model/);
    assert.match(modelErrorAdvice(undefined, 'scripted: HTTP 429 too many')!, /rate limiting/);
    assert.match(modelErrorAdvice(undefined, 'HTTP 503: down')!, /internal error/);
    assert.match(modelErrorAdvice(undefined, 'HTTP 400: context length')!, /try \/compact/);
    assert.match(modelErrorAdvice(undefined, 'connect ECONNREFUSED 127.0.0.1:1')!, /running and reachable/);
    assert.match(modelErrorAdvice('Unknown', 'odd')!, /Send the message again/);
    assert.equal(modelErrorAdvice(undefined, 'a plain bug'), undefined);
  });
});
