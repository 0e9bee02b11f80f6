// The judgment call's outcome (arbiter/judgment.ts): which answers count, what the fallback decides when
// there is none, and what the judgment is told. Mutation testing (CONTRIBUTING.md) found 28% of its
// mutants noticed by the arbiter's tests: the outcome of a judgment could change unseen.
import * as assert from 'node:assert/strict';
import { emptyTrail } from '../../src/core/engine/state';
import type { DecisionBoundary, DecisionForecast } from '../../src/core/engine/types';
import type { Prompts } from '../../src/core/prompts/promptSet';
import { buildJudgmentPrompt, fallbackJudgment, parseJudgment } from '../../src/core/arbiter/judgment';
import { decisionOf, shipped } from '../support/engine';

const boundary = (id: string, kind: DecisionBoundary['kind']): DecisionBoundary => ({ id, kind, strength: 'strong', source: 'git', detail: `${kind} ${id}` });
const decision = decisionOf;
const forecast = (f: Partial<DecisionForecast>): DecisionForecast => ({
  nextPhaseTokens: 96_400,
  roomTokens: 61_200,
  basis: 'thread',
  phases: 3,
  planFinished: false,
  verdict: 'compact',
  drove: true,
  ...f,
});

describe('the judgment: its answer', () => {
  const good = '{"should_compact":true,"reason":"phase closed"}';
  it('strict JSON, in a code fence or not', () => {
    for (const text of [good, `  ${good}\n`, `\`\`\`json\n${good}\n\`\`\``, `\`\`\`\n${good}\n\`\`\``, `\`\`\`JSON ${good} \`\`\``])
      assert.deepEqual(parseJudgment(text), { ok: true, value: { should_compact: true, reason: 'phase closed' } }, text);
    const tight = '{"should_compact":true,"reason":"done"}';
    for (const text of [`\`\`\`json${tight}\`\`\``, `  \`\`\`json\n${tight}\n\`\`\`  `])
      assert.deepEqual(parseJudgment(text), { ok: true, value: { should_compact: true, reason: 'done' } }, text);
  });

  it('only a fence around the whole answer: text before or after it is not JSON', () => {
    for (const text of [`Sure: \`\`\`json\n${good}\n\`\`\``, `\`\`\`json\n${good}\n\`\`\` hope this helps`]) assert.equal(parseJudgment(text).ok, false, text);
  });

  it('refuses anything else, saying what is wrong', () => {
    assert.deepEqual(parseJudgment('Yes, compact.'), { ok: false, error: 'not JSON: Yes, compact.' });
    assert.deepEqual(parseJudgment(`x${'y'.repeat(100)}`), { ok: false, error: `not JSON: x${'y'.repeat(79)}…` });
    const bad = (text: string) => {
      const r = parseJudgment(text);
      return r.ok ? 'ok' : r.error;
    };
    assert.match(bad('{"should_compact":"yes","reason":"r"}'), /^schema: should_compact /);
    assert.match(bad('{"should_compact":true,"reason":""}'), /^schema: reason /);
    assert.match(bad(`{"should_compact":true,"reason":"${'r'.repeat(2001)}"}`), /^schema: reason /);
    assert.match(bad('{"should_compact":true,"reason":"r","extra":1}'), /^schema: \(root\) /);
    assert.match(bad('{"should_compact":1,"reason":""}'), /^schema: should_compact [^;]+; reason /, 'every problem, one after the other');
    assert.equal(bad(`{"should_compact":false,"reason":"${'r'.repeat(2000)}"}`), 'ok');
  });
});

describe('the judgment: the fallback without an answer', () => {
  it('compacts when the forecast says this phase close is the one, whatever the tier', () => {
    assert.deepEqual(fallbackJudgment(decision({ forecast: forecast({ avoids: 'avoids an emergency in the next phase: forecast 96k' }) }), 'late'), {
      should_compact: true,
      reason: 'fallback (late): compacting now avoids an emergency in the next phase: forecast 96k',
    });
    assert.deepEqual(fallbackJudgment(decision({ forecast: forecast({}) }), 'late'), {
      should_compact: true,
      reason: 'fallback (late): compacting now avoids an emergency: the next phase (≈ 96k tokens) does not fit in the 61k left before emergency',
    });
  });

  it('in the early tier waits unless a completed plan step or a done signal matched; elsewhere the rule stands', () => {
    const commit = boundary('b1', 'commit');
    const step = boundary('b2', 'plan_checkpoint');
    const done = boundary('b3', 'agent_done');
    const early = (matched: string[], f?: DecisionForecast) =>
      fallbackJudgment(decision({ boundaries: [commit, step, done], matched, ...(f ? { forecast: f } : {}) }), 'none');
    assert.deepEqual(early(['b1']), {
      should_compact: false,
      reason: 'fallback (none): early tier and no completed plan step or done signal — keeping context together',
    });
    assert.equal(early(['b1'], forecast({ verdict: 'fits' })).should_compact, false, 'a forecast that does not say compact changes nothing');
    assert.deepEqual(early(['b1', 'b2']), { should_compact: true, reason: 'fallback (none): the rule passed with commit, plan_checkpoint' });
    assert.equal(early(['b3']).should_compact, true);
    const ready = fallbackJudgment(decision({ tier: 'ready', boundaries: [commit, step], matched: ['b1'] }), 'timeout');
    assert.deepEqual(ready, { should_compact: true, reason: 'fallback (timeout): the rule passed with commit' });
  });
});

