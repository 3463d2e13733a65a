/**
 * Compares fleetbench's detector with Apache Otava's output on one series, and decides whether a
 * difference is the merge rule's: fleetbench's code path rerun with Otava's recomputation after a drop
 * (`otavaRecompute`) must then give exactly Otava's answer.
 */
import {
  ChangePoint,
  detectChangePoints,
  fillMissing,
  firstPassPValue,
  merge,
  split,
  statsAt,
} from '../../../lib/core/regression/detect';
import { OtavaCase, OtavaPoint, OtavaResult } from './otava';

export type Verdict = 'equal' | 'merge rule' | 'unexplained';

export interface Comparison {
  name: string;
  verdict: Verdict;
  /** the split's candidates equal Otava's weak change points */
  splitEqual: boolean;
  fleetbench: number[];
  otava: number[];
  /** first mismatch, for the failure message */
  detail?: string;
}

/** Relative closeness for statistics that Otava computes with numpy/scipy and fleetbench in TypeScript. */
export function close(a: number, b: number | null, rel: number): boolean {
  if (b === null) return a === 1; // Otava's NaN p (0/0 t-test) is fleetbench's p = 1
  if (a === b) return true;
  return Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b));
}

/** p-values to 1e-9 relative (scipy's t distribution vs tdist.ts), means and magnitudes to 1e-12. */
export function samePoints(ours: readonly ChangePoint[], theirs: readonly OtavaPoint[]): string | undefined {
  if (ours.length !== theirs.length || ours.some((p, k) => p.index !== theirs[k].index)) {
    return `indexes ${JSON.stringify(ours.map((p) => p.index))} vs ${JSON.stringify(theirs.map((p) => p.index))}`;
  }
  for (let k = 0; k < ours.length; k++) {
    const a = ours[k];
    const b = theirs[k];
    const checks: [string, number, number | null, number][] = [
      ['meanBefore', a.meanBefore, b.meanBefore, 1e-12],
      ['meanAfter', a.meanAfter, b.meanAfter, 1e-12],
      ['stdBefore', a.stdBefore, b.stdBefore, 1e-9],
      ['stdAfter', a.stdAfter, b.stdAfter, 1e-9],
      ['pValue', a.pValue, b.pValue, 1e-9],
      ['magnitude', a.magnitude, b.magnitude, 1e-12],
    ];
    for (const [field, x, y, rel] of checks) {
      if (!close(x, y, rel)) return `point ${a.index} ${field}: ${x} vs ${y}`;
    }
  }
  return undefined;
}

export function compareWithOtava(c: OtavaCase, otava: OtavaResult): Comparison {
  const options = { window: c.window, maxPValue: c.maxPValue, minMagnitude: c.minMagnitude, minSegment: 1 };
  const ours = detectChangePoints(c.values, options).changePoints;
  const series = fillMissing(c.values)!.series;
  const weak = split(series, c.window, firstPassPValue(c.maxPValue));
  const splitEqual = JSON.stringify(weak) === JSON.stringify(otava.weak);
  const base = {
    name: c.name,
    splitEqual,
    fleetbench: ours.map((p) => p.index),
    otava: otava.points.map((p) => p.index),
  };
  const diff = samePoints(ours, otava.points);
  if (!diff) return { ...base, verdict: 'equal' };
  const variant = merge(series, statsAt(series, weak), { ...options, otavaRecompute: true });
  const variantDiff = samePoints(variant, otava.points);
  if (splitEqual && !variantDiff) return { ...base, verdict: 'merge rule', detail: diff };
  return {
    ...base,
    verdict: 'unexplained',
    detail: `${diff}; with Otava's merge: ${variantDiff ?? 'equal'}`,
  };
}
