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
import { InputError } from '../errors';
import { Histogram } from '../hdr/histogram';
import { V2Decoder } from '../hdr/decode';
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
  families: Record<string, { service: LatencyStats; intended: LatencyStats }>;
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
  }[];
  loaders: number;
  intervalsRead: number;
  intervalsCounted: number;
  series: SeriesBucket[];
  /** merged window histograms per name, with `keepHistograms` */
  histograms?: Record<string, Histogram>;
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

export async function aggregateCell(
  input: CellInput,
  options: AggregateOptions = {},
): Promise<CellAggregate> {
  const warmupSeconds = nonNegative(options.warmupSeconds ?? 0, 'warmupSeconds');
  const cooldownSeconds = nonNegative(options.cooldownSeconds ?? 0, 'cooldownSeconds');
  const seriesSeconds = options.seriesSeconds ?? 10;
  if (!(seriesSeconds > 0)) throw new InputError([{ path: 'seriesSeconds', message: 'must be > 0' }]);
  const seriesMs = seriesSeconds * 1000;
  const target = options.targetOpsPerSec;
  if (target !== undefined && !(target > 0 && Number.isFinite(target))) {
    throw new InputError([{ path: 'targetOpsPerSec', message: 'must be a positive number' }]);
  }
  const ahead = Math.max(1, options.prefetch ?? 4);

  // 1. the logs, by measurement name (nothing read yet)
  const byName = new Map<string, LogRef[]>();
  for (const proc of input.processes) {
    for (const lf of proc.logs) {
      if (isIgnoredName(lf.name)) continue;
      const list = byName.get(lf.name) ?? [];
      list.push(lf);
      byName.set(lf.name, list);
    }
  }
  const names = [...byName.keys()].sort();
  const eachInterval = async (
    refs: readonly LogRef[],
    visit: (ref: LogRef, iv: IntervalLine) => void,
  ): Promise<void> => {
    for await (const { ref, text } of fetchInOrder(input, refs, ahead)) {
      scanIntervalLog(text, ref.uri, (iv) => visit(ref, iv));
    }
  };

  // 2. the window: from the manifests; with none at all, from the logs' own span (one extra pass)
  const manifests = input.processes.map((p) => p.manifest).filter((m) => m !== null);
  let cellStartMs = Infinity;
  let cellEndMs = -Infinity;
  if (manifests.length) {
    cellStartMs = Math.min(...manifests.map((m) => m.startMs));
    cellEndMs = Math.max(...manifests.map((m) => m.endMs));
  } else {
    await eachInterval(
      names.flatMap((n) => byName.get(n)!),
      (_, iv) => {
        if (iv.startMs < cellStartMs) cellStartMs = iv.startMs;
        if (iv.endMs > cellEndMs) cellEndMs = iv.endMs;
      },
    );
  }
  const startMs = cellStartMs + warmupSeconds * 1000;
  let endMs = cellEndMs - cooldownSeconds * 1000;
  // the drain: per log, intervals starting after its process's scheduled end (0.5 s slack for tick jitter)
  const scheduledEndOf = new Map<string, number>();
  if (options.durationSeconds !== undefined) {
    const duration = nonNegative(options.durationSeconds, 'durationSeconds') * 1000;
    let last = -Infinity;
    for (const proc of input.processes) {
      const w = proc.manifest?.workloadStartMs;
      if (w === null || w === undefined) continue;
      const end = w + duration - 500;
      last = Math.max(last, w + duration);
      for (const lf of proc.logs) scheduledEndOf.set(lf.key, end);
    }
    // the cool-down counts back from the schedule's end, not from the JVMs' exit after the drain
    if (Number.isFinite(last)) endMs = Math.min(cellEndMs, last) - cooldownSeconds * 1000;
  }
  if (Number.isFinite(cellStartMs) && endMs <= startMs) {
    throw new InputError([
      {
        path: input.uri,
        message:
          `warm-up ${warmupSeconds} s and cool-down ${cooldownSeconds} s leave no measured window ` +
          `(the cell ran ${(cellEndMs - cellStartMs) / 1000} s)`,
      },
    ]);
  }

  // 3. merge, name by name (bounded memory: one name's series at a time), decoding as the lines are read
  const decoder = new V2Decoder();
  const ops: Record<string, OpStats> = {};
  const totals = new Map<string, Histogram>();
  const seriesByBucket = new Map<number, Record<string, SeriesPoint>>();
  let measuredStart = Infinity;
  let measuredEnd = -Infinity;
  let intervalsRead = 0;
  let intervalsCounted = 0;
  for (const name of names) {
    let total: Histogram | null = null;
    const buckets = new Map<number, Histogram>();
    // per bucket, per log: [earliest start, latest end] of its intervals in the bucket
    const spans = new Map<number, Map<string, [number, number]>>();
    await eachInterval(byName.get(name)!, (ref, iv) => {
      const d = decodeInterval(decoder, ref.uri, iv);
      intervalsRead++;
      total ??= new Histogram(d);
      if (!total.sameLayout(d)) {
        throw new InputError([
          {
            path: `${ref.uri}:${iv.line}`,
            message:
              `histogram layout (lowest ${d.lowestDiscernibleValue}, ${d.significantDigits} digits) differs from ` +
              `other ${name} intervals (lowest ${total.lowestDiscernibleValue}, ${total.significantDigits} digits)`,
          },
        ]);
      }
      if (
        iv.startMs >= startMs &&
        iv.startMs < endMs &&
        iv.startMs < (scheduledEndOf.get(ref.key) ?? Infinity)
      ) {
        total.addSparse(d.indices, d.counts, d.n);
        intervalsCounted++;
        if (iv.startMs < measuredStart) measuredStart = iv.startMs;
        if (iv.endMs > measuredEnd) measuredEnd = iv.endMs;
      }
      const b = Math.floor((iv.startMs - startMs) / seriesMs);
      let bh = buckets.get(b);
      if (!bh) buckets.set(b, (bh = new Histogram(d)));
      bh.addSparse(d.indices, d.counts, d.n);
      let perLog = spans.get(b);
      if (!perLog) spans.set(b, (perLog = new Map()));
      const span = perLog.get(ref.key);
      if (!span) perLog.set(ref.key, [iv.startMs, iv.endMs]);
      else {
        if (iv.startMs < span[0]) span[0] = iv.startMs;
        if (iv.endMs > span[1]) span[1] = iv.endMs;
      }
    });
    const merged = total as Histogram | null;
    if (!merged) continue;
    totals.set(name, merged);
    for (const [b, h] of buckets) {
      const point = seriesByBucket.get(b) ?? {};
      const logs = [...spans.get(b)!.values()];
      const seconds = logs.reduce((a, [from, to]) => a + (to - from), 0) / logs.length / 1000;
      const count = h.totalCount;
      const opsPerSec = seconds > 0 ? count / seconds : 0;
      if (count === 0) point[name] = { count, opsPerSec, seconds, p50: null, p99: null, max: null };
      else {
        const [p50, p99] = h.valuesAtPercentiles([50, 99]);
        point[name] = { count, opsPerSec, seconds, p50, p99, max: h.max };
      }
      seriesByBucket.set(b, point);
    }
  }
  const measuredSeconds = intervalsCounted > 0 ? (measuredEnd - measuredStart) / 1000 : 0;
  const perSec = (n: number): number => (measuredSeconds > 0 ? n / measuredSeconds : 0);

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

  // 4. families
  const families: CellAggregate['families'] = {};
  const family = (names: readonly string[]): { service: LatencyStats; intended: LatencyStats } => {
    const merge = (prefix: string): LatencyStats => {
      let acc: Histogram | null = null;
      for (const n of names) {
        const h = totals.get(prefix + n);
        if (!h) continue;
        acc ??= new Histogram(h);
        acc.add(h);
      }
      return latencyStats(acc ?? new Histogram());
    };
    return { service: merge(''), intended: merge('Intended-') };
  };
  families.READ = family(['READ']);
  families.UPDATE = family(['UPDATE']);
  families.ALL = family(BASE_OPS);

  // 5. statuses from the summaries
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

  // 6. incomplete
  const incomplete = input.processes.flatMap((p) => p.problems);
  const loaders = new Set(input.processes.map((p) => p.loader)).size;

  const series = [...seriesByBucket.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([b, o]) => {
      const bucketStart = startMs + b * seriesMs;
      return {
        startMs: bucketStart,
        offsetSeconds: b * seriesSeconds,
        inWindow: bucketStart >= startMs && bucketStart < endMs,
        ops: o,
      };
    });

  const attempted = goodOps + failedOps;
  const goodOpsPerSec = perSec(goodOps);
  return {
    window: {
      cellStartMs,
      cellEndMs,
      startMs,
      endMs,
      warmupSeconds,
      cooldownSeconds,
      measuredStartMs: intervalsCounted > 0 ? measuredStart : null,
      measuredEndMs: intervalsCounted > 0 ? measuredEnd : null,
      measuredSeconds,
    },
    ops,
    families,
    statuses,
    goodOps,
    failedOps,
    throttledAttempts,
    achievedOpsPerSec: perSec(attempted),
    goodOpsPerSec,
    errorRate: attempted > 0 ? failedOps / attempted : null,
    targetOpsPerSec: target ?? null,
    attainment: target !== undefined ? goodOpsPerSec / target : null,
    incomplete,
    processes: input.processes.map((p) => ({
      label: p.label,
      loader: p.loader,
      process: p.process,
      exitCode: p.manifest?.exitCode ?? null,
      ...(p.manifest?.host ? { host: p.manifest.host } : {}),
      ...(p.manifest?.cpu ? { cpu: p.manifest.cpu } : {}),
    })),
    loaders,
    intervalsRead,
    intervalsCounted,
    series,
    ...(options.keepHistograms ? { histograms: Object.fromEntries(totals) } : {}),
  };
}

function nonNegative(v: number, name: string): number {
  if (!(v >= 0 && Number.isFinite(v)))
    throw new InputError([{ path: name, message: 'must be a number >= 0' }]);
  return v;
}
