/**
 * EXPERIMENT (issue 33's ceiling; bench only): rawr's schedule with the family's true law as its scenarios
 * from `from` phases known (fewer: the shipped scenarios), an emergency weighing `w` (3.5 before `from`,
 * as dcffce4's oracleRun), with the shipped comparison or (RAWR_DP=1) f9edf4e's finite-horizon DP.
 *   node out/test/bench/phasedCeiling.js --family drifting --seed 1 --to 10 --from 1 --weight 3
 */
import { optimalSchedule, OPTIMUM_LIMIT_FRACTION } from '../../src/core/replay/schedule';
import { familyArgs } from './familyArgs';
import { rawrSchedule } from './phased';
import { familySessions } from './phasedBound';
import { FAMILIES, rng } from './phasedGen';

const { set, seeds, value } = familyArgs(process.argv.slice(2));
const family = value('--family', 'noisy');
const from = Number(value('--from', '1'));
const weight = Number(value('--weight', '3'));
const early = Number(value('--early', '3.5'));
const f = FAMILIES.findIndex((x) => x.name === family);
let count = 0;
let aligned = 0;
let opt = 0;
const G = globalThis as { rawrOracleFn?: (phases: number) => { xs: number[]; w: number } | undefined };
for (const { model, session } of familySessions(f, seeds, 8)) {
  G.rawrOracleFn = (phases) => {
    if (phases < from || !model) return undefined;
    const k = Math.max(0, phases - 1);
    const sizes = Array.from({ length: 1000 }, (_, j) => model.phases.draw(k + 1, model.phases.zAfter(k), rng(j + 1)).size).sort((x, y) => x - y);
    return { xs: Array.from({ length: 20 }, (_, q) => sizes[Math.floor(((q + 0.5) / 20) * sizes.length)]!), w: phases >= 4 ? weight : early };
  };
  const r = rawrSchedule({ name: session.name, labels: session.labels, text: session.text }, set.settings, set.prompts);
  count += r.score.compactions;
  aligned += r.score.aligned;
  opt += optimalSchedule(session.labels, OPTIMUM_LIMIT_FRACTION)!.compactions;
}
console.log(
  `${family} seeds ${seeds[0]}-${seeds[seeds.length - 1]}, true law from ${from} phases, weight ${weight} (early ${early})${process.env.RAWR_DP === '1' ? ', DP' : ''}: ${count} = ${(count / opt).toFixed(2)}x the optimum's ${opt}, ${((100 * aligned) / count).toFixed(1)}% aligned`,
);
