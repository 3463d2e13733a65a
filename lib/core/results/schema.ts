/**
 * The result tables, defined once. From these definitions come the Glue table columns (AWS), the DuckDB
 * views (local mode), `docs/results-schema.md`, and the row validation in `rows.ts`.
 *
 * Rows are JSON lines under `tables/<table>/run_date=<YYYY-MM-DD>/spec_name=<name>/<file>.jsonl`. Each row
 * also carries its partition values as fields (Athena's JSON SerDe ignores them; DuckDB reads them).
 * Times are epoch milliseconds (bigint); latencies are microseconds; null means "not known".
 */

import { LOADER_CPU_SUSPECT_PCT, SCHEDULE_DELAY_SUSPECT_US } from './loader-cpu';

export type ColumnType = 'string' | 'bigint' | 'double' | 'boolean';

export interface Column {
  name: string;
  /** Athena / Glue type (DuckDB: string→VARCHAR, bigint→BIGINT, double→DOUBLE, boolean→BOOLEAN) */
  type: ColumnType;
  nullable: boolean;
  description: string;
}

export interface TableDef {
  name: 'runs' | 'cells' | 'intervals' | 'capacity' | 'changes' | 'frontier';
  description: string;
  partitionKeys: Column[];
  columns: Column[];
}

const col = (name: string, type: ColumnType, description: string, nullable = false): Column => ({
  name,
  type,
  nullable,
  description,
});

const PARTITION_KEYS: Column[] = [
  col('run_date', 'string', 'UTC date the run started, YYYY-MM-DD'),
  col('spec_name', 'string', "the run spec's name"),
];

/** Op families reported as columns of `cells`: prefix and what it merges. */
export const FAMILIES = [
  { key: 'READ', prefix: 'read', what: 'READ' },
  { key: 'UPDATE', prefix: 'update', what: 'UPDATE' },
  { key: 'ALL', prefix: 'all', what: 'all base operations (READ, UPDATE, INSERT, SCAN, DELETE)' },
] as const;

export const FAMILY_STATS = ['count', 'mean', 'p50', 'p90', 'p99', 'p999', 'p9999', 'max'] as const;

/**
 * The percentiles `cells` also carries over successful AND failed operations (`<family>_<timing>_incl_failed_<stat>_us`):
 * what an SLO bounds (lib/core/search/verdict.ts). YCSB times a failed operation like a successful one, under
 * `<OP>-FAILED` / `<OP>-<STATUS>` and `Intended-<OP>-FAILED` (DBWrapper.measure,
 * https://github.com/brianfrankcooper/YCSB/blob/0.17.0/core/src/main/java/site/ycsb/DBWrapper.java).
 */
export const INCL_FAILED_STATS = ['p50', 'p90', 'p99', 'p999', 'p9999'] as const;

/** The `cells` column of a family's percentile over successful and failed operations. */
export function inclFailedColumn(
  prefix: string,
  kind: 'service' | 'intended',
  stat: (typeof INCL_FAILED_STATS)[number],
): string {
  return `${prefix}_${kind}_incl_failed_${stat}_us`;
}

const percentileLabel = (s: string): string =>
  `${s.slice(1, 3)}${s.length > 3 ? '.' + s.slice(3) : ''}th percentile`;

/** Statuses with their own column in `cells`; any other Return= status adds to status_other. */
export const STATUS_COLUMNS = [
  { status: 'OK', column: 'status_ok' },
  { status: 'ERROR', column: 'status_error' },
  { status: 'NOT_FOUND', column: 'status_not_found' },
  { status: 'THROTTLED', column: 'status_throttled' },
] as const;

function familyColumns(): Column[] {
  const out: Column[] = [];
  for (const f of FAMILIES) {
    for (const kind of ['service', 'intended'] as const) {
      const timing =
        kind === 'service'
          ? 'service time (call to return)'
          : 'intended time (from the scheduled start; Intended-)';
      for (const s of FAMILY_STATS) {
        if (s === 'count') {
          out.push(
            col(`${f.prefix}_${kind}_count`, 'bigint', `successful ${f.what} operations timed (${kind})`),
          );
          continue;
        }
        const label = s === 'mean' ? 'mean' : s === 'max' ? 'maximum' : percentileLabel(s);
        out.push(
          col(
            `${f.prefix}_${kind}_${s}_us`,
            'double',
            `${label} ${timing} of successful ${f.what}, µs`,
            true,
          ),
        );
      }
    }
  }
  return out;
}

