/**
 * `npm run bench:regression`: time of change-point detection per series (t-test mode, defaults) and of
 * the permutation mode, for history lengths a nightly schedule reaches in months to years. Prints figures.
 */
import { detectChangePoints } from '../../lib/core/regression/detect';
import { Prng } from '../../lib/core/regression/prng';

function series(n: number, seed: number): number[] {
  const rng = new Prng(seed);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const u = 1 - rng.next();
    const v = rng.next();
    const level = i < n / 3 ? 100 : i < (2 * n) / 3 ? 110 : 104;
    out.push(level + 2 * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v));
  }
  return out;
}

function time(label: string, reps: number, fn: () => unknown): void {
  fn(); // warm-up
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < reps; i++) fn();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6 / reps;
  process.stdout.write(`${label.padEnd(44)} ${ms.toFixed(2).padStart(9)} ms/series\n`);
}

for (const n of [30, 100, 365, 1000]) {
  const s = series(n, n);
  time(`ttest       n=${n}`, n >= 1000 ? 5 : 20, () => detectChangePoints(s));
}
for (const n of [30, 100, 365]) {
  const s = series(n, n);
  time(`permutation n=${n} (100 shuffles)`, 2, () => detectChangePoints(s, { method: 'permutation' }));
}
