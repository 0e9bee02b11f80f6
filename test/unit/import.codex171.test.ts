import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { importCodex } from '../../src/core/replay/import/codex';
import { detectFormat } from '../../src/core/replay/import/detect';
import { replay } from '../../src/core/replay/driver';
import type { Recording, RecordingItem } from '../../src/core/replay/recording';
import { shipped } from '../support/engine';
import { needShared } from '../support/sharedData';

// Codex 0.171 rollouts beside the repo: `compacted` + item_completed ContextCompaction, no
// context_compacted, no user_message events. Expectations come from an independent scan of each file.
const DIR = process.env.RAWR_CODEX171 ?? path.resolve(__dirname, '../../../../shared/data/codex-0.171');

type Of<T extends RecordingItem['type']> = Extract<RecordingItem, { type: T }>;
const all = <T extends RecordingItem['type']>(r: Recording, type: T) => r.items.filter((i): i is Of<T> => i.type === type);
const jsonl = (...records: unknown[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

interface Raw {
  type: string;
  payload?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}
function scan(text: string) {
  const recs = text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Raw);
  const item = (r: Raw) =>
    r.type === 'event_msg' && r.payload?.type === 'item_completed' ? (r.payload.item as { type: string; content?: Array<{ text: string }> }) : undefined;
  return {
    compacted: recs.filter((r) => r.type === 'compacted').length,
    contextCompactionItems: recs.filter((r) => item(r)?.type === 'ContextCompaction').length,
    prompts: recs.flatMap((r) =>
      item(r)?.type === 'UserMessage'
        ? [
            item(r)!
              .content!.map((c) => c.text)
              .join('\n'),
          ]
        : [],
    ),
    summaries: recs.filter((r) => r.type === 'response_item' && r.metadata?.compaction_output === true).length,
    agentTexts: recs.filter(
      (r) => r.type === 'response_item' && r.payload?.type === 'message' && r.payload.role === 'assistant' && r.metadata?.compaction_output !== true,
    ).length,
    window: recs
      .flatMap((r) =>
        r.type === 'event_msg' && r.payload?.type === 'token_count' && r.payload.info
          ? [(r.payload.info as { model_context_window: number }).model_context_window]
          : [],
      )
      .pop(),
  };
}

describe('importCodex: Codex 0.171 rollouts (real)', function () {
  const files = fs.existsSync(DIR)
    ? fs
        .readdirSync(DIR)
        .filter((f) => f.endsWith('.jsonl'))
        .sort()
    : [];
  it('the 0.171 rollouts are here', function () {
    needShared(this, DIR); // set RAWR_CODEX171 to point elsewhere
    assert.ok(files.length > 0);
  });
  for (const f of files) {
    describe(f, () => {
      const text = fs.readFileSync(path.join(DIR, f), 'utf8');
      const r = importCodex(text);
      const s = scan(text);
      it('detected as Codex; every line read; window and model', () => {
        assert.equal(detectFormat(text), 'codex');
        assert.deepEqual(r.problems, []);
        assert.equal(r.window, s.window);
        assert.ok(r.models && r.models[0]!.calls > 0);
        assert.equal(text.includes('"context_compacted"'), false);
      });
      it('one native compaction per compaction (compacted + ContextCompaction counted once)', () => {
        assert.ok(s.compacted > 0 && s.contextCompactionItems === s.compacted);
        const comps = all(r, 'native_compaction');
        assert.equal(comps.length, s.compacted);
        for (const c of comps) assert.ok(c.preTokens !== undefined && c.preTokens > 0);
      });
      it('prompts from UserMessage items; the compaction summary is not agent text', () => {
        assert.deepEqual(
          all(r, 'user_prompt').map((p) => p.text),
          s.prompts,
        );
        assert.ok(s.summaries > 0);
        assert.equal(all(r, 'assistant_text').length, s.agentTexts);
        assert.ok(all(r, 'assistant_text').every((t) => !t.text.includes('COMPACTION-SUMMARY')));
      });
      it('replay reports the recorded compactions and the recorded window', () => {
        const { summary } = replay(r, { settings: shipped.settings, prompts: shipped.prompts });
        assert.equal(summary.nativeCompactions.length, s.compacted);
        assert.equal(summary.windowSource, 'recording');
        assert.equal(summary.window, s.window);
      });
    });
  }
});

describe('importCodex: 0.171 compaction records, hand-written', () => {
  let clock = 0;
  const rec = (type: string, payload: unknown) => ({ timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, clock++)).toISOString(), type, payload });
  const tokens = (input: number, total: number) =>
    rec('event_msg', {
      type: 'token_count',
      info: { last_token_usage: { input_tokens: input }, total_token_usage: { total_tokens: total }, model_context_window: 190000 },
    });
  const item = (type: string, extra: object = {}) => rec('event_msg', { type: 'item_completed', item: { type, id: 'x', ...extra } });
  const prompt = (text: string) => item('UserMessage', { content: [{ type: 'text', text }] });
  const started = () => rec('event_msg', { type: 'task_started', turn_id: 't' });

  it('a ContextCompaction item without a compacted record still counts, once', () => {
    const r = importCodex(jsonl(started(), prompt('go'), tokens(5000, 5000), item('ContextCompaction'), tokens(400, 5400)));
    assert.deepEqual(
      all(r, 'native_compaction').map((c) => [c.line, c.trigger, c.preTokens]),
      [[4, 'auto', 5000]],
    );
  });
  it('mid-turn: auto; a turn that only compacts: unknown (manual or pre-turn, the rollout does not say)', () => {
    const r = importCodex(
      jsonl(
        started(),
        prompt('work'),
        tokens(5000, 5000),
        rec('compacted', { message: 's' }),
        item('ContextCompaction'),
        started(),
        tokens(6000, 11000),
        rec('compacted', { message: 's' }),
        item('ContextCompaction'),
      ),
    );
    assert.deepEqual(
      all(r, 'native_compaction').map((c) => [c.line, c.trigger]),
      [
        [4, 'auto'],
        [8, 'unknown'],
      ],
    );
  });
  it('a bad item_completed is a problem; other item kinds pass', () => {
    const r = importCodex(jsonl(rec('event_msg', { type: 'item_completed', item: 'nope' }), item('CommandExecution', { command: ['ls'] })));
    assert.deepEqual(
      r.problems.map((p) => p.line),
      [1],
    );
  });
});
