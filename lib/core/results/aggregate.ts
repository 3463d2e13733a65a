/**
 * The cell aggregator: merges the HDR interval logs of every process of every loader as histograms
 * (never averaging percentiles) over the measured window, and derives throughput, status counts,
 * error rate, throttled attempts, good ops/s, attainment and a time series.
 *
 * Windows (all times epoch ms), one per process, each on its own timeline (a loader that started late is
 * measured over its own steady state, not its warm-up):
 *   began   = its manifest's startMs (its JVM's start: the warm-up covers the JVM's and the binding's start-up, as
 *             it did for the cell before windows were per process), else (no manifest) its first interval's start
 *   ended   = its manifest's endMs (JVM exit), else its last interval's end
 *   window  = [began + warm-up, ended − cool-down)
 *   With `durationSeconds` (a run phase), a process's schedule ends durationSeconds after its workload began
 *   (workloadStartMs): YCSB then starts nothing new but lets each thread finish its operation, retries and
 *   back-offs included, so the intervals after that (starting 0.5 s or less before the end, or later: the
 *   interval boundaries are YCSB's status ticks) hold the drain, not the offered load, and are left out; the
 *   window ends at the scheduled end (less the cool-down).
 *   An interval belongs to its process's window when its absolute START lies in it (StartTime + StartTimestamp,
 *   truncated to ms as HistogramLogReader does): an interval straddling the warm-up boundary is left out
 *   whole, one straddling the cool-down boundary is counted whole. Nothing is pro-rated.
 *   The cell's window (window_start_ms, window_end_ms) is the earliest process window start and the latest end.
 * Rates: per process, its counted operations ÷ its counted span (latest end − earliest start of its counted
 *   intervals); every cell ops/s figure is the SUM of the processes' rates (each served its share of the load
 *   over its own time). measuredSeconds = (successful + failed operations) ÷ achieved ops/s: the processes'
 *   spans averaged, weighted by their operations. Latencies: the merged histograms of every process's counted
 *   intervals.
 *
 * Streaming: the logs are read from the store one object at a time (a few fetched ahead), name by name, and
 * every interval is decoded and merged as its line is read; no log's text or intervals outlive its merge,
 * so memory is one name's histograms plus the objects in flight, whatever the fleet's size.
 *
 * Time series: every interval (warm-up and cool-down included, the drain left out) goes to bucket
 * floor((start − its process's window start) / seriesMs): bucket k holds every process's k-th bucket of its own
 * window (negative ones are warm-up), so a bucket's rate is the processes' rates over the same stretch of their
 * load; the bucket's startMs is the cell's window start + k × seriesMs, and it is in the window when
 * 0 ≤ k × seriesMs < the longest process window. Per bucket and name: count, the seconds its intervals cover (so a
 * partial last bucket is not divided by the full bucket length), count ÷ those seconds, p50, p99, max (null
 * when the bucket holds no operation).
 */
import { InputError } from '../common/errors';
import { Histogram, nextDown, type SparseHistogram } from '../hdr/histogram';
import { V2Decoder, type DecodedCounts } from '../hdr/decode';
import { decodeInterval, scanIntervalLog, type IntervalLine } from '../hdr/log';
import type { CellInput, LogRef } from './input';
import { BASE_OPS, READ_MODIFY_WRITE, classifyName, isIgnoredName, tallyOperations } from './names';
import type { ManifestCpu } from './loader-cpu';

export interface AggregateOptions {
  warmupSeconds?: number;
  /** the run phase's scheduled length: the drain after each process's schedule is left out (see above) */
  durationSeconds?: number;
  cooldownSeconds?: number;
  /** the cell's throughput target (ops/s), for attainment */
  targetOpsPerSec?: number;
  /** time-series bucket length, default 10 s */
  seriesSeconds?: number;
  /** how many log objects to fetch ahead of the one being decoded (default 4) */
  prefetch?: number;
  /** also return the merged window histograms per name (tests, further analysis) */
  keepHistograms?: boolean;
}

/**
 * A family's percentiles over its successful AND failed operations (what an SLO bounds), µs. YCSB times a
 * failed operation like a successful one (DBWrapper.measure: `<OP>-FAILED` and `Intended-<OP>-FAILED`), so the
 * percentiles are those of the merged histograms. Should one timing lack failed samples the other has (a run
 * that recorded them under one timing only), those failed operations count as slower than any latency: a
 * percentile that falls among them is null (unknown, never a pass).
 */
