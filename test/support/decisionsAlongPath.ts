/**
 * Two bound policies (test/bench/phasedBayes.ts PhaseDP) run on one judged session: along the first one's path,
 * whether the second decides the same at each close, and what each expects (count + lambda · unaligned). The unit
 * tests of the learning bounds use it to check that a prior concentrated at the truth decides as being told it.
 */
import { bayesSchedule, type PhaseDP } from '../bench/phasedBayes';
import type { PhaseLabels } from '../../src/core/replay/schedule';

export interface PathAgreement {
  closes: number;
  agree: number;
  expected: { reference: number; other: number };
}

export function decisionsAlongPath(
  labels: PhaseLabels,
  reference: { policy: PhaseDP; zAfter: (k: number) => number },
  other: { policy: PhaseDP; zAfter: (k: number) => number },
  tally: PathAgreement = { closes: 0, agree: 0, expected: { reference: 0, other: 0 } },
): PathAgreement {
  const ref = reference.policy;
  const decide = ref.decide.bind(ref);
  // Along the reference's path: each close's state and context, both policies' decisions there.
  ref.decide = (k, z, runOn, c) => {
    const d = decide(k, z, runOn, c);
    tally.closes++;
    if (other.policy.decide(k, other.zAfter(k), runOn, c).compact === d.compact) tally.agree++;
    return d;
  };
  const a = bayesSchedule(labels, ref, reference.zAfter);
  const b = bayesSchedule(labels, other.policy, other.zAfter);
  tally.expected.reference += a.expected.count + ref.lambda * a.expected.unaligned;
  tally.expected.other += b.expected.count + other.policy.lambda * b.expected.unaligned;
  return tally;
}
