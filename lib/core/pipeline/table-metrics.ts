/**
 * On AWS, after each DynamoDB cell: the table's CloudWatch metrics over the cell (one-minute sums of consumed
 * units, read and write throttle events, throttled requests per operation; lib/aws/table-metrics.ts) joined to the
 * results as `capacity` rows (source cloudwatch) beside the cell's intervals. CloudWatch publishes DynamoDB's
 * metrics a minute or two late, so the cell's last minute may read as 0 when AggregateCell runs at once.
 * Locally the capacity emulator's seconds go to the same table (lib/local/capacity-store.ts).
 */
import { kindOf } from '../targets/registry';
import type { ObjectStore, TableMetricsReader } from '../common/ports';
import type { CellSummary } from '../plan';
import type { RunSpec } from '../spec';
import { capacityObjectKey, cloudWatchCapacityRows } from '../results/capacity';
import { toJsonLines, type Row } from '../results/rows';
import { tableDef } from '../results/schema';
import type { RunContext } from './context';

/**
 * Writes the cell's capacity rows from CloudWatch; nothing for a cell on another kind of target or without a
 * measured window. Returns what it wrote (rows), for the step's log.
 */
export async function joinTableMetrics(
  deps: { store: ObjectStore; tableMetrics: TableMetricsReader },
  o: { run: RunContext; spec: RunSpec; cell: CellSummary; row: Row },
): Promise<number> {
  const target = o.spec.targets.find((t) => t.id === o.cell.target);
  const name = target ? kindOf(target).metricsTable?.(target, o.run) : undefined;
  const start = o.row.window_start_ms;
  const end = o.row.window_end_ms;
  if (name === undefined || typeof start !== 'number' || typeof end !== 'number') return 0;
  // the whole cell: from its processes' start (the window less its warm-up) to the window's end plus cool-down
  const range = {
    startMs: start - o.cell.warmupSeconds * 1000,
    endMs: end + o.cell.cooldownSeconds * 1000,
  };
  const minutes = await deps.tableMetrics.tableMinutes(name, range);
  const rows = cloudWatchCapacityRows({ ...o.run, cellId: o.cell.id }, { name, minutes });
  if (rows.length)
    await deps.store.put(capacityObjectKey(o.run, o.cell.id), toJsonLines(tableDef('capacity'), rows));
  return rows.length;
}
