/**
 * After each cell of a local run, the capacity emulator's seconds of every modelled table (consumed units,
 * throttles, partitions, splits) go to the `capacity` table beside the cell's intervals
 * (lib/core/results/capacity.ts; docs/results-schema.md).
 */
import type { ObjectStore } from '../core/common/store';
import { checkRun } from '../core/pipeline/context';
import { capacityObjectKey, capacityRows } from '../core/results/capacity';
import { toJsonLines } from '../core/results/rows';
import { tableDef } from '../core/results/schema';
import type { CapacityProxy } from './capacity-proxy';

/** Writes the cell's capacity rows (nothing when the cell ran no modelled request: a skipped probe). */
export async function storeCellCapacity(
  capacity: CapacityProxy,
  store: ObjectStore,
  input: { run?: unknown },
  cellId: string,
): Promise<void> {
  const run = checkRun(input.run);
  const meta = { runId: run.runId, specName: run.specName, startedAtMs: run.startedAtMs, cellId };
  const rows = capacity.series().flatMap((t) => capacityRows(meta, t));
  if (rows.length === 0) return;
  await store.put(capacityObjectKey(meta, cellId), toJsonLines(tableDef('capacity'), rows));
}
