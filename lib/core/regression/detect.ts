/**
 * Change-point detection over one metric's history, following Apache Otava 0.8 (Hunter's continuation,
 * `otava/analysis.py` `compute_change_points`; Fleming et al., ICPE 2023):
 *
 *  1. split: E-Divisive over sliding windows of `window` points (step ⌊window/2⌋; the next window starts
 *     at the last change point found, if later), with Otava's candidate search (see edivisive.ts), each
 *     candidate screened by a t-test at the first-pass level (`firstPassPValue`);
 *  2. every change point gets its statistics against its neighbours ([0, points..., n]);
 *  3. merge, bottom-up: drop the point with the largest p-value while it is ≥ maxPValue, then the point
 *     with the smallest magnitude while it is ≤ minMagnitude, recomputing the two neighbours each time.
 *
 * The one intended difference from Otava is in the merge: after dropping a point, fleetbench recomputes
 * both of its former neighbours; Otava recomputes the point after it and the one after that, so the
 * point before keeps statistics of a segment that no longer exists.
 *
 * fleetbench adds one rule to the merge (`minSegment`, default 3): a stretch between two change points,
 * or before the first one, shorter than `minSegment` runs is an outlier rather than a regime, so the
 * bounding change point with the larger p-value is dropped. A last change point with fewer than
 * `minSegment` runs after it is kept but not `confirmed` — one noisy night is not a regression yet.
 * With `minSegment: 1` the rule is off.
 *
 * `method: 'permutation'` runs E-Divisive over the whole series with MongoDB's permutation test instead
 * (Hunter's `orig_edivisive`; seeded, so deterministic), then the same merge on magnitude and segments.
 */
import { InputError } from '../common/errors';
import { eDivisive } from './edivisive';
import { PermutationTester, TTestTester } from './testers';
import { Comparison, compareSplit, forwardChange, magnitude } from './stats';

export interface DetectOptions {
  /** points per sliding window. @default 50 */
  window?: number;
  /** a change point's two-sided t-test p-value must be below this. @default 0.001 */
  maxPValue?: number;
  /** a change point's relative change must exceed this (0.05 = 5 %). @default 0.05 */
  minMagnitude?: number;
  /** fewest runs in a regime (see the module notes); 1 disables the rule. @default 3 */
  minSegment?: number;
  /** significance test while splitting. @default 'ttest' */
  method?: 'ttest' | 'permutation';
  /** permutation test: accepted p-value. @default 0.05 */
  alpha?: number;
  /** permutation test: shuffles per candidate. @default 100 */
  permutations?: number;
  /** permutation test: generator seed. @default 1234 */
  seed?: number;
}

export const DEFAULT_DETECT_OPTIONS: Required<DetectOptions> = {
  window: 50,
  maxPValue: 0.001,
  minMagnitude: 0.05,
  minSegment: 3,
  method: 'ttest',
  alpha: 0.05,
  permutations: 100,
  seed: 1234,
};

export interface ChangePoint extends Comparison {
  /** index of the first point of the new regime */
  index: number;
  /** max(|after/before − 1|, |before/after − 1|) */
  magnitude: number;
  /** after/before − 1 */
  forwardChange: number;
  /** false while the new regime has fewer than `minSegment` points */
  confirmed: boolean;
}

export interface Detection {
  changePoints: ChangePoint[];
  /** indexes whose value was missing and filled from a neighbour */
  filled: number[];
}

/** A value is missing when it is null, undefined or not a finite number. */
export function isMissing(v: number | null | undefined): boolean {
  return v === null || v === undefined || !Number.isFinite(v);
}

/**
 * Hunter's `fill_missing`: forward-fill from the nearest earlier value, then back-fill leading gaps.
 * Returns undefined when every value is missing.
 */
