/**
 * The cell aggregator: merges the HDR interval logs of every process of every loader as histograms
 * (never averaging percentiles) over the measured window, and derives throughput, status counts,
 * error rate, throttled attempts, good ops/s, attainment and a time series.
 *
 * Window (all times epoch ms):
 *   cellStart   = earliest manifest startMs (or, with no manifest at all, the earliest interval start)
 *   cellEnd     = latest manifest endMs (or, with none, the latest interval end)
 *   window      = [cellStart + warm-up, cellEnd − cool-down)
 *   With `durationSeconds` (a run phase), a process's schedule ends durationSeconds after its workload began
 *   (the manifest's workloadStartMs): YCSB then starts nothing new but lets each thread finish its operation,
 *   retries and back-offs included, so the intervals after that (starting 0.5 s or less before the end, or
 *   later: the interval boundaries are YCSB's status ticks) hold the drain, not the offered load, and are left
 *   out; the window ends at the last scheduled end (less the cool-down).
 *   An interval belongs to the window when its absolute START lies in it (StartTime + StartTimestamp,
 *   truncated to ms as HistogramLogReader does): an interval straddling the warm-up boundary is left out
 *   whole, one straddling the cool-down boundary is counted whole. Nothing is pro-rated.
 *   measuredSeconds = (latest end − earliest start of the counted intervals) / 1000: the span in which
 *   the counted operations happened; every ops/s figure divides by it.
 *
 * Streaming: the logs are read from the store one object at a time (a few fetched ahead), name by name, and
 * every interval is decoded and merged as its line is read; no log's text or intervals outlive its merge,
 * so memory is one name's histograms plus the objects in flight, whatever the fleet's size.
 *
 * Time series: every interval (warm-up and cool-down included) goes to bucket
 * floor((start − windowStart) / seriesMs) — buckets are aligned on the window start across all
 * processes, negative ones are warm-up. Per bucket and name: count, the seconds its intervals cover (so a
 * partial last bucket is not divided by the full bucket length), count ÷ those seconds, p50, p99, max (null
 * when the bucket holds no operation).
 */
import { InputError } from '../common/errors';
import { Histogram, type SparseHistogram } from '../hdr/histogram';
import { V2Decoder, type DecodedCounts } from '../hdr/decode';
import { decodeInterval, scanIntervalLog, type IntervalLine } from '../hdr/log';
import type { CellInput, LogRef } from './input';
import { BASE_OPS, classifyName, isIgnoredName } from './names';
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
  /** op families for the cells table: READ, UPDATE, ALL (= all base ops), service and intended */
  families: Record<string, { service: LatencyStats; intended: LatencyStats; spectrum: FamilySpectrum }>;
  /** Σ of `Return=` lines over all processes' summaries (YCSB reports them for the whole run) */
  statuses: Record<string, Record<string, number>>;
  /** successful base-op operations in the window (Σ READ, UPDATE, INSERT, SCAN, DELETE counts) */
  goodOps: number;
  /** failed base-op operations in the window (Σ <OP>-FAILED / <OP>-<STATUS> counts) */
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
  /** successful and failed base operations */
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

/** Where the window lies, and per log the time its process's schedule ended (the drain starts there). */
interface WindowBounds {
  cellStartMs: number;
  cellEndMs: number;
  startMs: number;
  endMs: number;
  /** per log key: intervals starting at or after this (the schedule's end − 0.5 s) are the drain */
  drainFrom: Map<string, number>;
  /** per log key: the schedule's end; an interval's span is cut there (its tail is the drain, not load) */
  scheduledEnd: Map<string, number>;
}

/** The window: from the manifests; with none at all, from the logs' own span (one extra pass). */
async function cellWindow(
  input: CellInput,
  allRefs: readonly LogRef[],
  o: CheckedOptions,
  durationSeconds: number | undefined,
  eachInterval: IntervalVisitor,
): Promise<WindowBounds> {
  const manifests = input.processes.map((p) => p.manifest).filter((m) => m !== null);
  let cellStartMs = Infinity;
  let cellEndMs = -Infinity;
  if (manifests.length) {
    cellStartMs = Math.min(...manifests.map((m) => m.startMs));
    cellEndMs = Math.max(...manifests.map((m) => m.endMs));
  } else {
    await eachInterval(allRefs, (_, iv) => {
      if (iv.startMs < cellStartMs) cellStartMs = iv.startMs;
      if (iv.endMs > cellEndMs) cellEndMs = iv.endMs;
    });
  }
  const startMs = cellStartMs + o.warmupSeconds * 1000;
  let endMs = cellEndMs - o.cooldownSeconds * 1000;
  // the drain: per log, intervals starting after its process's scheduled end (0.5 s slack for tick jitter)
  const drainFrom = new Map<string, number>();
  const scheduledEnd = new Map<string, number>();
  if (durationSeconds !== undefined) {
    const duration = nonNegative(durationSeconds, 'durationSeconds') * 1000;
    let last = -Infinity;
    for (const proc of input.processes) {
      const w = proc.manifest?.workloadStartMs;
      if (w === null || w === undefined) continue;
      last = Math.max(last, w + duration);
      for (const lf of proc.logs) {
        drainFrom.set(lf.key, w + duration - 500);
        scheduledEnd.set(lf.key, w + duration);
      }
    }
    // the cool-down counts back from the schedule's end, not from the JVMs' exit after the drain
    if (Number.isFinite(last)) endMs = Math.min(cellEndMs, last) - o.cooldownSeconds * 1000;
  }
  if (Number.isFinite(cellStartMs) && endMs <= startMs) {
    throw new InputError([
      {
        path: input.uri,
        message:
          `warm-up ${o.warmupSeconds} s and cool-down ${o.cooldownSeconds} s leave no measured window ` +
          `(the cell ran ${(cellEndMs - cellStartMs) / 1000} s)`,
      },
    ]);
  }
  return { cellStartMs, cellEndMs, startMs, endMs, drainFrom, scheduledEnd };
}

