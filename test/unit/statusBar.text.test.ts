/** The status-bar item's text, colour and tooltip (src/host/ui/statusText.ts). */
import * as assert from 'node:assert/strict';
import {
  percentLabel,
  statusAccessibilityLabel,
  statusBackground,
  statusText,
  statusTooltip,
  type StatusBoundary,
  type StatusView,
} from '../../src/host/ui/statusText';

const view = (v: Partial<StatusView>): StatusView => ({ percentRemaining: null, tier: null, sequenceRunning: false, ...v });

describe('status bar: statusText', () => {
  it('percent remaining and tier', () => {
    assert.equal(statusText(view({ percentRemaining: 31, tier: 'ready' })), '$(fold) 31% · ready');
    assert.equal(statusText(view({ percentRemaining: 62, tier: null })), '$(fold) 62%');
    assert.equal(statusText(view({ percentRemaining: 8.2, tier: 'emergency' })), '$(fold) 8% · emergency');
  });

  it('spinning icon while a sequence runs', () => {
    assert.equal(statusText(view({ percentRemaining: 31, tier: 'ready', sequenceRunning: true })), '$(sync~spin) 31% · ready');
    assert.equal(statusText(view({ sequenceRunning: true })), '$(sync~spin) rawr');
  });

  it('nothing known yet', () => {
    assert.equal(statusText(view({})), '$(fold) rawr');
    assert.equal(statusText(view({ tier: 'asap' })), '$(fold) asap');
  });

  it('percent rounds down (never contradicts a "below N" tier) and is clamped', () => {
    assert.equal(percentLabel(34.6), '34%');
    assert.equal(percentLabel(35), '35%');
    assert.equal(percentLabel(99.99), '99%');
    assert.equal(percentLabel(-12), '0%');
    assert.equal(percentLabel(140), '100%');
    assert.equal(percentLabel(Number.NaN), '0%');
  });

  it('background: warning in asap, error in emergency, none otherwise', () => {
    assert.equal(statusBackground('asap'), 'statusBarItem.warningBackground');
    assert.equal(statusBackground('emergency'), 'statusBarItem.errorBackground');
    for (const t of ['early', 'ready', null]) assert.equal(statusBackground(t), undefined);
  });

  it('accessibility label says it in words', () => {
    assert.equal(
      statusAccessibilityLabel(view({ percentRemaining: 31.4, tier: 'ready', sequenceRunning: true })),
      'rawr: 31% of context remaining, tier ready, compaction sequence running',
    );
    assert.equal(statusAccessibilityLabel(view({})), 'rawr: context use unknown');
  });
});

describe('status bar: statusTooltip', () => {
  const b = (i: number, kind: StatusBoundary['boundary']['kind'] = 'commit'): StatusBoundary => ({
    source: i % 2 ? 'git' : 'terminal',
    boundary: { kind, key: `k${i}`, detail: `abc${i} subject ${i}` },
    at: new Date(2026, 0, 1, 12, 0, i).getTime(),
  });

  it('state, last decision and the last boundaries newest first', () => {
    const md = statusTooltip(
      view({ percentRemaining: 31, tier: 'ready', lastDecision: { action: 'compact', reason: 'tier ready (31%), boundary commit abc' } }),
      [1, 2, 3, 4, 5, 6, 7].map((i) => b(i)),
    );
    assert.match(md, /\*\*31%\*\* of the context window remaining, tier \*\*ready\*\*/);
    assert.match(md, /Last decision: \*\*compact\*\* — tier ready \\\(31%\\\), boundary commit abc/);
    const lines = md.split('\n').filter((l) => l.startsWith('- '));
    assert.equal(lines.length, 5);
    assert.match(lines[0] ?? '', /^- 12:00:07 \*\*commit\*\* \(git\) abc7 subject 7$/);
    assert.match(lines[4] ?? '', /abc3 subject 3/);
    assert.doesNotMatch(md, /subject 2/);
  });

  it('no boundaries, unknown percent, running sequence', () => {
    const md = statusTooltip(view({ sequenceRunning: true }), []);
    assert.match(md, /context use not known yet/);
    assert.match(md, /Compaction sequence running/);
    assert.match(md, /No boundaries seen yet\./);
    assert.doesNotMatch(md, /Last decision/);
  });

  it('escapes Markdown in details and reasons (commit subjects are user text)', () => {
    const evil: StatusBoundary = {
      source: 'terminal',
      boundary: { kind: 'commit', key: 'x', detail: 'abc [link](http://x) **bold** <img src=x>\nsecond line' },
      at: 0,
    };
    const md = statusTooltip(view({ lastDecision: { action: 'none', reason: '`code` _x_' } }), [evil]);
    assert.ok(!md.includes('[link](http://x)'));
    assert.doesNotMatch(md, /[^\\]<img/, 'no raw HTML');
    assert.ok(md.includes('\\<img src=x\\>'));
    assert.ok(md.includes('\\[link\\]\\(http://x\\)'));
    assert.ok(md.includes('\\`code\\` \\_x\\_'));
    assert.equal(md.split('\n').filter((l) => l.startsWith('- ')).length, 1, 'a newline in a detail does not start a new list item');
  });
});
