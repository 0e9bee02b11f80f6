/**
 * The `npm start` demo model (test/support/codingScript.ts on the scripted OpenAI-compatible server),
 * driven over loopback with the real `openai` client the way rawr's provider drives it: each new chat
 * starts the script from its beginning (an abandoned request does not shift the next chat), and a tool
 * result that contradicts the script (a failed test, a Skip, a missing file) stops it with what happened
 * instead of a narrated success.
 */
import * as assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { codingSessionScript, contradictingResult, TEST_COMMAND } from '../support/codingScript';
import { startScriptedModel, type ScriptedModel, type ScriptRequest } from '../support/scriptedModel';

const TOOLS: ChatCompletionTool[] = [
  'rawr_update_plan',
  'rawr_list_files',
  'rawr_read_file',
  'rawr_create_file',
  'rawr_edit_file',
  'rawr_run_in_terminal',
  'rawr_git_status',
].map((name) => ({ type: 'function', function: { name, description: name, parameters: { type: 'object', properties: {} } } }));

const SYSTEM: ChatCompletionMessageParam = { role: 'system', content: 'You are a coding agent.' };
const ASK: ChatCompletionMessageParam = { role: 'user', content: '@rawr Build a token-bucket rate limiter with HTTP middleware, phase by phase.' };

/** What a tool would answer, by name; the test overrides one call's answer. */
type Answer = (name: string, args: Record<string, unknown>) => string;
const allGood: Answer = (name) => {
  switch (name) {
    case 'rawr_run_in_terminal':
      return 'exit code 0\nlimiter tests passed';
    case 'rawr_update_plan':
      return 'Plan recorded.';
    default:
      return 'ok';
  }
};

/** Plays a conversation: model call, answer every tool call, until a reply has no tool calls or `stopAfter` calls. */
async function play(
  client: OpenAI,
  answer: Answer,
  stopAfter = 100,
): Promise<{ messages: ChatCompletionMessageParam[]; texts: string[]; calls: Array<{ name: string; args: Record<string, unknown> }> }> {
  const messages: ChatCompletionMessageParam[] = [SYSTEM, ASK];
  const texts: string[] = [];
  const calls: Array<{ name: string; args: Record<string, unknown> }> = [];
  for (let i = 0; i < stopAfter; i++) {
    const r = await client.chat.completions.create({ model: 'demo', messages, tools: TOOLS });
    const m = r.choices[0]!.message;
    if (m.content) texts.push(m.content);
    messages.push({ role: 'assistant', content: m.content ?? null, ...(m.tool_calls?.length ? { tool_calls: m.tool_calls } : {}) });
    if (!m.tool_calls?.length) break;
    for (const c of m.tool_calls) {
      if (c.type !== 'function') continue;
      const args = JSON.parse(c.function.arguments || '{}') as Record<string, unknown>;
      calls.push({ name: c.function.name, args });
      messages.push({ role: 'tool', tool_call_id: c.id, content: answer(c.function.name, args) });
    }
  }
  return { messages, texts, calls };
}

describe('the npm start demo model (codingScript over HTTP)', () => {
  let server: ScriptedModel;
  let client: OpenAI;
  beforeEach(async () => {
    server = await startScriptedModel(codingSessionScript().script);
    client = new OpenAI({ baseURL: server.url, apiKey: 'demo', maxRetries: 0 });
  });
  afterEach(() => server.close());

  it('plays the whole session to "All done" when every tool does what the script expects', async () => {
    const { texts, calls } = await play(client, allGood);
    assert.match(texts.at(-1)!, /^All done: both phases are committed/);
    assert.equal(calls.filter((c) => c.name === 'rawr_run_in_terminal' && String(c.args.command).startsWith('git add -A && git commit')).length, 2);
  });

  it('each new chat starts from the beginning, even after a request abandoned half-way', async () => {
    // A first chat stopped after 4 model calls (the window closed on a confirmation).
    const abandoned = await play(client, allGood, 4);
    assert.equal(abandoned.calls.at(-1)?.name, 'rawr_create_file');
    // The next chat starts with the plan, then lists the workspace — not with "Running the test".
    const next = await play(client, allGood);
    assert.equal(next.calls[0]?.name, 'rawr_update_plan');
    assert.equal(next.calls[1]?.name, 'rawr_list_files');
    assert.match(next.texts.at(-1)!, /^All done/);
  });

  it('a failed test is reported and the script stops: it never says "Tests pass" or commits after it', async () => {
    const failing: Answer = (name, args) =>
      name === 'rawr_run_in_terminal' && args.command === TEST_COMMAND
        ? "exit code 1\nnode:internal/modules/cjs/loader:1228\n  throw err;\nError: Cannot find module '../src/limiter'"
        : allGood(name, args);
    const { texts, calls } = await play(client, failing);
    const last = texts.at(-1)!;
    assert.match(last, /^I stop here: the command failed \(exit code 1\)/);
    assert.match(last, /Cannot find module/);
    assert.ok(!texts.some((t) => /Tests pass/.test(t)), `no success narrated: ${texts.join(' | ')}`);
    assert.ok(!calls.some((c) => String(c.args.command ?? '').includes('git commit')), 'nothing committed after the failure');
  });

  it('a missing file (a tool error) and a needed step skipped stop the script too; the expected Skip does not', async () => {
    const missing: Answer = (name, args) => (name === 'rawr_create_file' ? 'Error: src does not exist.' : allGood(name, args));
    const a = await play(client, missing);
    assert.match(a.texts.at(-1)!, /^I stop here: a tool failed: Error: src does not exist\./);

    const declined = 'The user declined this tool call (they chose Skip in the confirmation). It did not run.';
    const skipsCommit: Answer = (name, args) => (String(args.command ?? '').includes('git commit') ? declined : allGood(name, args));
    const b = await play(client, skipsCommit);
    assert.match(b.texts.at(-1)!, /^I stop here: you skipped a step the session needs/);

    const skipsClean: Answer = (name, args) => (String(args.command ?? '').startsWith('git clean') ? declined : allGood(name, args));
    const c = await play(client, skipsClean);
    assert.ok(c.texts.some((t) => /You skipped `git clean -fdX`: fine/.test(t)));
    assert.match(c.texts.at(-1)!, /^All done/);
  });

  it('contradictingResult reads only the trailing tool results', () => {
    const req = (content: string): ScriptRequest => ({
      body: {},
      headers: {},
      index: 0,
      model: 'demo',
      stream: false,
      tools: [],
      messages: [
        { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'x', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'a', content },
      ],
    });
    assert.equal(contradictingResult(req('exit code 0\nok'), 3), undefined);
    assert.equal(contradictingResult(req('# notes: a request the limiter declined gets 429'), 2), undefined);
    assert.ok(contradictingResult(req('exit code 2\nboom'), 3));
  });
});
