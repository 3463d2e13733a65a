/**
 * Report: the run row (table `runs`), summary.json (per cell: the headline numbers), the HTML report
 * (`runs/<runId>/report.html`, the same renderer as the local mode) and a notification with a link to it
 * (presigned on S3). Cells without a result (never aggregated) count as incomplete.
 */
import { MAX_LINK_SECONDS } from '../common/store';
import { writeReport } from '../report/data';
import type { Clock, Notifier, ObjectStore } from '../common/ports';
import { checkRun, readOptional, summaryKey, type RunContext } from './context';
import { targetTeardownKey } from './keys';
import { writeRunRow, type RunStatus } from './run-row';
import { failureReason } from './cell-failure';
import {
  readTargetTeardowns,
  targetTeardownLine,
  type TargetTeardownFailure,
  type TargetTeardownOutcome,
} from './teardown-input';
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
  status: RunStatus;
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

export async function report(
  input: {
    run: unknown;
    status?: RunStatus;
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