export interface InclFailedStats {
  /** operations timed: successful + failed samples */
  timed: number;
  /** failed operations without a sample of this timing (the other timing has more failed samples) */
  untimed: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  p999: number | null;
  p9999: number | null;
}

/** Latency statistics in µs, HdrHistogram semantics. */
export interface LatencyStats {
  count: number;
  mean: number;
  min: number;
  max: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  p999: number;
  p9999: number;
}

export interface OpStats extends LatencyStats {
  /** count ÷ measuredSeconds */
  throughput: number;
}

export interface SeriesPoint {
  count: number;
  /** count ÷ seconds */
  opsPerSec: number;
  /**
   * The time the bucket's intervals of this name cover: per log (one process), latest end − earliest start of
   * its intervals starting in the bucket, averaged over the logs. The bucket length for a full bucket, less
   * for the partial one at the end of a run.
   */
  seconds: number;
  /** null when the bucket holds no operation (no operations: no latency) */
  p50: number | null;
  p99: number | null;
  max: number | null;
}

export interface SeriesBucket {
  /** bucket start, epoch ms */
  startMs: number;
  /** seconds from the window start (negative: warm-up) */
  offsetSeconds: number;
  /** bucket start lies inside the measured window */
  inWindow: boolean;
  ops: Record<string, SeriesPoint>;
}

export interface CellWindow {
  cellStartMs: number;
  cellEndMs: number;
  startMs: number;
  endMs: number;
  warmupSeconds: number;
  cooldownSeconds: number;
  /** earliest start / latest end of the intervals counted (null when none) */
  measuredStartMs: number | null;
  measuredEndMs: number | null;
  measuredSeconds: number;
}

export interface CellAggregate {
  window: CellWindow;
  /** every measurement name seen (Intended-, -FAILED, -THROTTLED included), window only */
  ops: Record<string, OpStats>;
  /**
   * op families for the cells table: READ, UPDATE, ALL (= all base ops), service and intended: of successful
   * operations, and (inclFailed) of successful and failed operations alike
   */
  families: Record<
    string,
    {
      service: LatencyStats;
      intended: LatencyStats;
      spectrum: FamilySpectrum;
      inclFailed: { service: InclFailedStats; intended: InclFailedStats };
    }
  >;
  /** Σ of `Return=` lines over all processes' summaries (YCSB reports them for the whole run) */
  statuses: Record<string, Record<string, number>>;
  /**
   * successful operations in the window, each operation the workload issued counted once (tallyOperations: a
   * read-modify-write's READ, UPDATE and READ-MODIFY-WRITE samples are one operation)
   */
  goodOps: number;
  /** failed operations in the window, as goodOps (an <OP>-FAILED / <OP>-<STATUS> sample fails its operation) */
  failedOps: number;
  /** throttled attempts in the window (Σ <OP>-THROTTLED counts) */
  throttledAttempts: number;
  achievedOpsPerSec: number;
  goodOpsPerSec: number;
  /** failedOps ÷ (goodOps + failedOps); null when no operation was counted */
  errorRate: number | null;
  targetOpsPerSec: number | null;
  /** goodOpsPerSec ÷ target; null without a target */
  attainment: number | null;
  incomplete: string[];
  processes: {
    label: string;
    loader: number;
    process: number;
    exitCode: number | null;
    host?: string;
    /** the manifest's loader CPU figures (lib/core/results/loader-cpu.ts) */
    cpu?: ManifestCpu;
    /**
     * earliest start / latest end (cut at the schedule's end) of this process's counted intervals, and its
     * manifest's workloadStartMs (the clock its rate schedule runs on: lib/core/results/schedule.ts); absent when
     * none of its intervals was counted
     */
    counted?: { startMs: number; endMs: number; workloadStartMs: number | null };
  }[];
  loaders: number;
  intervalsRead: number;
  intervalsCounted: number;
  series: SeriesBucket[];
  /** the measured window's series buckets, base operations merged (what a comparison resamples) */
  windowBuckets: WindowBucket[];
  /** merged window histograms per name, with `keepHistograms` */
  histograms?: Record<string, Histogram>;
}

/**
 * One series bucket inside the measured window, every base operation merged: the unit the comparison's block
 * bootstrap resamples (lib/core/report/compare.ts). Histograms are exact sparse copies of the merged
 * intervals' counts (HdrHistogram layout), so a resample's percentiles are merged, never averaged.
 */
export interface WindowBucket {
  offsetSeconds: number;
  /** seconds the bucket's intervals cover (per log, averaged), as in the series */
  seconds: number;
  /** successful and failed operations, counted as the cell's goodOps / failedOps (tallyOperations) */
  good: number;
  failed: number;
  /** successful base operations' intended and service latency (null: none recorded) */
  intended: SparseHistogram | null;
  service: SparseHistogram | null;
}

