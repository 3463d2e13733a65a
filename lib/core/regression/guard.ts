/**
 * The fast guard for the newest run (Bencher's t-test threshold): a prediction interval for one new
 * observation from the recent history of the current regime,
 *
 *   mean ± t_{q, n−1} · s · √(1 + 1/n)      (s: sample standard deviation of the n history points)
 *
 * A newest value outside it, by at least `minMagnitude` relative to the mean, is "suspect" until the
 * change-point detector confirms (or drops) it. The history is the points since the last change point
 * before the newest one, at most `history` of them, missing values left out.
 */
import { studentTQuantile } from './tdist';
import { mean, sampleStd } from './stats';

export interface GuardOptions {
  /** most recent points used. @default 30 */
  history?: number;
  /** fewest history points to judge. @default 5 */
  minHistory?: number;
  /** one-sided quantile of each boundary. @default 0.99 */
  quantile?: number;
  /** smallest relative departure from the mean that counts. @default 0.05 */
  minMagnitude?: number;
}

/** Earlier runs the newest-run check needs by default (fewer: `insufficient-history`, no verdict). */
export const NEWEST_MIN_HISTORY = 5;

export type GuardStatus = 'ok' | 'suspect' | 'insufficient-history' | 'missing';

export interface GuardResult {
  status: GuardStatus;
  /** index of the newest point */
  index: number;
  value: number | null;
  /** history used: [from, to) */
  from: number;
  to: number;
  n: number;
  mean?: number;
  lower?: number;
  upper?: number;
  /** where the newest value lies when outside the interval */
  side?: 'above' | 'below';
  /** newest/mean − 1 */
  relChange?: number;
}

export function newestPointGuard(
  values: readonly (number | null | undefined)[],
  changePointIndexes: readonly number[],
  options: GuardOptions = {},
): GuardResult {
  const history = options.history ?? 30;
  const minHistory = Math.max(2, options.minHistory ?? NEWEST_MIN_HISTORY);
  const quantile = options.quantile ?? 0.99;
  const minMagnitude = options.minMagnitude ?? 0.05;
  const index = values.length - 1;
  const newest = index >= 0 ? values[index] : undefined;
  const lastCp = Math.max(0, ...changePointIndexes.filter((i) => i < index));
  const from = Math.max(lastCp, index - history);
  const past: number[] = [];
  for (let i = from; i < index; i++) {
    const v = values[i];
    if (v !== null && v !== undefined && Number.isFinite(v)) past.push(v);
  }
  const base = { index, from, to: Math.max(index, 0), n: past.length };
  if (newest === null || newest === undefined || !Number.isFinite(newest)) {
    return { ...base, status: 'missing', value: null };
  }
  if (past.length < minHistory) return { ...base, status: 'insufficient-history', value: newest };
  const m = mean(past);
  const s = sampleStd(past);
  const half = studentTQuantile(quantile, past.length - 1) * s * Math.sqrt(1 + 1 / past.length);
  const lower = m - half;
  const upper = m + half;
  const relChange = m === 0 ? (newest === 0 ? 0 : Infinity * Math.sign(newest)) : newest / m - 1;
  const side = newest > upper ? 'above' : newest < lower ? 'below' : undefined;
  const status: GuardStatus = side && Math.abs(relChange) >= minMagnitude ? 'suspect' : 'ok';
  return { ...base, status, value: newest, mean: m, lower, upper, relChange, ...(side ? { side } : {}) };
}
