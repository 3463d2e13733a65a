import { InputError } from '../../../lib/core/common/errors';
import {
  ChangePoint,
  detectChangePoints,
  fillMissing,
  firstPassPValue,
  merge,
  split,
  statsAt,
} from '../../../lib/core/regression/detect';
import { bestSplit, eDivisive, SplitSearch } from '../../../lib/core/regression/edivisive';
import { Prng } from '../../../lib/core/common/prng';
import { PermutationTester } from '../../../lib/core/regression/testers';
import { compareSplit, forwardChange, magnitude } from '../../../lib/core/regression/stats';

/** Deterministic normal noise (Box–Muller over the seeded generator). */
function gauss(rng: Prng, mu: number, sd: number): number {
  const u = 1 - rng.next();
  const v = rng.next();
  return mu + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

function noise(rng: Prng, n: number, mu: number, sd: number): number[] {
  return Array.from({ length: n }, () => gauss(rng, mu, sd));
}

const indexes = (values: (number | null)[], o = {}) =>
  detectChangePoints(values, o).changePoints.map((c) => c.index);

describe('q̂ (E-Divisive divergence)', () => {
  it('equals the definition computed directly for every split τ and end κ, in every segment', () => {
    // Prepare
    const s = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3.5];
    const within = (z: number[]) => {
      let t = 0;
      for (let i = 0; i < z.length; i++) for (let j = i + 1; j < z.length; j++) t += Math.abs(z[i] - z[j]);
      return t;
    };
    const search = new SplitSearch(s);
    let checked = 0;
    for (const [from, to] of [
      [0, 10],
      [3, 10],
      [2, 7],
      [8, 10],
    ]) {
      // Act
      const got = search.matrix(from, to);
      const dim = to - from - 1;
      // Assess: Q(X, Y) = 2/(n+m)·Σ|x−y| − 2m/((n+m)(n−1))·Σ_X|x_i−x_j| − 2n/((n+m)(m−1))·Σ_Y|y_i−y_j|
      for (let tau = from + 1; tau < to; tau++) {
        for (let kappa = from + 1; kappa <= to; kappa++) {
          const cell = got[(tau - from - 1) * dim + (kappa - from - 2)];
          if (kappa <= tau) {
            if (kappa >= from + 2) expect(cell).toBe(0);
            continue;
          }
          const x = s.slice(from, tau);
          const y = s.slice(tau, kappa);
          const n = x.length;
          const m = y.length;
          let cross = 0;
          for (const a of x) for (const b of y) cross += Math.abs(a - b);
          const expected =
            (2 / (n + m)) * cross -
            (n >= 2 ? ((2 * m) / ((n + m) * (n - 1))) * within(x) : 0) -
            (m >= 2 ? ((2 * n) / ((n + m) * (m - 1))) * within(y) : 0);
          expect(cell).toBeCloseTo(expected, 10);
          checked++;
        }
      }
    }
    expect(checked).toBe(45 + 21 + 10 + 1);
  });

  it('finds a single outlier alone (κ = τ + 1) instead of splitting the whole segment around it', () => {
    // with κ fixed at the segment's end (Hunter), the best split of this series is 4 or 5 and a spike
    // becomes two change points; with κ searched, Y = [9] alone scores highest
    const s = [1, 1.1, 0.9, 1, 9, 1, 1.1, 0.9, 1, 1.05];
    const best = bestSplit(s, 0, s.length);
    expect(best.index).toBe(4);
    const q = new SplitSearch(s).matrix(0, s.length);
    const dim = s.length - 1;
    expect(best.qhat).toBe(q[3 * dim + 3]); // τ = 4, κ = 5
    expect(Math.max(...q)).toBe(best.qhat);
  });

  it('peaks at a clean step', () => {
    expect(bestSplit([1, 1, 1, 1, 5, 5, 5], 0, 7).index).toBe(4);
  });
});

