/**
 * Renders docs/results-schema.md from the table definitions in lib/core/results/schema.ts.
 * Regenerate: `npm run docs:results-schema` (a unit test fails when the file is stale).
 */
import { writeFileSync } from 'node:fs';
import { TABLES } from '../lib/core/results/schema';

export const RESULTS_SCHEMA_DOC = 'docs/results-schema.md';

export function renderSchemaMarkdown(): string {
  const out: string[] = [
    '# Result tables',
    '',
    '<!-- Generated from lib/core/results/schema.ts by `npm run docs:results-schema`; do not edit. -->',
    '',
    'Rows are JSON lines under `tables/<table>/run_date=<YYYY-MM-DD>/spec_name=<name>/` (same keys in S3',
    'and in the local results directory); Glue tables (Athena) and the local DuckDB views are generated',
    'from the same definitions. Times are epoch milliseconds, latencies microseconds (HdrHistogram',
    '`getValueAtPercentile` semantics over the merged histograms of every process of every loader);',
    'a nullable column holds `null` when the value is not known.',
    '',
    'How the aggregator fills them (see `lib/core/results/aggregate.ts`):',
    '',
    '- Each process has its own measured window, `[its start + warm-up, its end − cool-down)`: its start is its',
    "  manifest's `startMs` (the JVM's start: the warm-up covers the JVM's and the binding's start-up), its end the",
    "  manifest's `endMs`. A loader that started late is thus measured over its own steady state, not its warm-up",
    "  (the cell's ops/s are the sum of the processes' own rates: each process's operations ÷ its own span). An HDR interval is",
    "  counted when its absolute start (log `StartTime` + interval start) lies in its process's window: an interval",
    '  straddling the warm-up boundary is left out whole, one straddling the cool-down boundary is counted whole.',
    '  `window_start_ms` / `window_end_ms` are the earliest process window start and the latest end.',
    "- With a run phase (its schedule ends `durationSeconds` after each process's workload began), the intervals",
    '  starting within 0.5 s of that end or later are the drain and are left out (of the series too), and an',
    '  interval running past it counts only up to it.',
    "- Every ops/s figure is the sum of the processes' own rates: a process's counted operations ÷ the span of its",
    '  counted intervals (latest end − earliest start). `measured_seconds` = (successful + failed operations) ÷',
    "  `achieved_ops_per_sec`: the processes' spans averaged, weighted by their operations. Latencies come from the",
    "  merged histograms of every process's counted intervals.",
    "- Status counts (`status_*`) are YCSB's `Return=` totals over the whole run (YCSB reports no per-interval",
    '  statuses); `errors`, `error_rate` and `throttled_attempts` come from the HDR logs of the window.',
    '- Operations are counted as the workload issued them, what its target paces (`tallyOperations` in',
    "  `lib/core/results/names.ts`), in the cells' good/failed figures, attainment, cost per operation, the SLO",
    "  search's verdicts, `compare`'s buckets and the report's throughput series. A successful sample (`READ`,",
    '  `UPDATE`, `INSERT`, `SCAN`, `DELETE`, `QUERY`) is a good operation, a failed one (`<OP>-FAILED`,',
    "  `<OP>-<STATUS>`) a failed operation, except inside a read-modify-write: YCSB 0.17.0's",
    '  `CoreWorkload.doTransactionReadModifyWrite` calls `db.read` and then `db.update` (whatever the read',
    '  returned), `DBWrapper` measures them as `READ`/`READ-FAILED` and `UPDATE`/`UPDATE-FAILED`, and the workload',
    '  then measures `READ-MODIFY-WRITE` with no status',
    '  ([CoreWorkload.java](https://github.com/brianfrankcooper/YCSB/blob/0.17.0/core/src/main/java/site/ycsb/workloads/CoreWorkload.java),',
    '  [DBWrapper.java](https://github.com/brianfrankcooper/YCSB/blob/0.17.0/core/src/main/java/site/ycsb/DBWrapper.java)).',
    '  So operations = successful + failed samples − `READ-MODIFY-WRITE` samples; failed operations = the failed',
    '  samples (a read-modify-write whose read or update failed is one failed operation), at most the operations;',
    '  good = operations − failed. A read-modify-write whose read AND update both failed cannot be told from two',
    '  failed operations: it is counted as failed and one good operation less (good is never overstated). Workload',
    '  F fully served at 150 ops/s thus shows 150 good ops/s, not the 225 the samples add up to. The latency rows',
    "  keep each name's own samples (`READ` holds the reads inside read-modify-writes too). The `Intended-` samples",
    '  are the same operations: not counted again, and counted instead when a run records only them',
    "  (`workload.measurement: intended`, where YCSB's `Measurements.measure` records nothing).",
    '- The `<family>_<timing>_<stat>_us` latency columns are of successful operations; the',
    '  `<family>_<timing>_incl_failed_<stat>_us` ones of successful and failed operations alike (YCSB times a failed',
    '  operation under `<OP>-FAILED` / `<OP>-<STATUS>` and `Intended-<OP>-FAILED`): what an SLO search bounds',
    '  (docs/slo-search.md). When one timing holds fewer failed samples than the other, the failed operations it lacks',
    '  count as slower than any latency, and a percentile falling among them is null.',
    '- A cell is `incomplete` when a process has no manifest, a non-zero exit code, no summary or no logs.',
    "- `intervals`: an interval goes to the bucket its start falls in, counted from its process's own window start",
    "  (bucket k holds every process's k-th bucket; `bucket_start_ms` = `window_start_ms` + k × the bucket length),",
    '  one bucket per status interval',
    '  (`workload.statusIntervalSeconds`: 10 s by default, 1 s in the local examples); `bucket_seconds` is the time',
    "  the bucket's intervals cover (per process log, last end − first start, averaged over the logs), so a partial",
    '  bucket at the end of a run is divided by its own length. A bucket without operations has `count` 0,',
    '  `ops_per_sec` 0 and null latencies (no operations: no latency); the report draws it as a gap.',
    '',
  ];
  for (const t of TABLES) {
    out.push(`## \`${t.name}\``, '', t.description, '');
    out.push('| column | type | nullable | description |', '| --- | --- | --- | --- |');
    for (const c of t.partitionKeys) {
      out.push(`| \`${c.name}\` | ${c.type} | no | partition key: ${c.description} |`);
    }
    for (const c of t.columns) {
      out.push(`| \`${c.name}\` | ${c.type} | ${c.nullable ? 'yes' : 'no'} | ${c.description} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

if (require.main === module) {
  writeFileSync(RESULTS_SCHEMA_DOC, renderSchemaMarkdown());
  process.stdout.write(`wrote ${RESULTS_SCHEMA_DOC}\n`);
}
