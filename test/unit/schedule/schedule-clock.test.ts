/**
 * A rate-schedule cell's figures over the intervals actually counted (docs/rate-schedules.md). The aggregator
 * counts whole YCSB status intervals by their start, so with a 5-s warm-up and 10-s status intervals the served
 * operations are those of [10 s, end), not [5 s, end): the offered rate (the row's target, attainment's divisor)
 * and the timeline's buckets are taken over that same span, on the schedule's clock (each process's workload
 * start). Reference values are worked by hand from the schedule's definition (the integral of the rate curve).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { schedulePoints, spikesOf } from '../../../lib/core/spec/rate-schedule';
import type { RateSegment } from '../../../lib/core/spec/schema';
import {
  measuredTimeline,
  scheduleClockOf,
  spikeOutcome,
  withScheduleTarget,
} from '../../../lib/core/results/schedule';
import { aggregateCell, type CellAggregate } from '../../../lib/core/results/aggregate';
import { readCellDir } from '../../../lib/local/cell-dir';
import { parseIntervalLog } from '../../../lib/core/hdr/log';

const W0 = 1_700_000_000_000; // a process's workload start, epoch ms
const I = 10; // status interval, seconds

/**
 * The aggregate of one process whose JVM started 0.8 s before its workload (its window counts from the JVM's
 * start: lib/core/results/aggregate.ts), its status ticks at the workload's start + k × 10 s, read by the agent
 * 4 ms late (so the ticks land 4 ms before the workload start's whole multiples), with warm-up W: counted intervals
 * are those starting at or after JVM start + W, up to the 60-s schedule's end.
 */
function aggregateOf(W: number, goodOps: number): CellAggregate {
  const cellStartMs = W0 - 800;
  const startMs = cellStartMs + W * 1000;
  const firstTick = Math.ceil((startMs - W0 + 4) / (I * 1000)) * I * 1000 + W0 - 4;
  const endMs = W0 + 60_000;
  const measuredSeconds = (endMs - firstTick) / 1000;
  return {
    window: { cellStartMs, startMs, endMs, measuredSeconds },
    processes: [
      {
        label: 'loader-0/proc-0',
        counted: { startMs: firstTick, endMs, workloadStartMs: W0 },
      },
    ],
    goodOps,
    goodOpsPerSec: goodOps / measuredSeconds,
  } as unknown as CellAggregate;
}

describe('attainment of a rate schedule: offered over the counted intervals', () => {
  // a ramp 0 → 1000 ops/s over 60 s, warm-up 5 s, cool-down 5 s
  const ramp: RateSegment[] = [{ kind: 'ramp', fromOpsPerSec: 0, toOpsPerSec: 1000, seconds: 60 }];
  const points = schedulePoints(ramp);
  // counted: [10 s, 60 s) of the schedule; offered there: ∫ 1000 t / 60 dt = 1000 (60² − 10²) / 120 = 29,166.67
  const offeredOps = (1000 * (60 * 60 - 10 * 10)) / 120;

  it('everything served is attainment 1.0 (the nominal window [5, 55) gave a target of 500 and 1.167)', () => {
    const agg = withScheduleTarget(aggregateOf(5, offeredOps), {
      points,
      clock: scheduleClockOf(aggregateOf(5, offeredOps), I),
      nominal: [5, 55],
    });
    expect(agg.attainment).toBeCloseTo(1.0, 3);
    // the target is the schedule's mean over the counted seconds: 29,166.67 ops ÷ 50.004 s
    expect(agg.targetOpsPerSec).toBeCloseTo(offeredOps / 50.004, 0);
  });

  it('a spike in the last 10 s, all served: attainment 1.0 (was 1.23)', () => {
    const spike: RateSegment[] = [
      { kind: 'spike', baseOpsPerSec: 100, multiple: 4, atSeconds: 50, forSeconds: 10, seconds: 60 },
    ];
    // counted [10, 60): 40 s at 100 + 10 s at 400 = 8,000 operations
    const a = aggregateOf(5, 8000);
    const agg = withScheduleTarget(a, {
      points: schedulePoints(spike),
      clock: scheduleClockOf(a, I),
      nominal: [5, 55],
    });
    expect(agg.attainment).toBeCloseTo(1.0, 3);
  });

  it('with nothing counted, the nominal window', () => {
    const a = { ...aggregateOf(5, 0), processes: [] } as unknown as CellAggregate;
    expect(scheduleClockOf(a, I)).toBeNull();
    const agg = withScheduleTarget(a, { points, clock: null, nominal: [5, 55] });
    expect(agg.targetOpsPerSec).toBeCloseTo(500, 6);
  });
});

