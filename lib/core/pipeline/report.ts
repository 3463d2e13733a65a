/**
 * Report: the run row (table `runs`), summary.json (per cell: the headline numbers), the HTML report
 * (`runs/<runId>/report.html`, the same renderer as the local mode) and a notification with a link to it
 * (presigned on S3). Cells without a result (never aggregated) count as incomplete.
 */
import { MAX_LINK_SECONDS, NotFoundError } from '../common/store';
import { writeReport } from '../report/data';
import type { Clock, Notifier, ObjectStore } from '../common/ports';
import { buildRunRow, tableObjectKey, toJsonLines, type Row } from '../results/rows';
import { tableDef } from '../results/schema';
import { cellKey, checkRun, readPlan, summaryKey } from './context';
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
}

export async function report(
  input: { run: unknown; status?: 'SUCCEEDED' | 'FAILED' | 'ABORTED'; region?: string | null },
  deps: { store: ObjectStore; notifier: Notifier; clock: Clock },
): Promise<{
  runId: string;
  cells: number;
  incomplete: number;
  summaryUri: string;
  reportUri: string | null;
}> {
  const run = checkRun(input.run);
  const plan = await readPlan(deps.store, run.runId);
  // an SLO search's probes that its end made unnecessary ran nothing: not cells of the run
  const cells = await cellsNotSkipped(deps.store, run.runId, plan.cells);
  const rows: (Row | undefined)[] = [];
  for (const cell of cells) {
    try {
      rows.push(((await deps.store.getJson(cellKey(run.runId, cell.id, 'result.json'))) as CellResult).row);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      rows.push(undefined);
    }
  }
  const status = input.status ?? 'SUCCEEDED';
  const endedAtMs = deps.clock.nowMs();
  const present = rows.filter((r): r is Row => r !== undefined);
  const runRow = buildRunRow(
    {
      runId: run.runId,
      specName: run.specName,
      startedAtMs: run.startedAtMs,
      endedAtMs,
      status,
      mode: run.storeUri.startsWith('s3://') ? 'aws' : 'local',
      region: input.region ?? null,
      priceBook: null,
      cellsTotal: cells.length,
      runCostEstimateUsd: null,
    },
    present,
  );
  // cells never aggregated are incomplete too
  runRow.cells_incomplete = (runRow.cells_incomplete as number) + (rows.length - present.length);
  const runs = tableDef('runs');
  await deps.store.put(tableObjectKey(runs, run, run.runId), toJsonLines(runs, [runRow]));
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
