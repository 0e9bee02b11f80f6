// The watcher packet line by line: what rawr sends a continuing agent when the agent wrote no packet
// (golden path fallback, overflow recovery, `rawr handoff`). Mutation testing (CONTRIBUTING.md) showed
// the broader packet test in handoff.test.ts let most of these lines change unnoticed.
import * as assert from 'node:assert/strict';
import { emptyTrail } from '../../src/core/engine/state';
import type { Trail } from '../../src/core/engine/types';
import type { PlanState, PlanStep } from '../../src/core/signals/plan';
import { assembleWatcherPacketText, headTail, statedIntent, telling } from '../../src/core/sequence/watcherPacket';

const trailOf = (t: Partial<Trail>): Trail => ({ ...emptyTrail(), ...t });
const planOf = (...steps: Array<[PlanStep['status'], string]>): PlanState => ({
  steps: steps.map(([status, text]) => ({ status, text })),
  completed: steps.filter(([s]) => s === 'completed').map(([, t]) => t),
});
const lines = (t: Trail, plan: PlanState | null = null, tailCount = 6) => assembleWatcherPacketText(t, plan, { tailCount }).split('\n');
/** The packet's line that starts with `prefix` (exactly one). */
function lineOf(t: Trail, plan: PlanState | null, prefix: string, tailCount = 6): string | undefined {
  const found = lines(t, plan, tailCount).filter((l) => l.startsWith(prefix));
  assert.ok(found.length <= 1, `more than one line starts with ${prefix}`);
  return found[0];
}
const NOTHING = '- Nothing committed, completed or edited yet that the trail shows.';

