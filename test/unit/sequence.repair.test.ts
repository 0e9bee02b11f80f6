// The facts a PostCompact repair gives back (sequence/repair.ts), fact by fact: which ones, in which
// order, with which words, and when a summary counts as keeping one. Mutation testing (CONTRIBUTING.md)
// showed hooks.repair.test.ts let most of these change unnoticed; the repair is what the hook answers
// Claude Code and Codex after their own compaction.
import * as assert from 'node:assert/strict';
import { emptyTrail } from '../../src/core/engine/state';
import type { Trail } from '../../src/core/engine/types';
import type { PlanStep } from '../../src/core/signals/plan';
import { contentWords, keeps, repairFor, repairOf, trailFacts, type RepairFact } from '../../src/core/sequence/repair';

const trailOf = (t: Partial<Trail>): Trail => ({ ...emptyTrail(), ...t });
const req = (text: string, k = 0) => ({ turn: k, at: k, text });
const shown = (facts: RepairFact[]) => facts.map((f) => `${f.cls} | ${f.text}`);
const words = (text: string, share: number): RepairFact => ({ cls: 'current_ask', text: 'x', match: { kind: 'words', text, share } });
const exact = (...needles: string[]): RepairFact => ({ cls: 'commits', text: 'x', match: { kind: 'exact', needles } });

describe('the repair facts of a trail', () => {
  it('in order: the current ask, the packet, the last 12 commits once each, the next step, open items, errors, the last command, files edited newest first', () => {
    const commits = ['0000000 c0', ...'123456789'.split('').map((d) => `${d.repeat(7)} c${d}`), '9999999abc c9 again', 'abcdef0123 c10', '? quiet'];
    const edited = Array.from({ length: 41 }, (_, k) => `/r/f${k}.ts`);
    const plan: PlanStep[] = [
      { status: 'completed', text: 'importer' },
      { status: 'pending', text: 'README' },
      { status: 'in_progress', text: 'CLI' },
      { status: 'pending', text: '  ' },
      { status: 'pending', text: 'release' },
    ];
    const t = trailOf({
      userRequests: [req('first ask'), req('second ask'), req('Add  the\nexport button')],
      commits,
      edited,
      errors: [1, 2, 3, 4].map((k) => ({
        id: `e${k}`,
        name: 'Bash',
        input: `npm  test ${k}`,
        output: `Exit code 1\n  warning ${k}  \nTypeError: cannot read ${k}`,
        isError: true,
      })),
      lastCommand: {
        id: 'l',
        name: 'Bash',
        input: 'npm run   build',
        output: 'Exit code 2\nnoise line here\nsrc/a.ts: error TS2322',
        isError: true,
        exitCode: 2,
      },
    });
    const facts = trailFacts(t, plan, { file: '.scratch/agent-x.packet.md', text: 'the packet' });
    assert.deepEqual(shown(facts), [
      'current_ask | Current ask: Add the export button',
      'packet | Your continuation packet is in .scratch/agent-x.packet.md: read it before the next step.',
      ...'123456789'.split('').map((d) => `commits | Commit: ${d.repeat(7)} c${d}`),
      'commits | Commit: abcdef0123 c10',
      'commits | Commit: ? quiet',
      'next_step | Next step: CLI',
      'open_plan_items | Open plan item: README',
      'open_plan_items | Open plan item: release',
      ...[2, 3, 4].map((k) => `tool_errors | Error (Bash: npm test ${k}): TypeError: cannot read ${k}`),
      'last_command | Last command: npm run build (exit 2) → src/a.ts: error TS2322',
      'last_command | Its outcome: src/a.ts: error TS2322',
      ...Array.from({ length: 40 }, (_, k) => `files_edited | Edited: /r/f${40 - k}.ts`),
    ]);
    const match = (cls: string, i = 0) => facts.filter((f) => f.cls === cls)[i]!.match;
    assert.deepEqual(match('current_ask'), { kind: 'words', text: 'Add  the\nexport button', share: 0.7 });
    assert.deepEqual(match('packet'), { kind: 'exact', needles: ['.scratch/agent-x.packet.md'] });
    assert.deepEqual(match('commits', 9), { kind: 'exact', needles: ['abcdef0'] }, 'a commit by its short sha');
    assert.deepEqual(match('commits', 10), { kind: 'exact', needles: ['? quiet'] }, 'a commit without a sha by its text');
    assert.deepEqual(match('next_step'), { kind: 'words', text: 'CLI', share: 0.6 });
    assert.deepEqual(match('open_plan_items'), { kind: 'words', text: 'README', share: 0.7 });
    assert.deepEqual(match('tool_errors'), { kind: 'words', text: 'TypeError: cannot read 2', share: 0.6 });
    assert.deepEqual(match('last_command'), { kind: 'words', text: 'npm run   build', share: 0.7 });
    assert.deepEqual(match('last_command', 1), { kind: 'words', text: 'src/a.ts: error TS2322', share: 0.6 });
    assert.deepEqual(match('files_edited'), { kind: 'exact', needles: ['/r/f40.ts', 'r/f40.ts'] }, 'a path also by its last two segments');
  });

  it("without a plan the next step is the last paragraph of the agent's last message", () => {
    const t = trailOf({ lastAgentMessage: 'Long story.\n\nMore of it.\n  \nNext I will run the tests.\n' });
    assert.deepEqual(shown(trailFacts(t, null)), ['next_step | Your last words: Next I will run the tests.']);
    assert.deepEqual(
      shown(trailFacts(trailOf({ lastAgentMessage: 'Done.\n\nNext I will ship it.\n\n' }), null)),
      ['next_step | Your last words: Next I will ship it.'],
      'blank lines at its end',
    );
    assert.deepEqual(shown(trailFacts(trailOf({ lastAgentMessage: ' \n ' }), null)), [], 'a blank message is no step');
    assert.deepEqual(shown(trailFacts(emptyTrail(), [{ status: 'in_progress', text: '  ' }])), [], 'a blank step is no step');
    assert.deepEqual(shown(trailFacts(trailOf({ userRequests: [req('  \n')] }), null)), [], 'a blank ask is no fact');
    const pending: PlanStep[] = [
      { status: 'completed', text: 'a' },
      { status: 'pending', text: 'b' },
    ];
    assert.deepEqual(shown(trailFacts(t, pending)), ['next_step | Next step: b'], 'the first pending step when none is in progress');
  });

  it("an error's telling line skips exit-code headers; an error with nothing to tell is left out", () => {
    const err = (output: string) => trailFacts(trailOf({ errors: [{ id: 'e', name: 'Bash', input: 'x', output, isError: true }] }), null).map((f) => f.text);
    assert.deepEqual(err('Error: Exit code 12\nProcess exited with code 12\nsomething odd happened\nmore'), ['Error (Bash: x): something odd happened']);
    assert.deepEqual(err('Exit code 1\n\n'), []);
  });

  it("the last command's outcome: its first line of two content words when it succeeded, no exit code when none is known", () => {
    const last = (output: string | undefined) =>
      trailFacts(trailOf({ lastCommand: { id: 'l', name: 'Bash', input: 'npm test', ...(output === undefined ? {} : { output }) } }), null).map((f) => f.text);
    assert.deepEqual(last('ok\n  tests passed  \nall modules compiled fine'), ['Last command: npm test → tests passed', 'Its outcome: tests passed']);
    assert.deepEqual(last(undefined), ['Last command: npm test']);
  });

  it('a long fact is clipped to its length with an ellipsis, a fact of exactly that length is not', () => {
    const ask = (n: number) => trailFacts(trailOf({ userRequests: [req('x'.repeat(n))] }), null)[0]!.text;
    assert.equal(ask(700), `Current ask: ${'x'.repeat(700)}`);
    assert.equal(ask(701), `Current ask: ${'x'.repeat(699)}…`);
  });

  it('repairOf reads the plan of the engine state', () => {
    const r = repairOf('nothing', { trail: emptyTrail(), plan: { steps: [{ status: 'pending', text: 'write the release notes' }], completed: [] } });
    assert.match(r.text, /Next step: write the release notes/);
  });
});

