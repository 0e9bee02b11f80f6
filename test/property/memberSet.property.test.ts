/**
 * memberSet (src/core/text/memberSet.ts) answers exactly what the list holds, for every list a run of
 * pushes, appends and drops makes — the newest and every older one read again (an older engine state
 * stepped again) — whether its Set was handed on, rebuilt, or refused because of a repeated item.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { pushCapped } from '../../src/core/engine/state';
import { handOnMemberSet, memberSet } from '../../src/core/text/memberSet';

const RUNS = Number(process.env.RAWR_PROPERTY_RUNS ?? 2_000);

// Few distinct items, so that repeats (which must stop a hand-on) are common.
const item = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'commit:1', 'turn_complete:2');
const op = fc.oneof(
  fc.record({ kind: fc.constant('push' as const), item, max: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ kind: fc.constant('append' as const), items: fc.array(item, { maxLength: 4 }), max: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ kind: fc.constant('read' as const), back: fc.nat() }),
);

function same(list: readonly string[]): void {
  const set = memberSet(list);
  assert.deepStrictEqual([...set].sort(), [...new Set(list)].sort(), `memberSet of ${JSON.stringify(list)}`);
  for (const x of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'commit:1', 'turn_complete:2', 'zz']) assert.equal(set.has(x), list.includes(x));
}

describe('memberSet (property)', function () {
  this.timeout(120_000);

  it('is the set of the list for every list made, newest or older, handed on or not', () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 6 }), fc.array(op, { maxLength: 40 }), fc.boolean(), (start, ops, readFirst) => {
        const lists: string[][] = [start];
        if (readFirst) same(start);
        for (const o of ops) {
          const cur = lists[lists.length - 1]!;
          switch (o.kind) {
            case 'push': {
              // As addBoundary does: pushed only when absent, so the list stays distinct.
              if (memberSet(cur).has(o.item)) break;
              const next = pushCapped(cur, o.item, o.max);
              handOnMemberSet(cur, next, [o.item]);
              lists.push(next);
              break;
            }
            case 'append': {
              // As applyPlan does: appended (repeats allowed), cut to the last `max`.
              const grown = [...cur, ...o.items];
              const next = grown.length > o.max ? grown.slice(grown.length - o.max) : grown;
              handOnMemberSet(cur, next, o.items);
              lists.push(next);
              break;
            }
            case 'read':
              same(lists[lists.length - 1 - (o.back % lists.length)]!);
              break;
            default: {
              const unknown: never = o;
              throw new Error(`unknown op ${JSON.stringify(unknown)}`);
            }
          }
        }
        for (const l of lists) same(l);
      }),
      { numRuns: RUNS },
    );
  });
});
