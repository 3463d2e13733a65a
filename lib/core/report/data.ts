/**
 * The run report's data, read from what a run left in the object store (the plan, each cell's result row,
 * the interval rows, the spec's history and noise calibration), and the report itself written under the
 * run's prefix (`runs/<runId>/report.html`). The Report step (lib/core/pipeline/report.ts) and the local
 * mode (lib/local/report.ts) both write it through here, on S3 and on disk alike.
 */
import {
  cellKey,
  checkRun,
  contextKey,
  readCellPlan,
  readPlan,
  readSpec,
  reportKey,
  runKey,
  type RunContext,
} from '../pipeline/context';
import { compareRuns, type Comparison } from './compare';
import { sideFromStore } from './compare-data';
import { analyzeHistory, readHistory } from '../pipeline/regressions';
import type { CellResult } from '../pipeline/aggregate';
import { headlineOf } from '../contract/headline';
import { calibratedMinMagnitude, readLatestNoise } from '../regression/noise';
import { METRICS } from '../regression/metrics';
import type { ReportCell, ReportData, ReportHistory, ReportPoint } from './html';
import { renderReport } from './html';
import { fromJsonLines, tableObjectKey, type Row } from '../results/rows';
import { tableDef } from '../results/schema';
import { parseLoaderCpuJson } from '../results/loader-cpu';
import { NotFoundError, type ObjectStore } from '../common/store';
import { bookRegion, type PriceBook } from '../cost/book';
import { bookOriginText, priceBookLine, priceBookWarnings, priceSourceText } from '../cost/book-choice';
import { runPriceBook } from '../pipeline/prices';
import { kindOf } from '../targets/registry';
import type { RunSpec } from '../spec';
import type { Plan } from '../plan';
import type { ReportDax } from './html';
import type { ReportSearch } from './searches';
import { cellsNotSkipped, frontierKey } from '../pipeline/probe';
import { readOptional, summaryKey } from '../pipeline/keys';
import { targetTeardownLine, type TargetTeardownFailure } from '../pipeline/teardown-input';
import { scheduleReportOf, type ReportSchedule, type ScheduleCellInput } from './schedules';
import { capacityObjectKey } from '../results/capacity';
import { cellTimelineOf, type ReportTimeline } from './timeline';
import { executionOf, type ExecutionInput } from './targets';
import { THROUGHPUT_OPS, tallyOperations } from '../results/names';

const num = (r: Row, k: string): number | null => (typeof r[k] === 'number' ? (r[k] as number) : null);

/** A report cell from a `cells` row: the cell's headline (predictions are added by buildReportData). */
export function reportCellOf(row: Row): ReportCell {
  return { ...headlineOf(row), loaderCpu: parseLoaderCpuJson(row.loader_cpu_json) };
}

/**
 * The time series of a cell from its interval rows: per bucket the good operations per second, each operation
 * the workload issued counted once (tallyOperations: a read-modify-write is one, not its READ + UPDATE + itself),
 * and the worst operation's intended latency. A bucket without operations has no ops/s and no latency (null: a
 * gap in the charts), not zeros.
 */
export function seriesOf(intervals: Row[]): ReportPoint[] {
  const byBucket = new Map<
    number,
    { t: number; rates: [string, number][]; count: number; p50: number | null; p99: number | null }
  >();
  for (const r of intervals) {
    const op = String(r.op);
    const t = num(r, 'offset_seconds') ?? 0;
    const b = byBucket.get(t) ?? { t, rates: [], count: 0, p50: null, p99: null };
    b.rates.push([op, num(r, 'ops_per_sec') ?? 0]);
    if (THROUGHPUT_OPS.includes(op.replace(/^Intended-/, ''))) b.count += num(r, 'count') ?? 0;
    // the worst operation's percentile in the bucket (the rows keep each operation's own)
    if (
      op === 'Intended-READ' ||
      op === 'Intended-UPDATE' ||
      (op.startsWith('Intended-') && THROUGHPUT_OPS.includes(op.slice(9)))
    ) {
      const p50 = num(r, 'p50_us');
      const p99 = num(r, 'p99_us');
      if (p50 !== null) b.p50 = Math.max(b.p50 ?? 0, p50);
      if (p99 !== null) b.p99 = Math.max(b.p99 ?? 0, p99);
    }
    byBucket.set(t, b);
  }
  return [...byBucket.values()]
    .sort((a, b) => a.t - b.t)
    .map((b) => ({
      t: b.t,
      opsPerSec: b.count > 0 ? tallyOperations(b.rates).good : null,
      p50: b.p50,
      p99: b.p99,
    }));
}

