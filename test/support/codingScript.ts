/**
 * A scripted coding session through rawr's real tools (the `npm start` demo and the real-VS-Code e2e,
 * test/vscode/suite/e2e.coding.test.js): the agent plans two phases, lists and reads the workspace
 * (including a long notes file, which grows the context the way real reading does — in the thread, not on
 * the screen), creates src/limiter.js and its test, runs the test in rawr's terminal, commits; after the
 * commit rawr compacts (heads-up names the commit), then the agent edits both files, runs the test again,
 * proposes a `git clean` the person may Skip (the agent is told and goes on), commits phase 2 and is done.
 *
 * The work rule is a fixed sequence of actions (stateful: one action per model call that is not one of
 * rawr's own requests); rawr's own requests (judgment, summary, scratch, packet, heads-up) are answered by
 * multiPhaseScript's rules, which read the plan from the rawr_update_plan calls.
 */
import {
  lastMessageIsUser,
  lastMessage,
  multiPhaseScript,
  textOf,
  trailingToolResults,
  type Script,
  type ScriptReply,
  type ScriptRequest,
  type PlanItem,
} from './scriptedModel';

export const CODING_STEPS = ['Token bucket in src/limiter.js, with a test', 'HTTP middleware that answers 429, with a test'];

export const LIMITER_V1 = [
  "'use strict';",
  '// A token bucket: `capacity` tokens, refilled at `refillPerSecond`. Time is passed in, so tests are deterministic.',
  'class TokenBucket {',
  '  constructor(capacity, refillPerSecond, now) {',
  '    this.capacity = capacity;',
  '    this.refillPerSecond = refillPerSecond;',
  '    this.tokens = capacity;',
  '    this.last = now;',
  '  }',
  '  take(now) {',
  '    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) / 1000) * this.refillPerSecond);',
  '    this.last = now;',
  '    if (this.tokens < 1) return false;',
  '    this.tokens -= 1;',
  '    return true;',
  '  }',
  '}',
  'module.exports = { TokenBucket };',
  '',
].join('\n');

export const TEST_V1 = [
  "'use strict';",
  "const assert = require('node:assert');",
  "const { TokenBucket } = require('../src/limiter');",
  'const b = new TokenBucket(2, 1, 0);',
  'assert.strictEqual(b.take(0), true);',
  'assert.strictEqual(b.take(0), true);',
  "assert.strictEqual(b.take(0), false, 'empty after a burst of 2');",
  "assert.strictEqual(b.take(1000), true, 'one token back after 1 s');",
  "console.log('limiter tests passed');",
  '',
].join('\n');

const MIDDLEWARE_OLD = 'module.exports = { TokenBucket };';
const MIDDLEWARE_NEW = [
  '/** Middleware: next() while the bucket has a token, else 429 Too Many Requests. */',
  'function limit(bucket, clock = Date.now) {',
  '  return (req, res, next) => {',
  '    if (bucket.take(clock())) return next();',
  '    res.statusCode = 429;',
  "    res.end('Too Many Requests');",
  '  };',
  '}',
  'module.exports = { TokenBucket, limit };',
].join('\n');
const TEST_OLD = "console.log('limiter tests passed');";
const TEST_NEW = [
  "const { limit } = require('../src/limiter');",
  'const res = { statusCode: 200, end() {} };',
  'let passed = 0;',
  'const mw = limit(new TokenBucket(1, 0, 0), () => 0);',
  'mw({}, res, () => passed++);',
  'mw({}, res, () => passed++);',
  'assert.strictEqual(passed, 1);',
  'assert.strictEqual(res.statusCode, 429);',
  "console.log('limiter tests passed');",
].join('\n');

/** The files the session leaves behind (for assertions). */
export const LIMITER_FINAL = LIMITER_V1.replace(MIDDLEWARE_OLD, MIDDLEWARE_NEW);
export const TEST_FINAL = TEST_V1.replace(TEST_OLD, TEST_NEW);
export const COMMIT_MESSAGES = ['Add a token-bucket rate limiter with a test', 'Add rate-limit middleware that answers 429'];
export const TEST_COMMAND = 'node test/limiter.test.js';
/** The command the e2e declines (Skip): the agent is told and goes on without it. */
export const SKIPPABLE_COMMAND = 'git clean -fdX';
export const NOTES_FILE = 'docs/rate-limiting-notes.md';
/** A sentence of the notes file: reaches the model when read, never rendered in the chat. */
export const NOTES_MARKER = 'Leaky buckets smooth bursts; token buckets allow them up to the capacity.';