describe("the timeline on the schedule's clock", () => {
  // 100 ops/s for 60 s with a ×4 spike at 20-30 s; the table serves at most 200 ops/s
  const segs: RateSegment[] = [
    { kind: 'spike', baseOpsPerSec: 100, multiple: 4, atSeconds: 20, forSeconds: 10, seconds: 60 },
  ];
  const points = schedulePoints(segs);
  const spike = spikesOf(segs)[0]!;
  /** The interval rows: tick k (schedule [10k, 10k + 10)) in the bucket its start falls in from its window start. */
  function rows(W: number) {
    const windowStart = W0 - 800 + W * 1000;
    return [0, 1, 2, 3, 4, 5].map((k) => {
      const start = W0 + k * I * 1000 - 4;
      const served = k === 2 ? 200 : 100;
      return {
        op: 'UPDATE',
        offset_seconds: Math.floor((start - windowStart) / (I * 1000)) * I,
        bucket_seconds: I,
        count: served * I,
      };
    });
  }

  it.each([5, 10, 3])(
    'warm-up %i s: recovery 10 s and 2,000 operations unserved (200 ops/s short for 10 s)',
    (W) => {
      const clock = scheduleClockOf(aggregateOf(W, 1), I)!;
      const tl = measuredTimeline(rows(W), points, clock);
      // the bucket holding schedule seconds 20-30 is placed at 20 and was offered 400 ops/s
      expect(tl.find((b) => b.t === 20)).toMatchObject({ offeredOpsPerSec: 400, servedOpsPerSec: 200 });
      expect(spikeOutcome(tl, spike)).toMatchObject({ recoverySeconds: 10, unservedOps: 2000 });
    },
  );

  it('processes a status interval apart: a bucket is offered the mean of what each was offered', () => {
    const clock = {
      processes: [
        { fromSeconds: 10, toSeconds: 60, bucketZeroSeconds: 10 },
        { fromSeconds: 10, toSeconds: 60, bucketZeroSeconds: 10 },
        { fromSeconds: 0, toSeconds: 50, bucketZeroSeconds: 0 },
      ],
    };
    const tl = measuredTimeline(
      [{ op: 'UPDATE', offset_seconds: 10, bucket_seconds: 10, count: 3000 }],
      points,
      clock,
    );
    // two processes hold schedule 20-30 (400 ops/s), one holds 10-20 (100 ops/s): (400 + 400 + 100) / 3
    expect(tl).toEqual([expect.objectContaining({ t: 20, offeredOpsPerSec: 300, servedOpsPerSec: 300 })]);
  });
});

describe("the aggregate's counted span per process", () => {
  const FIXTURE = path.join(__dirname, '../../fixtures/ycsb/fleet-small');
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetbench-clock-'));
    fs.cpSync(FIXTURE, dir, { recursive: true });
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("is its counted intervals' earliest start and latest end, with its manifest's workload start", async () => {
    const input = await readCellDir(dir);
    const agg = await aggregateCell(input, { warmupSeconds: 1, seriesSeconds: 1 });
    expect(agg.processes.length).toBeGreaterThan(1);
    for (const p of agg.processes) {
      const proc = input.processes.find((x) => x.label === p.label)!;
      // by hand from the process's own logs: intervals starting in its own window, [its JVM start + warm-up, its
      // end) (no cool-down, no schedule: lib/core/results/aggregate.ts)
      const m = proc.manifest!;
      const from = m.startMs + 1000;
      let lo = Infinity;
      let hi = -Infinity;
      for (const l of proc.logs) {
        const text = fs.readFileSync(path.join(dir, p.label, `${l.name}.hdr`), 'latin1');
        for (const iv of parseIntervalLog(text, l.name).intervals)
          if (iv.startMs >= from && iv.startMs < m.endMs) {
            lo = Math.min(lo, iv.startMs);
            hi = Math.max(hi, iv.endMs);
          }
      }
      expect(p.counted).toEqual({
        startMs: lo,
        endMs: hi,
        workloadStartMs: proc.manifest?.workloadStartMs ?? null,
      });
    }
    expect(Math.min(...agg.processes.map((p) => p.counted!.startMs))).toBe(agg.window.measuredStartMs);
    expect(Math.max(...agg.processes.map((p) => p.counted!.endMs))).toBe(agg.window.measuredEndMs);
  });
});
