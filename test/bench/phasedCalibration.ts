/**
 * Are the calibrated scenarios' odds right? (issue 33; docs/benchmarks.md, "Schedule quality"). For each
 * generated family, draws its phase sizes from its own law (many sessions, no transcript: the forecast's
 * input alone) and, at every phase from CALIBRATED_MIN_PHASES on, builds calibratedScenarios from the phases
 * before it (each also with the forecast margin, as compareNowAndWait weighs them), then counts how often the
 * phase that came was above the scenarios' 80th and 90th percentile and above all of them. Calibrated
 * scenarios are exceeded about 20% / 10% of the time, and above all of them about 1 / (errors + 1) of the
 * time; more means their odds of a large phase are too low, less means too high. Split by the smoothing the
 * thread picked (the latest phase alone, a = 1, or a longer memory) and by how many errors there were.
 *
 *   node out/test/bench/phasedCalibration.js [--family drifting] [--count 3000]
 *
 * Bench only, pure (no engine replay): a few seconds per family.
 */
import { DEFAULT_SETTINGS } from '../../src/core/settings/schema';
import { CALIBRATED_MIN_PHASES, calibratedFit } from '../../src/core/arbiter/forecast';
import { FAMILIES, rng } from './phasedGen';

interface Tally {
  n: number;
  p80: number;
  p90: number;
  all: number;
}

const tally = (): Tally => ({ n: 0, p80: 0, p90: 0, all: 0 });
const share = (k: number, n: number) => (n > 0 ? (k / n).toFixed(3) : '  -  ');

function main(argv: readonly string[]) {
  const value = (flag: string, dflt: string) => (argv.includes(flag) ? (argv[argv.indexOf(flag) + 1] ?? dflt) : dflt);
  const only = value('--family', '');
  const count = Number(value('--count', '3000'));
  const margin = 1 + DEFAULT_SETTINGS.forecast_margin_percent / 100;
  const line = (window: number) => window * (1 - DEFAULT_SETTINGS.emergency_percent_remaining_lt / 100);
  console.log(`calibrated scenarios against the phase that came (${count} sessions a family): share above their 80th, 90th percentile, all of them`);
  FAMILIES.forEach((family, f) => {
    if (only && family.name !== only) return;
    const by = new Map<string, Tally>();
    const total = tally();
    let ideal = 0;
    for (let k = 0; k < count; k++) {
      const shape = family.shape(rng(1_000_003 * (f + 1) + k));
      const room = line(shape.window) - shape.first;
      for (let n = CALIBRATED_MIN_PHASES; n < shape.phases.length; n++) {
        const fitted = calibratedFit(shape.phases.slice(0, n), (x) => x >= room);
        if (!fitted) continue;
        const xs = fitted.scenarios.flatMap((x) => [x, x * margin]).sort((a, b) => a - b);
        const q = (p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
        const next = shape.phases[n]!;
        const key = `${fitted.smoothing === 1 ? 'a = 1' : 'a < 1'}, ${fitted.errors <= 4 ? '3-4' : fitted.errors <= 6 ? '5-6' : '7+'} errors`;
        for (const t of [total, by.get(key) ?? by.set(key, tally()).get(key)!]) {
          t.n++;
          t.p80 += next > q(0.8) ? 1 : 0;
          t.p90 += next > q(0.9) ? 1 : 0;
          t.all += next > xs[xs.length - 1]! ? 1 : 0;
        }
        ideal += 1 / (fitted.errors + 1);
      }
    }
    console.log(
      `  ${family.name.padEnd(11)} ${String(total.n).padStart(6)} closes  ${share(total.p80, total.n)}  ${share(total.p90, total.n)}  ${share(total.all, total.n)}  (all: ${share(ideal, total.n)} if calibrated)`,
    );
    for (const [key, t] of [...by].sort(([a], [b]) => a.localeCompare(b)))
      console.log(`    ${key.padEnd(18)} ${String(t.n).padStart(6)}  ${share(t.p80, t.n)}  ${share(t.p90, t.n)}  ${share(t.all, t.n)}`);
  });
}

main(process.argv.slice(2));