describe('the judgment: what it is told', () => {
  const prompts: Prompts = {
    ...shipped.prompts,
    judgment: 'SYSTEM',
    judgmentContext:
      'tier={tier} pct={percentRemaining} b={boundariesJson} t={threadId}/{turnId} used={totalUsageTokens}/{modelContextWindow}\nF:{phaseForecast}\nL:{lastAgentMessage}\nX:{transcriptExcerpt}\nP:{planTrail}\nU:{userRequestChain}',
  };
  const ctx = { threadId: 'th', turn: 7, tokens: null, trail: emptyTrail(), plan: null };

  it('without facts: each says so', () => {
    const r = buildJudgmentPrompt(prompts, decision({ tier: null, percentRemaining: null }), ctx);
    assert.equal(r.system, 'SYSTEM');
    assert.equal(
      r.user,
      'tier=none pct=unknown b=[] t=th/7 used=unknown/unknown\nF:(none: no token count, the forecast is off, or no strong boundary here)\nL:(none)\nX:(empty)\nP:(no plan)\nU:(none recorded)',
    );
  });

  it('the requests with the current ask marked, the plan with its marks, the excerpt on one line each, the forecast and its basis', () => {
    const trail = {
      ...emptyTrail(),
      userRequests: [
        { turn: 1, at: 0, text: 'Build\n the importer' },
        { turn: 2, at: 0, text: 'Now the CLI' },
      ],
      excerpt: [{ role: 'assistant' as const, text: 'Done with\n\nit' }],
      lastAgentMessage: 'All set.',
    };
    const plan = {
      steps: [
        { status: 'completed' as const, text: 'importer' },
        { status: 'in_progress' as const, text: 'CLI' },
        { status: 'pending' as const, text: 'docs' },
      ],
      completed: ['importer'],
    };
    const d = decision({ boundaries: [boundary('b1', 'commit')], forecast: forecast({ basis: 'workspace', verdict: 'fits', planFinished: true }) });
    const r = buildJudgmentPrompt(prompts, d, { ...ctx, tokens: { used: 120_000, window: 200_000 }, trail, plan });
    const lines = r.user.split('\n');
    assert.equal(lines[0], 'tier=early pct=40 b=[{"kind":"commit","strength":"strong","source":"git","detail":"commit b1"}] t=th/7 used=120000/200000');
    assert.match(
      r.user,
      /\(estimate from earlier threads in this workspace \(no phase completed here yet\)\)\n- every step of the plan is completed\n- verdict: the next phase fits: a later boundary is enough\n/,
    );
    assert.ok(
      r.user.includes(
        '\nL:All set.\nX:assistant: Done with it\nP:- [x] importer\n- [~] CLI\n- [ ] docs\nU:1. Build the importer\n2. **[current ask]** Now the CLI',
      ),
      r.user,
    );
    const two = buildJudgmentPrompt(prompts, decision({}), {
      ...ctx,
      trail: {
        ...emptyTrail(),
        excerpt: [
          { role: 'user', text: 'a' },
          { role: 'tool', text: 'b' },
        ],
      },
    });
    assert.match(two.user, /\nX:user: a\ntool: b\n/);
    const compactNoWords = buildJudgmentPrompt(prompts, decision({ forecast: forecast({}) }), ctx).user;
    assert.match(compactNoWords, /- verdict: compact at this phase close: it avoids an emergency in the next phase\n/);
    const thread = buildJudgmentPrompt(prompts, decision({ forecast: forecast({ verdict: 'defer' }) }), ctx).user;
    assert.match(thread, /estimate from the largest of this thread's recent phases \(3 completed\)\)\n- verdict: no verdict: the tier rule decides/);
    const prior = buildJudgmentPrompt(prompts, decision({ forecast: forecast({ basis: 'settings', verdict: 'plan_done' }) }), ctx).user;
    assert.match(prior, /estimate from the settings prior \(no phase completed yet\)\)\n- verdict: the plan is finished: decide at the end of the turn/);
  });
});