/** The rows of one table object ([] when it is not there). */
async function rowsAt(store: ObjectStore, key: string): Promise<Row[]> {
  const text = await store.get(key).then(
    (b) => b.toString('utf8'),
    (err: unknown) => {
      if (err instanceof NotFoundError) return '';
      throw err;
    },
  );
  return fromJsonLines([{ text, source: store.uriOf(key) }]).map(({ row }) => row as Row);
}

/** A DynamoDB cell's measured and predicted curves over time (lib/core/report/timeline.ts), or null. */
async function timelineOf(
  store: ObjectStore,
  o: {
    run: RunContext;
    cell: { id: string; index: number };
    row: Row;
    intervals: Row[];
    local: boolean;
    emulated: boolean;
  },
): Promise<ReportTimeline | null> {
  // the predicted timelines are in the cell's own plan (the run index lists its predictions without them)
  const cell = await readCellPlan(store, o.run.runId, o.cell.index);
  // the table's capacity over the cell (locally: the emulator's seconds, written after AggregateCell)
  const capacity = await rowsAt(store, capacityObjectKey(o.run, o.cell.id));
  return cellTimelineOf({ ...o, cell, capacity });
}

export interface ReportOptions {
  /** A local run: its DynamoDB cells are throttled as predicted only through the capacity emulator, at its scale. */
  local?: boolean;
}

type Window = ExecutionInput['windows'][number];

/** A cell's measured window, when its row has one. */
function windowOf(target: string, row: Row): Window[] {
  const { window_start_ms: startMs, window_end_ms: endMs } = row;
  return typeof startMs === 'number' && typeof endMs === 'number' ? [{ target, startMs, endMs }] : [];
}

/** How the targets were measured: the spec's execution, the loaders each had, their cells' windows. */
function runExecution(spec: RunSpec | null, plan: Pick<Plan, 'loaderGroups' | 'fleet'>, windows: Window[]) {
  return executionOf({
    mode: spec?.execution ?? 'sequential',
    targets: spec?.targets ?? [],
    ...(plan.loaderGroups ? { loaderGroups: plan.loaderGroups } : {}),
    fleetLoaders: plan.fleet.loaders,
    windows,
  });
}

/**
 * A cell's views over time: a rate-schedule cell's offered over served rate beside the on-demand model with the
 * limits the run met, and a DynamoDB cell's measured curve against its predicted timeline.
 */
async function overTimeViews(
  store: ObjectStore,
  a: {
    spec: RunSpec | null;
    run: RunContext;
    cell: ScheduleCellInput & { id: string; index: number; prediction?: unknown };
    result: CellResult;
    rows: Row[];
    options: ReportOptions;
    emulated: boolean;
  },
): Promise<{ schedule: ReportSchedule | null; timeline: ReportTimeline | null }> {
  const { spec, cell, options, emulated } = a;
  // a rate-schedule cell's buckets on its schedule's clock (AggregateCell keeps it in result.json)
  const scheduleCell = { ...cell, scheduleClock: a.result.scheduleClock };
  const schedule = scheduleReportOf(spec, scheduleCell, a.rows, {
    capacityScale: options.local && emulated ? (spec?.local?.capacityScale ?? 1) : 1,
    ...(options.local && emulated && spec?.local?.timeScale ? { timeScale: spec.local.timeScale } : {}),
  });
  const timeline = cell.prediction
    ? await timelineOf(store, {
        run: a.run,
        cell,
        row: a.result.row,
        intervals: a.rows,
        local: !!options.local,
        emulated,
      })
    : null;
  return { schedule: schedule ?? null, timeline: timeline ?? null };
}

