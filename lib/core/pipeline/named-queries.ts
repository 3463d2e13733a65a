/**
 * The Athena workgroup's named queries. The SQL is portable between Athena (Trino) and DuckDB
 * (local mode) and takes the spec name as its `?` parameters (the console asks for them; the CLI
 * and the local mode bind them), because `spec_name` is an injected partition key.
 */
import { PROBE_CELL_ID } from '../search/probe';

export interface NamedQuery {
  name: string;
  description: string;
  /** How many `?` parameters (all the spec name). */
  parameters: number;
  /** Rows only once the spec has a history (change points need runs on both sides). */
  needsHistory?: boolean;
  sql: string;
}

/**
 * A figure of the cell's row, or NULL when the row is incomplete: a failed cell's row (CellFailed) measured nothing
 * and holds 0 in its non-null columns, and a cell with a loader or process missing has the figures of the ones that
 * reported, not the cell's. Every listing shows `incomplete` and `incomplete_reason` beside it.
 */
const measured = (expr: string, as: string): string =>
  `CASE WHEN c.incomplete THEN NULL ELSE ${expr} END AS ${as}`;

/**
 * Not an SLO search's probe (cell id `<search>.probe<k>`, ../search/probe.ts): its rate is decided in the run, so
 * probe k of one run is not probe k of another. regexp_replace is both Trino's and DuckDB's (neither has the other's
 * regexp_like / regexp_matches); the pattern has no quote to escape.
 */
const NOT_A_PROBE = `regexp_replace(c.cell_id, '${PROBE_CELL_ID.source}', '') = c.cell_id`;

const LATEST = `latest AS (
  SELECT max_by(run_id, started_at_ms) AS run_id
  FROM runs
  WHERE spec_name = ? AND status = 'SUCCEEDED'
)`;

export const NAMED_QUERIES: readonly NamedQuery[] = [
  {
    name: 'p99-by-distribution-and-read-ratio',
    description:
      'Latest successful run of a spec: intended P50/P99/P99.9 (ms) per target, distribution and read ratio',
    parameters: 2,
    sql: `WITH ${LATEST}
SELECT c.target_id, c.distribution, c.read_proportion, c.target_ops_per_sec, c.incomplete, c.incomplete_reason,
       ${measured('round(c.good_ops_per_sec, 1)', 'good_ops_per_sec')},
       ${measured('c.all_intended_p50_us / 1000.0', 'p50_ms')},
       ${measured('c.all_intended_p99_us / 1000.0', 'p99_ms')},
       ${measured('c.all_intended_p999_us / 1000.0', 'p999_ms')},
       ${measured('c.read_intended_p99_us / 1000.0', 'read_p99_ms')},
       ${measured('c.update_intended_p99_us / 1000.0', 'update_p99_ms')}
FROM cells c JOIN latest l ON c.run_id = l.run_id
WHERE c.spec_name = ?
ORDER BY c.target_id, c.distribution, c.read_proportion, c.target_ops_per_sec`,
  },
  {
    name: 'monthly-cost-per-target',
    description:
      'Latest successful run of a spec: monthly cost and cost per million operations per target and pricing model',
    parameters: 2,
    sql: `WITH ${LATEST}
SELECT c.target_id, c.target_kind, c.distribution, c.read_proportion, c.target_ops_per_sec,
       c.incomplete, c.incomplete_reason,
       ${measured('round(c.good_ops_per_sec, 1)', 'good_ops_per_sec')},
       ${measured('c.monthly_cost_provisioned_usd', 'monthly_cost_provisioned_usd')},
       ${measured('c.monthly_cost_on_demand_usd', 'monthly_cost_on_demand_usd')},
       ${measured('c.monthly_cost_usd', 'monthly_cost_usd')},
       ${measured('c.cost_per_million_ops_usd', 'cost_per_million_ops_usd')}
FROM cells c JOIN latest l ON c.run_id = l.run_id
WHERE c.spec_name = ?
ORDER BY c.target_id, c.distribution, c.read_proportion, c.target_ops_per_sec`,
  },
  {
    name: 'attainment-errors-throttles',
    description: 'Every run of a spec: attainment, errors, error rate and throttled attempts per cell',
    parameters: 1,
    sql: `SELECT c.run_id, c.cell_id, c.target_id, c.distribution, c.read_proportion, c.target_ops_per_sec,
       c.incomplete, c.incomplete_reason,
       ${measured('round(c.good_ops_per_sec, 1)', 'good_ops_per_sec')},
       ${measured('c.attainment', 'attainment')},
       ${measured('c.errors', 'errors')},
       ${measured('c.error_rate', 'error_rate')},
       ${measured('c.throttled_attempts', 'throttled_attempts')},
       ${measured('c.status_throttled', 'status_throttled')}
FROM cells c
WHERE c.spec_name = ?
ORDER BY c.window_start_ms DESC, c.cell_id`,
  },
  {
    name: 'latest-run-vs-previous',
    description:
      "A scheduled spec's latest successful run against its previous runs: intended P99 and good ops/s per cell " +
      '(previous: complete cells only; an incomplete latest cell is flagged, its figures empty; no SLO probes)',
    parameters: 2,
    sql: `WITH ranked AS (
  SELECT run_id, row_number() OVER (ORDER BY started_at_ms DESC) AS rk
  FROM runs
  WHERE spec_name = ? AND status = 'SUCCEEDED'
),
cellruns AS (
  SELECT c.cell_id, c.all_intended_p99_us, c.good_ops_per_sec, c.incomplete, c.incomplete_reason, r.rk
  FROM cells c JOIN ranked r ON c.run_id = r.run_id
  WHERE c.spec_name = ? AND ${NOT_A_PROBE}
)
SELECT c.cell_id,
       c.incomplete AS latest_incomplete,
       c.incomplete_reason AS latest_incomplete_reason,
       ${measured('c.all_intended_p99_us / 1000.0', 'latest_p99_ms')},
       avg(prev.all_intended_p99_us) / 1000.0 AS previous_mean_p99_ms,
       min(prev.all_intended_p99_us) / 1000.0 AS previous_best_p99_ms,
       ${measured('c.good_ops_per_sec', 'latest_good_ops_per_sec')},
       avg(prev.good_ops_per_sec) AS previous_mean_good_ops_per_sec,
       count(prev.cell_id) AS previous_runs
FROM cellruns c LEFT JOIN cellruns prev ON prev.cell_id = c.cell_id AND prev.rk > 1 AND NOT prev.incomplete
WHERE c.rk = 1
GROUP BY c.cell_id, c.incomplete, c.incomplete_reason, c.all_intended_p99_us, c.good_ops_per_sec
ORDER BY c.cell_id`,
  },
  {
    name: 'regressions',
    description:
      "A spec's change points (confirmed and pending; DetectRegressions' changes table), each with its latest detection",
    parameters: 1,
    needsHistory: true,
    sql: `SELECT change_run_id, min(change_run_at_ms) AS change_run_at_ms, target_id, cell_id, metric, kind,
       max_by(status, detected_at_ms) AS status,
       max_by(mean_before, detected_at_ms) AS mean_before,
       max_by(mean_after, detected_at_ms) AS mean_after,
       round(max_by(magnitude, detected_at_ms), 4) AS magnitude,
       max_by(p_value, detected_at_ms) AS p_value,
       max_by(run_id, detected_at_ms) AS last_detected_by
FROM changes
WHERE spec_name = ? AND status <> 'suspect'
GROUP BY change_run_id, target_id, cell_id, metric, kind
ORDER BY change_run_at_ms DESC, cell_id, metric`,
  },
];
