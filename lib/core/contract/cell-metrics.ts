/**
 * A cell's CloudWatch metrics (namespace Fleetbench): sent by AggregateCell (lib/core/pipeline/aggregate.ts), graphed
 * by the dashboard (lib/constructs/monitoring.ts), which searches these names under these dimensions.
 *
 * One series is one cell of one spec over its runs: the dimensions name the spec, the target, the distribution, the
 * read ratio and the cell's planned rate. Without the spec and the rate, two cells of a throughput sweep (or two specs
 * with the same target id) ending in the same period would be one metric, and the dashboard's 5-minute Average would
 * plot their mean (a P99 of 2 ms and one of 40 ms as 21 ms).
 *
 * Each unique dimension combination of a metric name is a billed custom metric
 * (https://aws.amazon.com/cloudwatch/pricing/), so every dimension value is stable from run to run: the rate as the
 * spec plans it, `max` for an unpaced cell, `schedule` for a rate schedule's cell. An SLO search's probes run rates
 * decided at run time, so they send nothing (the search's frontier is its own table, in Athena); nor do an A/A run's
 * repeats after the first (the same cell, which `fleetbench regressions` leaves out as well), nor an incomplete cell
 * (its figures are those of the loaders that reported, not the cell's: its row carries the flag and the reason).
 */
import type { MetricDatum } from '../common/ports';
import { parseAaCellId } from '../regression/noise';
import type { CellHeadline } from './headline';

/** The per-cell metric names, in the order the dashboard shows them. */
export const CELL_METRICS = [
  'IntendedP50',
  'IntendedP99',
  'IntendedP999',
  'Throughput',
  'GoodThroughput',
  'Attainment',
  'Errors',
  'Throttles',
  'MonthlyCostProvisioned',
  'MonthlyCostOnDemand',
] as const;

export type CellMetricName = (typeof CELL_METRICS)[number];

/** The per-cell metrics' dimensions: every put carries all of them, so this is the one dimension set. */
export const CELL_METRIC_DIMENSIONS = [
  'Spec',
  'Target',
  'Distribution',
  'ReadRatio',
  'TargetOpsPerSec',
] as const;

/** The `TargetOpsPerSec` value of an unpaced cell (`targetOpsPerSec: "max"`). */
export const UNPACED_RATE_LABEL = 'max';
/** The `TargetOpsPerSec` value of a rate schedule's cell (its one cell per target, distribution and mix). */
export const SCHEDULE_RATE_LABEL = 'schedule';

/** What the per-cell metrics need of the planned cell (a CellSummary of the run's plan). */
export interface PlannedCell {
  id: string;
  /** the planned rate (for an unpaced cell the rate that prices it, not a target) */
  targetOpsPerSec: number;
  unpaced?: boolean;
  rateSchedule?: readonly unknown[];
  probe?: unknown;
}

/**
 * The cell's `TargetOpsPerSec` dimension: its planned rate, the same in every run of the spec; null for an SLO
 * search's probe, whose rate each run decides.
 */
export function plannedRateLabel(cell: PlannedCell): string | null {
  if (cell.probe) return null;
  if (cell.unpaced) return UNPACED_RATE_LABEL;
  if (cell.rateSchedule) return SCHEDULE_RATE_LABEL;
  return String(cell.targetOpsPerSec);
}

/**
 * The cell's metrics and their dimensions, or null when the cell sends none: a probe, an A/A repeat after the first,
 * an incomplete cell. Figures the headline lacks (null) are not sent.
 */
export function cellMetrics(
  h: CellHeadline,
  of: { specName: string; cell: PlannedCell },
): { dimensions: Record<(typeof CELL_METRIC_DIMENSIONS)[number], string>; data: MetricDatum[] } | null {
  const rate = plannedRateLabel(of.cell);
  const repeat = parseAaCellId(of.cell.id)?.repeat ?? 1;
  if (rate === null || repeat > 1 || h.incomplete) return null;
  const data: MetricDatum[] = [];
  const add = (name: CellMetricName, v: number | null, unit: MetricDatum['unit']): void => {
    if (v !== null && Number.isFinite(v)) data.push({ name, value: v, unit });
  };
  add('IntendedP50', h.intendedP50Us, 'Microseconds');
  add('IntendedP99', h.intendedP99Us, 'Microseconds');
  add('IntendedP999', h.intendedP999Us, 'Microseconds');
  add('Throughput', h.achievedOpsPerSec, 'Count/Second');
  add('GoodThroughput', h.goodOpsPerSec, 'Count/Second');
  add('Attainment', h.attainment === null ? null : h.attainment * 100, 'Percent');
  add('Errors', h.errors, 'Count');
  add('Throttles', h.throttles, 'Count');
  add('MonthlyCostProvisioned', h.monthlyCostProvisionedUsd, 'None');
  add('MonthlyCostOnDemand', h.monthlyCostOnDemandUsd, 'None');
  return {
    dimensions: {
      Spec: of.specName,
      Target: h.target,
      Distribution: h.distribution,
      ReadRatio: String(h.readProportion),
      TargetOpsPerSec: rate,
    },
    data,
  };
}
