import * as assert from 'node:assert/strict';
import { applyPlan, MAX_COMPLETED, type PlanState, type PlanStep } from '../../src/core/signals/plan';

const P = (...s: Array<[string, PlanStep['status']]>): PlanStep[] => s.map(([text, status]) => ({ text, status }));

function run(plans: PlanStep[][]): Array<string | null> {
  let st: PlanState | null = null;
  return plans.map((p) => {
    const r = applyPlan(st, p);
    st = r.plan;
    return r.boundary ? r.boundary.kind : null;
  });
}

describe('plan checkpoints (docs/ARCHITECTURE.md#boundaries)', () => {
  const cases: Array<[string, PlanStep[][], Array<string | null>]> = [
    ['first plan with nothing done is an update', [P(['research', 'in_progress'], ['draft', 'pending'])], ['plan_update']],
    [
      'a step newly completed is a checkpoint',
      [P(['research', 'in_progress'], ['draft', 'pending']), P(['research', 'completed'], ['draft', 'in_progress'])],
      ['plan_update', 'plan_checkpoint'],
    ],
    ['an identical re-send is nothing', [P(['a', 'completed'], ['b', 'pending']), P(['a', 'completed'], ['b', 'pending'])], ['plan_checkpoint', null]],
    ['whitespace/case-only differences are the same plan', [P(['Write  tests', 'pending']), P(['write tests', 'pending'])], ['plan_update', null]],
    [
      'a transient clear is nothing, and the re-sent plan after it is not new',
      [P(['a', 'completed'], ['b', 'pending']), [], P(['a', 'completed'], ['b', 'pending'])],
      ['plan_checkpoint', null, null],
    ],
    [
      're-sending a completed step with another step changed is only an update',
      [P(['a', 'completed'], ['b', 'pending']), P(['a', 'completed'], ['b', 'in_progress'])],
      ['plan_checkpoint', 'plan_update'],
    ],
    [
      'un-completing then re-completing a step does not re-fire',
      [P(['a', 'completed']), P(['a', 'in_progress']), P(['a', 'completed'])],
      ['plan_checkpoint', 'plan_update', 'plan_update'],
    ],
    [
      'two steps completed at once: one checkpoint',
      [P(['a', 'pending'], ['b', 'pending']), P(['a', 'completed'], ['b', 'completed'])],
      ['plan_update', 'plan_checkpoint'],
    ],
    [
      'a new step added while nothing new completed is an update',
      [P(['a', 'completed']), P(['a', 'completed'], ['c', 'pending'])],
      ['plan_checkpoint', 'plan_update'],
    ],
    ['an empty first plan is nothing', [[]], [null]],
  ];
  for (const [name, plans, expected] of cases) it(name, () => assert.deepEqual(run(plans), expected));

  it('checkpoint detail names the step and progress', () => {
    const r = applyPlan(null, P(['Phase 1: research the API', 'completed'], ['Phase 2: draft', 'pending']));
    assert.match(r.boundary!.detail, /completed "Phase 1: research the API" \(1\/2 done\)/);
  });

  it(`remembers the last ${MAX_COMPLETED} completed steps: the latest ones are not new again, one completed ${MAX_COMPLETED} steps ago is`, () => {
    let plan: PlanState | null = null;
    const complete = (text: string) => {
      const r = applyPlan(plan, P([text, 'completed'], ['the rest', 'pending']));
      plan = r.plan;
      return r.boundary?.kind;
    };
    for (let k = 0; k <= MAX_COMPLETED; k++) assert.equal(complete(`step ${k}`), 'plan_checkpoint');
    // The list is the state a cold replay rebuilds its lookups from: the latest kept, the oldest dropped.
    assert.deepEqual([plan!.completed.length, plan!.completed[0], plan!.completed.at(-1)], [MAX_COMPLETED, 'step 1', `step ${MAX_COMPLETED}`]);
    assert.equal(complete(`step ${MAX_COMPLETED}`), undefined, 'the plan re-sent as it was'); // identical: nothing
    assert.equal(complete(`Step  ${MAX_COMPLETED - 1}`), 'plan_update', 'a step completed moments ago is not a new checkpoint');
    assert.equal(complete('step 0'), 'plan_checkpoint', `${MAX_COMPLETED} steps later, step 0 is forgotten: new again`);
  });
});
