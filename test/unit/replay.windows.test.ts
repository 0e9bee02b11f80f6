import * as assert from 'node:assert/strict';
import { DEFAULT_WINDOW, MODEL_WINDOWS, chooseWindow, modelWindow } from '../../src/core/replay/windows';
import type { Recording } from '../../src/core/replay/recording';

const claude = (models: Array<[string, number]>, items: Recording['items'] = []): Recording => ({
  format: 'claude',
  lines: 1,
  items,
  problems: [],
  models: models.map(([name, calls]) => ({ name, calls })),
});

describe('model windows', () => {
  it('the table: 1M for Claude Opus 4.6+ / Sonnet 4.6 / 5.x and [1m]; 200k before; Codex GPT-5 272k', () => {
    const cases: Array<[string, number]> = [
      ['claude-opus-5-5', 1_000_000],
      ['claude-fable-5-1', 1_000_000],
      ['claude-sonnet-5-5', 1_000_000],
      ['claude-haiku-5-5', 1_000_000],
      ['claude-opus-4-6', 1_000_000],
      ['claude-opus-4-7', 1_000_000],
      ['claude-sonnet-4-6', 1_000_000],
      ['claude-sonnet-4-6[1m]', 1_000_000],
      ['claude-opus-4-5-20251101', 200_000],
      ['claude-sonnet-4-5-20250929', 200_000],
      ['claude-haiku-4-5-20251001', 200_000],
      ['claude-3-7-sonnet-20250219', 200_000],
      ['opus[1m]', 1_000_000],
      ['sonnet', 200_000],
      ['gpt-5.3-codex', 272_000],
      ['gpt-5.1-codex', 272_000],
      ['gpt-5.3-codex-spark', 128_000],
      ['GPT-4o', 128_000],
    ];
    for (const [model, window] of cases) assert.equal(modelWindow(model)?.window, window, model);
    assert.equal(modelWindow('fake-model'), undefined);
    for (const row of MODEL_WINDOWS) assert.ok(row.window > 0 && row.label.length > 0);
  });

  it('order: --window, then the recording, then the model of most calls, then the default; each says why', () => {
    assert.deepEqual(chooseWindow(claude([['claude-opus-5-5', 3]]), 123_456), { window: 123_456, source: 'option', why: '--window 123456' });
    const codex = chooseWindow({ format: 'codex', window: 258_400, models: [{ name: 'gpt-5.3-codex', calls: 2 }] });
    assert.equal(codex.window, 258_400);
    assert.match(codex.why, /Codex recorded model_context_window/);
    const mixed = chooseWindow(
      claude([
        ['claude-haiku-4-5-20251001', 9],
        ['claude-opus-5-5', 3],
      ]),
    );
    assert.equal(mixed.window, 200_000);
    assert.match(mixed.why, /^model claude-haiku-4-5-20251001 \(9 calls\).*also used: claude-opus-5-5 \(3 calls\)/);
    assert.deepEqual(chooseWindow(claude([])), { window: DEFAULT_WINDOW, source: 'default', why: 'no model named in the recording: default 200k' });
    assert.match(chooseWindow(claude([['my-local-model', 1]])).why, /not in the window table/);
  });

  it('evidence: an automatic compaction at ≤ 200k means a 200k session; a larger recorded context a larger window', () => {
    const small = chooseWindow(claude([['claude-opus-4-6', 5]], [{ type: 'native_compaction', line: 7, at: 0, trigger: 'auto', preTokens: 167_094 }]));
    assert.equal(small.window, 200_000);
    assert.equal(small.source, 'evidence');
    assert.match(small.why, /compacted by itself at 167k tokens \(line 7\)/);
    // a manual /compact says nothing about the window
    assert.equal(
      chooseWindow(claude([['claude-opus-4-6', 5]], [{ type: 'native_compaction', line: 7, at: 0, trigger: 'manual', preTokens: 150_000 }])).window,
      1_000_000,
    );
    const big = chooseWindow(claude([['claude-sonnet-4-5', 5]], [{ type: 'usage', line: 3, at: 0, contextTokens: 450_000 }]));
    assert.equal(big.window, 1_000_000);
    assert.match(big.why, /reached 450k/);
  });
});