/** `<family>_<timing>_incl_failed_<stat>_us`: the percentiles over successful and failed operations. */
function inclFailedColumns(): Column[] {
  const out: Column[] = [];
  for (const f of FAMILIES) {
    for (const kind of ['service', 'intended'] as const) {
      for (const s of INCL_FAILED_STATS) {
        out.push(
          col(
            inclFailedColumn(f.prefix, kind, s),
            'double',
            `${percentileLabel(s)} ${kind} time of ${f.what}, successful and failed operations alike, µs (what an ` +
              `SLO bounds); null: none timed, or it falls among failed operations without a ${kind} time`,
            true,
          ),
        );
      }
    }
  }
  return out;
}

export const TABLES: readonly TableDef[] = [
  {
    name: 'runs',
    description: 'One row per benchmark run.',
    partitionKeys: PARTITION_KEYS,
    columns: [
      col('run_id', 'string', 'unique id of the run'),
      col('started_at_ms', 'bigint', 'run start, epoch ms'),
      col(
        'ended_at_ms',
        'bigint',
        "run end, epoch ms: when Report ran, or a failed run's teardown (its execution's first failed pass)",
        true,
      ),
      col(
        'status',
        'string',
        "SUCCEEDED (Report), FAILED (a TIMED_OUT execution too) or ABORTED (the failure path's teardown rewrites " +
          'the row); a run whose Plan refused it has no row',
      ),
      col('mode', 'string', 'aws or local'),
      col('region', 'string', 'AWS region (null in local mode)', true),
      col('price_book', 'string', 'id of the price book used for costs', true),
      col(
        'cells_total',
        'bigint',
        'cells in the plan, less the probes an SLO search skipped (docs/slo-search.md)',
      ),
      col('cells_incomplete', 'bigint', 'cells marked incomplete'),
      col(
        'run_cost_estimate_usd',
        'double',
        "the plan's estimate of the run's own AWS cost (docs/cost-model.md); null in local mode",
        true,
      ),
    ],
  },
  {
    name: 'cells',
    description:
      'One row per cell (target × distribution × read ratio × throughput target): the merged HDR logs of ' +
      'every process of every loader over the measured window.',
    partitionKeys: PARTITION_KEYS,
    columns: [
      col('run_id', 'string', 'the run'),
      col('cell_id', 'string', 'the cell, unique within the run'),
      col('target_id', 'string', 'the target system id from the spec'),
      col('target_kind', 'string', 'dynamodb, scylla-alternator, scylla-cql, external, dynamodb-local, ...'),
      col('distribution', 'string', 'request distribution: uniform, zipfian, hotspot, ...'),
      col('read_proportion', 'double', 'YCSB readproportion'),
      col('update_proportion', 'double', 'YCSB updateproportion'),
      col('target_ops_per_sec', 'double', 'throughput target of the cell (null: unthrottled)', true),
      col(
        'window_start_ms',
        'bigint',
        "measured window start: the earliest process's start (its JVM's) + warm-up (each process has its own window), epoch ms",
      ),
      col(
        'window_end_ms',
        'bigint',
        "measured window end: the latest process's end (run phase: its schedule's end) − cool-down, epoch ms",
      ),
      col(
        'measured_seconds',
        'double',
        "the processes' counted spans averaged, weighted by their operations: (successful + failed operations) ÷ achieved_ops_per_sec",
      ),
      col('warmup_seconds', 'double', 'warm-up excluded'),
      col('cooldown_seconds', 'double', 'cool-down excluded'),
      col('loaders', 'bigint', 'loader instances with output'),
      col('processes', 'bigint', 'YCSB processes with output'),
      col(
        'achieved_ops_per_sec',
        'double',
        'Σ over the processes of (successful + failed operations) ÷ the span of its counted intervals; a read-modify-write is one operation (see above)',
      ),
      col(
        'good_ops_per_sec',
        'double',
        'Σ over the processes of successful operations ÷ the span of its counted intervals',
      ),
      col('attainment', 'double', 'good_ops_per_sec ÷ target_ops_per_sec', true),
      ...familyColumns(),
      ...inclFailedColumns(),
      ...STATUS_COLUMNS.map((s) =>
        col(s.column, 'bigint', `Σ Return=${s.status} over all processes (whole run, as YCSB reports it)`),
      ),
      col('status_other', 'bigint', 'Σ of every other Return= status (whole run)'),
      col(
        'errors',
        'bigint',
        'failed operations in the window (Σ <OP>-FAILED latency samples, at most the operations: see above)',
      ),
      col('error_rate', 'double', 'errors ÷ (successful + failed operations) in the window', true),
      col('throttled_attempts', 'bigint', 'throttled attempts in the window (Σ <OP>-THROTTLED samples)'),
      col('incomplete', 'boolean', 'a loader or process is missing or failed'),
      col('incomplete_reason', 'string', 'which loaders/processes and why, "; "-separated', true),
      col(
        'loader_cpu_max_pct',
        'double',
        "highest loader's machine CPU utilisation over the phase (/proc/stat), % of its CPUs; null: not measured (non-Linux loader, older agent)",
        true,
      ),
      col(
        'loader_jvm_cpu_max_pct',
        'double',
        "highest loader's YCSB JVMs' CPU time (/proc/<pid>/stat) ÷ (phase × its CPUs), %; null: not measured",
        true,
      ),
      col(
        'loader_cpu_json',
        'string',
        'per loader, JSON array of {loader, host, cores, machine_pct, jvm_pct}; null: not measured',
        true,
      ),
      col(
        'schedule_delay_p99_us',
        'double',
        "p99 of the open-loop schedule's SCHEDULE-DELAY (how late operations started) in the window, µs; null: per-thread pacing",
        true,
      ),
      col(
        'suspect',
        'boolean',
        `a loader above ${LOADER_CPU_SUSPECT_PCT} % CPU or schedule_delay_p99_us above ${SCHEDULE_DELAY_SUSPECT_US / 1000} ms: the numbers may be the loaders', not the target's`,
      ),
      col('suspect_reason', 'string', 'which loaders and why, "; "-separated', true),
      col('monthly_cost_provisioned_usd', 'double', 'cost model: provisioned capacity, per month', true),
      col('monthly_cost_on_demand_usd', 'double', 'cost model: on-demand, per month', true),
      col('monthly_cost_usd', 'double', 'cost model: the pricing the target uses, per month', true),
      col(
        'cost_per_million_ops_usd',
        'double',
        "monthly_cost_usd ÷ the millions of good operations of that month (the price book's hours, 730) at good_ops_per_sec",
        true,
      ),
    ],
  },
  {
    name: 'intervals',
    description:
      "Time series: one row per cell, status-interval bucket (10 s by default; aligned on each process's own window start) and " +
      'measurement name; warm-up buckets included (in_window false).',
    partitionKeys: PARTITION_KEYS,
    columns: [
      col('run_id', 'string', 'the run'),
      col('cell_id', 'string', 'the cell'),
      col('op', 'string', 'YCSB measurement name (READ, UPDATE-FAILED, Intended-READ, READ-THROTTLED, ...)'),
      col('bucket_start_ms', 'bigint', 'bucket start, epoch ms'),
      col('offset_seconds', 'double', 'bucket start − window start (negative: warm-up)'),
      col(
        'bucket_seconds',
        'double',
        "seconds the bucket's intervals cover (per process log: last end − first start, averaged): the " +
          'bucket length, less for the partial bucket at the end of a run',
      ),
      col('in_window', 'boolean', 'the bucket starts inside the measured window'),
      col('count', 'bigint', 'operations (latency samples) in the bucket'),
      col('ops_per_sec', 'double', 'count ÷ bucket_seconds'),
      col('p50_us', 'double', 'median latency, µs; null when the bucket holds no operation', true),
      col('p99_us', 'double', '99th percentile latency, µs; null when the bucket holds no operation', true),
      col('max_us', 'double', 'maximum latency, µs; null when the bucket holds no operation', true),
    ],
  },
  {
    name: 'capacity',
    description:
      "A DynamoDB table's capacity over a cell: one row per cell, table and bucket. Local runs: the capacity " +
      "emulator's seconds (source emulator: every limit × local.capacityScale, every duration ÷ local.timeScale, " +
      "docs/dynamodb-model.md); AWS runs: the table's CloudWatch metrics at one minute (source cloudwatch). The " +
      'report draws them with the measured throughput and the predicted timeline.',
    partitionKeys: PARTITION_KEYS,
    columns: [
      col('run_id', 'string', 'the run'),
      col('cell_id', 'string', 'the cell'),
      col('table_name', 'string', 'the DynamoDB table'),
      col('source', 'string', 'emulator (local capacity emulator) or cloudwatch (AWS/DynamoDB metrics)'),
      col('bucket_start_ms', 'bigint', 'bucket start, epoch ms'),
      col(
        'table_age_seconds',
        'double',
        "emulator: bucket start − the start of the table's capacity state (the cell's start: the emulator starts every cell from an idle table), s; cloudwatch: null",
        true,
      ),
      col('bucket_seconds', 'double', 'the bucket length, s (1 emulated, 60 from CloudWatch)'),
      col('consumed_read_units', 'double', 'read units consumed, per second (CloudWatch: the Sum ÷ 60)'),
      col('consumed_write_units', 'double', 'write units consumed, per second (CloudWatch: the Sum ÷ 60)'),
      col('admitted_requests', 'bigint', 'requests admitted in the bucket; cloudwatch: null', true),
      col(
        'throttled_requests',
        'bigint',
        'requests throttled in the bucket (emulator: the three below summed; cloudwatch: ThrottledRequests summed over the operations)',
      ),
      col('throttled_item', 'bigint', "emulator: ... by an item's own limit; cloudwatch: null", true),
      col(
        'throttled_partition',
        'bigint',
        "emulator: ... by a partition's limit (these heat it: split for heat); cloudwatch: null",
        true,
      ),
      col('throttled_table', 'bigint', "emulator: ... by the table's limit; cloudwatch: null", true),
      col('read_throttle_events', 'bigint', 'cloudwatch: ReadThrottleEvents (Sum); emulator: null', true),
      col('write_throttle_events', 'bigint', 'cloudwatch: WriteThrottleEvents (Sum); emulator: null', true),
      col(
        'throttled_requests_json',
        'string',
        'cloudwatch: ThrottledRequests (Sum) per operation, JSON {"GetItem": n, ...}; emulator: null',
        true,
      ),
      col(
        'partitions',
        'bigint',
        "emulator: the table's partitions at the bucket's end; cloudwatch: null",
        true,
      ),
      col(
        'splits',
        'bigint',
        'emulator: splits for heat since the cell began, at the bucket’s end; cloudwatch: null',
        true,
      ),
    ],
  },
  {
    name: 'changes',
    description:
      'Regression detection (docs/regression.md): one row per change point or suspect newest run found by ' +
      'the detection after a run, written once per (series, first run of the change, status); partitioned ' +
      'by the detecting run.',
    partitionKeys: PARTITION_KEYS,
    columns: [
      col('run_id', 'string', 'the run after which detection ran'),
      col('detected_at_ms', 'bigint', 'when detection ran, epoch ms'),
      col('target_id', 'string', 'the series: target id'),
      col('cell_id', 'string', 'the series: cell id'),
      col('metric', 'string', 'metric id (intended_p99_us, good_ops_per_sec, ...; docs/regression.md)'),
      col('better', 'string', 'lower or higher: which way the metric improves'),
      col('kind', 'string', 'regression (worse in the metric direction) or improvement'),
      col(
        'status',
        'string',
        'confirmed; pending (fewer than minSegment runs after it); suspect (newest-run guard only)',
      ),
      col('change_run_id', 'string', 'first run of the new regime (suspect: the newest run)'),
      col('change_run_at_ms', 'bigint', 'start of that run (else its window start), epoch ms'),
      col('previous_run_id', 'string', 'last run before the change', true),
      col('mean_before', 'double', 'mean of the regime before (suspect: of the recent history)'),
      col('mean_after', 'double', 'mean of the regime after (suspect: the newest value)'),
      col('std_before', 'double', 'population standard deviation before (suspect: sample)', true),
      col('std_after', 'double', 'population standard deviation after (null for a suspect)', true),
      col('n_before', 'bigint', 'runs in the regime before (suspect: history runs used)'),
      col('n_after', 'bigint', 'runs in the regime after (suspect: 1)'),
      col(
        'magnitude',
        'double',
        'max(|after/before − 1|, |before/after − 1|), a ratio over a zero mean counting as 0 (0 → x is 1); suspect rows: null when a mean is 0',
        true,
      ),
      col('forward_change', 'double', 'after/before − 1; null when the mean before is 0', true),
      col(
        'p_value',
        'double',
        't-test (or permutation) p-value; suspect: two-sided p of the newest value under the prediction interval',
        true,
      ),
      col('method', 'string', 'ttest, permutation or guard'),
      col('options_json', 'string', 'the detection options, JSON'),
    ],
  },
  {
    name: 'frontier',
    description:
      'SLO searches (docs/slo-search.md): one row per search (target × distribution × read proportion) once it ends: ' +
      'the highest rate that met the SLO and the conditions, the capacity model’s predicted limit, the probes, and ' +
      'the found probe’s cost.',
    partitionKeys: PARTITION_KEYS,
    columns: [
      col('run_id', 'string', 'the run'),
      col('search_id', 'string', 'the search: its probe cells’ id without .probe<k>'),
      col('target_id', 'string', 'the target system id from the spec'),
      col('target_kind', 'string', 'the target’s kind'),
      col('distribution', 'string', 'request distribution'),
      col('read_proportion', 'double', 'YCSB readproportion'),
      col('slo', 'string', 'the SLO, e.g. "intended P99 of all operations (failed ones included) ≤ 10 ms"'),
      col(
        'slo_column',
        'string',
        'the cells column the SLO bounds, e.g. all_intended_incl_failed_p99_us (successful and failed operations)',
      ),
      col('slo_max_us', 'double', 'the SLO’s bound, µs'),
      col('min_attainment', 'double', 'a probe also had to attain this share of its rate'),
      col('max_error_rate', 'double', '... and fail at most this share of its operations'),
      col(
        'outcome',
        'string',
        'converged, upper-bound-passes (the answer is at least the bound), start-fails or unfinished',
      ),
      col('found_ops_per_sec', 'double', 'the highest probed rate that passed; null: none did', true),
      col('failed_ops_per_sec', 'double', 'the lowest probed rate that failed; null: none did', true),
      col('found_cell_id', 'string', 'the probe cell of the found rate', true),
      col('found_latency_us', 'double', 'the SLO’s latency in that probe, µs', true),
      col('found_good_ops_per_sec', 'double', 'good ops/s that probe measured', true),
      col(
        'predicted_limit_ops_per_sec',
        'double',
        'the capacity model’s limit (highest rate predicted to attain min_attainment; local runs: the emulator’s scaled one); null: not modelled',
        true,
      ),
      col('probes', 'bigint', 'probes run'),
      col('probes_planned', 'bigint', 'the most probes the search could take (what Plan bounded)'),
      col(
        'monthly_cost_usd',
        'double',
        'the found probe’s own monthly_cost_usd (its cells row: the cost model at the rate it achieved)',
        true,
      ),
      col(
        'cost_per_million_ops_usd',
        'double',
        'the found probe’s own cost_per_million_ops_usd: monthly_cost_usd ÷ the millions of good operations of that month (the price book’s hours) at found_good_ops_per_sec',
        true,
      ),
      col('required_ops_per_sec', 'double', 'the rate the spec requires (search.requiredOpsPerSec)', true),
      col('meets_required', 'boolean', 'found_ops_per_sec ≥ required_ops_per_sec; null: none required', true),
      col(
        'monthly_cost_at_required_usd',
        'double',
        'cost model: the target per month at required_ops_per_sec (compare targets that meet it); null: none required or not priced',
        true,
      ),
      col(
        'probes_json',
        'string',
        'JSON array of {cell_id, rate, pass, latency_us, attainment, error_rate, reasons, suspect}; suspect: e.g. "loader CPU suspect: …" when the probe cell is suspect (a note: pass/fail unchanged), else null',
      ),
    ],
  },
];

