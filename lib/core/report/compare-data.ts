/**
 * The two sides of a comparison, read from what runs left: each cell's headline (its `cells` row, from the
 * store's result.json or from a query of the `cells` table) and its window buckets (buckets.json next to
 * result.json; lib/core/results/buckets.ts). The same reading serves `fleetbench compare` (local results or
 * the deployed stack) and the Report step.
 */
import { cellKey, readPlan } from '../pipeline/context';
import type { CellResult } from '../pipeline/aggregate';
import { headlineOf } from '../contract/headline';
import { parseCellBuckets, type CellBuckets } from '../results/buckets';
import { NotFoundError, type ObjectStore } from '../common/store';
import type { ResultsQuery } from '../common/ports';
import { InputError } from '../common/errors';
import type { RunSide, SideCell } from './compare';

const missing = (err: unknown): null => {
  if (err instanceof NotFoundError) return null;
  throw err;
};

async function bucketsOf(store: ObjectStore, runId: string, cellId: string): Promise<CellBuckets | null> {
  const key = cellKey(runId, cellId, 'buckets.json');
  const value = await store.getJson(key).catch(missing);
  return value === null ? null : parseCellBuckets(value, store.uriOf(key));
}

/** A run's cells from the store: the plan's cells that have a result (others are left out). */
export async function sideFromStore(store: ObjectStore, runId: string): Promise<RunSide> {
  const plan = await readPlan(store, runId).catch((err: unknown) => {
    if (err instanceof NotFoundError)
      throw new InputError([{ path: 'run', message: `no run ${runId} in ${store.uriOf(`runs/${runId}`)}` }]);
    throw err;
  });
  const cells: SideCell[] = [];
  for (const cell of plan.cells) {
    const result = (await store
      .getJson(cellKey(runId, cell.id, 'result.json'))
      .catch(missing)) as CellResult | null;
    if (!result) continue;
    cells.push({ headline: headlineOf(result.row), buckets: await bucketsOf(store, runId, cell.id) });
  }
  return { runId, cells };
}

/** The SQL of a run's cells rows (parameters: spec name, run id); every column, as headlineOf reads them. */
export const COMPARE_CELLS_SQL = `SELECT *
FROM cells
WHERE spec_name = ? AND run_id = ?
ORDER BY cell_id`;

/** A run's cells from the `cells` table (Athena on AWS), their buckets from the store. */
export async function sideFromQuery(
  query: ResultsQuery,
  store: ObjectStore,
  run: { runId: string; specName: string },
): Promise<RunSide> {
  const rows = await query.query(COMPARE_CELLS_SQL, [run.specName, run.runId]);
  if (rows.length === 0)
    throw new InputError([
      {
        path: 'run',
        message: `no cells rows for run ${run.runId} (spec ${run.specName}) in the cells table`,
      },
    ]);
  const cells: SideCell[] = [];
  for (const row of rows) {
    const headline = headlineOf(row);
    cells.push({ headline, buckets: await bucketsOf(store, run.runId, headline.cellId) });
  }
  return { runId: run.runId, cells };
}