describe('the watcher packet, line by line', () => {
  it('an empty trail: the four sections, the current ask unknown, nothing done, a next step that says to check first', () => {
    assert.equal(
      assembleWatcherPacketText(emptyTrail(), null, { tailCount: 6 }),
      [
        '_Continuation packet assembled by the rawr watcher from the session trail, not written by the agent._',
        '',
        '## What just completed',
        NOTHING,
        '',
        '## Where we are now',
        "- **Current ask** (the person's latest request, verbatim):",
        '(no request recorded)',
        '',
        "## What's next",
        '- Next step: continue the current ask; check the last command and your last message before repeating anything.',
        '',
        '## Decisions, invariants and traps',
        '- Do not redo work the commits, completed steps and edited files above show as done; check `git status` / `git log` first.',
      ].join('\n'),
    );
  });

  it('commits once each by their short sha; a "? subject" without a sha twin is kept as (sha not seen)', () => {
    const t = trailOf({
      commits: ['73a1097abcdef step 1', '73a1097 step 1 again', '? step 1', '? merge cafe1234567 into main', 'b9288c2  step 3', 'c0ffee1', '?  step 4'],
    });
    assert.equal(
      lineOf(t, null, '- Commits'),
      '- Commits, oldest first: `73a1097` step 1; `b9288c2` step 3; `c0ffee1`; (sha not seen) merge cafe1234567 into main; (sha not seen) step 4',
    );
  });

  it('"nothing done yet" only when there is no commit, no completed step and no edited file', () => {
    assert.ok(lines(emptyTrail()).includes(NOTHING));
    assert.ok(!lines(trailOf({ commits: ['73a1097 x'] })).includes(NOTHING), 'a commit');
    assert.ok(!lines(trailOf({ edited: ['/r/a.ts'] })).includes(NOTHING), 'an edited file');
    assert.ok(!lines(emptyTrail(), planOf(['completed', 'importer'])).includes(NOTHING), 'a completed step');
    assert.ok(lines(emptyTrail(), planOf(['pending', 'importer'])).includes(NOTHING), 'an open step is not done');
  });

  it('completed steps, files edited, and the last 8 files only read', () => {
    const files = [...Array.from({ length: 10 }, (_, k) => `/r/f${k + 1}`), '/r/src/a.ts'];
    const t = trailOf({ edited: ['/r/src/a.ts', '/r/src/b.ts'], files });
    const plan = planOf(['completed', 'importer\n  with   spaces'], ['completed', ' parser '], ['pending', 'README'], ['completed', 'x'.repeat(230)]);
    assert.equal(lineOf(t, plan, '- Plan steps completed:'), `- Plan steps completed: importer with spaces; parser; ${'x'.repeat(200)}… [30 more characters]`);
    assert.equal(lineOf(t, plan, '- Files edited'), '- Files edited (2, most recent last): /r/src/a.ts, /r/src/b.ts');
    assert.equal(
      lineOf(t, plan, '- Files also read'),
      `- Files also read: ${['/r/f3', '/r/f4', '/r/f5', '/r/f6', '/r/f7', '/r/f8', '/r/f9', '/r/f10'].join(', ')}`,
    );
    assert.equal(lineOf(emptyTrail(), planOf(['pending', 'README']), '- Plan steps completed'), undefined);
    assert.equal(lineOf(trailOf({ files: ['/r/a.ts'], edited: ['/r/a.ts'] }), null, '- Files also read'), undefined, 'an edited file is not also "read"');
  });

  it('the current ask verbatim in a fence it cannot close; the 6 requests before it numbered, with how many older were left out', () => {
    const reqs = ['one', 'two', 'three', 'four', 'five', 'six', 'seven  \n lines'].map((text, k) => ({ turn: k, at: k, text }));
    const t = trailOf({ userRequests: [...reqs, { turn: 9, at: 9, text: '  Ship it:\n```js\nx\n```\n  ' }] });
    const p = assembleWatcherPacketText(t, null, { tailCount: 6 });
    assert.ok(p.includes('verbatim):\n````\nShip it:\n```js\nx\n```\n````\n'), p);
    assert.equal(
      lineOf(t, null, '- Earlier requests'),
      '- Earlier requests, oldest first (1 older omitted): (1) two (2) three (3) four (4) five (5) six (6) seven lines',
    );
    const few = trailOf({ userRequests: reqs.slice(0, 3) });
    assert.equal(lineOf(few, null, '- Earlier requests'), '- Earlier requests, oldest first: (1) one (2) two');
    assert.equal(lineOf(trailOf({ userRequests: reqs.slice(0, 1) }), null, '- Earlier requests'), undefined, 'one request has no earlier ones');
  });

  it('the plan with its marks', () => {
    const plan = planOf(['completed', 'importer'], ['in_progress', 'CLI'], ['pending', 'README']);
    assert.equal(lineOf(emptyTrail(), plan, '- Plan:'), '- Plan: [x] importer · [~] CLI · [ ] README');
    assert.equal(lineOf(emptyTrail(), null, '- Plan:'), undefined);
  });

  it('the last command with its outcome, and the head and tail of its output', () => {
    const cmd = (o: Partial<NonNullable<Trail['lastCommand']>>) =>
      lineOf(trailOf({ lastCommand: { id: 'c', name: 'Bash', input: 'npm   test', ...o } }), null, '- Last command');
    assert.equal(cmd({}), '- Last command (no result yet): `npm test`');
    assert.equal(cmd({ output: 'ok', exitCode: 0 }), '- Last command (exit 0): `npm test`');
    assert.equal(cmd({ output: 'x', exitCode: 0, isError: true }), '- Last command (FAILED, exit 0): `npm test`');
    assert.equal(cmd({ output: 'x', exitCode: 2 }), '- Last command (FAILED, exit 2): `npm test`');
    assert.equal(cmd({ output: 'x', isError: true }), '- Last command (FAILED): `npm test`');
    assert.equal(cmd({ output: 'x' }), '- Last command (ok): `npm test`');
    const output = Array.from({ length: 20 }, (_, k) => `out ${k + 1}`).join('\n');
    const p = assembleWatcherPacketText(trailOf({ lastCommand: { id: 'c', name: 'Bash', input: 'make', output, exitCode: 0 } }), null, { tailCount: 0 });
    assert.ok(p.includes('`\n```\nout 1\nout 2\nout 3\nout 4\nout 5\nout 6\n… [8 lines omitted]\nout 15\n'), p);
    const blank = assembleWatcherPacketText(trailOf({ lastCommand: { id: 'c', name: 'Bash', input: 'make', output: ' \n ', exitCode: 0 } }), null, {
      tailCount: 0,
    });
    assert.ok(!blank.includes('```'), 'a blank output gets no empty fence');
  });

  it('the latest 3 tool errors by what names the failure, and the trap not to repeat them', () => {
    const err = (k: number) => ({ id: `e${k}`, name: 'Bash', input: `cmd  ${k}`, output: `Exit code 1\nrunning\nError: broke ${k}`, isError: true });
    const ls = lines(trailOf({ errors: [1, 2, 3, 4].map(err) }));
    const at = ls.indexOf('- Latest tool errors, newest last:');
    assert.ok(at > 0);
    assert.deepEqual(
      ls.slice(at + 1, at + 4),
      [2, 3, 4].map((k) => `  - Bash \`cmd ${k}\` → running | Error: broke ${k}`),
    );
    assert.ok(ls.includes('- The errors above are the latest failures: do not repeat a failed command unchanged.'));
    assert.ok(!lines(emptyTrail()).some((l) => l.startsWith('- The errors above')));
  });

  it("the agent's last message on one line, both of its ends kept when long; none when blank", () => {
    assert.equal(lineOf(trailOf({ lastAgentMessage: 'Tests\n  pass. ' }), null, '- Your last message'), '- Your last message: Tests pass.');
    assert.equal(lineOf(trailOf({ lastAgentMessage: 'a'.repeat(900) }), null, '- Your last message'), `- Your last message: ${'a'.repeat(900)}`);
    assert.equal(
      lineOf(trailOf({ lastAgentMessage: `${'a'.repeat(500)}${'b'.repeat(500)}` }), null, '- Your last message'),
      `- Your last message: ${'a'.repeat(360)} … [100 characters omitted] … ${'a'.repeat(40)}${'b'.repeat(500)}`,
    );
    assert.equal(lineOf(trailOf({ lastAgentMessage: ' \n ' }), null, '- Your last message'), undefined);
  });

  it('the next step: the step in progress, else the first open step, else the current ask; the open items after it', () => {
    const open = planOf(['pending', 'README'], ['in_progress', 'CLI'], ['completed', 'importer'], ['pending', 'release']);
    assert.equal(lineOf(emptyTrail(), open, '- Next step'), '- Next step: finish the step in progress: CLI');
    assert.equal(lineOf(emptyTrail(), open, '- Open plan items'), '- Open plan items after it: README; release');
    const pending = planOf(['completed', 'importer'], ['pending', 'README'], ['pending', 'release']);
    assert.equal(lineOf(emptyTrail(), pending, '- Next step'), '- Next step: README');
    assert.equal(lineOf(emptyTrail(), pending, '- Open plan items'), '- Open plan items after it: release');
    assert.equal(lineOf(emptyTrail(), planOf(['pending', 'README']), '- Open plan items'), undefined);
    const many = planOf(...Array.from({ length: 14 }, (_, k): ['pending', string] => ['pending', `s${k + 1}`]));
    assert.equal(
      lineOf(emptyTrail(), many, '- Open plan items'),
      `- Open plan items after it: ${Array.from({ length: 12 }, (_, k) => `s${k + 2}`).join('; ')}`,
    );
    const said = trailOf({ lastAgentMessage: 'Tests pass. Next I will update the README.' });
    assert.equal(lineOf(said, planOf(['completed', 'x']), '- Next step'), '- Next step: continue the current ask.');
    assert.equal(lineOf(said, null, '- You had said'), '- You had said: "Next I will update the README."');
  });

  it('the recent tool calls: the last tailCount of them with their result, error or none; no section at 0', () => {
    const toolTail = [
      { id: '1', name: 'Read', input: '/r/old.ts', output: 'old' },
      { id: '2', name: 'Read', input: '/r/a.ts', output: 'line one\nline two' },
      { id: '3', name: 'Bash', input: 'false', output: 'boom', isError: true },
      { id: '4', name: 'Bash', input: 'sleep  9' },
    ];
    const ls = lines(trailOf({ toolTail }), null, 3);
    const at = ls.indexOf('## Recent tool calls (last 3, oldest first)');
    assert.ok(at > 0, ls.join('\n'));
    assert.equal(ls[at - 1], '', 'a section of its own');
    assert.deepEqual(ls.slice(at + 1), ['- Read `/r/a.ts` → result: line one line two', '- Bash `false` → error: boom', '- Bash `sleep 9` → (no result)']);
    assert.ok(!lines(trailOf({ toolTail }), null, 0).some((l) => l.startsWith('## Recent tool calls')));
  });
});

