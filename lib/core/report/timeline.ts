/**
 * The report's "measured against predicted" charts (issue #28): per DynamoDB cell with a predicted timeline, the
 * measured throughput (the cell's interval rows), the table's consumed units and throttles (the `capacity` rows:
 * locally the capacity emulator's seconds) and the capacity model's timeline (docs/dynamodb-model.md) on the
 * same axes: seconds since the cell's processes began.
 */
import type { CellPlan } from '../plan';
import type { TimelinePoint } from '../dynamodb-model/plan-cell';
import { capacityPointsOf, type CapacityPoint } from '../results/capacity';
import { THROUGHPUT_OPS, tallyOperations } from '../results/names';
import { escapeXml, lineChart, type Series } from './svg';
import type { Row } from '../results/rows';

/** A cell's curves over time, x in seconds since its processes began (the measured window's start − warm-up). */
export interface ReportTimeline {
  /** measured ops/s of every bucket (warm-up included) */
  measured: [number, number | null][];
  /** the table's capacity (locally: the emulator's seconds), t in seconds since the processes began; empty when not recorded */
  capacity: (Omit<CapacityPoint, 'bucketStartMs'> & { t: number })[];
  /** the model's timeline on this run's clock (locally with a time scale: localTimeline) */
  predicted: TimelinePoint[];
  /** how the prediction was scaled, for the caption */
  predictedNote: string;
}

/**
 * Measured good ops/s per bucket, each operation the workload issued counted once (tallyOperations: a
 * read-modify-write is one), x = offset_seconds + warm-up.
 */
function measuredOf(intervals: readonly Row[], warmupSeconds: number): [number, number | null][] {
  const by = new Map<number, { rates: [string, number][]; count: number }>();
  for (const r of intervals) {
    if (typeof r.offset_seconds !== 'number') continue;
    const op = String(r.op);
    const b = by.get(r.offset_seconds) ?? { rates: [], count: 0 };
    b.rates.push([op, typeof r.ops_per_sec === 'number' ? r.ops_per_sec : 0]);
    if (THROUGHPUT_OPS.includes(op.replace(/^Intended-/, '')))
      b.count += typeof r.count === 'number' ? r.count : 0;
    by.set(r.offset_seconds, b);
  }
  return [...by]
    .sort((a, b) => a[0] - b[0])
    .map(([t, b]) => [t + warmupSeconds, b.count > 0 ? tallyOperations(b.rates).good : null]);
}

/**
 * The timeline of one cell, or null when nothing is predicted over time for it (not DynamoDB; a local run
 * without capacity emulation; a local run without a time scale, whose emulator isolates hot items at once).
 */
export function cellTimelineOf(o: {
  cell: Pick<CellPlan, 'warmupSeconds' | 'prediction' | 'localPrediction'>;
  /** the cell's `cells` row (window_start_ms) */
  row: Row;
  intervals: readonly Row[];
  capacity: readonly Row[];
  local: boolean;
  emulated: boolean;
}): ReportTimeline | null {
  const { cell } = o;
  const predicted = o.local
    ? o.emulated
      ? (cell.localPrediction?.localTimeline ?? null)
      : null
    : (cell.prediction?.timeline ?? null);
  if (!predicted?.length) return null;
  const windowStart = typeof o.row.window_start_ms === 'number' ? o.row.window_start_ms : null;
  const t0 = windowStart === null ? null : windowStart - cell.warmupSeconds * 1000;
  const capacity =
    t0 === null
      ? []
      : capacityPointsOf(o.capacity).map(({ bucketStartMs, ...p }) => ({
          ...p,
          t: (bucketStartMs - t0) / 1000,
        }));
  const scale = cell.localPrediction?.capacityScale ?? 1;
  return {
    measured: measuredOf(o.intervals, cell.warmupSeconds),
    capacity,
    predicted,
    predictedNote: o.local
      ? `the model with every limit × ${scale} and every duration ÷ local.timeScale, one point per second`
      : 'the model, one point per minute (each the minute’s mean)',
  };
}

/** The two charts of one cell: throughput, and consumed units with throttles, each measured beside predicted. */
export function timelineCharts(cellId: string, tl: ReportTimeline): string[] {
  const pred = (f: (p: TimelinePoint) => number): [number, number][] =>
    tl.predicted.map((p) => [p.tSeconds, f(p)]);
  const ops: Series[] = [
    { name: 'measured ops/s (YCSB)', points: tl.measured, colorIndex: 0 },
    { name: 'predicted ops/s', points: pred((p) => p.goodOpsPerSec), dashed: true, colorIndex: 1 },
  ];
  if (tl.capacity.some((c) => c.admittedPerSec !== null))
    ops.push({
      name: 'admitted requests/s (emulator)',
      points: tl.capacity.map((c) => [c.t, c.admittedPerSec]),
      colorIndex: 2,
    });
  const writes =
    tl.capacity.some((c) => c.consumedWriteUnits > 0) || tl.predicted.some((p) => p.consumedWriteUnits > 0);
  const units: Series[] = [
    {
      name: 'consumed read units/s',
      points: tl.capacity.map((c) => [c.t, c.consumedReadUnits]),
      colorIndex: 0,
    },
    { name: 'predicted read units/s', points: pred((p) => p.consumedReadUnits), dashed: true, colorIndex: 0 },
    ...(writes
      ? ([
          {
            name: 'consumed write units/s',
            points: tl.capacity.map((c) => [c.t, c.consumedWriteUnits]),
            colorIndex: 3,
          },
          {
            name: 'predicted write units/s',
            points: pred((p) => p.consumedWriteUnits),
            dashed: true,
            colorIndex: 3,
          },
        ] as Series[])
      : []),
    { name: 'throttled requests/s', points: tl.capacity.map((c) => [c.t, c.throttledPerSec]), colorIndex: 1 },
  ];
  return [
    lineChart({
      id: `timeline-ops-${cellId}`,
      title: `${cellId}: measured against predicted throughput`,
      xLabel: "seconds since the cell's start",
      yLabel: 'ops/s',
      yUnit: 'ops/s',
      series: ops,
      height: 260,
    }),
    lineChart({
      id: `timeline-capacity-${cellId}`,
      title: `${cellId}: consumed units and throttles`,
      xLabel: "seconds since the cell's start",
      yLabel: 'per second',
      series: tl.capacity.length ? units : units.filter((s) => s.name.startsWith('predicted')),
      height: 260,
    }),
  ];
}

/** The report's section: every cell with a timeline; none, nothing. */
export function timelineSection(timelines: Readonly<Record<string, ReportTimeline>> | undefined): string[] {
  const entries = Object.entries(timelines ?? {});
  if (!entries.length) return [];
  const notes = [...new Set(entries.map(([, t]) => t.predictedNote))];
  return [
    '<h2>Measured against predicted over time</h2>',
    `<p>Dashed: the capacity model's timeline (docs/dynamodb-model.md: ${escapeXml(notes.join('; '))}). ` +
      "Solid: what the run measured (YCSB's intervals; the table's consumed units and throttles as the capacity " +
      'emulator counted them, locally).</p><div class="grid">',
    ...entries.flatMap(([id, t]) => timelineCharts(id, t)),
    '</div>',
  ];
}