/** The percentiles of a latency spectrum (a percentile-distribution plot on a 1/(1−p) axis). */
export const SPECTRUM_PERCENTILES = [
  0, 10, 25, 50, 75, 90, 95, 97.5, 99, 99.5, 99.75, 99.9, 99.95, 99.975, 99.99, 99.995, 99.999, 100,
] as const;

/** [percentile, µs] from the merged histogram; empty when it holds nothing. */
export type Spectrum = [number, number][];

export interface FamilySpectrum {
  intended: Spectrum;
  service: Spectrum;
}

export function spectrumOf(h: Histogram): Spectrum {
  if (h.totalCount === 0) return [];
  // only the percentiles the count resolves: 99.99 % of 1,000 operations is the maximum again
  const resolved = SPECTRUM_PERCENTILES.filter((p) => p === 100 || (1 - p / 100) * h.totalCount >= 1);
  const values = h.valuesAtPercentiles(resolved);
  return resolved.map((p, k) => [p, p === 100 ? h.max : values[k]!]);
}

function sparseOf(h: Histogram): SparseHistogram {
  return h.toSparse();
}

export const REPORTED_PERCENTILES = [50, 90, 95, 99, 99.9, 99.99] as const;

export function latencyStats(h: Histogram): LatencyStats {
  const [p50, p90, p95, p99, p999, p9999] = h.valuesAtPercentiles(REPORTED_PERCENTILES);
  return { count: h.totalCount, mean: h.mean, min: h.min, max: h.max, p50, p90, p95, p99, p999, p9999 };
}

/** Yields the objects' bytes in order, with up to `ahead` reads in flight. */
async function* fetchInOrder(
  input: CellInput,
  refs: readonly LogRef[],
  ahead: number,
): AsyncGenerator<{ ref: LogRef; text: string }> {
  const pending: Promise<Buffer>[] = [];
  let next = 0;
  const fill = (): void => {
    while (next < refs.length && pending.length < ahead) pending.push(input.source.get(refs[next++]!.key));
  };
  for (let i = 0; i < refs.length; i++) {
    fill();
    const bytes = await pending.shift()!;
    yield { ref: refs[i]!, text: bytes.toString('latin1') };
  }
}

interface CheckedOptions {
  warmupSeconds: number;
  cooldownSeconds: number;
  seriesSeconds: number;
  seriesMs: number;
  target: number | undefined;
  ahead: number;
}

function checkOptions(options: AggregateOptions): CheckedOptions {
  const warmupSeconds = nonNegative(options.warmupSeconds ?? 0, 'warmupSeconds');
  const cooldownSeconds = nonNegative(options.cooldownSeconds ?? 0, 'cooldownSeconds');
  const seriesSeconds = options.seriesSeconds ?? 10;
  if (!(seriesSeconds > 0)) throw new InputError([{ path: 'seriesSeconds', message: 'must be > 0' }]);
  const target = options.targetOpsPerSec;
  if (target !== undefined && !(target > 0 && Number.isFinite(target))) {
    throw new InputError([{ path: 'targetOpsPerSec', message: 'must be a positive number' }]);
  }
  return {
    warmupSeconds,
    cooldownSeconds,
    seriesSeconds,
    seriesMs: seriesSeconds * 1000,
    target,
    ahead: Math.max(1, options.prefetch ?? 4),
  };
}

type IntervalVisitor = (
  refs: readonly LogRef[],
  visit: (ref: LogRef, iv: IntervalLine) => void,
) => Promise<void>;

/** The logs by measurement name (nothing read yet), ignored names left out. */
function logsByName(input: CellInput): Map<string, LogRef[]> {
  const byName = new Map<string, LogRef[]>();
  for (const proc of input.processes) {
    for (const lf of proc.logs) {
      if (isIgnoredName(lf.name)) continue;
      const list = byName.get(lf.name) ?? [];
      list.push(lf);
      byName.set(lf.name, list);
    }
  }
  return byName;
}

/** One process's measured window: from its own workload start + warm-up to its own end − cool-down. */
interface ProcessWindow {
  label: string;
  /** its start (the manifest's startMs: its JVM's start; else its first interval) */
  beganMs: number;
  /** its end: the schedule's end (run phase), else its JVM exit, else its last interval's end */
  endedMs: number;
  startMs: number;
  endMs: number;
}