export function fillMissing(
  values: readonly (number | null | undefined)[],
): { filled: number[]; series: Float64Array } | undefined {
  const series = new Float64Array(values.length);
  const filled: number[] = [];
  let prev: number | undefined;
  values.forEach((v, i) => {
    if (isMissing(v)) {
      filled.push(i);
      if (prev !== undefined) series[i] = prev;
      else series[i] = NaN;
    } else {
      series[i] = v as number;
      prev = v as number;
    }
  });
  if (prev === undefined) return values.length ? undefined : { filled, series };
  let next: number | undefined;
  for (let i = series.length - 1; i >= 0; i--) {
    if (Number.isNaN(series[i])) series[i] = next as number;
    else next = series[i];
  }
  return { filled, series };
}

export function resolveOptions(options: DetectOptions = {}): Required<DetectOptions> {
  const o = { ...DEFAULT_DETECT_OPTIONS, ...stripUndefined(options) };
  const issues: { path: string; message: string }[] = [];
  if (!Number.isInteger(o.window) || o.window < 2)
    issues.push({ path: 'window', message: `expected an integer ≥ 2, got ${o.window}` });
  if (!(o.maxPValue > 0 && o.maxPValue < 1))
    issues.push({ path: 'maxPValue', message: `expected 0 < p < 1, got ${o.maxPValue}` });
  if (!(o.minMagnitude >= 0))
    issues.push({ path: 'minMagnitude', message: `expected a number ≥ 0, got ${o.minMagnitude}` });
  if (!Number.isInteger(o.minSegment) || o.minSegment < 1) {
    issues.push({ path: 'minSegment', message: `expected an integer ≥ 1, got ${o.minSegment}` });
  }
  if (o.method !== 'ttest' && o.method !== 'permutation') {
    issues.push({
      path: 'method',
      message: `expected "ttest" or "permutation", got ${JSON.stringify(o.method)}`,
    });
  }
  if (!(o.alpha > 0 && o.alpha < 1))
    issues.push({ path: 'alpha', message: `expected 0 < alpha < 1, got ${o.alpha}` });
  if (!Number.isInteger(o.permutations) || o.permutations < 1) {
    issues.push({ path: 'permutations', message: `expected an integer ≥ 1, got ${o.permutations}` });
  }
  if (!Number.isInteger(o.seed)) issues.push({ path: 'seed', message: `expected an integer, got ${o.seed}` });
  if (issues.length) throw new InputError(issues);
  return o;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Finds the change points of one series (ordered by time; missing values allowed). */
export function detectChangePoints(
  values: readonly (number | null | undefined)[],
  options: DetectOptions = {},
): Detection {
  const o = resolveOptions(options);
  const prepared = fillMissing(values);
  if (!prepared) return { changePoints: [], filled: values.map((_, i) => i) };
  const { series, filled } = prepared;
  if (series.length < 3) return { changePoints: [], filled };

  let indexes: number[];
  let pValues: Map<number, number> | undefined;
  if (o.method === 'permutation') {
    const tester = new PermutationTester(o.alpha, o.permutations, o.seed);
    indexes = eDivisive(series, tester);
    pValues = tester.pValues;
  } else {
    indexes = split(series, o.window, firstPassPValue(o.maxPValue));
  }
  const points = statsAt(series, indexes);
  if (pValues) for (const p of points) p.pValue = pValues.get(p.index) ?? p.pValue;
  const merged = merge(series, points, { ...o, fixedPValues: pValues !== undefined });
  for (const p of merged) p.confirmed = p.nAfter >= o.minSegment;
  return { changePoints: merged, filled };
}

/**
 * The level at which the split screens candidates (Otava 0.8 `compute_change_points`): 10 × maxPValue
 * below 0.05, 2 × below 0.5, maxPValue itself above. Hunter used 10 × always, which makes every index a
 * candidate once maxPValue ≥ 0.1.
 */
export function firstPassPValue(maxPValue: number): number {
  return maxPValue < 0.05 ? maxPValue * 10 : maxPValue < 0.5 ? maxPValue * 2 : maxPValue;
}

/** Hunter's `split`: E-Divisive with a t-test tester over overlapping windows. */
export function split(series: Float64Array, window: number, screenPValue: number): number[] {
  const tester = new TTestTester(screenPValue);
  const step = Math.floor(window / 2);
  const out: number[] = [];
  let start = 0;
  while (start < series.length) {
    const end = Math.min(start + window, series.length);
    const found = eDivisive(series.subarray(start, end), tester).map((i) => i + start);
    const last = found.length ? found[found.length - 1] : 0;
    start = Math.max(last, start + step);
    out.push(...found);
  }
  return out;
}

function pointAt(series: Float64Array, index: number, from: number, to: number): ChangePoint {
  const c = compareSplit(series, from, index, to);
  return { index, ...c, magnitude: magnitude(c), forwardChange: forwardChange(c), confirmed: true };
}

/** Each change point's statistics against its neighbours ([0, indexes..., n]). */
export function statsAt(series: Float64Array, indexes: readonly number[]): ChangePoint[] {
  const ends = [0, ...indexes, series.length];
  return indexes.map((index, k) => pointAt(series, index, ends[k], ends[k + 2]));
}

export interface MergeOptions extends Pick<
  Required<DetectOptions>,
  'maxPValue' | 'minMagnitude' | 'minSegment'
> {
  /** permutation mode: the p-values come from the permutation test and are not recomputed or used */
  fixedPValues?: boolean;
  /**
   * Otava's recomputation after a drop (the point after the removed one and the one after that; the one
   * before keeps stale statistics) instead of fleetbench's (both neighbours). Only for comparing with
   * Otava (test/oracle/regression.test.ts). @default false
   */
  otavaRecompute?: boolean;
}

/** Hunter's `merge`, plus the short-segment rule. */
export function merge(series: Float64Array, input: ChangePoint[], o: MergeOptions): ChangePoint[] {
  const points = [...input];
  while (points.length) {
    let weakest = o.fixedPValues ? -1 : argBest(points, (a, b) => a.pValue > b.pValue);
    if (weakest < 0 || points[weakest].pValue < o.maxPValue) {
      weakest = shortSegmentVictim(points, o.minSegment);
      if (weakest < 0) {
        weakest = argBest(points, (a, b) => a.magnitude < b.magnitude);
        if (points[weakest].magnitude > o.minMagnitude) return points;
      }
    }
    points.splice(weakest, 1);
    const ends = [0, ...points.map((p) => p.index), series.length];
    const recompute = o.otavaRecompute ? [weakest, weakest + 1] : [weakest - 1, weakest];
    for (const k of recompute) {
      if (k < 0 || k >= points.length) continue;
      const kept = points[k].pValue;
      points[k] = pointAt(series, points[k].index, ends[k], ends[k + 2]);
      if (o.fixedPValues) points[k].pValue = kept;
    }
  }
  return points;
}

/** Index of the first element that `better` prefers over all earlier ones (Python's max/min). */
function argBest<T>(xs: readonly T[], better: (a: T, b: T) => boolean): number {
  let best = 0;
  for (let i = 1; i < xs.length; i++) if (better(xs[i], xs[best])) best = i;
  return best;
}

/**
 * The change point to drop because a regime before it (or between it and its predecessor) is shorter than
 * `minSegment`: the first such stretch in time order, and of its two bounds the one with the larger
 * p-value. -1 when there is none. The stretch after the last point is not checked: it is still growing.
 */
function shortSegmentVictim(points: readonly ChangePoint[], minSegment: number): number {
  for (let k = 0; k < points.length; k++) {
    const start = k === 0 ? 0 : points[k - 1].index;
    if (points[k].index - start >= minSegment) continue;
    if (k === 0) return 0;
    return points[k - 1].pValue > points[k].pValue ? k - 1 : k;
  }
  return -1;
}
