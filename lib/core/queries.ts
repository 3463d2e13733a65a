/**
 * Named queries over the result tables, written once in SQL that both Athena (Trino) and DuckDB
 * run unchanged: the Athena workgroup gets them as named queries, `fleetbench query --named`
 * runs them locally. Only standard SQL: joins, window functions, round(), CASE.
 */
export interface NamedQuery {
  name: string;
  description: string;
  sql: string;
}

export const NAMED_QUERIES: readonly NamedQuery[] = [
  {
    name: 'p99-by-distribution-and-read-ratio',
    description:
      'Intended (coordinated-omission corrected) P50/P99/P99.9 per target, distribution, read ratio and throughput target.',
    sql: `SELECT c.spec_name, c.run_id, c.target_id, c.distribution, c.read_proportion, c.target_ops_per_sec,
       round(c.all_intended_p50_us / 1000.0, 3) AS intended_p50_ms,
       round(c.all_intended_p99_us / 1000.0, 3) AS intended_p99_ms,
       round(c.all_intended_p999_us / 1000.0, 3) AS intended_p999_ms,
       round(c.all_service_p99_us / 1000.0, 3) AS service_p99_ms,
       c.incomplete
FROM cells c
ORDER BY c.spec_name, c.run_id, c.target_id, c.distribution, c.read_proportion, c.target_ops_per_sec`,
  },
  {
    name: 'monthly-cost-per-target',
    description:
      'Monthly cost per target and pricing model at the measured throughput, and cost per million operations.',
    sql: `SELECT c.spec_name, c.run_id, c.target_id, c.distribution, c.read_proportion, c.target_ops_per_sec,
       round(c.good_ops_per_sec, 1) AS good_ops_per_sec,
       round(c.monthly_cost_provisioned_usd, 2) AS monthly_provisioned_usd,
       round(c.monthly_cost_on_demand_usd, 2) AS monthly_on_demand_usd,
       round(c.monthly_cost_usd, 2) AS monthly_usd,
       round(c.cost_per_million_ops_usd, 4) AS usd_per_million_ops
FROM cells c
ORDER BY c.spec_name, c.run_id, c.target_id, c.distribution, c.read_proportion, c.target_ops_per_sec`,
  },
  {
    name: 'attainment-errors-throttles',
    description:
      'Good ops/s against the target, errors and throttled attempts per cell; incomplete cells say why.',
    sql: `SELECT c.spec_name, c.run_id, c.cell_id, c.target_ops_per_sec,
       round(c.achieved_ops_per_sec, 1) AS achieved_ops_per_sec,
       round(c.good_ops_per_sec, 1) AS good_ops_per_sec,
       round(c.attainment, 4) AS attainment,
       c.errors, round(c.error_rate, 6) AS error_rate, c.throttled_attempts,
       c.incomplete, c.incomplete_reason
FROM cells c
ORDER BY c.spec_name, c.run_id, c.cell_id`,
  },
  {
    name: 'latest-run-vs-previous',
    description:
      "For each spec, the latest run's intended P99 and good ops/s per cell against the mean of its previous runs.",
    sql: `WITH ranked AS (
  SELECT c.spec_name, c.cell_id, c.run_id, r.started_at_ms, c.all_intended_p99_us, c.good_ops_per_sec,
         dense_rank() OVER (PARTITION BY c.spec_name ORDER BY r.started_at_ms DESC) AS run_rank
  FROM cells c JOIN runs r ON r.run_id = c.run_id
),
latest AS (SELECT * FROM ranked WHERE run_rank = 1),
previous AS (
  SELECT spec_name, cell_id, count(*) AS previous_runs,
         avg(all_intended_p99_us) AS prev_p99_us, avg(good_ops_per_sec) AS prev_good_ops
  FROM ranked WHERE run_rank > 1 GROUP BY spec_name, cell_id
)
SELECT l.spec_name, l.cell_id, l.run_id AS latest_run_id,
       round(l.all_intended_p99_us / 1000.0, 3) AS latest_p99_ms,
       round(p.prev_p99_us / 1000.0, 3) AS previous_mean_p99_ms,
       round(CASE WHEN p.prev_p99_us > 0 THEN (l.all_intended_p99_us - p.prev_p99_us) / p.prev_p99_us END, 4) AS p99_change,
       round(l.good_ops_per_sec, 1) AS latest_good_ops_per_sec,
       round(p.prev_good_ops, 1) AS previous_mean_good_ops_per_sec,
       coalesce(p.previous_runs, 0) AS previous_runs
FROM latest l LEFT JOIN previous p ON p.spec_name = l.spec_name AND p.cell_id = l.cell_id
ORDER BY l.spec_name, l.cell_id`,
  },
];

export function namedQuery(name: string): NamedQuery | undefined {
  return NAMED_QUERIES.find((q) => q.name === name);
}
