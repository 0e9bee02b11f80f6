/**
 * The event log's fast record check (src/core/logformat/fastRecord.ts) never accepts what the zod schema
 * rejects, and when it accepts it gives the schema's value: on well-formed records of every common kind,
 * on the same records with one field changed, removed or added, and on arbitrary values; as JavaScript
 * values and after a JSON round trip (what the log reader sees). And the reader as a whole: a log of
 * such lines reads as the schema alone would read it, record for record and problem for problem.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { fastLogRecord } from '../../src/core/logformat/fastRecord';
import { parseLog } from '../../src/core/logformat/reader';
import { LogRecordSchema } from '../../src/core/logformat/records';
import { BOUNDARY_KINDS } from '../../src/core/signals/types';

const RUNS = Number(process.env.RAWR_PROPERTY_RUNS ?? 10_000);

const num = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -0, Infinity, -Infinity, NaN, Number.MAX_SAFE_INTEGER + 2));
const str = fc.oneof(fc.string(), fc.constantFrom('', 'commit', 'pending', 'tool_loop', 'git'));
const at = num;
const event = fc.oneof(
  fc.record({ type: fc.constantFrom('user_message', 'assistant_message'), at, text: str }),
  fc.record({ type: fc.constant('tool_call'), at, id: str, name: str, input: fc.anything() }),
  fc.record(
    {
      type: fc.constant('tool_result'),
      at,
      id: str,
      output: str,
      isError: fc.boolean(),
      exitCode: fc.oneof(fc.integer({ min: -1, max: 255 }), num, fc.constant(undefined)),
    },
    { requiredKeys: ['type', 'at', 'id', 'output', 'isError'] },
  ),
  fc.record({ type: fc.constant('tokens'), at, used: num, window: num }),
  fc.record({
    type: fc.constant('boundary'),
    at,
    source: fc.constantFrom('git', 'terminal', 'plan_tool', 'agent_message', 'tool_result', 'turn', 'recording', 'elsewhere'),
    boundary: fc.record({ kind: fc.constantFrom(...BOUNDARY_KINDS, 'merge'), key: str, detail: str }),
  }),
  fc.record({
    type: fc.constant('plan'),
    at,
    steps: fc.array(fc.record({ text: str, status: fc.constantFrom('pending', 'in_progress', 'completed', 'done') }), { maxLength: 5 }),
  }),
  fc.record({ type: fc.constant('evaluate'), at, point: fc.constantFrom('turn_complete', 'tool_loop', 'now') }),
  fc.record({ type: fc.constantFrom('timeout', 'cancel', 'packet', 'explode'), at, timerId: str }),
);
const record = fc.record(
  {
    rawr: fc.oneof(fc.constant(1), fc.constantFrom(2, '1', true)),
    thread: fc.oneof(fc.constant('t1'), str),
    at,
    rid: fc.oneof(fc.string({ maxLength: 100 }), fc.string({ minLength: 101, maxLength: 120 }), fc.constant(undefined)),
    kind: fc.oneof(fc.constant('event'), fc.constantFrom('message', 'undo')),
    event,
  },
  { requiredKeys: ['rawr', 'thread', 'at', 'kind', 'event'] },
);

/** A record whose envelope is right (what a log mostly holds): only its event may be wrong. */
const enveloped = fc.record(
  {
    rawr: fc.constant(1),
    thread: fc.constant('t1'),
    at: fc.integer(),
    rid: fc.oneof(fc.constant(undefined), fc.constant('r1')),
    kind: fc.constant('event'),
    event,
  },
  { requiredKeys: ['rawr', 'thread', 'at', 'kind', 'event'] },
);

/** One field somewhere in the record (top level or the event) replaced, removed, or an unknown one added. */
const mutation = (base: fc.Arbitrary<Record<string, unknown>>) =>
  fc.tuple(base, fc.boolean(), fc.nat(), fc.constantFrom('replace', 'remove', 'add'), fc.anything()).map(([r, inEvent, k, how, value]) => {
    const copy = { ...r, event: { ...(r.event as object) } } as Record<string, unknown>;
    const target = (inEvent ? copy.event : copy) as Record<string, unknown>;
    const keys = Object.keys(target);
    const key = how === 'add' ? `extra${k % 3}` : keys[k % keys.length]!;
    if (how === 'remove') delete target[key];
    else target[key] = value;
    return copy;
  });