describe('detectChangePoints on synthetic series with known answers', () => {
  it('finds a clean step at the index where it was put', () => {
    // Prepare: 10σ step at 40
    const rng = new Prng(1);
    const values = [...noise(rng, 40, 100, 2), ...noise(rng, 40, 120, 2)];
    // Act
    const [cp, ...rest] = detectChangePoints(values).changePoints;
    // Assess
    expect(rest).toEqual([]);
    expect(cp.index).toBe(40);
    expect(cp.meanBefore).toBeCloseTo(100, 0);
    expect(cp.meanAfter).toBeCloseTo(120, 0);
    expect(cp.pValue).toBeLessThan(1e-10);
    expect(cp.forwardChange).toBeCloseTo(cp.meanAfter / cp.meanBefore - 1, 12);
    expect(cp.confirmed).toBe(true);
  });

  it('finds nothing in noise alone (several seeds, 200 points each)', () => {
    for (const seed of [2, 3, 4, 5, 6]) {
      expect(indexes(noise(new Prng(seed), 200, 100, 3))).toEqual([]);
    }
  });

  it('confirms nothing for a single outlier: in the middle, at the start, or the newest run', () => {
    const rng = new Prng(7);
    const base = noise(rng, 60, 100, 2);
    const mid = [...base];
    mid[30] = 160;
    const first = [...base];
    first[0] = 160;
    const last = [...base];
    last[59] = 160;
    expect(indexes(mid)).toEqual([]);
    expect(indexes(first)).toEqual([]);
    // The newest run alone is a candidate, never a confirmed change.
    const atEnd = detectChangePoints(last).changePoints;
    expect(atEnd.filter((c) => c.confirmed)).toEqual([]);
    // Hunter itself (no short-segment rule) reports it as a change point: the rule is what holds it back.
    expect(indexes(last, { minSegment: 1 })).toEqual([59]);
  });

  it('reports no change point for a two-run blip between regimes', () => {
    const rng = new Prng(8);
    const values = [...noise(rng, 30, 100, 1), 130, 131, ...noise(rng, 30, 100, 1)];
    expect(indexes(values)).toEqual([]);
    // Otava 0.8 (minSegment 1) agrees: its search proposes the blip alone (τ = 30, κ = 32), and the
    // split's t-test of [0, 30) against [30, 62) does not pass (Hunter's fixed κ found 30 and 32)
    expect(indexes(values, { minSegment: 1 })).toEqual([]);
  });

  it('finds two steps at both indexes, with the means of each regime', () => {
    const rng = new Prng(9);
    const values = [...noise(rng, 30, 100, 2), ...noise(rng, 30, 115, 2), ...noise(rng, 30, 95, 2)];
    const cps = detectChangePoints(values).changePoints;
    expect(cps.map((c) => c.index)).toEqual([30, 60]);
    // neighbours share their middle segment's statistics (recomputed, never stale)
    expect(cps[0].meanAfter).toBe(cps[1].meanBefore);
    expect(cps[0].forwardChange).toBeGreaterThan(0.1);
    expect(cps[1].forwardChange).toBeLessThan(-0.1);
  });

  it('turns a slow drift into one or more upward steps, never a downward one', () => {
    // latency creeping up 0.3 % per run for 150 runs: +45 % overall
    const rng = new Prng(10);
    const values = Array.from({ length: 150 }, (_, i) => gauss(rng, 100 * (1 + 0.003 * i), 2));
    const cps = detectChangePoints(values).changePoints;
    expect(cps.length).toBeGreaterThanOrEqual(1);
    for (const c of cps) {
      expect(c.meanAfter).toBeGreaterThan(c.meanBefore);
      expect(c.magnitude).toBeGreaterThan(0.05);
    }
  });

  it('ignores a drift whose whole extent stays under the minimum magnitude', () => {
    const rng = new Prng(11);
    const values = Array.from({ length: 150 }, (_, i) => gauss(rng, 100 * (1 + 0.0002 * i), 0.2));
    expect(indexes(values)).toEqual([]);
  });

  it('works on series shorter than the window, and returns nothing below 3 points', () => {
    const rng = new Prng(12);
    expect(indexes([...noise(rng, 6, 50, 0.5), ...noise(rng, 6, 60, 0.5)])).toEqual([6]);
    expect(indexes([...noise(rng, 6, 50, 0.5), ...noise(rng, 6, 60, 0.5)], { window: 4 })).toEqual([6]);
    expect(indexes([1, 2])).toEqual([]);
    expect(indexes([])).toEqual([]);
  });

  it('fills missing values like Hunter and still finds the step', () => {
    const rng = new Prng(13);
    const values: (number | null)[] = [...noise(rng, 30, 100, 2), ...noise(rng, 30, 125, 2)];
    values[0] = null; // leading gap: back-filled
    values[10] = null;
    values[45] = NaN as unknown as number;
    values[59] = null; // trailing gap: forward-filled
    const { changePoints, filled } = detectChangePoints(values);
    expect(filled).toEqual([0, 10, 45, 59]);
    expect(changePoints.map((c) => c.index)).toEqual([30]);
  });

  it('places a step that begins on a missing run at the first run that reports it', () => {
    const rng = new Prng(14);
    const values: (number | null)[] = [...noise(rng, 30, 100, 2), ...noise(rng, 30, 125, 2)];
    values[30] = null;
    expect(indexes(values)).toEqual([31]);
    expect(indexes([null, null, null])).toEqual([]);
  });

  it('fillMissing forward-fills and back-fills (Hunter tests/analysis_test.py test_fill_missing)', () => {
    expect(Array.from(fillMissing([null, null, 1.0, 1.2, 0.5])!.series)).toEqual([1.0, 1.0, 1.0, 1.2, 0.5]);
    expect(Array.from(fillMissing([1.0, 1.2, null, null, 4.3])!.series)).toEqual([1.0, 1.2, 1.2, 1.2, 4.3]);
    expect(Array.from(fillMissing([1.0, 1.2, 0.5, null, null])!.series)).toEqual([1.0, 1.2, 0.5, 0.5, 0.5]);
    expect(fillMissing([null, undefined])).toBeUndefined();
  });

  it('is deterministic', () => {
    const rng = new Prng(15);
    const values = [...noise(rng, 70, 10, 1), ...noise(rng, 70, 12, 1), ...noise(rng, 70, 10.5, 1)];
    expect(detectChangePoints(values)).toEqual(detectChangePoints(values));
  });

  it('rejects bad options with the field named', () => {
    try {
      detectChangePoints([1, 2, 3], { window: 1, maxPValue: 2, method: 'magic' as 'ttest' });
      throw new Error('expected an InputError');
    } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      expect((e as InputError).issues.map((i) => i.path)).toEqual(['window', 'maxPValue', 'method']);
    }
  });
});

