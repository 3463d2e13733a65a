/**
 * One run's summary from the result tables (what `fleetbench results <runId>` prints): the run row
 * and one line per cell. The SQL runs on Athena (Trino) and on DuckDB. `spec_name` is an injected
 * projected partition key on Athena, so every query names it with an equality (Athena refuses a query
 * on these tables that does not); `run_date` narrows the scan to the run's day(s).
 */

import type { CellHeadline } from '../contract/headline';

/** SQL literal of a parameter (Athena's ExecutionParameters are pasted into the SQL as they are). */
export function sqlLiteral(v: string | number): string {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`not a finite number: ${v}`);
    return String(v);
  }
  return `'${v.replace(/'/g, "''")}'`;
}

/** Parameters: spec name, run id. */
export const RUN_ROW_SQL = `SELECT run_id, status, mode, region, started_at_ms, ended_at_ms, cells_total, cells_incomplete,
       run_cost_estimate_usd, price_book
FROM runs
WHERE spec_name = ? AND run_id = ?`;

/** Parameters: spec name, run id. */
export const RUN_CELLS_SQL = `SELECT cell_id, target_id, distribution, read_proportion, target_ops_per_sec,
       achieved_ops_per_sec, good_ops_per_sec, attainment,
       all_intended_p50_us, all_intended_p99_us, all_intended_p999_us,
       errors, throttled_attempts, incomplete, incomplete_reason, suspect, suspect_reason,
       monthly_cost_provisioned_usd, monthly_cost_on_demand_usd
FROM cells
WHERE spec_name = ? AND run_id = ?
ORDER BY window_start_ms, cell_id`;

export const SUMMARY_HEADERS = [
  'cell',
  'target',
  'distribution',
  'read',
  'target ops/s',
  'achieved ops/s',
  'attainment',
  'P50 ms',
  'P99 ms',
  'P99.9 ms',
  'errors',
  'throttles',
  '$/mo provisioned',
  '$/mo on-demand',
] as const;

const num = (v: unknown): number | null =>
  v === null || v === undefined || v === '' ? null : typeof v === 'number' ? v : Number(v);
const f = (x: number | null, d = 1) =>
  x === null || Number.isNaN(x) ? '–' : x.toLocaleString('en-US', { maximumFractionDigits: d });
const ms = (us: number | null) => (us === null || Number.isNaN(us) ? '–' : (us / 1000).toFixed(2));
const usd = (x: number | null) =>
  x === null || Number.isNaN(x)
    ? '–'
    : `$${x.toLocaleString('en-US', { maximumFractionDigits: 2, minimumFractionDigits: 2 })}`;

/** The per-cell summary table's rows (same columns as the local run's summary), one per cell headline. */
export function summaryRows(cells: readonly CellHeadline[]): string[][] {
  return cells.map((c) => [
    c.cellId + (c.incomplete ? ' (incomplete)' : '') + (c.suspect ? ' (suspect)' : ''),
    c.target,
    c.distribution,
    String(c.readProportion),
    f(c.targetOpsPerSec, 0),
    f(c.achievedOpsPerSec),
    c.attainment === null ? '–' : `${(c.attainment * 100).toFixed(1)}%`,
    ms(c.intendedP50Us),
    ms(c.intendedP99Us),
    ms(c.intendedP999Us),
    c.errors === null ? '–' : String(c.errors),
    c.throttles === null ? '–' : String(c.throttles),
    usd(c.monthlyCostProvisionedUsd),
    usd(c.monthlyCostOnDemandUsd),
  ]);
}

/** One line about the run row: status, start, duration, cells. */
export function runLine(run: Record<string, unknown> | undefined, runId: string): string {
  if (!run) return `run ${runId}: no row in the runs table yet (still running, or refused by Plan)`;
  const started = num(run.started_at_ms);
  const ended = num(run.ended_at_ms);
  const when =
    started === null ? '' : ` started ${new Date(started).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
  const took = started !== null && ended !== null ? `, ${Math.round((ended - started) / 1000)} s` : '';
  const cost = num(run.run_cost_estimate_usd);
  return (
    `run ${runId}: ${String(run.status)}${when}${took}; ${String(run.cells_total)} cell(s), ` +
    `${String(run.cells_incomplete)} incomplete${cost === null ? '' : `; run cost estimate ${usd(cost)}`}`
  );
}

/** Parameters: spec name, run id. The run's SLO searches (docs/slo-search.md). */
export const RUN_FRONTIER_SQL = `SELECT search_id, target_id, slo, outcome, found_ops_per_sec, predicted_limit_ops_per_sec,
       probes, probes_planned, found_latency_us, monthly_cost_usd, cost_per_million_ops_usd, meets_required
FROM frontier
WHERE spec_name = ? AND run_id = ?
ORDER BY search_id`;

export const FRONTIER_HEADERS = [
  'search',
  'target',
  'SLO',
  'outcome',
  'found ops/s',
  'predicted ops/s',
  'probes',
  'SLO latency ms',
  '$/mo at found',
  '$ per M ops',
  'meets required',
] as const;

/** The SLO searches' table rows, one per `frontier` row (Athena returns strings, DuckDB numbers). */
export function frontierRows(rows: readonly Record<string, unknown>[]): string[][] {
  return rows.map((r) => [
    String(r.search_id),
    String(r.target_id),
    String(r.slo),
    String(r.outcome),
    f(num(r.found_ops_per_sec), 0),
    f(num(r.predicted_limit_ops_per_sec), 0),
    `${String(r.probes)} of ≤ ${String(r.probes_planned)}`,
    ms(num(r.found_latency_us)),
    usd(num(r.monthly_cost_usd)),
    usd(num(r.cost_per_million_ops_usd)),
    r.meets_required === null || r.meets_required === undefined || r.meets_required === ''
      ? '–'
      : String(r.meets_required),
  ]);
}
