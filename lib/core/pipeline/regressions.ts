/**
 * DetectRegressions: after a run's Report, change-point detection (lib/core/regression) over the spec's
 * history of `cells` rows, read through the object store (`tables/cells/run_date=…/spec_name=…/`, one
 * listing per month of the look-back), so the step does the same thing on S3 and in a local results
 * directory. New change points and a suspect newest run become `changes` rows; a confirmed
 * regression not alerted before publishes `Regression` = 1 (else 0) and an SNS message naming the
 * metric, the cell, the run where it began and the magnitude.
 *
 * Dedupe: a (series, first run of the change, status) already in `changes` is not written again, and a
 * confirmed regression is alerted once — also when a later detection places the same step a run or two
 * away (within minSegment − 1 runs of an alerted one of the same series and kind).
 */
import type { MetricsSink, Notifier, ObjectStore, Clock } from '../common/ports';
import {
  analyzeAll,
  buildSeries,
  calibratedMinMagnitude,
  measureNoise,
  readLatestNoise,
  writeNoise,
  NOISE_FACTOR,
  resolveOptions,
  sampleStd,
  seriesId,
  studentTTwoSidedP,
  type AnalyzeOptions,
  type DetectOptions,
  isSeriesRow,
  type Change,
  type SeriesAnalysis,
} from '../regression';
import {
  fromJsonLines,
  runDate,
  tableObjectKey,
  toJsonLines,
  validateRow,
  type LocatedRow,
  type Row,
} from '../results/rows';
import { tableDef, type TableDef } from '../results/schema';
import { checkRun, type RunContext } from './context';

const DAY_MS = 86_400_000;

export interface DetectRegressionsOptions {
  /** Days of history read before the run's start. @default 365 */
  historyDays?: number;
  analyze?: AnalyzeOptions;
  /** Object reads in flight at once. @default 16 */
  concurrency?: number;
  /** A/A calibration: minMagnitude = noiseFactor × the measured CV. @default 3 */
  noiseFactor?: number;
}

export interface DetectRegressionsResult {
  runId: string;
  /** distinct runs in the history read (this one included) */
  runs: number;
  series: number;
  /** rows written to `changes` */
  rowsWritten: number;
  changesKey: string | null;
  /** confirmed regressions alerted by this detection */
  newRegressions: number;
  /** series whose newest value (this run) is suspect */
  suspects: number;
  /** the A/A calibration this run wrote (it had repeated cells), else null */
  noiseKey: string | null;
  /** the calibration the detection used (this run's or the spec's newest), else null */
  noiseRunId: string | null;
}

/** The rows of one spec's partitions of a table for the days `[from, to]` (UTC), with where each came from. */
export async function readSpecTable(
  store: ObjectStore,
  table: TableDef['name'],
  specName: string,
  range: { fromMs: number; toMs: number },
  concurrency = 16,
): Promise<LocatedRow[]> {
  // One listing per month (`tables/<table>/run_date=YYYY-MM`), keeping this spec's partitions of the
  // days in range: a request per month and per 1,000 keys instead of one per day (366 for a year).
  const fromDay = runDate(range.fromMs);
  const toDay = runDate(range.toMs);
  const months: string[] = [];
  let y = Number(fromDay.slice(0, 4));
  let m = Number(fromDay.slice(5, 7));
  for (;;) {
    const ym = `${y}-${String(m).padStart(2, '0')}`;
    if (ym > toDay.slice(0, 7)) break;
    months.push(ym);
    if (++m > 12) [y, m] = [y + 1, 1];
  }
  const specSegment = `spec_name=${encodeURIComponent(specName)}`;
  const keys = (await mapLimit(months, concurrency, (ym) => store.list(`tables/${table}/run_date=${ym}`)))
    .flat()
    .filter((k) => {
      const [, , date, spec, file] = k.split('/');
      const day = date?.slice('run_date='.length) ?? '';
      return spec === specSegment && day >= fromDay && day <= toDay && file?.endsWith('.jsonl') === true;
    });
  const bodies = await mapLimit(keys, concurrency, (k) => store.get(k));
  return fromJsonLines(keys.map((k, i) => ({ text: bodies[i]!.toString('utf8'), source: store.uriOf(k) })));
}