describe('permutation test (seeded)', () => {
  it('finds a clean step and the same answer for the same seed', () => {
    const rng = new Prng(21);
    const values = [...noise(rng, 30, 100, 2), ...noise(rng, 30, 120, 2)];
    const a = detectChangePoints(values, { method: 'permutation', seed: 99 });
    const b = detectChangePoints(values, { method: 'permutation', seed: 99 });
    expect(a.changePoints.map((c) => c.index)).toEqual([30]);
    expect(a.changePoints[0].pValue).toBe(0); // no shuffle beats a 10σ step
    expect(b).toEqual(a);
  });

  it('finds nothing in noise alone', () => {
    expect(indexes(noise(new Prng(22), 80, 100, 3), { method: 'permutation' })).toEqual([]);
  });

  it('estimates the exact permutation p-value of a small series (checked by enumerating all 7! orders)', () => {
    // Prepare
    const s = Float64Array.from([1.0, 1.3, 0.9, 1.6, 1.8, 1.5, 1.7]);
    const candidate = bestSplit(s, 0, s.length);
    const maxQ = (xs: number[]) => bestSplit(xs, 0, xs.length).qhat;
    let atLeast = 0;
    let total = 0;
    const permute = (rest: number[], acc: number[]) => {
      if (!rest.length) {
        total++;
        if (maxQ(acc) >= candidate.qhat) atLeast++;
        return;
      }
      rest.forEach((v, i) => permute([...rest.slice(0, i), ...rest.slice(i + 1)], [...acc, v]));
    };
    permute(Array.from(s), []);
    const exact = atLeast / total;
    // Act
    const tester = new PermutationTester(0.05, 4000, 5);
    tester.isSignificant(candidate, s, [0, s.length]);
    // Assess: binomial standard error at p≈exact with 4000 draws is < 0.008
    expect(total).toBe(5040);
    expect(Math.abs(tester.pValues.get(candidate.index)! - exact)).toBeLessThan(0.03);
    expect(exact).toBeGreaterThan(0.02); // a case where the test matters
  });

  it('eDivisive stops when no split has a positive divergence', () => {
    const s = Float64Array.from([5, 5, 5, 5]);
    expect(eDivisive(s, new PermutationTester(0.99, 10, 1))).toEqual([]);
  });
});

