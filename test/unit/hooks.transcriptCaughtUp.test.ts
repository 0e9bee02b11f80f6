/**
 * Whether Claude Code's transcript has caught up with the request it is preparing
 * (src/core/hooks/claude/transcriptCaughtUp.ts): the newest record decides, read from the file's end.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { awaitsToolResult, holdsToolCall, pollUntil } from '../../src/core/hooks/claude/transcriptCaughtUp';

const assistant = (content: unknown[]) => JSON.stringify({ type: 'assistant', message: { role: 'assistant', content } });
const result = JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] } });

describe('the steering hook: has the transcript caught up?', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-caughtup-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = (text: string) => {
    const f = path.join(dir, 't.jsonl');
    fs.writeFileSync(f, text);
    return f;
  };

  it('behind: the newest record is a response with a tool call, or a record is half written', async () => {
    const call = assistant([
      { type: 'text', text: 'x' },
      { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } },
    ]);
    assert.equal(await awaitsToolResult(file(`${call}\n`)), true);
    assert.equal(await awaitsToolResult(file(`${call}\n${result.slice(0, 20)}`)), true);
  });

  it('caught up: a tool result, a text-only response, a prompt, an empty file', async () => {
    const call = assistant([{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }]);
    assert.equal(await awaitsToolResult(file(`${call}\n${result}\n`)), false);
    assert.equal(await awaitsToolResult(file(`${assistant([{ type: 'text', text: 'done' }])}\n`)), false);
    assert.equal(await awaitsToolResult(file(`${JSON.stringify({ type: 'user', message: { role: 'user', content: 'go' } })}\n`)), false);
    assert.equal(await awaitsToolResult(file('')), false);
    assert.equal(await awaitsToolResult(file('not json\n')), false);
  });

  it('a response with a large tool input (past the first 64 KB read) is still recognised; one past 1 MB is not waited on', async () => {
    const big = assistant([{ type: 'tool_use', id: 't1', name: 'Write', input: { file_path: 'a.ts', content: 'x'.repeat(300_000) } }]);
    assert.equal(await awaitsToolResult(file(`${result}\n${big}\n`)), true);
    const huge = assistant([{ type: 'tool_use', id: 't1', name: 'Write', input: { file_path: 'a.ts', content: 'x'.repeat(1_200_000) } }]);
    assert.equal(await awaitsToolResult(file(`${result}\n${huge}\n`)), false);
  });

  it("the PostToolUse hook's call: held once the response that made it is written, whatever follows it", async () => {
    const call = assistant([
      { type: 'text', text: 'x' },
      { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'git commit -m x' } },
    ]);
    const prompt = JSON.stringify({ type: 'user', message: { role: 'user', content: 'go' } });
    assert.equal(await holdsToolCall(file(`${prompt}\n`), 't1'), false, 'not written yet');
    assert.equal(await holdsToolCall(file(`${prompt}\n${call.slice(0, 40)}`), 't1'), false, 'half written');
    assert.equal(await holdsToolCall(file(`${call}\n`), 't1'), true);
    assert.equal(await holdsToolCall(file(`${call}\n`), 't2'), false, 'another call');
    assert.equal(await holdsToolCall(file(`${result}\n`), 't1'), false, 'a result names the call, it does not make it');
    // Its line holds the string "t1" (an input's value), so only the check of the call's own id tells them apart.
    const mentions = assistant([{ type: 'tool_use', id: 't3', name: 'Bash', input: { command: 'echo', after: 't1' } }]);
    assert.equal(await holdsToolCall(file(`${mentions}\n`), 't1'), false, 'a response that names the id but makes another call');
    // Parallel calls: a response with a large input written after it (past the first 64 KB read).
    const big = assistant([{ type: 'tool_use', id: 't2', name: 'Write', input: { file_path: 'a.ts', content: 'x'.repeat(300_000) } }]);
    assert.equal(await holdsToolCall(file(`${call}\n${big}\n`), 't1'), true);
  });

  it('the poll that outlasts the wait is checked too: what was written while it slept is seen', async () => {
    // `done` turns true only once the wait is over: the wait's own clock decides, no timing is asserted.
    const start = Date.now();
    const seen: boolean[] = [];
    await pollUntil(async () => {
      seen.push(Date.now() - start >= 60);
      return seen.at(-1)!;
    }, 60);
    assert.equal(seen.at(-1), true, `the last check came after the wait: ${seen.length} checks`);
    let checks = 0;
    await pollUntil(async () => {
      checks++;
      return false;
    }, 0);
    assert.equal(checks, 1, 'no time left: still looked once');
  });
});