/** The spec's history up to and including `run`: complete cells rows and run start times. */
export async function readHistory(
  store: ObjectStore,
  run: Pick<RunContext, 'runId' | 'specName' | 'startedAtMs'>,
  options: { historyDays?: number; concurrency?: number } = {},
): Promise<{ cells: LocatedRow[]; runStarts: Map<string, number> }> {
  const range = { fromMs: run.startedAtMs - (options.historyDays ?? 365) * DAY_MS, toMs: run.startedAtMs };
  const [cells, runs] = await Promise.all([
    readSpecTable(store, 'cells', run.specName, range, options.concurrency),
    readSpecTable(store, 'runs', run.specName, range, options.concurrency),
  ]);
  const runStarts = new Map<string, number>();
  for (const { row } of runs)
    if (typeof row.run_id === 'string' && typeof row.started_at_ms === 'number')
      runStarts.set(row.run_id, row.started_at_ms);
  runStarts.set(run.runId, run.startedAtMs);
  const timeOf = (r: Record<string, unknown>) =>
    runStarts.get(String(r.run_id)) ?? (typeof r.window_start_ms === 'number' ? r.window_start_ms : NaN);
  return {
    // incomplete cells (a loader or process missing) do not measure the same thing: left out, i.e. a
    // missing run for that cell; runs after this one (detection re-run for an older run) too
    // an SLO search's probes run rates decided at run time: probe k of one run is not probe k of another
    cells: cells.filter(
      ({ row }) => isSeriesRow(row) && (row.run_id === run.runId || !(timeOf(row) > run.startedAtMs)),
    ),
    runStarts,
  };
}

/** Analyses of every series of the spec's history (the CLI's `--local` and the step use this). */
export function analyzeHistory(
  history: { cells: LocatedRow[]; runStarts: Map<string, number> },
  specName: string,
  options: AnalyzeOptions = {},
): SeriesAnalysis[] {
  const series = buildSeries(
    history.cells.map((c) => c.row),
    { spec: specName, runStarts: history.runStarts, where: (i) => history.cells[i]!.where },
  );
  return analyzeAll(series, options);
}

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

function changeRow(
  run: RunContext,
  detectedAtMs: number,
  a: SeriesAnalysis,
  c: Change,
  method: string,
  optionsJson: string,
): Row {
  return {
    run_date: runDate(run.startedAtMs),
    spec_name: run.specName,
    run_id: run.runId,
    detected_at_ms: detectedAtMs,
    target_id: a.key.target,
    cell_id: a.key.cell,
    metric: a.key.metric,
    better: a.better,
    kind: c.kind,
    status: c.confirmed ? 'confirmed' : 'pending',
    change_run_id: c.runId,
    change_run_at_ms: Math.round(c.timeMs),
    previous_run_id: c.previousRunId,
    mean_before: c.meanBefore,
    mean_after: c.meanAfter,
    std_before: finite(c.stdBefore),
    std_after: finite(c.stdAfter),
    n_before: c.nBefore,
    n_after: c.nAfter,
    magnitude: finite(c.magnitude),
    forward_change: finite(c.forwardChange),
    p_value: finite(c.pValue),
    method,
    options_json: optionsJson,
  };
}

function suspectRow(
  run: RunContext,
  detectedAtMs: number,
  a: SeriesAnalysis,
  optionsJson: string,
): Row | null {
  const g = a.newest;
  if (g.status !== 'suspect' || g.value === null || g.mean === undefined) return null;
  const past: number[] = [];
  for (let i = g.from; i < g.to; i++) {
    const v = a.points[i]?.value;
    if (v !== null && v !== undefined && Number.isFinite(v)) past.push(v);
  }
  const s = past.length > 1 ? sampleStd(past) : NaN;
  const z = s > 0 ? (g.value - g.mean) / (s * Math.sqrt(1 + 1 / past.length)) : NaN;
  const newest = a.points[a.points.length - 1]!;
  const before = a.points[a.points.length - 2];
  const fwd = g.mean === 0 ? NaN : g.value / g.mean - 1;
  const back = g.value === 0 ? NaN : g.mean / g.value - 1;
  return {
    run_date: runDate(run.startedAtMs),
    spec_name: run.specName,
    run_id: run.runId,
    detected_at_ms: detectedAtMs,
    target_id: a.key.target,
    cell_id: a.key.cell,
    metric: a.key.metric,
    better: a.better,
    kind: g.side === (a.better === 'lower' ? 'above' : 'below') ? 'regression' : 'improvement',
    status: 'suspect',
    change_run_id: newest.runId,
    change_run_at_ms: Math.round(newest.timeMs),
    previous_run_id: before?.runId ?? null,
    mean_before: g.mean,
    mean_after: g.value,
    std_before: finite(s),
    std_after: null,
    n_before: past.length,
    n_after: 1,
    magnitude: finite(Math.max(Math.abs(fwd), Math.abs(back))),
    forward_change: finite(fwd),
    p_value: Number.isFinite(z) ? studentTTwoSidedP(Math.abs(z), past.length - 1) : null,
    method: 'guard',
    options_json: optionsJson,
  };
}

