/**
 * After each cell of a local run, the capacity emulator's seconds of every modelled table (consumed units,
 * throttles, partitions, splits) go to the `capacity` table beside the cell's intervals
 * (lib/core/results/capacity.ts; docs/results-schema.md).
 */
import type { ObjectStore } from '../core/common/store';
import { checkRun, readPlan } from '../core/pipeline/context';
import { capacityObjectKey, capacityRows } from '../core/results/capacity';
import { toJsonLines } from '../core/results/rows';
import { tableDef } from '../core/results/schema';
import type { CapacityProxy } from './capacity-proxy';

/**
 * Writes the cell's capacity rows (nothing when the cell ran no modelled request: a skipped probe): its own table's
 * (`tables`, cellTables), not those of targets measured beside it.
 */
export async function storeCellCapacity(
  capacity: CapacityProxy,
  store: ObjectStore,
  input: { run?: unknown },
  cellId: string,
  tables?: readonly string[],
): Promise<void> {
  const run = checkRun(input.run);
  const meta = { runId: run.runId, specName: run.specName, startedAtMs: run.startedAtMs, cellId };
  const rows = capacity.series(tables).flatMap((t) => capacityRows(meta, t));
  if (rows.length === 0) return;
  await store.put(capacityObjectKey(meta, cellId), toJsonLines(tableDef('capacity'), rows));
}

/** The table of the cell a StartCell or AggregateCell input names (`run`, `index`): its target's, from the plan. */
export async function cellTables(
  store: ObjectStore,
  input: { run?: unknown; index?: number },
): Promise<string[]> {
  const run = checkRun(input.run);
  const plan = await readPlan(store, run.runId);
  const cell = plan.cells[input.index ?? -1];
  const table = cell ? plan.tables[cell.target] : undefined;
  return table ? [table] : [];
}
