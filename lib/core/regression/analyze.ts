/**
 * From series to verdicts: change points with the run where each began and whether it is a regression
 * or an improvement for that metric, and the fast guard on the newest run.
 */
import { ChangePoint, DetectOptions, detectChangePoints, resolveOptions } from './detect';
import { GuardOptions, GuardResult, newestPointGuard } from './guard';
import { isRegression } from './metrics';
import { Series, SeriesKey } from './series';

/** A change point of a series (its statistics, `index` and `confirmed`), placed in the run history. */
export interface Change extends ChangePoint {
  key: SeriesKey;
  /** the first run of the new regime */
  runId: string;
  timeMs: number;
  /** the last run before it */
  previousRunId: string;
  kind: 'regression' | 'improvement';
}

export interface NewestVerdict extends GuardResult {
  runId?: string;
  /** suspect and worse for this metric */
  regression: boolean;
  /** a change point starting at the newest run exists (pending confirmation or confirmed) */
  changePointAtNewest: boolean;
}

export interface SeriesAnalysis {
  key: SeriesKey;
  better: Series['better'];
  unit: string;
  points: Series['points'];
  changes: Change[];
  newest: NewestVerdict;
  /** indexes whose value was missing and filled from a neighbour for the detection */
  filled: number[];
  /** the minMagnitude this series was analysed with */
  minMagnitude: number;
  /** whether it came from an A/A calibration (`minMagnitudeFor`) rather than the options */
  calibrated: boolean;
}

export interface AnalyzeOptions {
  detect?: DetectOptions;
  guard?: GuardOptions;
  /**
   * A series' own minMagnitude (from an A/A calibration, noise.ts), used instead of
   * `detect.minMagnitude` when it returns a number.
   */
  minMagnitudeFor?: (key: SeriesKey) => number | undefined;
}

export function analyzeSeries(series: Series, options: AnalyzeOptions = {}): SeriesAnalysis {
  const own = options.minMagnitudeFor?.(series.key);
  const detectOptions = resolveOptions({
    ...options.detect,
    ...(own !== undefined ? { minMagnitude: own } : {}),
  });
  const values = series.points.map((p) => p.value);
  const { changePoints, filled } = detectChangePoints(values, detectOptions);
  const changes: Change[] = changePoints.map((cp) => ({
    key: series.key,
    runId: series.points[cp.index].runId,
    timeMs: series.points[cp.index].timeMs,
    previousRunId: series.points[cp.index - 1].runId,
    ...cp,
    kind: isRegression(series.better, cp.meanBefore, cp.meanAfter) ? 'regression' : 'improvement',
  }));
  const guard = newestPointGuard(
    values,
    changes.map((c) => c.index),
    { minMagnitude: detectOptions.minMagnitude, ...options.guard },
  );
  const newestRun = series.points[series.points.length - 1];
  const worse = series.better === 'lower' ? guard.side === 'above' : guard.side === 'below';
  return {
    key: series.key,
    better: series.better,
    unit: series.unit,
    points: series.points,
    changes,
    newest: {
      ...guard,
      ...(newestRun ? { runId: newestRun.runId } : {}),
      regression: guard.status === 'suspect' && worse,
      changePointAtNewest: changes.some((c) => c.index === series.points.length - 1),
    },
    filled,
    minMagnitude: detectOptions.minMagnitude,
    calibrated: own !== undefined,
  };
}

export function analyzeAll(series: readonly Series[], options: AnalyzeOptions = {}): SeriesAnalysis[] {
  return series.map((s) => analyzeSeries(s, options));
}
