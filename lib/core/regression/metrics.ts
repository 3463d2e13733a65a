/**
 * The metrics watched for regressions, where each comes from in a `cells` row (column names of
 * lib/core/results/schema.ts), and which way is better.
 */
export type Direction = 'lower' | 'higher';

export type CellsRow = Record<string, unknown>;

export interface MetricDef {
  /** stable id used in the CLI (`--metric`) and in the `changes` table */
  id: string;
  description: string;
  unit: string;
  /** which way is better: latency, error and cost go down; throughput and attainment go up */
  better: Direction;
  /** the cells columns the value is read from (for error messages and docs) */
  columns: readonly string[];
  /** the value in one row: a number, or null when not known (an invalid value is reported by the caller) */
  value(row: CellsRow): unknown;
}

const column =
  (name: string) =>
  (row: CellsRow): unknown =>
    row[name];

export const METRICS: readonly MetricDef[] = [
  {
    id: 'intended_p50_us',
    description: 'median intended latency of all base operations',
    unit: 'µs',
    better: 'lower',
    columns: ['all_intended_p50_us'],
    value: column('all_intended_p50_us'),
  },
  {
    id: 'intended_p99_us',
    description: '99th percentile intended latency of all base operations',
    unit: 'µs',
    better: 'lower',
    columns: ['all_intended_p99_us'],
    value: column('all_intended_p99_us'),
  },
  {
    id: 'intended_p999_us',
    description: '99.9th percentile intended latency of all base operations',
    unit: 'µs',
    better: 'lower',
    columns: ['all_intended_p999_us'],
    value: column('all_intended_p999_us'),
  },
  {
    id: 'good_ops_per_sec',
    description: 'successful operations per second',
    unit: 'ops/s',
    better: 'higher',
    columns: ['good_ops_per_sec'],
    value: column('good_ops_per_sec'),
  },
  {
    id: 'attainment',
    description: 'good ops/s ÷ target ops/s',
    unit: 'ratio',
    better: 'higher',
    columns: ['attainment'],
    value: column('attainment'),
  },
  {
    id: 'error_rate',
    description: 'failed ÷ attempted operations in the measured window',
    unit: 'ratio',
    better: 'lower',
    columns: ['error_rate'],
    value: column('error_rate'),
  },
  {
    id: 'throttle_rate',
    description: 'throttled attempts ÷ attempted operations in the measured window',
    unit: 'ratio',
    better: 'lower',
    columns: ['throttled_attempts', 'achieved_ops_per_sec', 'measured_seconds'],
    value: (row) => {
      const throttled = row.throttled_attempts;
      const rate = row.achieved_ops_per_sec;
      const secs = row.measured_seconds;
      if (throttled === null || throttled === undefined || rate === null || rate === undefined) return null;
      if (typeof throttled !== 'number' || typeof rate !== 'number' || typeof secs !== 'number') {
        return 'not a number';
      }
      const attempts = rate * secs;
      return attempts > 0 ? throttled / attempts : null;
    },
  },
  {
    id: 'monthly_cost_usd',
    description: 'monthly cost of the target under its pricing',
    unit: 'USD/month',
    better: 'lower',
    columns: ['monthly_cost_usd'],
    value: column('monthly_cost_usd'),
  },
];

export function metricDef(id: string): MetricDef | undefined {
  return METRICS.find((m) => m.id === id);
}

/** Whether going from `before` to `after` is worse for a metric where `better` is the good direction. */
export function isRegression(better: Direction, before: number, after: number): boolean {
  return better === 'lower' ? after > before : after < before;
}