/** Where the windows lie: per process, and per log the time its process's schedule ended (the drain starts there). */
interface WindowBounds {
  cellStartMs: number;
  cellEndMs: number;
  /** the earliest process window start / the latest process window end */
  startMs: number;
  endMs: number;
  /** the longest process window, ms: the series buckets at or beyond it are out of the window */
  longestMs: number;
  processes: ProcessWindow[];
  /** per log key: its process's index in `processes` */
  processOf: Map<string, number>;
  /** per log key: intervals starting at or after this (the schedule's end − 0.5 s) are the drain */
  drainFrom: Map<string, number>;
  /** per log key: the schedule's end; an interval's span is cut there (its tail is the drain, not load) */
  scheduledEnd: Map<string, number>;
}

/** The span of each manifest-less process's intervals (one extra pass over its logs). */
async function logSpans(
  input: CellInput,
  eachInterval: IntervalVisitor,
): Promise<Map<number, [number, number]>> {
  const spans = new Map<number, [number, number]>();
  for (const [i, proc] of input.processes.entries()) {
    if (proc.manifest) continue;
    const refs = proc.logs.filter((lf) => !isIgnoredName(lf.name));
    await eachInterval(refs, (_, iv) => {
      const span = spans.get(i);
      if (!span) spans.set(i, [iv.startMs, iv.endMs]);
      else spans.set(i, [Math.min(span[0], iv.startMs), Math.max(span[1], iv.endMs)]);
    });
  }
  return spans;
}

/**
 * The windows, per process from its own workload start and end (so a loader that started late is measured over
 * its own steady state, not its warm-up): from the manifests; a process without one, from its logs' own span.
 */
async function cellWindow(
  input: CellInput,
  o: CheckedOptions,
  durationSeconds: number | undefined,
  eachInterval: IntervalVisitor,
): Promise<WindowBounds> {
  const duration =
    durationSeconds === undefined ? undefined : nonNegative(durationSeconds, 'durationSeconds') * 1000;
  const spans = await logSpans(input, eachInterval);
  const win: WindowBounds = {
    ...{ cellStartMs: Infinity, cellEndMs: -Infinity, startMs: Infinity, endMs: -Infinity, longestMs: 0 },
    ...{ processes: [], processOf: new Map(), drainFrom: new Map(), scheduledEnd: new Map() },
  };
  for (const [i, proc] of input.processes.entries()) {
    const m = proc.manifest;
    const span = spans.get(i);
    if (!m && !span) continue; // no manifest and no interval: nothing to measure
    const jvm: [number, number] = m ? [m.startMs, m.endMs] : span!;
    win.cellStartMs = Math.min(win.cellStartMs, jvm[0]);
    win.cellEndMs = Math.max(win.cellEndMs, jvm[1]);
    const w = m?.workloadStartMs ?? null;
    const beganMs = jvm[0];
    // the drain: intervals starting after the process's scheduled end (0.5 s slack for tick jitter)
    const scheduled = duration !== undefined && w !== null ? w + duration : null;
    // the cool-down counts back from the schedule's end, not from the JVM's exit after the drain
    const endedMs = scheduled === null ? jvm[1] : Math.min(jvm[1], scheduled);
    const pw: ProcessWindow = {
      label: proc.label,
      beganMs,
      endedMs,
      startMs: beganMs + o.warmupSeconds * 1000,
      endMs: endedMs - o.cooldownSeconds * 1000,
    };
    for (const lf of proc.logs) {
      win.processOf.set(lf.key, win.processes.length);
      if (scheduled === null) continue;
      win.drainFrom.set(lf.key, scheduled - 500);
      win.scheduledEnd.set(lf.key, scheduled);
    }
    win.processes.push(pw);
    if (pw.endMs <= pw.startMs) continue;
    win.startMs = Math.min(win.startMs, pw.startMs);
    win.endMs = Math.max(win.endMs, pw.endMs);
    win.longestMs = Math.max(win.longestMs, pw.endMs - pw.startMs);
  }
  if (win.processes.length && !Number.isFinite(win.startMs)) {
    const longest = Math.max(...win.processes.map((p) => p.endedMs - p.beganMs));
    throw new InputError([
      {
        path: input.uri,
        message:
          `warm-up ${o.warmupSeconds} s and cool-down ${o.cooldownSeconds} s leave no measured window ` +
          `(the longest process ran ${longest / 1000} s)`,
      },
    ]);
  }
  return win;
}