/** A long design-notes file for the workspace (the agent reads it; ~`chars` characters). */
export function notesFile(chars = 20000): string {
  const para = `${NOTES_MARKER} Refill is computed lazily on each request from the elapsed time, so no timer runs. Health checks bypass the limiter. `;
  const body: string[] = ['# Rate limiting notes', ''];
  for (let i = 1; body.join('\n').length < chars; i++) body.push(`## Note ${i}`, '', para.repeat(3), '');
  return body.join('\n');
}

export interface CodingSessionLog {
  /** The text of the user's prompt as the model first saw it (attachments included). */
  prompt?: string;
  /** Tool results the model got after a call the person skipped. */
  declined: string[];
  /** Every tool result the model saw, by tool name (last wins). */
  results: Record<string, string>;
  /** How many work actions have been played in the current conversation. */
  played: number;
  /** Why the script stopped: a tool result that contradicted it (undefined while it goes on). */
  stopped?: string;
}

/** The action whose call the person may Skip without the session going wrong (index in the actions). */
const SKIPPABLE_ACTION = 5;

/**
 * The first request of a chat: the user's message and nothing the model or rawr added — no assistant
 * message, no summary, no handoff (a compacted thread starts with rawr's summary or handoff, not fresh).
 */
export function isFreshConversation(r: ScriptRequest): boolean {
  return !r.messages.some((m) => m.role === 'assistant' || m.role === 'tool' || /\[rawr handoff\]|^\[rawr\] (Summary|The last)/.test(textOf(m)));
}

/**
 * What in the results of the last action's calls says the script went off its track: an error, a
 * non-zero exit code, or a call the person skipped (but the one the session expects may be skipped).
 * Undefined when every result is what the script assumed.
 */
export function contradictingResult(r: ScriptRequest, action: number): string | undefined {
  for (const m of trailingToolResults(r)) {
    const text = textOf(m).trim();
    const firstLine = text.split('\n')[0]!.slice(0, 200);
    const exit = /^exit code (\d+|unknown)/.exec(text)?.[1];
    if (/^The user declined this tool call/.test(text)) {
      if (action !== SKIPPABLE_ACTION) return `you skipped a step the session needs (${firstLine})`;
    } else if (/^Error:/.test(text)) return `a tool failed: ${firstLine}`;
    else if (exit !== undefined && exit !== '0') return `the command failed (${firstLine}): ${text.split('\n').slice(1, 6).join(' ').slice(0, 300)}`;
  }
  return undefined;
}

function stopText(why: string): string {
  return [
    `I stop here: ${why}.`,
    '',
    'This is the offline demo model (scripted, not a real LLM): it plays one fixed session and cannot adapt to this, so it will not',
    'claim the step worked. Start a new chat (the + in the Chat view) to replay the demo from the beginning.',
  ].join('\n');
}

const plan = (done: number, inProgress: boolean): PlanItem[] =>
  CODING_STEPS.map((text, i) => ({ text, status: i < done ? 'completed' : i === done && inProgress ? 'in_progress' : 'pending' }));
const planCall = (done: number, inProgress: boolean, explanation: string) => ({
  name: 'rawr_update_plan',
  arguments: { steps: plan(done, inProgress), explanation },
});
const call = (name: string, args: object) => ({ name, arguments: args });

/**
 * @param opts.afterHandoff awaited before the first answer after rawr's handoff (a test photographs the
 *   compaction while the chat holds still there).
 */
