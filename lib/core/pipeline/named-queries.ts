/**
 * The Athena workgroup's named queries. The SQL is portable between Athena (Trino) and DuckDB
 * (local mode) and takes the spec name as its `?` parameters (the console asks for them; the CLI
 * and the local mode bind them), because `spec_name` is an injected partition key.
 */
export interface NamedQuery {
  name: string;
  description: string;
  /** How many `?` parameters (all the spec name). */
  parameters: number;
  /** Rows only once the spec has a history (change points need runs on both sides). */
  needsHistory?: boolean;
  sql: string;
}

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
SELECT c.target_id, c.distribution, c.read_proportion, c.target_ops_per_sec,
       round(c.good_ops_per_sec, 1) AS good_ops_per_sec,
       c.all_intended_p50_us / 1000.0 AS p50_ms,
       c.all_intended_p99_us / 1000.0 AS p99_ms,
       c.all_intended_p999_us / 1000.0 AS p999_ms,
       c.read_intended_p99_us / 1000.0 AS read_p99_ms,
       c.update_intended_p99_us / 1000.0 AS update_p99_ms
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
       round(c.good_ops_per_sec, 1) AS good_ops_per_sec,
       c.monthly_cost_provisioned_usd, c.monthly_cost_on_demand_usd, c.monthly_cost_usd,
       c.cost_per_million_ops_usd
FROM cells c JOIN latest l ON c.run_id = l.run_id
WHERE c.spec_name = ?
ORDER BY c.target_id, c.distribution, c.read_proportion, c.target_ops_per_sec`,
  },
  {
    name: 'attainment-errors-throttles',
    description: 'Every run of a spec: attainment, errors, error rate and throttled attempts per cell',
    parameters: 1,
    sql: `SELECT run_id, cell_id, target_id, distribution, read_proportion, target_ops_per_sec,
       round(good_ops_per_sec, 1) AS good_ops_per_sec, attainment, errors, error_rate,
       throttled_attempts, status_throttled, incomplete, incomplete_reason
FROM cells
WHERE spec_name = ?
ORDER BY window_start_ms DESC, cell_id`,
  },
  {
    name: 'latest-run-vs-previous',
    description:
      "A scheduled spec's latest successful run against its previous runs: intended P99 and good ops/s per cell",
    parameters: 2,
    sql: `WITH ranked AS (
  SELECT run_id, row_number() OVER (ORDER BY started_at_ms DESC) AS rk
  FROM runs
  WHERE spec_name = ? AND status = 'SUCCEEDED'
),
cellruns AS (
  SELECT c.cell_id, c.all_intended_p99_us, c.good_ops_per_sec, r.rk
  FROM cells c JOIN ranked r ON c.run_id = r.run_id
  WHERE c.spec_name = ?
)
SELECT cur.cell_id,
       cur.all_intended_p99_us / 1000.0 AS latest_p99_ms,
       avg(prev.all_intended_p99_us) / 1000.0 AS previous_mean_p99_ms,
       min(prev.all_intended_p99_us) / 1000.0 AS previous_best_p99_ms,
       cur.good_ops_per_sec AS latest_good_ops_per_sec,
       avg(prev.good_ops_per_sec) AS previous_mean_good_ops_per_sec,
       count(prev.cell_id) AS previous_runs
FROM cellruns cur LEFT JOIN cellruns prev ON prev.cell_id = cur.cell_id AND prev.rk > 1
WHERE cur.rk = 1
GROUP BY cur.cell_id, cur.all_intended_p99_us, cur.good_ops_per_sec
ORDER BY cur.cell_id`,
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