/** Processes whose own window is empty (they ran shorter than warm-up + cool-down): nothing of theirs is measured. */
function unmeasured(win: WindowBounds, o: CheckedOptions): string[] {
  return win.processes
    .filter((p) => p.endMs <= p.startMs)
    .map(
      (p) =>
        `${p.label}: ran ${(p.endedMs - p.beganMs) / 1000} s, within warm-up ${o.warmupSeconds} s + ` +
        `cool-down ${o.cooldownSeconds} s: nothing of it measured`,
    );
}

/** What merging every name's intervals gives: the window totals, the series and the per-bucket families. */
interface Merged {
  totals: Map<string, Histogram>;
  /** per process (WindowBounds.processes): its counted samples per name, and the span its counted intervals cover */
  perProcess: { counts: Map<string, number>; span: [number, number] | null }[];
  seriesByBucket: Map<number, Record<string, SeriesPoint>>;
  buckets: Map<number, BucketAccumulator>;
  measuredStart: number;
  measuredEnd: number;
  /** per log key: the span its counted intervals cover */
  countedByLog: Map<string, [number, number]>;
  intervalsRead: number;
  intervalsCounted: number;
}

/** One name's intervals in one series bucket: their histogram and, per log, the span they cover. */
interface NameBucket {
  h: Histogram;
  spans: Map<string, [number, number]>;
}

/** A bucket's base operations, all names merged: what the comparison's bootstrap resamples. */
interface BucketAccumulator {
  /** per operation name (base and READ-MODIFY-WRITE, Intended- too): its count, for tallyOperations */
  counts: Map<string, number>;
  intended: Histogram | null;
  service: Histogram | null;
  /** per log: the span its base-operation intervals cover in the bucket */
  spans: Map<string, [number, number]>;
}

function widen(spans: Map<string, [number, number]>, key: string, from: number, to: number): void {
  const span = spans.get(key);
  if (!span) spans.set(key, [from, to]);
  else {
    if (from < span[0]) span[0] = from;
    if (to > span[1]) span[1] = to;
  }
}

/** Seconds covered per log, averaged over the logs. */
function averageSeconds(spans: Map<string, [number, number]>): number {
  const logs = [...spans.values()];
  return logs.length ? logs.reduce((a, [from, to]) => a + (to - from), 0) / logs.length / 1000 : 0;
}

/** 3. merge, name by name (bounded memory: one name's series at a time), decoding as the lines are read */
async function mergeNames(
  names: readonly string[],
  byName: Map<string, LogRef[]>,
  win: WindowBounds,
  o: CheckedOptions,
  eachInterval: IntervalVisitor,
): Promise<Merged> {
  const decoder = new V2Decoder();
  const m: Merged = {
    totals: new Map(),
    perProcess: win.processes.map(() => ({ counts: new Map(), span: null })),
    seriesByBucket: new Map(),
    buckets: new Map(),
    measuredStart: Infinity,
    measuredEnd: -Infinity,
    countedByLog: new Map(),
    intervalsRead: 0,
    intervalsCounted: 0,
  };
  for (const name of names) {
    let total: Histogram | null = null;
    const buckets = new Map<number, NameBucket>();
    await eachInterval(byName.get(name)!, (ref, iv) => {
      const d = decodeInterval(decoder, ref.uri, iv);
      m.intervalsRead++;
      total ??= new Histogram(d);
      checkLayout(total, d, name, `${ref.uri}:${iv.line}`);
      const drain = iv.startMs >= (win.drainFrom.get(ref.key) ?? Infinity);
      // the load's end: a partial last interval that ran into the drain covers only its part before it
      const endMs = Math.min(iv.endMs, win.scheduledEnd.get(ref.key) ?? Infinity);
      const k = win.processOf.get(ref.key);
      const pw = k === undefined ? undefined : win.processes[k];
      if (pw === undefined) return; // a process with no window (no manifest, no interval): not reached
      if (iv.startMs >= pw.startMs && iv.startMs < pw.endMs && !drain) {
        total.addSparse(d.indices, d.counts, d.n);
        countInProcess(m.perProcess[k!]!, name, d.total, [iv.startMs, endMs]);
        m.intervalsCounted++;
        if (iv.startMs < m.measuredStart) m.measuredStart = iv.startMs;
        if (endMs > m.measuredEnd) m.measuredEnd = endMs;
        widen(m.countedByLog, ref.key, iv.startMs, endMs);
      }
      // the drain is no offered load: not in the series either (it would end every series in a dip)
      if (drain) return;
      // buckets aligned on each process's own window start: bucket b holds every process's b-th bucket
      const b = Math.floor((iv.startMs - pw.startMs) / o.seriesMs);
      let nb = buckets.get(b);
      if (!nb) buckets.set(b, (nb = { h: new Histogram(d), spans: new Map() }));
      nb.h.addSparse(d.indices, d.counts, d.n);
      widen(nb.spans, ref.key, iv.startMs, endMs);
    });
    const merged = total as Histogram | null;
    if (!merged) continue;
    m.totals.set(name, merged);
    addNameToSeries(m, name, buckets);
  }
  return m;
}