describe('when a summary keeps a fact', () => {
  it('content words: three characters or more, not stop words, paths whole', () => {
    assert.deepEqual(contentWords('Fix src/app.ts: the  A-1 thing, v2!'), ['fix', 'src/app.ts', 'a-1', 'thing']);
    assert.deepEqual(contentWords('!? -'), []);
  });

  it('free text: when its share of content words occur in the summary (counting at most its first 25 words)', () => {
    const ten = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet';
    assert.ok(keeps(words(ten, 0.7), 'alpha bravo charlie delta echo foxtrot golf'), '7 of 10 is 0.7');
    assert.ok(!keeps(words(ten, 0.7), 'alpha bravo charlie delta echo foxtrot'), '6 of 10');
    assert.ok(!keeps(words(ten, 0.7), 'alpha'), '1 of 10');
    const thirty = Array.from({ length: 30 }, (_, k) => `word${k}`);
    assert.ok(keeps(words(thirty.join(' '), 0.7), thirty.slice(0, 18).join(' ')), '18 of the first 25');
    assert.ok(keeps(words('the a of it', 0.7), 'anything'), 'no content words: nothing to lose');
  });

  it('identifiers: by their text, whatever the case and the spacing', () => {
    assert.ok(keeps(exact('? quiet one'), 'Commit ? QUIET\n  one'));
    assert.ok(!keeps(exact('abcdef0'), 'commit abcdef1'));
  });
});

describe('the repair within its budget', () => {
  it('a fact that fits the budget exactly is added, one character more is not; kept facts are counted', () => {
    const summary = 'y'.repeat(1000);
    const head = repairFor(summary, [exact('zzz')]).text.split('\n')[0]!;
    const room = 500 - head.length - 1;
    const fact = (n: number): RepairFact => ({ cls: 'files_edited', text: 'e'.repeat(n - 2), match: { kind: 'exact', needles: ['nowhere'] } });
    const fits = repairFor(summary, [fact(room)]);
    assert.equal(fits.text, `${head}\n- ${'e'.repeat(room - 2)}`);
    assert.equal(fits.text.length, 500);
    assert.equal(repairFor(summary, [fact(room + 1)]).text, '');
    assert.deepEqual(repairFor(`${summary} abcdef0`, [exact('abcdef0'), exact('abcdef1')]).classes, { commits: { facts: 2, kept: 1, added: 1 } });
  });
});
