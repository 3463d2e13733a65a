/**
 * AggregateCell: merge the raw outputs of every loader of a cell (HDR interval logs, summaries,
 * manifests) into result rows (tables `cells` and `intervals`), write them under `tables/`, keep
 * a small result.json per cell, and send the cell's metrics. The merging itself is
 * lib/core/results (histograms, never averaged percentiles); the logs stream from the store port into
 * the decoder, one object at a time, with nothing written to disk.
 */
import { scheduleClockOf, withScheduleTarget, type ScheduleClock } from '../results/schedule';
import type { CellSummary, PlanIndex } from '../plan';
import type { RunSpec } from '../spec';
import type { MetricsSink, ObjectStore, TableMetricsReader } from '../common/ports';
import { joinTableMetrics } from './table-metrics';
import { headlineOf } from '../contract/headline';
import { cellMetrics } from '../contract/cell-metrics';
import { InputError } from '../common/errors';
import { aggregateCell as mergeCell } from '../results/aggregate';
import { readCell } from '../results/input';
import {
  buildCellRow,
  buildIntervalRows,
  cellMetaOf,
  tableObjectKey,
  toJsonLines,
  type CellCosts,
  type CellMeta,
  type Row,
} from '../results/rows';
import { tableDef } from '../results/schema';
import { cellBucketsOf } from '../results/buckets';
import { cellKey, cellRawKey, checkRun, readPlan, readSpec, type RunContext } from './context';
import { cellCostsFor } from './costing';
import { executionOf } from './run-context';
import { runPriceBook } from './prices';
import { finishSearch, probeDecisionOf } from './probe';

export interface CellResult {
  cellId: string;
  row: Row;
  /** set by CellFailed when the cell failed (after its retry): the row measured nothing */
  failed?: { reason: string; atMs: number };
  /** a rate-schedule cell's counted intervals on its schedule's clock (the report's timeline places them with it) */
  scheduleClock?: ScheduleClock;
}

/** A cell's cost columns at the rate it achieved (./costing.ts cellCostsFor). */
export type CellCostsOf = (cell: CellSummary, achievedOpsPerSec: number) => CellCosts;

export interface AggregateDeps {
  store: ObjectStore;
  metrics: MetricsSink;
  /** DynamoDB tables' CloudWatch metrics (AWS): joined to the cell as capacity rows; absent locally. */
  tableMetrics?: TableMetricsReader;
  /** Monthly cost of the target at the cell's achieved rate; default: the cost model with the newest price book. */
  cellCosts?: CellCostsOf;
}

/**
 * After a probe's row is written, by AggregateCell or (a probe that failed) by CellFailed: the search's frontier
 * row when that probe ended it (./probe.ts finishSearch), priced as the cells are.
 */
export async function closeSearchAfter(
  store: ObjectStore,
  args: { run: RunContext; plan: PlanIndex; cell: CellSummary; spec?: RunSpec; cellCosts?: CellCostsOf },
): Promise<boolean> {
  const { run, plan, cell } = args;
  if (!cell.probe) return false;
  const spec = args.spec ?? (await readSpec(store, run.runId));
  const costOf = args.cellCosts ?? cellCostsFor(spec, await runPriceBook(store, run.runId));
  return finishSearch(store, { run, plan, spec, cell, costAt: (ops) => costOf(cell, ops) });
}

