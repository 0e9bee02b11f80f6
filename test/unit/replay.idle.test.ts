/**
 * The replay with the person's absences played (ReplayOptions.idle, the idle cost bench): a prompt that
 * comes after rawr.idleCompactMinutes, following a turn end where the engine armed its watch, is preceded
 * by the idle compaction; a shorter absence, or the replay without the option, changes nothing.
 */
import * as assert from 'node:assert/strict';
import { replay } from '../../src/core/replay/driver';
import type { Recording, RecordingItem } from '../../src/core/replay/recording';
import { shipped } from '../support/engine';

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;
const T0 = 1_760_000_000_000;
const MIN = 60_000;

/** Two turns on a 200k window: the first commits and ends with 60% used (tier early, which wants a plan step); the second comes `awayMs` later. */
function recording(awayMs: number): Recording {
  let line = 0;
  const item = (x: DistributiveOmit<RecordingItem, 'line'>): RecordingItem => ({ ...x, line: ++line }) as RecordingItem;
  const items: RecordingItem[] = [
    item({ type: 'user_prompt', at: T0, text: 'Implement the importer, test it, commit.' }),
    item({ type: 'usage', at: T0 + 1000, contextTokens: 20_000 }),
    item({ type: 'tool_call', at: T0 + 2000, id: 'c1', name: 'Bash', input: { command: 'git commit -am "importer"' } }),
    item({ type: 'tool_result', at: T0 + 3000, id: 'c1', output: '[main a1b2c3d] importer\n 2 files changed', isError: false, exitCode: 0 }),
    item({ type: 'usage', at: T0 + 4000, contextTokens: 120_000 }),
    item({ type: 'assistant_text', at: T0 + 5000, text: 'Committed the importer; the CLI is next.' }),
    item({ type: 'user_prompt', at: T0 + 5000 + awayMs, text: 'Now the CLI.' }),
    item({ type: 'usage', at: T0 + 6000 + awayMs, contextTokens: 121_000 }),
  ];
  return { format: 'claude', window: 200_000, lines: line, items, problems: [] };
}

const settings = {
  ...shipped.settings,
  judgment_enabled: false,
  forecast_enabled: false,
  idle_compact_minutes: 5, // off by default (no background call unless asked): the replay plays it turned on
  auto_requires_any_boundary: { early: ['plan_checkpoint' as const], ready: ['plan_checkpoint' as const], asap: ['commit' as const] },
};

describe('replay: the person away (ReplayOptions.idle)', () => {
  it('away longer than the setting: the idle compaction comes before the prompt, and the next request starts on the compacted context', () => {
    const r = replay(recording(12 * MIN), { settings, prompts: shipped.prompts, idle: true });
    const idle = r.decisions.filter((d) => d.code === 'idle');
    assert.equal(idle.length, 1, JSON.stringify(r.decisions.map((d) => [d.line, d.code])));
    assert.equal(idle[0]!.line, 7);
    assert.match(idle[0]!.reason, /nobody wrote for 5 min since the turn ended at commit a1b2c3d/);
    assert.equal(r.summary.idle?.length, 1);
    const p = r.summary.idle![0]!;
    assert.equal(p.awayMinutes, 12);
    assert.ok(p.tokensWith < p.tokensWithout / 2, `${p.tokensWithout} → ${p.tokensWith}`);
    assert.deepEqual(
      r.summary.compactions.map((c) => c.code),
      ['idle'],
    );
  });

  it('away less than the setting, or replayed without the option: no idle compaction', () => {
    const short = replay(recording(3 * MIN), { settings, prompts: shipped.prompts, idle: true });
    assert.equal(short.decisions.filter((d) => d.code === 'idle').length, 0);
    assert.equal(short.summary.idle, undefined);
    const plain = replay(recording(12 * MIN), { settings, prompts: shipped.prompts });
    assert.equal(plain.decisions.filter((d) => d.code === 'idle').length, 0);
    assert.equal(plain.summary.compactions.length, 0);
  });
});
