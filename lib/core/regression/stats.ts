/**
 * Two-sample comparison as Hunter does it (hunter/analysis.py `TTestSignificanceTester.compare`):
 * means, population standard deviations (ddof = 0, and 0 for a single point), and a two-sided Student's
 * t-test with pooled (equal) variances from those summary statistics, like
 * `scipy.stats.ttest_ind_from_stats(..., equal_var=True)`. p = 1 when both sides hold 2 points or fewer
 * in total.
 */
import { studentTTwoSidedP } from './tdist';

export interface Comparison {
  meanBefore: number;
  meanAfter: number;
  stdBefore: number;
  stdAfter: number;
  nBefore: number;
  nAfter: number;
  /** two-sided p-value that both sides have the same mean; 1 when undecidable (see `compare`) */
  pValue: number;
}

export function mean(xs: ArrayLike<number>, from = 0, to = xs.length): number {
  let s = 0;
  for (let i = from; i < to; i++) s += xs[i];
  return s / (to - from);
}

/** Population standard deviation (divides by n, like numpy's default). */
export function populationStd(xs: ArrayLike<number>, from = 0, to = xs.length): number {
  const m = mean(xs, from, to);
  let s = 0;
  for (let i = from; i < to; i++) s += (xs[i] - m) ** 2;
  return Math.sqrt(s / (to - from));
}

/** Sample standard deviation (divides by n − 1). */
export function sampleStd(xs: ArrayLike<number>, from = 0, to = xs.length): number {
  const m = mean(xs, from, to);
  let s = 0;
  for (let i = from; i < to; i++) s += (xs[i] - m) ** 2;
  return Math.sqrt(s / (to - from - 1));
}

/**
 * Student's t-test, equal variances, from summary statistics (scipy's `ttest_ind_from_stats`).
 * Returns NaN for p when both variances are zero and the means are equal (t = 0/0), and 0 when the
 * variances are zero and the means differ (t = ±∞).
 */
export function tTestFromStats(
  mean1: number,
  std1: number,
  n1: number,
  mean2: number,
  std2: number,
  n2: number,
): { t: number; df: number; pValue: number } {
  const df = n1 + n2 - 2;
  const pooled = ((n1 - 1) * std1 * std1 + (n2 - 1) * std2 * std2) / df;
  const denom = Math.sqrt(pooled * (1 / n1 + 1 / n2));
  const diff = mean1 - mean2;
  const t = denom === 0 ? (diff === 0 ? NaN : diff > 0 ? Infinity : -Infinity) : diff / denom;
  return { t, df, pValue: studentTTwoSidedP(t, df) };
}

/**
 * Compares xs[from, split) with xs[split, to). Both sides must be non-empty.
 * An undecidable test (0/0: two constant sides with the same value) reports p = 1 — nothing changed —
 * where scipy would give NaN.
 */
export function compareSplit(xs: ArrayLike<number>, from: number, split: number, to: number): Comparison {
  if (!(from < split && split < to)) {
    throw new RangeError(`compareSplit: expected from < split < to, got ${from}, ${split}, ${to}`);
  }
  const nBefore = split - from;
  const nAfter = to - split;
  const meanBefore = mean(xs, from, split);
  const meanAfter = mean(xs, split, to);
  const stdBefore = nBefore >= 2 ? populationStd(xs, from, split) : 0;
  const stdAfter = nAfter >= 2 ? populationStd(xs, split, to) : 0;
  let pValue = 1;
  if (nBefore + nAfter > 2) {
    const p = tTestFromStats(meanBefore, stdBefore, nBefore, meanAfter, stdAfter, nAfter).pValue;
    pValue = Number.isNaN(p) ? 1 : p;
  }
  return { meanBefore, meanAfter, stdBefore, stdAfter, nBefore, nAfter, pValue };
}

/** Relative change after/before − 1; ±Infinity from a zero mean to a non-zero one, 0 for 0 → 0. */
export function forwardChange(c: Pick<Comparison, 'meanBefore' | 'meanAfter'>): number {
  return relChange(c.meanBefore, c.meanAfter);
}

/**
 * Hunter's magnitude: max(|after/before − 1|, |before/after − 1|). A ratio with a zero denominator counts
 * as 0, as in Otava (`TTestStats.forward_rel_change(value_if_nan=0)`): a step from 0 to any value has
 * magnitude 1 (100 %), so it passes every `minMagnitude` below 1; 0 → 0 has magnitude 0.
 */
export function magnitude(c: Pick<Comparison, 'meanBefore' | 'meanAfter'>): number {
  const ratio = (from: number, to: number) => (from === 0 ? 0 : to / from - 1);
  return Math.max(Math.abs(ratio(c.meanBefore, c.meanAfter)), Math.abs(ratio(c.meanAfter, c.meanBefore)));
}

function relChange(from: number, to: number): number {
  if (from === to) return 0;
  if (from === 0) return to > 0 ? Infinity : -Infinity;
  return to / from - 1;
}
