/**
 * Report: the run row (table `runs`), summary.json (per cell: the headline numbers), the HTML report
 * (`runs/<runId>/report.html`, the same renderer as the local mode) and a notification with a link to it
 * (presigned on S3). Cells without a result (never aggregated) count as incomplete.
 */
import { MAX_LINK_SECONDS } from '../common/store';
import { writeReport } from '../report/data';
import type { Clock, Notifier, ObjectStore } from '../common/ports';
import { buildRunRow, tableObjectKey, toJsonLines, type Row } from '../results/rows';
import { tableDef } from '../results/schema';
import { cellKey, checkRun, readOptional, readPlan, readSpec, summaryKey, type RunContext } from './context';
import { targetTeardownKey } from './keys';
import { runPriceBook } from './prices';
import { failureReason } from './cell-failure';
import {
  readTargetTeardowns,
  targetTeardownLine,
  type TargetTeardownFailure,
  type TargetTeardownOutcome,
} from './teardown-input';
import type { CellSummary } from '../plan';
import type { CellResult } from './aggregate';
import { cellsNotSkipped } from './probe';
import { headlineOf, noResultHeadline, type CellHeadline } from '../contract/headline';
import { runEventsKey, type LoaderReplacement } from './loader-replacement';

/** The run's loader replacements, oldest first. */
async function loaderReplacements(store: ObjectStore, runId: string): Promise<LoaderReplacement[]> {
  const keys = (await store.list(runEventsKey(runId))).filter((k) =>
    /\/loader-replacement-\d+\.json$/.test(k),
  );
  const events = await Promise.all(keys.map(async (k) => (await store.getJson(k)) as LoaderReplacement));
  return events.sort((a, b) => a.atMs - b.atMs);
}

export interface RunSummary {
  runId: string;
  specName: string;
  status: 'SUCCEEDED' | 'FAILED' | 'ABORTED';
  startedAtMs: number;
  endedAtMs: number;
  /** per planned cell, in plan order; a cell without a result is incomplete with null figures */
  cells: CellHeadline[];
  /** lost loaders replaced before a cell's retry (lib/core/pipeline/loader-replacement.ts), in time order */
  loaderReplacements: LoaderReplacement[];
  /** targets whose own teardown (TeardownTarget) failed: the run's Teardown removes what each left */
  targetTeardownFailures?: TargetTeardownFailure[];
}

/**
 * The failed target teardowns among the Map's outcomes, each with what its record says was left: the record of this
 * execution only (a resumed run's first execution may have written one for the target too).
 */
async function targetTeardownFailures(
  store: ObjectStore,
  run: RunContext,
  outcomes: TargetTeardownOutcome[],
): Promise<TargetTeardownFailure[]> {
  const since = run.resume?.atMs ?? run.startedAtMs;
  const out: TargetTeardownFailure[] = [];
  for (const o of outcomes) {
    if (!o.teardownError) continue;
    const rec = (await readOptional(store, targetTeardownKey(run.runId, o.target))) as {
      errors?: unknown;
      atMs?: unknown;
    } | null;
    const ours = rec && typeof rec.atMs === 'number' && rec.atMs >= since && Array.isArray(rec.errors);
    out.push({
      target: o.target,
      error: failureReason(o.teardownError),
      ...(ours ? { left: (rec.errors as unknown[]).map(String) } : {}),
    });
  }
  return out;
}

/** What the `runs` row of a run is written from (Report on the success path, Teardown on the failure path). */
export interface RunRowInput {
  run: RunContext;
  status: RunSummary['status'];
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

export async function report(
  input: {
    run: unknown;
    status?: 'SUCCEEDED' | 'FAILED' | 'ABORTED';
    region?: string | null;
    /** How each target's own teardown ended (the targets Map's output). */
    targetTeardowns?: unknown;
  },
  deps: { store: ObjectStore; notifier: Notifier; clock: Clock },
): Promise<{
  runId: string;
  cells: number;
  incomplete: number;
  summaryUri: string;
  reportUri: string | null;
}> {
  const run = checkRun(input.run);
  const status = input.status ?? 'SUCCEEDED';
  const endedAtMs = deps.clock.nowMs();
  const teardownFailures = await targetTeardownFailures(
    deps.store,
    run,
    readTargetTeardowns(input.targetTeardowns),
  );
  const { cells, rows } = await writeRunRow(
    { run, status, endedAtMs, region: input.region ?? null },
    deps.store,
  );
  const summary: RunSummary = {
    runId: run.runId,
    specName: run.specName,
    status,
    startedAtMs: run.startedAtMs,
    endedAtMs,
    cells: cells.map((c, i) => {
      const r = rows[i];
      return r ? headlineOf(r) : noResultHeadline(c);
    }),
    loaderReplacements: await loaderReplacements(deps.store, run.runId),
    ...(teardownFailures.length ? { targetTeardownFailures: teardownFailures } : {}),
  };
  await deps.store.putJson(summaryKey(run.runId), summary);
  // The report is a view of what is stored: a renderer failure must not cost the run its notification.
  let reportLine: string;
  let reportUri: string | null = null;
  try {
    const key = await writeReport(deps.store, run.runId, status);
    reportUri = deps.store.uriOf(key);
    reportLine = `Report: ${await deps.store.link(key, MAX_LINK_SECONDS)}\n(${reportUri}; the link expires within 7 days, \`fleetbench status ${run.runId}\` gives a fresh one)`;
  } catch (err) {
    reportLine = `Report: not written (${(err as Error).message})`;
  }
  const incomplete = summary.cells.filter((c) => c.incomplete).length;
  const lines = summary.cells.map(
    (c) =>
      `${c.cellId}: ${c.achievedOpsPerSec === null ? 'no result' : `${Math.round(c.achievedOpsPerSec)} ops/s`}` +
      (c.intendedP99Us === null ? '' : `, intended P99 ${(c.intendedP99Us / 1000).toFixed(2)} ms`) +
      (c.incomplete ? ` (incomplete: ${c.incompleteReason ?? 'no result'})` : ''),
  );
  await deps.notifier.publish(
    `fleetbench ${run.specName} ${run.runId}: ${status}`.slice(0, 99),
    [
      `Run ${run.runId} of ${run.specName}: ${status}, ${cells.length} cells, ${incomplete} incomplete.`,
      '',
      ...lines,
      '',
      ...summary.loaderReplacements.map(
        (r) =>
          `Loaders replaced at ${new Date(r.atMs).toISOString()}: ${r.launched} launched for ` +
          `${[...r.lost, ...(r.missing ? [`${r.missing} gone`] : [])].join(', ')} (up to $${r.worstCaseUsd.toFixed(2)}).`,
      ),
      ...teardownFailures.map(targetTeardownLine),
      reportLine,
      `Summary: ${deps.store.uriOf(summaryKey(run.runId))}`,
    ].join('\n'),
  );
  return {
    runId: run.runId,
    cells: cells.length,
    incomplete,
    summaryUri: deps.store.uriOf(summaryKey(run.runId)),
    reportUri,
  };
}