export async function buildReportData(
  store: ObjectStore,
  runId: string,
  status: string,
  options: ReportOptions = {},
): Promise<ReportData> {
  const plan = await readPlan(store, runId);
  const spec = await readSpec(store, runId).catch(() => null);
  // the local mode's capacity emulation (on unless the spec turns it off); on AWS the real service throttles
  const emulated = !options.local || spec?.local?.capacityEmulation !== false;
  const run = checkRun(await store.getJson(contextKey(runId)));
  const cells: ReportCell[] = [];
  const series: Record<string, ReportPoint[]> = {};
  const timelines: Record<string, ReportTimeline> = {};
  const notes: string[] = [];
  const schedules: ReportSchedule[] = [];
  const windows: Window[] = [];
  // probes an SLO search skipped ran nothing (lib/core/pipeline/probe.ts)
  for (const cell of await cellsNotSkipped(store, runId, plan.cells)) {
    let result: CellResult;
    try {
      result = (await store.getJson(cellKey(runId, cell.id, 'result.json'))) as CellResult;
    } catch (err) {
      if (err instanceof NotFoundError) {
        notes.push(`cell ${cell.id}: no result (the run ended before it was aggregated)`);
        continue;
      }
      throw err;
    }
    windows.push(...windowOf(cell.target, result.row));
    // what the run itself was predicted to attain: on AWS the table's prediction; locally the emulator's
    const predicted = options.local
      ? emulated
        ? (cell.localPrediction ?? cell.prediction)
        : undefined
      : cell.prediction;
    // an unpaced cell has no attainment to predict (NaN in the plan, null once stored as JSON)
    const paced = (p: typeof predicted) => (p && Number.isFinite(p.attainment) ? p : undefined);
    cells.push({
      ...reportCellOf(result.row),
      predicted: paced(predicted)
        ? { attainment: predicted!.attainment, limitedBy: predicted!.limitedBy, reason: predicted!.reason }
        : null,
      predictedAws: paced(cell.prediction)
        ? { attainment: cell.prediction!.attainment, limitedBy: cell.prediction!.limitedBy }
        : null,
    });
    // the cell's interval rows: one object, where AggregateCell wrote it (no listing of the table)
    const rows = await rowsAt(store, tableObjectKey(tableDef('intervals'), run, `${runId}.${cell.id}`));
    series[cell.id] = seriesOf(rows.filter((r) => r.in_window === true));
    const views = await overTimeViews(store, { spec, run, cell, result, rows, options, emulated });
    if (views.schedule) schedules.push(views.schedule);
    if (views.timeline) timelines[cell.id] = views.timeline;
  }
  // the book the run was planned with (its cells' costs too): named, and warned of when stale or another region's
  const book = await runPriceBook(store, runId);
  notes.unshift(
    `Costs are priced with ${priceBookLine(book)}: ${bookOriginText(book)}.`,
    ...priceBookWarnings(book, { region: spec?.region ?? bookRegion(book), nowMs: run.startedAtMs }),
  );
  // a target whose own teardown failed (Report's summary.json): said here too, not only in the notification
  const summary = (await readOptional(store, summaryKey(runId))) as {
    targetTeardownFailures?: TargetTeardownFailure[];
  } | null;
  notes.push(...(summary?.targetTeardownFailures ?? []).map(targetTeardownLine));
  const dax = daxOf(spec, book);
  const history = await historyOf(store, runId).catch((err: unknown) => {
    notes.push(`no history chart: ${(err as Error).message}`);
    return [];
  });
  const noise = await readLatestNoise(store, plan.specName).catch((err: unknown) => {
    notes.push(`no noise bands: ${(err as Error).message}`);
    return undefined;
  });
  const { spectra, comparison } = await comparisonAndSpectra(store, runId, spec?.baseline, notes);
  const searches = await frontierRows(store, runId, plan.searches ?? [], notes);
  return {
    execution: runExecution(spec, plan, windows),
    runId,
    specName: plan.specName,
    // the run's start (Plan's clock), not its first cell's window: provisioning and the load come before it
    startedAt: new Date(run.startedAtMs).toISOString(),
    status,
    cells,
    series,
    notes,
    ...(Object.keys(timelines).length ? { timelines } : {}),
    ...(history.length ? { history } : {}),
    ...(noise ? { noise } : {}),
    ...(dax.length ? { dax } : {}),
    ...(Object.keys(spectra).length ? { spectra } : {}),
    ...(comparison ? { comparison } : {}),
    ...(searches.length ? { searches } : {}),
    ...(schedules.length ? { schedules } : {}),
  };
}

/** The frontier row of each search that ended (AggregateCell keeps it beside the run); a note for the others. */
async function frontierRows(
  store: ObjectStore,
  runId: string,
  searches: readonly { id: string }[],
  notes: string[],
): Promise<ReportSearch[]> {
  const out: ReportSearch[] = [];
  for (const s of searches) {
    const row = (await readOptional(store, frontierKey(runId, s.id))) as ReportSearch | null;
    if (row) out.push(row);
    else notes.push(`search ${s.id}: no answer (the run ended before the search did)`);
  }
  return out;
}

/**
 * The cells' percentile spectra (their buckets.json), and this run against the spec's baseline run when it
 * names one. A baseline that cannot be read leaves a note, not a failed report.
 */