const mutated = mutation(record);

function agree(value: unknown): void {
  for (const v of [value, roundTrip(value)]) {
    const fast = fastLogRecord(v);
    if (fast === undefined) continue; // the schema decides: nothing to compare
    const zod = LogRecordSchema.safeParse(v);
    assert.ok(zod.success, `fast path accepted what the schema rejects: ${JSON.stringify(v)} (${zod.success ? '' : zod.error.message})`);
    assert.deepStrictEqual(fast, zod.data);
  }
}

/**
 * What the reader must make of one line, by the schema alone: its record, or the problem the schema's
 * first issue names (a line that is not JSON is left to the reader's own tests: torn-line salvage).
 */
function bySchema(line: string): { record: unknown } | { message: string } | undefined {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return undefined;
  }
  const parsed = LogRecordSchema.safeParse(json);
  if (parsed.success) return { record: parsed.data };
  const first = parsed.error.issues[0];
  return { message: `not a rawr log record (${first ? `${first.path.join('.') || 'record'}: ${first.message}` : 'invalid'}) — skipped` };
}

function roundTrip(v: unknown): unknown {
  try {
    const text = JSON.stringify(v);
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined; // BigInt and cycles have no JSON form
  }
}

describe('event log fast record check (property)', function () {
  this.timeout(120_000);

  it('agrees with the zod schema on well-formed and mutated records and on arbitrary values', () => {
    fc.assert(fc.property(fc.oneof(record, mutated, fc.anything()), agree), { numRuns: RUNS });
  });

  it('a log of well-formed, mutated and arbitrary records reads as the schema alone reads it (same records, same problems)', () => {
    const line = fc.oneof(enveloped, mutation(enveloped), mutation(enveloped), record, mutated, fc.anything()).map((v) => JSON.stringify(v) ?? 'null');
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), (lines) => {
        const log = parseLog(lines.join('\n'));
        const records = new Map(log.records.map((r) => [r.line, r.record]));
        const problems = new Map(log.problems.map((p) => [p.line, p.message]));
        lines.forEach((text, k) => {
          const want = bySchema(text);
          if (!want) return;
          if ('record' in want) assert.deepStrictEqual(records.get(k + 1), want.record, `line ${k + 1}: ${text}`);
          else {
            assert.equal(problems.get(k + 1), want.message, `line ${k + 1}: ${text}`);
            assert.ok(!records.has(k + 1), `line ${k + 1} was read although the schema rejects it: ${text}`);
          }
        });
      }),
      { numRuns: Math.ceil(RUNS / 10) },
    );
  });

  it('takes the common well-formed records itself (the fast path is used)', () => {
    const rec = (event: object, extra: object = {}) => ({ rawr: 1, thread: 't', at: 5, kind: 'event', event, ...extra });
    const common = [
      rec({ type: 'user_message', at: 1, text: 'hi' }),
      rec({ type: 'assistant_message', at: 1, text: 'done' }, { rid: 'r1' }),
      rec({ type: 'tool_call', at: 1, id: 'c', name: 'bash', input: { command: 'ls' } }),
      rec({ type: 'tool_result', at: 1, id: 'c', output: 'ok', isError: false, exitCode: 0 }),
      rec({ type: 'tokens', at: 1, used: 10, window: 100 }),
      rec({ type: 'boundary', at: 1, source: 'terminal', boundary: { kind: 'commit', key: 'abc1234', detail: 'x' } }),
      rec({ type: 'plan', at: 1, steps: [{ text: 'a', status: 'completed' }] }),
      rec({ type: 'evaluate', at: 1, point: 'tool_loop' }),
    ];
    for (const r of common) {
      const fast = fastLogRecord(JSON.parse(JSON.stringify(r)));
      assert.ok(fast, `fast path took ${JSON.stringify(r)}`);
      assert.deepStrictEqual(fast, LogRecordSchema.parse(r));
    }
    // An unknown key is dropped, as the schema drops it.
    assert.deepStrictEqual(
      fastLogRecord(rec({ type: 'tokens', at: 1, used: 1, window: 2, extra: 1 }, { more: true })),
      rec({ type: 'tokens', at: 1, used: 1, window: 2 }),
    );
  });
});
