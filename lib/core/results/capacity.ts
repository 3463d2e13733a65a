/**
 * The `capacity` table's rows (lib/core/results/schema.ts): a DynamoDB table's consumed units, throttles and
 * partitions over a cell, from the local capacity emulator's seconds (lib/core/dynamodb-model/emulator.ts), and
 * the one reader the report uses. One row per cell, table and second.
 */
import type { CapacitySecond } from '../dynamodb-model/emulator';
import type { TableMinute } from '../common/ports';
import { runDate, tableObjectKey, validateRow, type Row, type RunMeta } from './rows';
import { tableDef } from './schema';

/** Where a cell's capacity rows go: one object per cell, as its intervals (the report reads it back by name). */
export function capacityObjectKey(meta: RunMeta, cellId: string): string {
  return tableObjectKey(tableDef('capacity'), meta, `${meta.runId}.${cellId}`);
}

/** The rows of one table's emulated seconds over a cell (started at `startedAtMs`, epoch ms). */
export function capacityRows(
  meta: RunMeta & { cellId: string },
  table: { name: string; startedAtMs: number; seconds: readonly CapacitySecond[] },
): Row[] {
  const t = tableDef('capacity');
  return table.seconds.map((s) => {
    const throttled = s.throttled.item + s.throttled.partition + s.throttled.table;
    return validateRow(t, {
      run_date: runDate(meta.startedAtMs),
      spec_name: meta.specName,
      run_id: meta.runId,
      cell_id: meta.cellId,
      table_name: table.name,
      source: 'emulator',
      bucket_start_ms: table.startedAtMs + s.second * 1000,
      table_age_seconds: s.second,
      bucket_seconds: 1,
      consumed_read_units: s.consumedReadUnits,
      consumed_write_units: s.consumedWriteUnits,
      admitted_requests: s.admitted,
      throttled_requests: throttled,
      throttled_item: s.throttled.item,
      throttled_partition: s.throttled.partition,
      throttled_table: s.throttled.table,
      read_throttle_events: null,
      write_throttle_events: null,
      throttled_requests_json: null,
      partitions: s.partitions,
      splits: s.splits,
    });
  });
}

/** The rows of one table's CloudWatch minutes over a cell (source cloudwatch; units per second = Sum ÷ 60). */
export function cloudWatchCapacityRows(
  meta: RunMeta & { cellId: string },
  table: { name: string; minutes: readonly TableMinute[] },
): Row[] {
  const t = tableDef('capacity');
  return table.minutes.map((m) =>
    validateRow(t, {
      run_date: runDate(meta.startedAtMs),
      spec_name: meta.specName,
      run_id: meta.runId,
      cell_id: meta.cellId,
      table_name: table.name,
      source: 'cloudwatch',
      bucket_start_ms: m.startMs,
      table_age_seconds: null,
      bucket_seconds: 60,
      consumed_read_units: m.consumedReadUnits / 60,
      consumed_write_units: m.consumedWriteUnits / 60,
      admitted_requests: null,
      throttled_requests: Object.values(m.throttledRequests).reduce((a, b) => a + b, 0),
      throttled_item: null,
      throttled_partition: null,
      throttled_table: null,
      read_throttle_events: m.readThrottleEvents,
      write_throttle_events: m.writeThrottleEvents,
      throttled_requests_json: JSON.stringify(m.throttledRequests),
      partitions: null,
      splits: null,
    }),
  );
}

/** One bucket of a table's capacity as the report draws it (on its own clock: ../report/timeline.ts). */
export interface CapacityPoint {
  /** the bucket's start, epoch ms (emulator seconds and CloudWatch minutes alike) */
  bucketStartMs: number;
  consumedReadUnits: number;
  consumedWriteUnits: number;
  /** null from CloudWatch (not published) */
  admittedPerSec: number | null;
  throttledPerSec: number;
  partitions: number | null;
}

/** The capacity rows of a cell read back (any table; the first table's when a cell has several), in time order. */
export function capacityPointsOf(rows: readonly Row[]): CapacityPoint[] {
  const first = rows[0]?.table_name;
  const n = (r: Row, k: string) => (typeof r[k] === 'number' ? (r[k] as number) : 0);
  return rows
    .filter((r) => r.table_name === first)
    .map((r) => ({
      bucketStartMs: n(r, 'bucket_start_ms'),
      consumedReadUnits: n(r, 'consumed_read_units'),
      consumedWriteUnits: n(r, 'consumed_write_units'),
      admittedPerSec:
        typeof r.admitted_requests === 'number'
          ? r.admitted_requests / Math.max(1e-9, n(r, 'bucket_seconds'))
          : null,
      throttledPerSec: n(r, 'throttled_requests') / Math.max(1e-9, n(r, 'bucket_seconds')),
      partitions: typeof r.partitions === 'number' ? r.partitions : null,
    }))
    .sort((a, b) => a.bucketStartMs - b.bucketStartMs);
}
