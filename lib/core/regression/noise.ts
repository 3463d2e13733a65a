/**
 * A/A noise calibration: a run whose cells are repeated (`workload.repeats` > 1: the same cell measured
 * several times in a row) shows how much each metric moves when nothing changed. Per target × cell ×
 * metric, the coefficient of variation CV = s / |mean| over the repeats (s: sample standard deviation)
 * gives the threshold `minMagnitude = factor × CV` (factor 3 by default) that change-point detection then
 * uses for that series, so alarms follow the noise of the user's own setup instead of a fixed 5 %.
 *
 * The calibration is one JSON object per A/A run in the results store,
 * `noise/spec_name=<spec>/<runId>.json` (schema `NoiseCalibration`, below); readers use the newest one
 * of the spec. Written by the DetectRegressions step; read by it and by `fleetbench regressions`.
 */
import { z } from 'zod';
import { InputError } from '../common/errors';
import type { ObjectStore } from '../common/ports';
import { mean, sampleStd } from './stats';
import { CellsRow, METRICS } from './metrics';

/** Default multiple of the measured CV used as `minMagnitude`. */
export const NOISE_FACTOR = 3;

/** `<cell id>.aa<k>`: repeat k (1-based) of a cell in an A/A run. */
const AA_SUFFIX = /^(.+)\.aa([1-9][0-9]*)$/;

/** The cell id of repeat `repeat` (1-based) of cell `cellId`. */
export function aaCellId(cellId: string, repeat: number): string {
  return `${cellId}.aa${repeat}`;
}

/** The cell and repeat of an A/A cell id, or undefined for a plain cell id. */
export function parseAaCellId(cellId: string): { cell: string; repeat: number } | undefined {
  const m = AA_SUFFIX.exec(cellId);
  return m ? { cell: m[1]!, repeat: Number(m[2]) } : undefined;
}

export const NoiseSeries = z.strictObject({
  target: z.string().min(1),
  /** the cell id without the repeat suffix: the id of the series in the spec's history */
  cell: z.string().min(1),
  metric: z.string().min(1),
  /** repeats with a value */
  n: z.number().int().min(2),
  mean: z.number(),
  /** sample standard deviation over the repeats */
  std: z.number().min(0),
  /** std / |mean|; null when the mean is 0 */
  cv: z.number().min(0).nullable(),
  /** factor × cv, the threshold detection uses for this series; null when cv is null */
  minMagnitude: z.number().min(0).nullable(),
});

export const NoiseCalibration = z.strictObject({
  version: z.literal(1),
  specName: z.string().min(1),
  /** the A/A run measured */
  runId: z.string().min(1),
  measuredAtMs: z.number().int(),
  factor: z.number().positive(),
  series: z.array(NoiseSeries),
});

export type NoiseSeries = z.output<typeof NoiseSeries>;
export type NoiseCalibration = z.output<typeof NoiseCalibration>;

/** The store key of one A/A run's calibration. */
export function noiseKey(specName: string, runId: string): string {
  return `${noisePrefix(specName)}/${encodeURIComponent(runId)}.json`;
}

function noisePrefix(specName: string): string {
  return `noise/spec_name=${encodeURIComponent(specName)}`;
}

/**
 * The calibration of one run from its `cells` rows: every A/A cell (id `<cell>.aa<k>`) grouped by target
 * and cell, for every metric with at least 2 repeats that report it. Undefined when the run has no
 * repeated cell.
 */
export function measureNoise(
  rows: readonly CellsRow[],
  run: { specName: string; runId: string; measuredAtMs: number },
  factor = NOISE_FACTOR,
): NoiseCalibration | undefined {
  if (!(factor > 0))
    throw new InputError([{ path: 'factor', message: `expected a number > 0, got ${factor}` }]);
  const groups = new Map<string, { target: string; cell: string; rows: CellsRow[] }>();
  for (const row of rows) {
    if (row.run_id !== run.runId || row.incomplete === true) continue;
    const aa = typeof row.cell_id === 'string' ? parseAaCellId(row.cell_id) : undefined;
    if (!aa || typeof row.target_id !== 'string') continue;
    const key = `${row.target_id}\u0000${aa.cell}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { target: row.target_id, cell: aa.cell, rows: [] }));
    g.rows.push(row);
  }
  if (!groups.size) return undefined;
  const series: NoiseSeries[] = [];
  for (const g of [...groups.values()].sort((a, b) => cmp(a.target, b.target) || cmp(a.cell, b.cell))) {
    for (const m of METRICS) {
      const values = g.rows
        .map((r) => m.value(r))
        .filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
      if (values.length < 2) continue;
      const mu = mean(values);
      const std = sampleStd(values);
      const cv = mu === 0 ? null : std / Math.abs(mu);
      series.push({
        target: g.target,
        cell: g.cell,
        metric: m.id,
        n: values.length,
        mean: mu,
        std,
        cv,
        minMagnitude: cv === null ? null : factor * cv,
      });
    }
  }
  return NoiseCalibration.parse({ version: 1, ...run, factor, series });
}

/** Writes a calibration to the store (validated against the schema first). */
export async function writeNoise(store: ObjectStore, calibration: NoiseCalibration): Promise<string> {
  const key = noiseKey(calibration.specName, calibration.runId);
  await store.putJson(key, NoiseCalibration.parse(calibration));
  return key;
}

/**
 * The newest calibration of a spec (largest `measuredAtMs`, then run id), or undefined when the spec has
 * none. A calibration object that does not match the schema is an InputError naming the object.
 */
export async function readLatestNoise(
  store: ObjectStore,
  specName: string,
): Promise<NoiseCalibration | undefined> {
  // the trailing "/": spec "nightly" must not read "nightly-2"'s calibrations
  const keys = (await store.list(`${noisePrefix(specName)}/`)).filter((k) => k.endsWith('.json'));
  let latest: NoiseCalibration | undefined;
  for (const key of keys) {
    const parsed = NoiseCalibration.safeParse(await store.getJson(key));
    if (!parsed.success) {
      throw new InputError(
        parsed.error.issues.map((i) => ({
          path: `${store.uriOf(key)}${i.path.length ? '#' + i.path.join('.') : ''}`,
          message: i.message,
        })),
      );
    }
    const c = parsed.data;
    if (
      !latest ||
      c.measuredAtMs > latest.measuredAtMs ||
      (c.measuredAtMs === latest.measuredAtMs && c.runId > latest.runId)
    ) {
      latest = c;
    }
  }
  return latest;
}

/** target/cell/metric → the calibrated minMagnitude (series with a null cv are left out). */
export function noiseThresholds(calibration: NoiseCalibration | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of calibration?.series ?? []) {
    if (s.minMagnitude !== null) out.set(noiseSeriesId(s.target, s.cell, s.metric), s.minMagnitude);
  }
  return out;
}

export function noiseSeriesId(target: string, cell: string, metric: string): string {
  return `${target}/${cell}/${metric}`;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `AnalyzeOptions.minMagnitudeFor` from a calibration: the series' calibrated threshold, if any. */
export function calibratedMinMagnitude(
  calibration: NoiseCalibration | undefined,
): (key: { target: string; cell: string; metric: string }) => number | undefined {
  const thresholds = noiseThresholds(calibration);
  return (key) => thresholds.get(noiseSeriesId(key.target, key.cell, key.metric));
}