describe('the watcher packet helpers', () => {
  it('headTail keeps the head and tail lines and says how many were left out, then caps the characters', () => {
    assert.equal(headTail('l1\nl2\nl3\nl4\nl5\n\n  ', 2, 2, 1000), 'l1\nl2\nl3\nl4\nl5');
    assert.equal(headTail('l1\nl2\nl3\nl4\nl5\nl6', 2, 2, 1000), 'l1\nl2\n… [2 lines omitted]\nl5\nl6');
    assert.equal(headTail('l1\nl2\nl3\nl4\nl5\nl6\nl7', 1, 3, 1000), 'l1\n… [3 lines omitted]\nl5\nl6\nl7');
    assert.equal(headTail(`${'x'.repeat(100)}${'y'.repeat(100)}`, 6, 6, 100), `${'x'.repeat(60)}\n… [100 characters omitted] …\n${'y'.repeat(40)}`);
    assert.equal(headTail('z'.repeat(100), 6, 6, 100), 'z'.repeat(100));
  });

  it('telling drops exit-code headers and keeps the first line and up to 3 lines that name a failure, each at most 200 characters', () => {
    assert.equal(
      telling('Exit code 127\n  first line  \nok\nerror one\nerror one\nerror two\nerror three\nerror four'),
      'first line | error one | error two | error three',
    );
    assert.equal(telling(`${'e'.repeat(200)}\nerror ${'x'.repeat(250)}`), `${'e'.repeat(200)} | error ${'x'.repeat(194)}…`);
    assert.equal(telling('Process exited with code 1\nError: Exit code 2\nfatal: bad'), 'fatal: bad');
  });

  it('statedIntent: the last sentence about what comes next, not a fragment of 8 characters or fewer', () => {
    assert.equal(statedIntent("Then I'll finish it. I'll go."), "Then I'll finish it.");
    assert.equal(statedIntent('Next I will fix the parser. Done here.'), 'Next I will fix the parser.');
    assert.equal(statedIntent('   Then we ship the docs'), 'Then we ship the docs');
    assert.equal(statedIntent('Ill finish the docs.'), 'Ill finish the docs.');
  });
});
