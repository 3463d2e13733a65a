/**
 * Deterministic synthetic series (seeded mulberry32 + Box–Muller) for the Otava oracle test and the
 * detection benchmark.
 */
import { Prng } from '../../../lib/core/common/prng';

export function gauss(rng: Prng): number {
  const u = 1 - rng.next();
  const v = rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Rounds like a stored metric (6 significant digits), so Python and TypeScript read the same doubles. */
const r6 = (x: number) => Number(x.toPrecision(6));

/** Levels `[length, mean]` in turn, each point mean · (1 + cv · N(0, 1)). */
export function regimes(rng: Prng, parts: readonly [number, number][], cv: number): number[] {
  const out: number[] = [];
  for (const [n, mu] of parts) for (let i = 0; i < n; i++) out.push(r6(mu * (1 + cv * gauss(rng))));
  return out;
}

/** One step of relative size `step` at index `at` in a series of `n` points. */
export function stepSeries(seed: number, n: number, at: number, step: number, cv: number): number[] {
  return regimes(
    new Prng(seed),
    [
      [at, 100],
      [n - at, 100 * (1 + step)],
    ],
    cv,
  );
}

export interface GeneratedCase {
  name: string;
  values: number[];
}

/** The oracle's series: steps of several sizes, two steps, noise, spikes, trends, zeros. */
export function oracleSeries(): GeneratedCase[] {
  const out: GeneratedCase[] = [];
  let seed = 1000;
  const rng = () => new Prng(seed++);
  // one step: 2 … 50 % at noise CVs of 1 and 3 %, random lengths and positions
  for (const step of [0.02, 0.05, 0.1, 0.2, 0.5, -0.1]) {
    for (const cv of [0.01, 0.03]) {
      for (let k = 0; k < 3; k++) {
        const g = rng();
        const before = 15 + g.below(50);
        const after = 8 + g.below(50);
        out.push({
          name: `step ${step * 100}% cv ${cv * 100}% #${k}`,
          values: regimes(
            g,
            [
              [before, 100],
              [after, 100 * (1 + step)],
            ],
            cv,
          ),
        });
      }
    }
  }
  // two steps
  for (let k = 0; k < 16; k++) {
    const g = rng();
    const a = 1 + [0.05, 0.1, 0.2, -0.1][k % 4];
    const b = a * (1 + [-0.08, 0.15, 0.05, 0.3][(k >> 2) % 4]);
    const parts: [number, number][] = [
      [10 + g.below(40), 50],
      [5 + g.below(30), 50 * a],
      [5 + g.below(40), 50 * b],
    ];
    out.push({ name: `two steps #${k}`, values: regimes(g, parts, 0.01 + 0.01 * (k % 3)) });
  }
  // noise only
  for (let k = 0; k < 16; k++) {
    const g = rng();
    out.push({ name: `noise #${k}`, values: regimes(g, [[30 + g.below(150), 200]], 0.01 * (1 + (k % 5))) });
  }
  // spikes: single outliers and two-run blips in noise, some at the start or the end
  for (let k = 0; k < 20; k++) {
    const g = rng();
    const values = regimes(g, [[40 + g.below(60), 100]], 0.02);
    const spikes = 1 + (k % 3);
    for (let s = 0; s < spikes; s++) {
      const at =
        k % 5 === 0 && s === 0 ? 0 : k % 5 === 1 && s === 0 ? values.length - 1 : g.below(values.length);
      const height = 1 + (0.3 + g.next()) * (k % 2 ? 1 : -0.6);
      values[at] = r6(values[at] * height);
      if (k % 4 === 3 && at + 1 < values.length) values[at + 1] = r6(values[at + 1] * height);
    }
    out.push({ name: `spikes #${k}`, values });
  }
  // trends: slow drifts, some with a step on top
  for (let k = 0; k < 14; k++) {
    const g = rng();
    const n = 40 + g.below(120);
    const slope = [0.001, 0.002, 0.004, -0.003][k % 4];
    const values = Array.from({ length: n }, (_, i) => r6(100 * (1 + slope * i) * (1 + 0.015 * gauss(g))));
    if (k % 3 === 2) for (let i = Math.floor(n / 2); i < n; i++) values[i] = r6(values[i] * 1.1);
    out.push({ name: `trend ${slope * 100}%/run #${k}`, values });
  }
  // zeros: error counts that are mostly 0, a step from 0, integer-valued series (exact ties in q̂)
  for (let k = 0; k < 24; k++) {
    const g = rng();
    const n = 30 + g.below(70);
    let values: number[];
    if (k % 4 === 0) {
      const at = 10 + g.below(n - 15);
      values = Array.from({ length: n }, (_, i) => (i < at ? 0 : r6(0.02 * (1 + 0.1 * gauss(g)))));
    } else if (k % 4 === 1) {
      values = Array.from({ length: n }, () => (g.next() < 0.15 ? 1 + g.below(3) : 0));
    } else if (k % 4 === 2) {
      const at = 10 + g.below(n - 15);
      values = Array.from({ length: n }, (_, i) => (i < at ? 10 : 12) + g.below(3) - 1);
    } else {
      const at = 10 + g.below(n - 15);
      values = Array.from({ length: n }, (_, i) => (i < at ? (g.next() < 0.1 ? 1 : 0) : 3 + g.below(2)));
    }
    out.push({ name: `zeros/integers #${k}`, values });
  }
  return out;
}