function countInProcess(
  p: Merged['perProcess'][number],
  name: string,
  count: number,
  [from, to]: [number, number],
): void {
  p.counts.set(name, (p.counts.get(name) ?? 0) + count);
  if (!p.span) p.span = [from, to];
  else p.span = [Math.min(p.span[0], from), Math.max(p.span[1], to)];
}

function checkLayout(total: Histogram, d: DecodedCounts, name: string, where: string): void {
  if (total.sameLayout(d)) return;
  throw new InputError([
    {
      path: where,
      message:
        `histogram layout (lowest ${d.lowestDiscernibleValue}, ${d.significantDigits} digits) differs from ` +
        `other ${name} intervals (lowest ${total.lowestDiscernibleValue}, ${total.significantDigits} digits)`,
    },
  ]);
}

/** One name's buckets into the series points and, for base operations, into the buckets' families. */
function addNameToSeries(m: Merged, name: string, buckets: Map<number, NameBucket>): void {
  const info = classifyName(name);
  const base = (BASE_OPS as readonly string[]).includes(info.op) && info.kind !== 'throttled';
  const rmw = name === READ_MODIFY_WRITE;
  for (const [b, { h, spans }] of buckets) {
    const point = m.seriesByBucket.get(b) ?? {};
    const seconds = averageSeconds(spans);
    const count = h.totalCount;
    const opsPerSec = seconds > 0 ? count / seconds : 0;
    if (count === 0) point[name] = { count, opsPerSec, seconds, p50: null, p99: null, max: null };
    else {
      const [p50, p99] = h.valuesAtPercentiles([50, 99]);
      point[name] = { count, opsPerSec, seconds, p50, p99, max: h.max };
    }
    m.seriesByBucket.set(b, point);
    if (!base && !rmw) continue;
    let acc = m.buckets.get(b);
    if (!acc)
      m.buckets.set(b, (acc = { counts: new Map(), intended: null, service: null, spans: new Map() }));
    acc.counts.set(name, (acc.counts.get(name) ?? 0) + count);
    if (rmw) continue; // counted once through its READ and UPDATE samples: its latency and span are its own row's
    if (info.kind === 'ok' && info.intended) (acc.intended ??= new Histogram(h)).add(h);
    if (info.kind === 'ok' && !info.intended) (acc.service ??= new Histogram(h)).add(h);
    if (!info.intended) for (const [key, [from, to]] of spans) widen(acc.spans, key, from, to);
  }
}

/**
 * Rates over the window: per process, its counted samples ÷ the span its counted intervals cover; the cell's
 * rates are the sums over the processes (each served its share of the load over its own window).
 */
interface Rates {
  /** per name: Σ over the processes of its samples ÷ the process's span */
  perName: Map<string, number>;
  good: number;
  attempted: number;
  /** (successful + failed operations) ÷ the attempted rate: the spans averaged, weighted by operations */
  seconds: number;
}

function ratesOf(m: Merged): Rates {
  const r: Rates = { perName: new Map(), good: 0, attempted: 0, seconds: 0 };
  let ops = 0;
  const spans: number[] = [];
  for (const p of m.perProcess) {
    if (!p.span) continue;
    const seconds = (p.span[1] - p.span[0]) / 1000;
    spans.push(seconds);
    const t = tallyOperations(p.counts);
    ops += t.good + t.failed;
    if (!(seconds > 0)) continue;
    for (const [name, n] of p.counts) r.perName.set(name, (r.perName.get(name) ?? 0) + n / seconds);
    r.good += t.good / seconds;
    r.attempted += (t.good + t.failed) / seconds;
  }
  const mean = spans.length ? spans.reduce((a, b) => a + b, 0) / spans.length : 0;
  r.seconds = r.attempted > 0 ? ops / r.attempted : mean;
  return r;
}