describe('magnitude with a zero mean (Otava 0.8: a ratio over 0 counts as 0)', () => {
  it('is 1 from or to 0, 0 for 0 → 0, and forwardChange stays ±∞ from 0', () => {
    expect(magnitude({ meanBefore: 0, meanAfter: 0.02 })).toBe(1);
    expect(magnitude({ meanBefore: 0.02, meanAfter: 0 })).toBe(1);
    expect(magnitude({ meanBefore: 0, meanAfter: -3 })).toBe(1);
    expect(magnitude({ meanBefore: 0, meanAfter: 0 })).toBe(0);
    expect(magnitude({ meanBefore: 100, meanAfter: 125 })).toBeCloseTo(0.25, 15);
    expect(forwardChange({ meanBefore: 0, meanAfter: 0.02 })).toBe(Infinity);
  });

  it('so a step from zero errors is kept at the default minMagnitude, with a finite magnitude', () => {
    const values = [...Array(20).fill(0), ...Array(10).fill(0.02)];
    const [cp, ...rest] = detectChangePoints(values).changePoints;
    expect(rest).toEqual([]);
    expect([cp!.index, cp!.magnitude, cp!.confirmed]).toEqual([20, 1, true]);
  });
});

describe('the merge rule: every reported point describes the regimes shown (docs/regression.md)', () => {
  // steps at the edge of detection (2 and 5 % at noise CVs of 2–5 %, 80 runs), where Otava 0.8's merge
  // keeps points on statistics of a segment it has removed
  const series = Array.from({ length: 120 }, (_, k) => {
    const rng = new Prng(50_000 + k);
    const at = 30 + rng.below(21);
    const step = 1 + (k % 2 ? 0.02 : 0.05) * (rng.next() < 0.5 ? 1 : -1);
    const sd = 1 + (k % 4);
    return Float64Array.from([...noise(rng, at, 100, sd), ...noise(rng, 80 - at, 100 * step, sd)]);
  });
  const options = [
    { window: 50, maxPValue: 0.001, minMagnitude: 0.05 },
    { window: 50, maxPValue: 0.001, minMagnitude: 0 },
  ];

  /** Points whose statistics are not those of their current neighbours, or that fail a threshold. */
  function violations(s: Float64Array, points: ChangePoint[], o: (typeof options)[number]): number[] {
    const ends = [0, ...points.map((p) => p.index), s.length];
    return points
      .filter((p, k) => {
        const fresh = compareSplit(s, ends[k], p.index, ends[k + 2]);
        const same = fresh.meanBefore === p.meanBefore && fresh.meanAfter === p.meanAfter;
        const sameP = fresh.pValue === p.pValue && magnitude(fresh) === p.magnitude;
        return !(same && sameP && fresh.pValue < o.maxPValue && magnitude(fresh) > o.minMagnitude);
      })
      .map((p) => p.index);
  }

  it("holds for fleetbench (minSegment 3 and 1) on every series; Otava's recomputation breaks it on some", () => {
    let otavaBroken = 0;
    let points = 0;
    const bad: unknown[] = [];
    for (const o of options) {
      for (const s of series) {
        for (const minSegment of [3, 1]) {
          const found = detectChangePoints(Array.from(s), { ...o, minSegment }).changePoints;
          points += found.length;
          const v = violations(s, found, o);
          if (v.length) bad.push({ o, minSegment, series: Array.from(s), points: v });
        }
        const weak = split(s, o.window, firstPassPValue(o.maxPValue));
        const otava = merge(s, statsAt(s, weak), { ...o, minSegment: 1, otavaRecompute: true });
        if (violations(s, otava, o).length) otavaBroken++;
      }
    }
    expect(bad).toEqual([]);
    expect(points).toBeGreaterThan(200); // not vacuous: most detections report a point
    expect(otavaBroken).toBeGreaterThan(5); // the check can fail: Otava's stale statistics fail it
  });
});