export async function aggregateCellStep(
  input: { run: unknown; index: number; attempt?: number },
  deps: AggregateDeps,
): Promise<{ index: number; next: number; cellId: string; incomplete: boolean }> {
  const run: RunContext = checkRun(input.run);
  const plan = await readPlan(deps.store, run.runId);
  const cell = plan.cells[input.index];
  if (!cell) throw new InputError([{ path: 'cell.index', message: `no cell ${input.index}` }]);
  // a probe of an SLO search ran the rate StartCell decided, or nothing (skipped: no row, no cost)
  const probe = await probeDecisionOf(deps.store, run.runId, cell);
  if (probe && probe.rateOpsPerSec === null)
    return { index: input.index, next: input.index + 1, cellId: cell.id, incomplete: false };
  // a rate schedule's cell: its target is what the schedule offered over the counted intervals (below)
  const targetOpsPerSec = probe?.rateOpsPerSec ?? (cell.rateSchedule ? undefined : cell.targetOpsPerSec);
  // the attempt that ran to the end (a retried cell's first outputs stay where they were, unread)
  const rawPrefix = cellRawKey(run.runId, cell.id, input.attempt ?? 0);
  const spec = await readSpec(deps.store, run.runId);
  // the series at the status interval's own length: one bucket per YCSB interval
  const seriesSeconds = spec.workload.statusIntervalSeconds;
  // the logs stream from the store into the decoder: nothing is written to disk (no loader output: InputError)
  const merged = await mergeCell(await readCell(deps.store, rawPrefix, { execution: executionOf(run) }), {
    warmupSeconds: cell.warmupSeconds,
    cooldownSeconds: cell.cooldownSeconds,
    // the drain after each process's schedule is not the offered load (lib/core/results/aggregate.ts)
    durationSeconds: cell.durationSeconds,
    // an unpaced cell has no target: no attainment (rows, report and regressions see null)
    ...(cell.unpaced || targetOpsPerSec === undefined ? {} : { targetOpsPerSec }),
    seriesSeconds,
  });
  const scheduleClock = cell.rateSchedule ? scheduleClockOf(merged, seriesSeconds) : null;
  const agg =
    cell.rateSchedule && !probe
      ? withScheduleTarget(merged, {
          points: cell.rateSchedule,
          clock: scheduleClock,
          nominal: [cell.warmupSeconds, cell.durationSeconds - cell.cooldownSeconds],
        })
      : merged;
  const meta: CellMeta = cellMetaOf(run, cell);
  const costOf = deps.cellCosts ?? cellCostsFor(spec, await runPriceBook(deps.store, run.runId));
  const costs = costOf(cell, agg.achievedOpsPerSec);
  const row = buildCellRow(meta, agg, costs);
  const intervals = buildIntervalRows(meta, agg);
  const cells = tableDef('cells');
  const ints = tableDef('intervals');
  const file = `${run.runId}.${cell.id}`;
  await deps.store.put(tableObjectKey(cells, meta, file), toJsonLines(cells, [row]));
  await deps.store.put(tableObjectKey(ints, meta, file), toJsonLines(ints, intervals));
  const result: CellResult = { cellId: cell.id, row, ...(scheduleClock ? { scheduleClock } : {}) };
  await deps.store.putJson(cellKey(run.runId, cell.id, 'result.json'), result);
  // what `fleetbench compare` resamples and the report's percentile spectra draw (lib/core/results/buckets.ts)
  await deps.store.putJson(
    cellKey(run.runId, cell.id, 'buckets.json'),
    cellBucketsOf(cell.id, seriesSeconds, agg),
  );
  // on AWS, the DynamoDB table's CloudWatch metrics over the cell join the results (./table-metrics.ts); an
  // addition to the cell's results, so a failure to read them is kept beside the cell, not the cell's failure
  if (deps.tableMetrics)
    await joinTableMetrics(
      { store: deps.store, tableMetrics: deps.tableMetrics },
      { run, spec, cell, row },
    ).catch((err: unknown) =>
      deps.store.putJson(cellKey(run.runId, cell.id, 'capacity-error.json'), {
        error: `CloudWatch table metrics: ${(err as Error).message}`,
      }),
    );
  // one series per cell of the spec (none for a probe, an A/A repeat, an incomplete cell): ../contract/cell-metrics.ts
  const m = cellMetrics(headlineOf(row), { specName: run.specName, cell });
  if (m) await deps.metrics.put(m.dimensions, m.data);
  // the search's frontier row once it has ended
  await closeSearchAfter(deps.store, { run, plan, cell, spec, cellCosts: costOf });
  return {
    index: input.index,
    next: input.index + 1,
    cellId: cell.id,
    incomplete: row.incomplete === true,
  };
}