/** What merging every name's intervals gives: the window totals, the series and the per-bucket families. */
interface Merged {
  totals: Map<string, Histogram>;
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
  good: number;
  failed: number;
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
      if (iv.startMs >= win.startMs && iv.startMs < win.endMs && !drain) {
        total.addSparse(d.indices, d.counts, d.n);
        m.intervalsCounted++;
        if (iv.startMs < m.measuredStart) m.measuredStart = iv.startMs;
        if (endMs > m.measuredEnd) m.measuredEnd = endMs;
        widen(m.countedByLog, ref.key, iv.startMs, endMs);
      }
      // the drain is no offered load: not in the series either (it would end every series in a dip)
      if (drain) return;
      const b = Math.floor((iv.startMs - win.startMs) / o.seriesMs);
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
    if (!base) continue;
    let acc = m.buckets.get(b);
    if (!acc)
      m.buckets.set(b, (acc = { good: 0, failed: 0, intended: null, service: null, spans: new Map() }));
    if (info.kind === 'ok' && info.intended) (acc.intended ??= new Histogram(h)).add(h);
    if (info.kind === 'ok' && !info.intended) (acc.service ??= new Histogram(h)).add(h);
    if (!info.intended) {
      if (info.kind === 'ok') acc.good += count;
      else acc.failed += count;
      for (const [key, [from, to]] of spans) widen(acc.spans, key, from, to);
    }
  }
}

/** Operation counts over the window, by what each name counts. */
function countOps(totals: Map<string, Histogram>, perSec: (n: number) => number) {
  const ops: Record<string, OpStats> = {};
  let goodOps = 0;
  let failedOps = 0;
  let throttledAttempts = 0;
  for (const [name, h] of totals) {
    const stats = latencyStats(h);
    ops[name] = { ...stats, throughput: perSec(stats.count) };
    const info = classifyName(name);
    if (info.intended) continue;
    if (info.kind === 'ok') goodOps += stats.count;
    else if (info.kind === 'failed') failedOps += stats.count;
    else if (info.kind === 'throttled') throttledAttempts += stats.count;
  }
  return { ops, goodOps, failedOps, throttledAttempts };
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
    };
  };
  return { READ: family(['READ']), UPDATE: family(['UPDATE']), ALL: family(BASE_OPS) };
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
      const bucketStart = win.startMs + b * o.seriesMs;
      return {
        startMs: bucketStart,
        offsetSeconds: b * o.seriesSeconds,
        inWindow: bucketStart >= win.startMs && bucketStart < win.endMs,
        ops,
      };
    });
}

/** The in-window buckets' base operations, for the comparison's bootstrap (lib/core/report/compare.ts). */
function windowBucketsOf(m: Merged, win: WindowBounds, o: CheckedOptions): WindowBucket[] {
  return [...m.buckets.entries()]
    .filter(([b]) => {
      const start = win.startMs + b * o.seriesMs;
      return start >= win.startMs && start < win.endMs;
    })
    .sort((a, b) => a[0] - b[0])
    .map(([b, acc]) => ({
      offsetSeconds: b * o.seriesSeconds,
      seconds: averageSeconds(acc.spans),
      good: acc.good,
      failed: acc.failed,
      intended: acc.intended ? sparseOf(acc.intended) : null,
      service: acc.service ? sparseOf(acc.service) : null,
    }));
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
  const allRefs = names.flatMap((n) => byName.get(n)!);
  const win = await cellWindow(input, allRefs, o, options.durationSeconds, eachInterval);
  const m = await mergeNames(names, byName, win, o, eachInterval);
  const counted = m.intervalsCounted > 0;
  const measuredSeconds = counted ? (m.measuredEnd - m.measuredStart) / 1000 : 0;
  const perSec = (n: number): number => (measuredSeconds > 0 ? n / measuredSeconds : 0);
  const { ops, goodOps, failedOps, throttledAttempts } = countOps(m.totals, perSec);
  const attempted = goodOps + failedOps;
  const goodOpsPerSec = perSec(goodOps);
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
    achievedOpsPerSec: perSec(attempted),
    goodOpsPerSec,
    errorRate: attempted > 0 ? failedOps / attempted : null,
    targetOpsPerSec: o.target ?? null,
    attainment: o.target !== undefined ? goodOpsPerSec / o.target : null,
    incomplete: input.processes.flatMap((p) => p.problems),
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