async function comparisonAndSpectra(
  store: ObjectStore,
  runId: string,
  baselineId: string | undefined,
  notes: string[],
): Promise<{ spectra: NonNullable<ReportData['spectra']>; comparison?: Comparison }> {
  const run = await sideFromStore(store, runId);
  const spectra: NonNullable<ReportData['spectra']> = {};
  for (const c of run.cells) if (c.buckets) spectra[c.headline.cellId] = c.buckets.spectrum;
  if (!baselineId) return { spectra };
  try {
    // the Report function runs for 2 minutes at most: the intervals get one of them
    const comparison = compareRuns(run, await sideFromStore(store, baselineId), {
      budgetMs: REPORT_COMPARE_BUDGET_MS,
    });
    return { spectra, comparison };
  } catch (err) {
    notes.push(`no comparison with baseline ${baselineId}: ${(err as Error).message}`);
    return { spectra };
  }
}

/** How long the report's comparison bootstraps before leaving the remaining cells without an interval. */
export const REPORT_COMPARE_BUDGET_MS = 60_000;

/** Where the Report step writes the comparison with the spec's baseline (when it names one). */
export const compareKey = (runId: string): string => runKey(runId, 'compare.json');

/** A cache node type's price in the book (DAX's section), with its date and source as the report states them. */
function daxPriceOf(book: PriceBook, nodeType: string): Pick<ReportDax, 'price'> {
  const p = book.dax?.[nodeType];
  if (!p) return {};
  return { price: { bookDate: book.date, usdPerNodeHour: Number(p.usd), source: priceSourceText(p) } };
}

/**
 * The monthly cost of each cache (DAX cluster) in front of a target of the spec, as its kind prices it with the book
 * the cells' costs use (the run's), with the node price's date and source.
 */
export function daxOf(spec: RunSpec | null, book: PriceBook): ReportDax[] {
  if (!spec) return [];
  return spec.targets.flatMap((t) => {
    const cache = kindOf(t).cache?.(t, book);
    return cache ? [{ target: t.id, ...cache, priceBook: book.id, ...daxPriceOf(book, cache.nodeType) }] : [];
  });
}

/**
 * The spec's history up to this run, read and analysed by the same code as the DetectRegressions step:
 * one chart per metric, one line per cell, x = the run's number in the spec's history (1 = oldest), change
 * points (confirmed or pending) marked. Empty when the spec has fewer than 2 runs.
 */
export async function historyOf(store: ObjectStore, runId: string): Promise<ReportHistory[]> {
  const run = checkRun(await store.getJson(contextKey(runId)));
  const history = await readHistory(store, run);
  const noise = await readLatestNoise(store, run.specName);
  const analyses = analyzeHistory(history, run.specName, { minMagnitudeFor: calibratedMinMagnitude(noise) });
  const times = new Map<string, number>();
  for (const a of analyses) for (const p of a.points) times.set(p.runId, p.timeMs);
  const runs = [...times.keys()].sort((x, y) => times.get(x)! - times.get(y)! || (x < y ? -1 : 1));
  if (runs.length < 2) return [];
  const number = new Map(runs.map((r, i) => [r, i + 1]));
  const out: ReportHistory[] = [];
  for (const m of METRICS) {
    const mine = analyses.filter((a) => a.key.metric === m.id);
    const series = mine
      .map((a) => ({
        name: a.key.cell,
        points: a.points
          .filter((p) => p.value !== null)
          .map((p) => [number.get(p.runId)!, p.value!] as [number, number]),
        changes: a.changes.map((c) => number.get(c.runId)!),
      }))
      .filter((s) => s.points.length > 0);
    if (!series.length) continue;
    out.push({ metric: m.id, unit: m.unit, points: [], changes: [], series });
  }
  return out;
}

/** Renders the run's report and writes it to `runs/<runId>/report.html` in the store; returns the key. */
export async function writeReport(
  store: ObjectStore,
  runId: string,
  status: string,
  options: ReportOptions = {},
): Promise<string> {
  const data = await buildReportData(store, runId, status, options);
  if (data.comparison) await store.putJson(compareKey(runId), data.comparison);
  const key = reportKey(runId);
  await store.put(key, renderReport(data), { contentType: 'text/html; charset=utf-8' });
  return key;
}

/** A link to the run's report (presigned on S3), or null when the run has none (yet). */
export async function reportLink(
  store: ObjectStore,
  runId: string,
  expiresInSeconds: number,
): Promise<string | null> {
  const key = reportKey(runId);
  return (await store.exists(key)) ? store.link(key, expiresInSeconds) : null;
}
