/**
 * The run's row of table `runs`: written by Report on the success path and by the failure path's teardown
 * (./teardown.ts) for a failed or aborted run (docs/aws-pipeline.md, "The `runs` row of a run that does not
 * succeed"). Apart from ./report.ts so that the teardown's function does not bundle the report's renderer.
 */
import type { ObjectStore } from '../common/ports';
import { buildRunRow, tableObjectKey, toJsonLines, type Row } from '../results/rows';
import { tableDef } from '../results/schema';
import type { CellSummary } from '../plan';
import type { CellResult } from './aggregate';
import { cellKey, readOptional, readPlan, readSpec, type RunContext } from './context';
import { runPriceBook } from './prices';
import { cellsNotSkipped } from './probe';

/** A finished run's status, as its `runs` row, summary.json and report give it. */
export type RunStatus = 'SUCCEEDED' | 'FAILED' | 'ABORTED';

/** What the `runs` row of a run is written from (Report on the success path, Teardown on the failure path). */
export interface RunRowInput {
  run: RunContext;
  status: RunStatus;
  endedAtMs: number;
  /** The AWS region (null in local mode); undefined: the stored spec's, on AWS. */
  region?: string | null;
}

/**
 * The run's row of table `runs` (one object per run, rewritten by a later status: a resumed run's, a teardown that
 * failed after Report): its cells' rows (undefined where a cell has no result), the price book the run was planned
 * with (./prices.ts) and, on AWS, the plan's estimate of the run's own cost (docs/cost-model.md; null in local mode,
 * where AWS bills nothing). Returns the cells counted and their rows.
 */
export async function writeRunRow(
  input: RunRowInput,
  store: ObjectStore,
): Promise<{ cells: CellSummary[]; rows: (Row | undefined)[] }> {
  const { run, status, endedAtMs } = input;
  const plan = await readPlan(store, run.runId);
  // an SLO search's probes that its end made unnecessary ran nothing: not cells of the run
  const cells = await cellsNotSkipped(store, run.runId, plan.cells);
  const rows: (Row | undefined)[] = [];
  for (const cell of cells)
    rows.push(
      ((await readOptional(store, cellKey(run.runId, cell.id, 'result.json'))) as CellResult | null)?.row,
    );
  const aws = run.storeUri.startsWith('s3://');
  const region =
    input.region !== undefined
      ? input.region
      : aws
        ? ((await readSpec(store, run.runId)).region ?? null)
        : null;
  const present = rows.filter((r): r is Row => r !== undefined);
  const estimate = (plan as { estimate?: { totalUsd?: unknown } }).estimate?.totalUsd;
  const runRow = buildRunRow(
    {
      runId: run.runId,
      specName: run.specName,
      startedAtMs: run.startedAtMs,
      endedAtMs,
      status,
      mode: aws ? 'aws' : 'local',
      region,
      priceBook: (await runPriceBook(store, run.runId)).id,
      cellsTotal: cells.length,
      // a plan from before estimates were kept has none
      runCostEstimateUsd: aws && typeof estimate === 'number' ? estimate : null,
    },
    present,
  );
  // cells never aggregated are incomplete too
  runRow.cells_incomplete = (runRow.cells_incomplete as number) + (rows.length - present.length);
  const runs = tableDef('runs');
  await store.put(tableObjectKey(runs, run, run.runId), toJsonLines(runs, [runRow]));
  return { cells, rows };
}
