/** How rawr's own blocks read in the narrow Chat pane (chatText.ts). */
import * as assert from 'node:assert/strict';
import { handoffText } from '../../src/core/sequence/texts';
import { handoffForChat, headsUpForChat, note, unwrap } from '../../src/host/participant/chatText';
import { emptyTrail } from '../../src/core/engine/state';
import { GOOD_PACKET, shipped } from '../support/engine';

describe('chat text (the narrow Chat pane)', () => {
  it('unwrap joins the hard-wrapped lines of a paragraph; lists, headings, quotes, tables and code keep theirs', () => {
    const text = [
      'First line of a',
      'wrapped sentence.',
      '',
      '- item one',
      '- item two',
      '## Heading',
      'para after',
      'heading',
      '```ts',
      'const a = 1;',
      'const b = 2;',
      '```',
      '> quoted',
      '| a | b |',
    ].join('\n');
    assert.equal(
      unwrap(text),
      [
        'First line of a wrapped sentence.',
        '',
        '- item one',
        '- item two',
        '## Heading',
        'para after heading',
        '```ts',
        'const a = 1;',
        'const b = 2;',
        '```',
        '> quoted',
        '| a | b |',
      ].join('\n'),
    );
  });

  it('the shipped heads-up reads as one paragraph, without its marker', () => {
    const text =
      '[rawr watcher → agent] Heads-up: we are pausing at a phase boundary (commit a1b2c3d; tier ready, 30% of context left).\nBefore anything else you will write a continuation packet; then rawr compacts this thread; then you get\nthe packet back and continue exactly where you are. Why now: judgment: phase done';
    const shown = headsUpForChat(text);
    assert.ok(!shown.includes('\n'), shown);
    assert.ok(shown.startsWith('Heads-up: '));
  });

  it('the handoff points at the packet the chat already shows instead of repeating it; the recovery steps stay a list', () => {
    const full = handoffText(shipped.prompts, GOOD_PACKET, '.scratch/agent-x.scratch.md', null, emptyTrail(), { origin: 'agent' });
    assert.ok(full.includes('## What just completed'), 'the model gets the packet');
    const shown = handoffForChat(full);
    assert.ok(!shown.includes('What just completed'), shown);
    assert.match(shown, /Here is the continuation packet you wrote before the compaction: _\(shown above\)_/);
    assert.match(shown, /\n2\. Run: git diff --stat\n/);
    assert.match(shown, /^⚠️ CONTEXT COMPACTION DETECTED/);
    assert.match(shown, /Continue from here\.\s*$/);
  });

  it('note attributes once', () => {
    assert.equal(note('held'), '\n\n_[rawr] held_\n\n');
    assert.equal(note('[rawr] would compact now'), '\n\n_[rawr] would compact now_\n\n');
  });
});