export function codingSessionScript(opts: { notesPath?: string; afterHandoff?: () => Promise<void> } = {}): { script: Script; log: CodingSessionLog } {
  const log: CodingSessionLog = { declined: [], results: {}, played: 0 };
  const notes = opts.notesPath ?? NOTES_FILE;
  const wasDeclined = (r: ScriptRequest) => trailingToolResults(r).some((m) => /declined|skip/i.test(textOf(m)));
  const actions: Array<(r: ScriptRequest) => ScriptReply> = [
    (r) => {
      log.prompt = lastMessageIsUser(r) ? textOf(lastMessage(r)) : undefined;
      return { text: `I'll build this in ${CODING_STEPS.length} phases, committing after each.`, toolCalls: [planCall(0, true, 'starting phase 1')] };
    },
    () => ({ text: 'First, what is in the workspace.', toolCalls: [call('rawr_list_files', { glob: '**/*' })] }),
    () => ({ toolCalls: [call('rawr_read_file', { path: notes })] }),
    () => ({
      text: 'The notes ask for lazy refill and injected time. Writing the limiter.',
      toolCalls: [call('rawr_create_file', { path: 'src/limiter.js', content: LIMITER_V1 })],
    }),
    () => ({ toolCalls: [call('rawr_create_file', { path: 'test/limiter.test.js', content: TEST_V1 })] }),
    () => ({
      text: 'Removing ignored build files before the first test run.',
      toolCalls: [call('rawr_run_in_terminal', { command: SKIPPABLE_COMMAND, timeoutSeconds: 30 })],
    }),
    (r) => {
      const skipped = wasDeclined(r);
      if (skipped) log.declined.push(textOf(trailingToolResults(r)[0]));
      return {
        text: skipped ? `You skipped \`${SKIPPABLE_COMMAND}\`: fine, nothing depends on it. Running the test.` : 'Cleaned. Running the test.',
        toolCalls: [call('rawr_run_in_terminal', { command: TEST_COMMAND, timeoutSeconds: 60 })],
      };
    },
    () => ({ toolCalls: [call('rawr_git_status', {})] }),
    () => ({
      text: 'Tests pass. Committing phase 1.',
      toolCalls: [call('rawr_run_in_terminal', { command: `git add -A && git commit -m "${COMMIT_MESSAGES[0]}"`, timeoutSeconds: 60 })],
    }),
    () => ({
      text: 'Phase 1 is done: the token bucket and its test are committed. Next phase: the middleware.',
      toolCalls: [planCall(1, true, 'phase 1 done; starting phase 2')],
    }),
    () => ({ toolCalls: [call('rawr_read_file', { path: 'src/limiter.js' })] }),
    () => ({ toolCalls: [call('rawr_edit_file', { path: 'src/limiter.js', old_string: MIDDLEWARE_OLD, new_string: MIDDLEWARE_NEW })] }),
    () => ({ toolCalls: [call('rawr_edit_file', { path: 'test/limiter.test.js', old_string: TEST_OLD, new_string: TEST_NEW })] }),
    () => ({ toolCalls: [call('rawr_run_in_terminal', { command: TEST_COMMAND, timeoutSeconds: 60 })] }),
    () => ({
      text: 'Tests pass. Committing phase 2.',
      toolCalls: [call('rawr_run_in_terminal', { command: `git add -A && git commit -m "${COMMIT_MESSAGES[1]}"`, timeoutSeconds: 60 })],
    }),
    () => ({ text: 'Phase 2 is done: the middleware and its test are committed.', toolCalls: [planCall(2, false, 'phase 2 done')] }),
    () => ({ text: `All done: both phases are committed (${COMMIT_MESSAGES.join('; ')}). All tests pass.` }),
  ];

  const base = multiPhaseScript({ steps: CODING_STEPS, judgment: () => ({ should_compact: true, reason: 'phase boundary: phase 1 is committed' }) });
  const rules = base.rules.map((rule) =>
    rule.name !== 'work'
      ? rule
      : {
          name: 'work',
          when: () => true,
          reply: async (r: ScriptRequest): Promise<ScriptReply> => {
            if (opts.afterHandoff && lastMessageIsUser(r) && textOf(lastMessage(r)).startsWith('[rawr handoff]')) await opts.afterHandoff();
            for (const m of trailingToolResults(r)) {
              const id = m.tool_call_id;
              const asked = r.messages.flatMap((x) => x.tool_calls ?? []).find((c) => c.id === id);
              if (asked) log.results[asked.function.name] = textOf(m);
            }
            // Each new chat replays the session from its first action: the position belongs to the
            // conversation, so a request abandoned half-way (a window closed on a confirmation) cannot
            // start the next chat in the middle of the script.
            if (isFreshConversation(r)) {
              log.played = 0;
              log.stopped = undefined;
            }
            // The script never narrates past a result that contradicts it (a failed test, a Skip, a
            // missing file): it says what happened and stops.
            const contradiction = log.played > 0 ? contradictingResult(r, log.played - 1) : undefined;
            if (contradiction) {
              log.stopped = contradiction;
              return { text: stopText(contradiction) };
            }
            const next = actions[log.played];
            if (!next) return { text: 'All done.' };
            log.played++;
            return next(r);
          },
        },
  );
  return { script: { rules, fallback: base.fallback }, log };
}
