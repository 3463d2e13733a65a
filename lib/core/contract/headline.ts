/**
 * A cell's headline figures: the one shape every view of a cell's result uses (issue #18) — the run's
 * summary.json and its notification (lib/core/pipeline/report.ts), the cell's CloudWatch metrics
 * (lib/core/pipeline/aggregate.ts), the CLI's summary table (lib/core/results/run-summary.ts) and the HTML
 * report (lib/core/report/data.ts). It is read from the cell's row of the `cells` table
 * (lib/core/results/rows.ts, columns in lib/core/results/schema.ts) by `headlineOf`, never computed again.
 * Latencies in µs over all operations; null where the row has no value (no result, no operation of a kind).
 */
import { z } from 'zod';

const figure = z.number().nullable();

export const CellHeadlineSchema = z
  .object({
    cellId: z.string(),
    /** the target's id in the spec */
    target: z.string(),
    distribution: z.string(),
    readProportion: z.number(),
    targetOpsPerSec: z.number(),
    /** attempted operations per measured second (every Return= status) */
    achievedOpsPerSec: figure,
    /** operations that returned OK per measured second */
    goodOpsPerSec: figure,
    /** good ops/s ÷ target ops/s */
    attainment: figure,
    /** intended (coordinated-omission corrected) latency percentiles, µs */
    intendedP50Us: figure,
    intendedP99Us: figure,
    intendedP999Us: figure,
    /** service-time latency percentiles, µs */
    serviceP50Us: figure,
    serviceP99Us: figure,
    serviceP999Us: figure,
    /** operations that returned an error status */
    errors: figure,
    /** throttled attempts (retried or not) */
    throttles: figure,
    monthlyCostProvisionedUsd: figure,
    monthlyCostOnDemandUsd: figure,
    /** the target's monthly cost in its configured capacity mode */
    monthlyCostUsd: figure,
    /** monthlyCostUsd ÷ the millions of good operations of that month at goodOpsPerSec */
    costPerMillionOpsUsd: figure,
    /** the cell has no result, or its result lacks outputs (why: incompleteReason) */
    incomplete: z.boolean(),
    incompleteReason: z.string().nullable(),
    /** a loader above 70 % CPU or behind the open-loop schedule (why: suspectReason; lib/core/results/loader-cpu.ts) */
    suspect: z.boolean(),
    suspectReason: z.string().nullable(),
  })
  .strict();

export type CellHeadline = z.output<typeof CellHeadlineSchema>;

/** A number column's value: rows from result.json hold numbers; query engines may give bigints or text. */
function numberAt(row: Readonly<Record<string, unknown>>, column: string): number | null {
  const v = row[column];
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint' || (typeof v === 'string' && v.trim() !== '')) {
    const n = Number(v);
    return Number.isNaN(n) ? null : n;
  }
  return null;
}

/** The headline of a cell from its `cells` row (result.json's row, or a row a query returned). */
export function headlineOf(row: Readonly<Record<string, unknown>>): CellHeadline {
  const incomplete = row.incomplete === true;
  const suspect = row.suspect === true || row.suspect === 'true';
  return {
    cellId: String(row.cell_id ?? ''),
    target: String(row.target_id ?? ''),
    distribution: String(row.distribution ?? ''),
    readProportion: numberAt(row, 'read_proportion') ?? 0,
    targetOpsPerSec: numberAt(row, 'target_ops_per_sec') ?? 0,
    achievedOpsPerSec: numberAt(row, 'achieved_ops_per_sec'),
    goodOpsPerSec: numberAt(row, 'good_ops_per_sec'),
    attainment: numberAt(row, 'attainment'),
    intendedP50Us: numberAt(row, 'all_intended_p50_us'),
    intendedP99Us: numberAt(row, 'all_intended_p99_us'),
    intendedP999Us: numberAt(row, 'all_intended_p999_us'),
    serviceP50Us: numberAt(row, 'all_service_p50_us'),
    serviceP99Us: numberAt(row, 'all_service_p99_us'),
    serviceP999Us: numberAt(row, 'all_service_p999_us'),
    errors: numberAt(row, 'errors'),
    throttles: numberAt(row, 'throttled_attempts'),
    monthlyCostProvisionedUsd: numberAt(row, 'monthly_cost_provisioned_usd'),
    monthlyCostOnDemandUsd: numberAt(row, 'monthly_cost_on_demand_usd'),
    monthlyCostUsd: numberAt(row, 'monthly_cost_usd'),
    costPerMillionOpsUsd: numberAt(row, 'cost_per_million_ops_usd'),
    incomplete,
    incompleteReason: incomplete
      ? typeof row.incomplete_reason === 'string' && row.incomplete_reason !== ''
        ? row.incomplete_reason
        : 'incomplete'
      : null,
    suspect,
    suspectReason: suspect
      ? typeof row.suspect_reason === 'string' && row.suspect_reason !== ''
        ? row.suspect_reason
        : 'suspect'
      : null,
  };
}

/** The headline of a planned cell that has no result (never aggregated): every figure null, incomplete. */
export function noResultHeadline(cell: {
  id: string;
  target: string;
  distributionLabel: string;
  readProportion: number;
  targetOpsPerSec: number;
}): CellHeadline {
  return {
    ...headlineOf({}),
    cellId: cell.id,
    target: cell.target,
    distribution: cell.distributionLabel,
    readProportion: cell.readProportion,
    targetOpsPerSec: cell.targetOpsPerSec,
    incomplete: true,
    incompleteReason: 'no result (the cell was never aggregated)',
  };
}