/** Operation counts over the window: each name's own, and the operations issued (tallyOperations). */
function countOps(totals: Map<string, Histogram>, rates: Rates) {
  const ops: Record<string, OpStats> = {};
  for (const [name, h] of totals) {
    const stats = latencyStats(h);
    ops[name] = { ...stats, throughput: rates.perName.get(name) ?? 0 };
  }
  const t = tallyOperations([...totals].map(([name, h]) => [name, h.totalCount] as const));
  return { ops, goodOps: t.good, failedOps: t.failed, throttledAttempts: t.throttled };
}

/** 4. families: READ, UPDATE and ALL (every base operation), service and intended, with their spectra. */
function familiesOf(totals: Map<string, Histogram>): CellAggregate['families'] {
  const family = (names: readonly string[]): CellAggregate['families'][string] => {
    const merge = (prefix: string): Histogram => {
      let acc: Histogram | null = null;
      for (const n of names) {
        const h = totals.get(prefix + n);
        if (!h) continue;
        acc ??= new Histogram(h);
        acc.add(h);
      }
      return acc ?? new Histogram();
    };
    const service = merge('');
    const intended = merge('Intended-');
    return {
      service: latencyStats(service),
      intended: latencyStats(intended),
      spectrum: { service: spectrumOf(service), intended: spectrumOf(intended) },
      inclFailed: inclFailedOf(totals, names),
    };
  };
  return { READ: family(['READ']), UPDATE: family(['UPDATE']), ALL: family(BASE_OPS) };
}

const REPORTED_INCL_FAILED = [50, 90, 99, 99.9, 99.99] as const;

/** A family's successful and failed samples merged, per timing, and its failed operations a timing lacks. */
function inclFailedOf(
  totals: Map<string, Histogram>,
  ops: readonly string[],
): { service: InclFailedStats; intended: InclFailedStats } {
  const merged = { service: null as Histogram | null, intended: null as Histogram | null };
  const failed = { service: 0, intended: 0 };
  for (const [name, h] of totals) {
    const info = classifyName(name);
    if (!ops.includes(info.op) || (info.kind !== 'ok' && info.kind !== 'failed')) continue;
    const timing = info.intended ? 'intended' : 'service';
    (merged[timing] ??= new Histogram(h)).add(h);
    if (info.kind === 'failed') failed[timing] += h.totalCount;
  }
  const stats = (h: Histogram | null, untimed: number): InclFailedStats => {
    const timed = h?.totalCount ?? 0;
    const [p50, p90, p99, p999, p9999] = percentilesAmong(h, timed + untimed, REPORTED_INCL_FAILED);
    return { timed, untimed, p50, p90, p99, p999, p9999 };
  };
  return {
    service: stats(merged.service, Math.max(0, failed.intended - failed.service)),
    intended: stats(merged.intended, Math.max(0, failed.service - failed.intended)),
  };
}

/**
 * HdrHistogram's getValueAtPercentile over `total` operations of which `h` holds the timed ones and the rest
 * are slower than any of them: null where the percentile's operation is one of the rest (or there is none).
 * With every operation timed it is exactly h.valuesAtPercentiles.
 */
export function percentilesAmong(
  h: Histogram | null,
  total: number,
  percentiles: readonly number[],
): (number | null)[] {
  const timed = h?.totalCount ?? 0;
  return percentiles.map((p) => {
    if (!h || total === 0) return null;
    const requested = Math.min(Math.max(nextDown(p), 0), 100);
    const rank = Math.max(Math.ceil((requested * total) / 100), 1);
    if (rank > timed) return null;
    let running = 0;
    for (let i = 0; i < h.countsLength; i++) {
      running += h.countAtIndex(i);
      if (running >= rank) return p === 0 ? h.valueFromIndex(i) : h.highestEquivalentAtIndex(i);
    }
    return null;
  });
}

/** 5. statuses from the summaries (YCSB reports them for the whole run) */
function statusesOf(input: CellInput): Record<string, Record<string, number>> {
  const statuses: Record<string, Record<string, number>> = {};
  for (const proc of input.processes) {
    for (const [op, s] of Object.entries(proc.summary?.ops ?? {})) {
      if (isIgnoredName(op)) continue;
      for (const [status, n] of Object.entries(s.returns)) {
        const per = (statuses[op] ??= {});
        per[status] = (per[status] ?? 0) + n;
      }
    }
  }
  return statuses;
}

function seriesOf(m: Merged, win: WindowBounds, o: CheckedOptions): SeriesBucket[] {
  return [...m.seriesByBucket.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([b, ops]) => {
      return {
        startMs: win.startMs + b * o.seriesMs,
        offsetSeconds: b * o.seriesSeconds,
        inWindow: b >= 0 && b * o.seriesMs < win.longestMs,
        ops,
      };
    });
}

