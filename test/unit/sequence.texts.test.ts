// The golden path's own words (sequence/texts.ts, packet.ts): why the heads-up says the sequence starts
// now, which boundary it names, the handoff's recovery steps, the scratch file's name, and the agent's
// packet with rawr's facts. Mutation testing (CONTRIBUTING.md) showed these could change unnoticed.
import * as assert from 'node:assert/strict';
import { emptyTrail } from '../../src/core/engine/state';
import type { Decision } from '../../src/core/engine/types';
import type { Prompts } from '../../src/core/prompts/promptSet';
import { validateAgentPacket, withTrailFacts } from '../../src/core/sequence/packet';
import { handoffText, headsUpText, scratchPathFor, whyNow } from '../../src/core/sequence/texts';
import { decisionOf, shipped } from '../support/engine';

/** Templates that show every placeholder, so a test sees exactly what the code filled in. */
const prompts: Prompts = {
  ...shipped.prompts,
  headsUp: 'reason={reason} tier={tier} pct={percentRemaining} boundary={boundary}',
  handoff: 'origin={packetOrigin}|scratch={scratchLine}|steps={recoverySteps}|packet={packet}',
};
const decision = (d: Partial<Decision>): Decision =>
  decisionOf({ tier: 'ready', percentRemaining: 30, reason: 'ready tier (30% remaining) at a commit', ...d });
const commit = { id: 'b1', kind: 'commit' as const, strength: 'strong' as const, source: 'git' as const, detail: '73a1097 step 1' };
const turnEnd = { id: 'b2', kind: 'turn_complete' as const, strength: 'weak' as const, source: 'turn' as const, detail: '' };

describe('the heads-up', () => {
  it('why now, by the decision: its judgment, the emergency, a preflight, a manual reason, else a boundary in a tier', () => {
    assert.equal(whyNow(decision({ code: 'manual', reason: 'you asked — judgment: not this' })), 'you asked — judgment: not this');
    assert.equal(whyNow(decision({ reason: 'ready tier — judgment: a phase closed — judgment: twice' })), 'judgment: twice');
    assert.equal(whyNow(decision({ reason: ' — judgment: at the start' })), 'judgment: at the start');
    assert.equal(
      whyNow(decision({ code: 'emergency' })),
      'the context is nearly full (emergency tier): compacting at this safe point without waiting for a boundary',
    );
    assert.equal(whyNow(decision({ code: 'preflight' })), 'the last turn ended low on context: compacting before the next message is sent');
    assert.equal(whyNow(decision({})), 'the context is in a compaction tier and a phase boundary was reached');
  });

  it('names the matched boundaries, else says why none is needed; the tier and percent, or manual and ?', () => {
    const both = decision({ boundaries: [commit, turnEnd], matched: ['b1', 'b2'] });
    assert.equal(headsUpText(prompts, both), `reason=${whyNow(both)} tier=ready pct=30 boundary=commit 73a1097 step 1; turn_complete`);
    assert.match(headsUpText(prompts, decision({ boundaries: [commit, turnEnd], matched: ['b2'] })), /boundary=turn_complete$/, 'only the matched ones');
    assert.match(headsUpText(prompts, decision({ code: 'manual', tier: null, percentRemaining: null })), /tier=manual pct=\? boundary=requested by the user$/);
    assert.match(
      headsUpText(prompts, decision({ code: 'emergency', tier: 'emergency', percentRemaining: 0 })),
      /pct=0 boundary=emergency: no boundary needed$/,
    );
  });
});

describe('the handoff', () => {
  it('the recovery steps: the plan with its marks and plan file, the files last read, and who wrote the packet', () => {
    const plan = {
      steps: [
        { status: 'completed' as const, text: 'importer' },
        { status: 'pending' as const, text: 'CLI' },
      ],
      completed: ['importer'],
    };
    const files = Array.from({ length: 11 }, (_, k) => `/r/f${k}`);
    const text = handoffText(
      prompts,
      '  the packet \n',
      '.scratch/agent-x.scratch.md',
      plan,
      { ...emptyTrail(), files },
      { origin: 'watcher', planFile: 'PLAN.md' },
    );
    assert.equal(
      text,
      [
        'origin=rawr assembled from the session trail before the compaction (you did not write it)|scratch=',
        'Your scratch notes from before the compaction are in `.scratch/agent-x.scratch.md` — read them when you need the details.',
        '|steps=1. Re-read the plan: ✓ importer | • CLI — plan file: PLAN.md',
        '2. Run: git diff --stat',
        `3. Review the in-scope files for changes already made: ${files.slice(1).join(', ')}`,
        '4. Reconstruct your position from the packet below before taking the next step|packet=the packet',
      ].join('\n'),
    );
  });

  it("without a plan, files or scratch notes: the packet's own next section, and the agent as its author by default", () => {
    assert.equal(
      handoffText(prompts, 'p', undefined, { steps: [], completed: [] }, emptyTrail()),
      [
        'origin=you wrote before the compaction|scratch=|steps=1. Re-read the plan (the "What\'s next" section of the packet, and any plan file it names)',
        '2. Run: git diff --stat',
        '3. Review the in-scope files for changes already made',
        '4. Reconstruct your position from the packet below before taking the next step|packet=p',
      ].join('\n'),
    );
  });
});

describe('names and packets', () => {
  it('the scratch file: the agent name reduced to [a-z0-9-], never empty', () => {
    assert.equal(scratchPathFor('My Agent!!'), '.scratch/agent-my-agent.scratch.md');
    assert.equal(scratchPathFor('--../x--'), '.scratch/agent-x.scratch.md');
    assert.equal(scratchPathFor('a  b'), '.scratch/agent-a-b.scratch.md');
    assert.equal(scratchPathFor('!!!'), '.scratch/agent-rawr.scratch.md');
    assert.equal(scratchPathFor('a'.repeat(50)), `.scratch/agent-${'a'.repeat(40)}.scratch.md`, 'at most 40 characters');
  });

  it("an agent's packet: its length after trimming must reach the minimum; rawr's facts follow it as subsections", () => {
    assert.deepEqual(validateAgentPacket(`  ${'x'.repeat(10)}  `, 11), { ok: false, why: 'too short (10 < 11 characters)' });
    const sections = '## What just completed\na\n## Where we are now\nb\n## Next\nc';
    assert.deepEqual(validateAgentPacket(sections, sections.length), { ok: true }, 'exactly the minimum');
    const p = withTrailFacts('  my packet\n', { ...emptyTrail(), toolTail: [{ id: 't', name: 'Bash', input: 'ls' }] }, null);
    assert.ok(p.startsWith('my packet\n\n## Facts rawr recorded from the session trail (no summary was written)\n\n### What just completed\n'), p);
    assert.ok(!p.includes('_Continuation packet assembled'), 'not the watcher packet header');
    assert.ok(!p.includes('Recent tool calls'), 'no tool tail: the agent packet stands in for the summary, not the recent turns');
    assert.ok(!/^## (?!Facts rawr)/m.test(p), 'the facts are subsections of their heading');
  });
});
