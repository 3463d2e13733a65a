/**
 * fleetbench's change-point detector against Apache Otava 0.8 (Hunter's continuation, Python, PyPI
 * `apache-otava`), run here through its analysis API (`otava_oracle.py`) on generated series: steps of
 * 2–50 %, two steps, noise, spikes, trends, zeros and integer-valued series, with several windows,
 * p-values and magnitudes. fleetbench runs with `minSegment: 1` (its short-segment rule off).
 *
 * - The split (Otava's candidate search and first-pass p-value) must give Otava's weak change points on
 *   every series.
 * - The final change points, p-values and magnitudes must equal Otava's, or differ only by the merge
 *   rule (docs/regression.md, "Where fleetbench differs"): fleetbench's code path rerun with Otava's
 *   recomputation after a drop (`otavaRecompute`) must then give exactly Otava's answer. Each such
 *   series is listed below as its own test.
 *
 * Fails, not skips, when Python or apache-otava 0.8.x is missing (`npm test`'s pretest installs it into .venv).
 */
import { detectChangePoints, fillMissing } from '../../lib/core/regression/detect';
import { compareSplit, magnitude } from '../../lib/core/regression/stats';
import { close, compareWithOtava, Comparison } from './regression/compare';
import { OtavaCase, OtavaResult, runOtava } from './regression/otava';
import { oracleSeries } from './regression/series';

const VARIANTS = [
  { window: 30, maxPValue: 0.01, minMagnitude: 0 },
  { window: 20, maxPValue: 0.1, minMagnitude: 0.02 },
  { window: 50, maxPValue: 0.3, minMagnitude: 0 },
  { window: 40, maxPValue: 0.001, minMagnitude: 0 },
];

/** Hunter's published series (README sample.csv metric1/2, tests/analysis_test.py series1/2) */
const HUNTER = [
  {
    name: 'hunter readme metric1',
    values: [154023, 138455, 143112, 149190, 132098, 151344, 155145, 148889, 149466, 148209],
  },
  {
    name: 'hunter readme metric2',
    values: [10.43, 10.23, 10.29, 10.91, 10.34, 10.69, 9.23, 9.11, 9.13, 9.03],
  },
  { name: 'hunter test series1', values: [1.02, 0.95, 0.99, 1.0, 1.12, 0.9, 0.5, 0.51, 0.48, 0.48, 0.55] },
  { name: 'hunter test series2', values: [2.02, 2.03, 2.01, 2.04, 1.82, 1.85, 1.79, 1.81, 1.8, 1.76, 1.78] },
];

const CASES: OtavaCase[] = [];
[...HUNTER, ...oracleSeries()].forEach((s, i) => {
  CASES.push({ ...s, window: 50, maxPValue: 0.001, minMagnitude: s.name.startsWith('hunter') ? 0 : 0.05 });
  CASES.push({ ...s, name: `${s.name} (${JSON.stringify(VARIANTS[i % 4])})`, ...VARIANTS[i % 4] });
});

let oracle: { version: string; results: OtavaResult[] } | Error;
try {
  oracle = runOtava(CASES);
} catch (e) {
  oracle = e as Error;
}
const comparisons: Comparison[] =
  oracle instanceof Error
    ? []
    : CASES.map((c, i) => compareWithOtava(c, (oracle as { results: OtavaResult[] }).results[i]));
const byMergeRule = comparisons.filter((c) => c.verdict === 'merge rule');

describe('change points equal Apache Otava 0.8 on generated series', () => {
  it('runs apache-otava 0.8.x on at least 100 series, most of them with change points', () => {
    if (oracle instanceof Error) throw oracle;
    expect(oracle.version).toMatch(/^0\.8\./);
    expect(oracle.results.map((r) => r.name)).toEqual(CASES.map((c) => c.name));
    expect(new Set(CASES.map((c) => c.values)).size).toBeGreaterThanOrEqual(100);
    expect(comparisons.filter((c) => c.otava.length > 0).length).toBeGreaterThan(CASES.length / 2);
  });

  it("the split (candidate search, first-pass p-value) finds Otava's weak change points on every series", () => {
    expect(comparisons).toHaveLength(CASES.length);
    expect(comparisons.filter((c) => !c.splitEqual).map((c) => c.name)).toEqual([]);
  });

  it('indexes, means, p-values and magnitudes are equal except where the merge rule explains it', () => {
    expect(comparisons).toHaveLength(CASES.length);
    const unexplained = comparisons.filter((c) => c.verdict === 'unexplained');
    expect(unexplained.map((c) => `${c.name}: ${c.detail}`)).toEqual([]);
    // the comparison is not vacuous: most series agree outright, including ones with several points
    const equal = comparisons.filter((c) => c.verdict === 'equal');
    expect(equal.length).toBeGreaterThan(CASES.length / 2);
    expect(equal.filter((c) => c.otava.length >= 2).length).toBeGreaterThan(20);
  });

  it("where the indexes agree but statistics differ, Otava's are stale and fleetbench's are current", () => {
    const sameIndexes = byMergeRule.filter((x) => x.fleetbench.join() === x.otava.join());
    expect(sameIndexes.length).toBeGreaterThan(0);
    for (const c of sameIndexes) {
      const k = CASES.findIndex((x) => x.name === c.name);
      const { values, window, maxPValue, minMagnitude } = CASES[k];
      const series = fillMissing(values)!.series;
      const theirs = (oracle as { results: OtavaResult[] }).results[k].points;
      const ours = detectChangePoints(values, {
        window,
        maxPValue,
        minMagnitude,
        minSegment: 1,
      }).changePoints;
      const ends = [0, ...theirs.map((p) => p.index), series.length];
      let stale = 0;
      theirs.forEach((p, j) => {
        // the statistics of this point against its current neighbours
        const fresh = compareSplit(series, ends[j], p.index, ends[j + 2]);
        expect(close(ours[j].meanBefore, fresh.meanBefore, 1e-12)).toBe(true);
        expect(close(ours[j].meanAfter, fresh.meanAfter, 1e-12)).toBe(true);
        expect(close(ours[j].magnitude, magnitude(fresh), 1e-12)).toBe(true);
        if (!close(p.meanAfter, fresh.meanAfter, 1e-12) || !close(p.meanBefore, fresh.meanBefore, 1e-12))
          stale++;
      });
      expect({ name: c.name, stale: stale > 0 }).toEqual({ name: c.name, stale: true });
    }
  });

  if (byMergeRule.length) {
    it.each(byMergeRule.map((c) => [c.name, c.detail, c] as const))(
      '%s differs only by the merge rule (%s)',
      (_name, _detail, c) => {
        expect(c.splitEqual).toBe(true);
        expect(c.verdict).toBe('merge rule');
      },
    );
  }
});