/** The in-window buckets' base operations, for the comparison's bootstrap (lib/core/report/compare.ts). */
function windowBucketsOf(m: Merged, win: WindowBounds, o: CheckedOptions): WindowBucket[] {
  // in the window, holding base-operation intervals (intended-only ones too): not a lone READ-MODIFY-WRITE sample
  const kept = (b: number, acc: BucketAccumulator): boolean => {
    const base = acc.spans.size > 0 || acc.intended !== null || acc.service !== null;
    return b >= 0 && b * o.seriesMs < win.longestMs && base;
  };
  return [...m.buckets.entries()]
    .filter(([b, acc]) => kept(b, acc))
    .sort((x, y) => x[0] - y[0])
    .map(([b, acc]) => {
      const { good, failed } = tallyOperations(acc.counts);
      return {
        offsetSeconds: b * o.seriesSeconds,
        seconds: averageSeconds(acc.spans),
        good,
        failed,
        intended: acc.intended ? sparseOf(acc.intended) : null,
        service: acc.service ? sparseOf(acc.service) : null,
      };
    });
}

export async function aggregateCell(
  input: CellInput,
  options: AggregateOptions = {},
): Promise<CellAggregate> {
  const o = checkOptions(options);
  const byName = logsByName(input);
  const names = [...byName.keys()].sort();
  const eachInterval: IntervalVisitor = async (refs, visit) => {
    for await (const { ref, text } of fetchInOrder(input, refs, o.ahead)) {
      scanIntervalLog(text, ref.uri, (iv) => visit(ref, iv));
    }
  };
  const win = await cellWindow(input, o, options.durationSeconds, eachInterval);
  const m = await mergeNames(names, byName, win, o, eachInterval);
  const counted = m.intervalsCounted > 0;
  const rates = ratesOf(m);
  const measuredSeconds = counted ? rates.seconds : 0;
  const { ops, goodOps, failedOps, throttledAttempts } = countOps(m.totals, rates);
  const attempted = goodOps + failedOps;
  const goodOpsPerSec = rates.good;
  return {
    window: {
      cellStartMs: win.cellStartMs,
      cellEndMs: win.cellEndMs,
      startMs: win.startMs,
      endMs: win.endMs,
      warmupSeconds: o.warmupSeconds,
      cooldownSeconds: o.cooldownSeconds,
      measuredStartMs: counted ? m.measuredStart : null,
      measuredEndMs: counted ? m.measuredEnd : null,
      measuredSeconds,
    },
    ops,
    families: familiesOf(m.totals),
    statuses: statusesOf(input),
    goodOps,
    failedOps,
    throttledAttempts,
    achievedOpsPerSec: rates.attempted,
    goodOpsPerSec,
    errorRate: attempted > 0 ? failedOps / attempted : null,
    targetOpsPerSec: o.target ?? null,
    attainment: o.target !== undefined ? goodOpsPerSec / o.target : null,
    incomplete: [...input.processes.flatMap((p) => p.problems), ...unmeasured(win, o)],
    processes: input.processes.map((p) => ({
      label: p.label,
      loader: p.loader,
      process: p.process,
      exitCode: p.manifest?.exitCode ?? null,
      ...(p.manifest?.host ? { host: p.manifest.host } : {}),
      ...(p.manifest?.cpu ? { cpu: p.manifest.cpu } : {}),
      ...countedOf(p, m.countedByLog),
    })),
    loaders: new Set(input.processes.map((p) => p.loader)).size,
    intervalsRead: m.intervalsRead,
    intervalsCounted: m.intervalsCounted,
    series: seriesOf(m, win, o),
    windowBuckets: windowBucketsOf(m, win, o),
    ...(options.keepHistograms ? { histograms: Object.fromEntries(m.totals) } : {}),
  };
}

/** A process's counted span (its logs' spans together) and its workload start, when it has one. */
function countedOf(p: CellInput['processes'][number], byLog: Map<string, [number, number]>) {
  const spans = p.logs.map((l) => byLog.get(l.key)).filter((x) => x !== undefined);
  if (!spans.length) return {};
  const startMs = Math.min(...spans.map((x) => x[0]));
  const endMs = Math.max(...spans.map((x) => x[1]));
  return { counted: { startMs, endMs, workloadStartMs: p.manifest?.workloadStartMs ?? null } };
}

function nonNegative(v: number, name: string): number {
  if (!(v >= 0 && Number.isFinite(v)))
    throw new InputError([{ path: name, message: 'must be a number >= 0' }]);
  return v;
}
