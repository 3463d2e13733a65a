/**
 * The report's measured-against-predicted charts (lib/core/report/timeline.ts) and the `capacity` rows they read
 * (lib/core/results/capacity.ts): one x axis, seconds since the cell's processes began, for the YCSB intervals
 * (offset from the window start + warm-up), the emulator's seconds (epoch ms − that start) and the timeline.
 */
import { renderReport } from '../../../lib/core/report/html';
import { cellTimelineOf } from '../../../lib/core/report/timeline';
import { capacityPointsOf, capacityRows } from '../../../lib/core/results/capacity';
import type { CapacitySecond } from '../../../lib/core/dynamodb-model';
import type { CellPrediction, TimelinePoint } from '../../../lib/core/dynamodb-model/plan-cell';

const meta = { runId: 'r1', specName: 's', startedAtMs: Date.UTC(2026, 10, 27), cellId: 'c0.uniform' };
const second = (n: number, consumed: number, throttled: number): CapacitySecond => ({
  second: n,
  consumedReadUnits: consumed,
  consumedWriteUnits: 0,
  admitted: consumed * 2,
  throttled: { item: 0, partition: throttled, table: 0 },
  partitions: 54 + (n >= 2 ? 1 : 0),
  splits: n >= 2 ? 1 : 0,
});
const timeline: TimelinePoint[] = [0, 1, 2, 3].map((t) => ({
  tSeconds: t,
  goodOpsPerSec: t < 2 ? 90 : 180,
  consumedReadUnits: t < 2 ? 45 : 90,
  consumedWriteUnits: 0,
  partitions: t < 2 ? 54 : 55,
}));
const prediction = {
  capacityScale: 0.01,
  timeline: [timeline[0]!],
  localTimeline: timeline,
} as CellPrediction;

describe('capacity rows', () => {
  it('one valid row per second, epoch times from the state start; read back as per-second rates', () => {
    const startedAtMs = meta.startedAtMs + 5_000;
    const rows = capacityRows(meta, {
      name: 'tbl',
      startedAtMs,
      seconds: [0, 1, 2].map((n) => second(n, 45, 100)),
    });
    expect(rows.map((r) => [r.bucket_start_ms, r.throttled_requests, r.splits])).toEqual([
      [startedAtMs, 100, 0],
      [startedAtMs + 1000, 100, 0],
      [startedAtMs + 2000, 100, 1],
    ]);
    expect(capacityPointsOf(rows)[2]).toMatchObject({
      admittedPerSec: 90,
      throttledPerSec: 100,
      partitions: 55,
    });
  });
});

describe('report: measured against predicted over time', () => {
  const windowStart = meta.startedAtMs + 10_000;
  // the emulator's state began 1.5 s before the processes (StartCell arms it before the JVMs start)
  const capacity = capacityRows(meta, {
    name: 'tbl',
    startedAtMs: windowStart - 1_500,
    seconds: [0, 1, 2, 3, 4].map((n) => second(n, n < 3 ? 45 : 90, 50)),
  });
  const intervals = [0, 1, 2, 3].flatMap((t) => [
    { op: 'QUERY', offset_seconds: t, ops_per_sec: t < 2 ? 88 : 176, count: 100 },
    { op: 'QUERY-FAILED', offset_seconds: t, ops_per_sec: 1000, count: 1000 },
  ]);
  const tl = cellTimelineOf({
    cell: { warmupSeconds: 0, prediction, localPrediction: prediction },
    row: { window_start_ms: windowStart },
    intervals,
    capacity,
    local: true,
    emulated: true,
  })!;

  it('puts the three sources on one clock and counts only base operations as throughput', () => {
    expect(tl.measured).toEqual([
      [0, 88],
      [1, 88],
      [2, 176],
      [3, 176],
    ]);
    expect(tl.capacity.map((c) => c.t)).toEqual([-1.5, -0.5, 0.5, 1.5, 2.5]);
    expect(tl.predicted).toBe(timeline);
  });

  it('draws both charts with the predicted series dashed beside the measured ones', () => {
    const html = renderReport({
      runId: 'r1',
      specName: 's',
      startedAt: 'x',
      status: 'SUCCEEDED',
      cells: [],
      series: {},
      timelines: { 'c0.uniform': tl },
    });
    expect(html).toContain('Measured against predicted over time');
    expect(html).toMatch(/data-chart="timeline-ops-c0.uniform"/);
    expect(html).toMatch(/data-series="measured ops\/s \(YCSB\)" data-points="4"/);
    expect(html).toMatch(/data-series="predicted ops\/s" data-points="4"/);
    expect(html).toMatch(/data-series="admitted requests\/s \(emulator\)" data-points="5"/);
    expect(html).toMatch(/data-chart="timeline-capacity-c0.uniform"/);
    expect(html).toMatch(/data-series="consumed read units\/s" data-points="5"/);
    expect(html).toMatch(/data-series="throttled requests\/s" data-points="5"/);
    expect(html).not.toMatch(/write units/); // a read-only cell draws no write lines
  });

  it('nothing over time without a timeline for the run (local without a time scale, or no emulation)', () => {
    const noLocal = { ...prediction, localTimeline: undefined } as CellPrediction;
    const base = { row: { window_start_ms: windowStart }, intervals, capacity, local: true };
    expect(
      cellTimelineOf({
        ...base,
        cell: { warmupSeconds: 0, prediction, localPrediction: noLocal },
        emulated: true,
      }),
    ).toBeNull();
    expect(
      cellTimelineOf({
        ...base,
        cell: { warmupSeconds: 0, prediction, localPrediction: prediction },
        emulated: false,
      }),
    ).toBeNull();
    const html = renderReport({
      runId: 'r',
      specName: 's',
      startedAt: 'x',
      status: 'S',
      cells: [],
      series: {},
    });
    expect(html).not.toContain('Measured against predicted over time');
  });
});