/** ASCII only: it goes into the SNS subject (printable ASCII, under 100 characters). */
const pct = (x: number | null) => (x === null ? 'from 0' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`);

export async function detectRegressions(
  input: { run: unknown },
  deps: { store: ObjectStore; metrics: MetricsSink; notifier: Notifier; clock: Clock },
  options: DetectRegressionsOptions = {},
): Promise<DetectRegressionsResult> {
  const run = checkRun(input.run);
  const detectOptions = resolveOptions(options.analyze?.detect);
  const analyzeOptions: AnalyzeOptions = { ...options.analyze, detect: detectOptions };
  const read = { historyDays: options.historyDays, concurrency: options.concurrency };
  const history = await readHistory(deps.store, run, read);
  // an A/A run (repeated cells) measures each metric's noise; detection uses the spec's newest measure
  const measured = measureNoise(
    history.cells.map((c) => c.row),
    { specName: run.specName, runId: run.runId, measuredAtMs: deps.clock.nowMs() },
    options.noiseFactor ?? NOISE_FACTOR,
  );
  const noiseKey = measured ? await writeNoise(deps.store, measured) : null;
  const noise = await readLatestNoise(deps.store, run.specName);
  const analyses = analyzeHistory(history, run.specName, {
    ...analyzeOptions,
    minMagnitudeFor: calibratedMinMagnitude(noise),
  });
  const existing = await readSpecTable(
    deps.store,
    'changes',
    run.specName,
    { fromMs: run.startedAtMs - (options.historyDays ?? 365) * DAY_MS, toMs: deps.clock.nowMs() },
    options.concurrency,
  );

  const recorded = recordedChanges(
    existing.map((e) => e.row),
    run.specName,
  );
  const table = tableDef('changes');
  const { rows, fresh, suspects } = newChanges(run, analyses, {
    ...recorded,
    analyzeOptions,
    detectOptions,
    noiseRunId: noise?.runId,
    detectedAtMs: deps.clock.nowMs(),
  });

  // The rows are written after the alert went out: a change recorded in `changes` is never alerted
  // again, so a failed publish must leave it unrecorded (the next detection alerts it then).
  const changesKey: string | null = rows.length ? tableObjectKey(table, run, run.runId) : null;

  // One value per detection: 1 when this detection found a confirmed regression not alerted before.
  // Without dimensions for the stack's alarm, and per spec for the dashboard.
  const datum = [{ name: 'Regression', value: fresh.length ? 1 : 0, unit: 'Count' as const }];
  await deps.metrics.put({}, datum);
  await deps.metrics.put({ Spec: run.specName }, datum);

  if (fresh.length) await alertRegressions(deps, { run, fresh, changesUri: deps.store.uriOf(changesKey!) });

  if (changesKey) await deps.store.put(changesKey, toJsonLines(table, rows));

  return {
    runId: run.runId,
    runs: new Set(history.cells.map((c) => String(c.row.run_id))).size,
    series: analyses.length,
    rowsWritten: rows.length,
    changesKey,
    newRegressions: fresh.length,
    suspects,
    noiseKey,
    noiseRunId: noise?.runId ?? null,
  };
}

/**
 * What the `changes` table already holds for the spec: each (series, change run, status) recorded, and per
 * (series, kind) the change runs already alerted (confirmed).
 */
function recordedChanges(
  existing: Record<string, unknown>[],
  specName: string,
): { seen: Set<string>; alerted: Map<string, string[]> } {
  const seen = new Set<string>();
  const alerted = new Map<string, string[]>();
  for (const row of existing) {
    const sid = seriesId({
      spec: specName,
      target: String(row.target_id),
      cell: String(row.cell_id),
      metric: String(row.metric),
    });
    seen.add(`${sid}|${String(row.change_run_id)}|${String(row.status)}`);
    if (row.status === 'confirmed') {
      const k = `${sid}|${String(row.kind)}`;
      alerted.set(k, [...(alerted.get(k) ?? []), String(row.change_run_id)]);
    }
  }
  return { seen, alerted };
}

/**
 * The rows this detection adds to `changes` (changes and suspects not recorded before), the confirmed
 * regressions to alert (none within minSegment points of one alerted before), and how many series' newest
 * point, this run's, is suspect.
 */
function newChanges(
  run: RunContext,
  analyses: SeriesAnalysis[],
  ctx: {
    seen: Set<string>;
    alerted: Map<string, string[]>;
    analyzeOptions: AnalyzeOptions;
    detectOptions: Required<DetectOptions>;
    noiseRunId: string | undefined;
    detectedAtMs: number;
  },
): { rows: Row[]; fresh: { a: SeriesAnalysis; c: Change }[]; suspects: number } {
  const { seen, alerted, analyzeOptions, detectOptions, detectedAtMs } = ctx;
  const method = detectOptions.method;
  const optionsJson = JSON.stringify(analyzeOptions);
  const table = tableDef('changes');
  const rows: Row[] = [];
  const fresh: { a: SeriesAnalysis; c: Change }[] = [];
  let suspects = 0;
  for (const a of analyses) {
    const sid = seriesId(a.key);
    // a calibrated series records the threshold it was analysed with and the A/A run it came from
    const rowOptions = a.calibrated
      ? JSON.stringify({
          ...analyzeOptions,
          detect: { ...detectOptions, minMagnitude: a.minMagnitude },
          noiseRunId: ctx.noiseRunId,
        })
      : optionsJson;
    for (const c of a.changes) {
      const status = c.confirmed ? 'confirmed' : 'pending';
      if (seen.has(`${sid}|${c.runId}|${status}`)) continue;
      if (!c.confirmed && seen.has(`${sid}|${c.runId}|confirmed`)) continue;
      rows.push(validateRow(table, changeRow(run, detectedAtMs, a, c, method, rowOptions)));
      if (!c.confirmed || c.kind !== 'regression') continue;
      const near = (alerted.get(`${sid}|${c.kind}`) ?? []).some((runId) => {
        const i = a.points.findIndex((p) => p.runId === runId);
        return i >= 0 && Math.abs(i - c.index) < detectOptions.minSegment;
      });
      if (!near) fresh.push({ a, c });
    }
    if (a.newest.status === 'suspect' && a.newest.runId === run.runId) {
      suspects++;
      if (!seen.has(`${sid}|${run.runId}|suspect`)) {
        const r = suspectRow(run, detectedAtMs, a, rowOptions);
        if (r) rows.push(validateRow(table, r));
      }
    }
  }

  return { rows, fresh, suspects };
}

/** The SNS alert of the new confirmed regressions: one line each, and where the changes rows are. */
async function alertRegressions(
  deps: { notifier: Notifier },
  {
    run,
    fresh,
    changesUri,
  }: { run: RunContext; fresh: { a: SeriesAnalysis; c: Change }[]; changesUri: string },
): Promise<void> {
  const lines = fresh.map(
    ({ a, c }) =>
      `${a.key.metric} of cell ${a.key.cell} (target ${a.key.target}): ${fmt(c.meanBefore)} -> ` +
      `${fmt(c.meanAfter)} ${a.unit} (${pct(finite(c.forwardChange))}, magnitude ` +
      `${finite(c.magnitude) === null ? '∞' : (c.magnitude * 100).toFixed(1) + '%'}), began at run ` +
      `${c.runId} (${new Date(c.timeMs).toISOString()}), p=${c.pValue.toExponential(1)}`,
  );
  const first = fresh[0]!;
  await deps.notifier.publish(
    `fleetbench regression: ${run.specName} ${first.a.key.metric} ${pct(finite(first.c.forwardChange))}`.slice(
      0,
      99,
    ),
    [
      `Detection after run ${run.runId} of ${run.specName} found ${fresh.length} new confirmed regression(s):`,
      '',
      ...lines,
      '',
      `Changes: ${changesUri}`,
    ].join('\n'),
  );
}

const fmt = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toPrecision(3));

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}