export function tableDef(name: TableDef['name']): TableDef {
  const t = TABLES.find((x) => x.name === name);
  if (!t) throw new Error(`unknown table ${name}`);
  return t;
}

/** Glue `StorageDescriptor.Columns` / `PartitionKeys` shapes. */
export function glueColumns(name: TableDef['name']): {
  columns: { Name: string; Type: string; Comment: string }[];
  partitionKeys: { Name: string; Type: string; Comment: string }[];
} {
  const t = tableDef(name);
  const g = (c: Column) => ({ Name: c.name, Type: c.type, Comment: c.description.slice(0, 255) });
  return { columns: t.columns.map(g), partitionKeys: t.partitionKeys.map(g) };
}

export const DUCKDB_TYPES: Record<ColumnType, string> = {
  string: 'VARCHAR',
  bigint: 'BIGINT',
  double: 'DOUBLE',
  boolean: 'BOOLEAN',
};

/** `CREATE VIEW` over the JSON lines of a table below `root` (hive partitioning from the path). */
export function duckdbViewSql(name: TableDef['name'], root: string): string {
  const t = tableDef(name);
  const cols = [...t.columns, ...t.partitionKeys]
    .map((c) => `'${c.name}': '${DUCKDB_TYPES[c.type]}'`)
    .join(', ');
  const glob = `${root.replace(/\/$/, '')}/tables/${name}/**/*.jsonl`.replace(/'/g, "''");
  return (
    `CREATE OR REPLACE VIEW ${name} AS SELECT * FROM read_json('${glob}', ` +
    `format = 'newline_delimited', columns = {${cols}}, hive_partitioning = false)`
  );
}
