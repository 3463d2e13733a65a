/**
 * `workload.rateSchedule` (docs/rate-schedules.md): refused by field where it cannot be run; its curve, the offered
 * operations (areas worked by hand), each process's share of it, the on-demand model's predicted response (AWS's
 * rule: up to twice the previous peak at once, the peak rising at most once per 30 minutes; a new table's 4,000
 * WCU/s, https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html), the
 * measured timeline and spike outcome, and the report's section.
 */
import { InputError } from '../../../lib/core/common/errors';
import { validateSpec } from '../../../lib/core/spec';
import {
  offeredOps,
  offeredRate,
  parseRateScheduleProperty,
  schedulePoints,
  spikesOf,
} from '../../../lib/core/spec/rate-schedule';
import { cellProcesses, planRun } from '../../../lib/core/plan';
import type { DynamoDbTarget, RateSegment } from '../../../lib/core/spec/schema';
import { predictOnDemandResponse } from '../../../lib/core/dynamodb-model/on-demand-response';
import { measuredTimeline, spikeCounts, spikeOutcome, warmupClock } from '../../../lib/core/results/schedule';
import { scheduleReportOf, scheduleSections } from '../../../lib/core/report/schedules';
import { baseSpec, withValue } from '../spec/fixtures';

function issuesOf(data: unknown): { path: string; message: string }[] {
  try {
    validateSpec(data);
  } catch (err) {
    if (err instanceof InputError) return err.issues;
    throw err;
  }
  throw new Error('expected the spec to be rejected');
}

const SPIKE: RateSegment = {
  kind: 'spike',
  baseOpsPerSec: 1000,
  multiple: 6,
  atSeconds: 10,
  forSeconds: 20,
  seconds: 60,
};

/** The base spec with a rate schedule instead of its rates: one on-demand table, updates only, 1 process. */
function scheduleSpec(schedule: unknown = [SPIKE], duration = 60): Record<string, unknown> {
  let s = withValue(baseSpec(), 'workload.targetOpsPerSec', undefined);
  s = withValue(s, 'workload.rateSchedule', schedule);
  s = withValue(s, 'workload.durationSeconds', duration);
  s = withValue(s, 'workload.warmupSeconds', 0);
  s = withValue(s, 'workload.readProportions', undefined);
  s = withValue(s, 'workload.proportions', { update: 1 });
  s = withValue(s, 'workload.distributions', ['uniform']);
  s = withValue(s, 'targets.0.billing', { mode: 'on-demand' });
  // one 100-byte field: an item under 1 KB, 1 WCU per update
  return withValue(s, 'dataset', { recordCount: 10000, fieldCount: 1, fieldLength: 100 });
}

describe('workload.rateSchedule validation', () => {
  it('plans one cell per mix, at the schedule peak, lasting the schedule', () => {
    const { spec } = validateSpec(scheduleSpec());
    const plan = planRun(spec, { runId: 'r' });
    expect(plan.cells.map((c) => [c.id, c.targetOpsPerSec, c.durationSeconds])).toEqual([
      ['ddb.uniform.r0.sched', 6000, 60],
    ]);
    expect(plan.cells[0]!.properties['fleetbench.rateSchedule']).toBe(
      '0:1000,10:1000,10:6000,30:6000,30:1000,60:1000',
    );
  });

  it('refuses a schedule with fixed rates, "max" or a search, a wrong duration and a spike outside its segment', () => {
    const withRates = withValue(scheduleSpec(), 'workload.targetOpsPerSec', [100, 200]);
    expect(issuesOf(withRates)).toContainEqual(expect.objectContaining({ path: 'workload.targetOpsPerSec' }));
    expect(issuesOf(withValue(scheduleSpec(), 'workload.targetOpsPerSec', 'max'))).toContainEqual(
      expect.objectContaining({ path: 'workload.targetOpsPerSec' }),
    );
    const search = {
      slo: { percentile: 99, maxMs: 10 },
      startOpsPerSec: 100,
      maxOpsPerSec: 1600,
      resolutionOpsPerSec: 50,
    };
    expect(issuesOf(withValue(scheduleSpec(), 'workload.search', search))).toContainEqual(
      expect.objectContaining({ path: 'workload.rateSchedule' }),
    );
    expect(issuesOf(scheduleSpec([SPIKE], 50))).toContainEqual({
      path: 'workload.durationSeconds',
      message: "expected the rate schedule's length, 60 s (the cell lasts as long as its schedule), found 50",
    });
    expect(issuesOf(scheduleSpec([{ ...SPIKE, seconds: 25 }], 25))).toContainEqual(
      expect.objectContaining({ path: 'workload.rateSchedule[0].seconds' }),
    );
    expect(issuesOf(scheduleSpec([{ ...SPIKE, multiple: 1 }]))[0]!.path).toBe(
      'workload.rateSchedule[0].multiple',
    );
  });
});

describe('the curve', () => {
  const segs: RateSegment[] = [
    {
      kind: 'steps',
      steps: [
        { opsPerSec: 100, seconds: 10 },
        { opsPerSec: 200, seconds: 10 },
      ],
    },
    { kind: 'ramp', fromOpsPerSec: 200, toOpsPerSec: 0, seconds: 10 },
    { kind: 'spike', baseOpsPerSec: 50, multiple: 4, atSeconds: 5, forSeconds: 3, seconds: 15 },
  ];
  it('joins the segments end to end', () => {
    expect(schedulePoints(segs)).toEqual([
      { t: 0, opsPerSec: 100 },
      { t: 10, opsPerSec: 100 },
      { t: 10, opsPerSec: 200 },
      { t: 20, opsPerSec: 200 },
      { t: 30, opsPerSec: 0 },
      { t: 30, opsPerSec: 50 },
      { t: 35, opsPerSec: 50 },
      { t: 35, opsPerSec: 200 },
      { t: 38, opsPerSec: 200 },
      { t: 38, opsPerSec: 50 },
      { t: 45, opsPerSec: 50 },
    ]);
    expect(spikesOf(segs)).toEqual([
      { startSeconds: 35, endSeconds: 38, baseOpsPerSec: 50, peakOpsPerSec: 200 },
    ]);
  });
  it('offers the area under it (worked by hand)', () => {
    const p = schedulePoints(segs);
    expect(offeredOps(p, 10)).toBe(1000);
    expect(offeredOps(p, 15)).toBe(2000);
    // the falling ramp 200 → 0 over 10 s: 1,000 operations; half-way 200·5 − 10·25/2 = 750
    expect(offeredOps(p, 25)).toBe(3000 + 750);
    expect(offeredOps(p, 30)).toBe(4000);
    expect(offeredRate(p, 35, 38)).toBe(200);
    expect(offeredRate(p, 34, 36)).toBe(125);
  });
  it('gives each process an equal share', () => {
    const procs = cellProcesses({
      targetOpsPerSec: 200,
      durationSeconds: 45,
      loaders: 1,
      processesPerLoader: 3,
      properties: { 'fleetbench.rateSchedule': '0:100,10:100,10:200' },
    });
    expect(procs.map((p) => parseRateScheduleProperty(p.properties['fleetbench.rateSchedule']!))).toEqual(
      Array(3).fill([
        { t: 0, opsPerSec: 33.333 },
        { t: 10, opsPerSec: 33.333 },
        { t: 10, opsPerSec: 66.667 },
      ]),
    );
    // a process whose share of the peak rounds to 0 still paces (target > 0 installs the open-loop schedule)
    const few = cellProcesses({
      targetOpsPerSec: 2,
      durationSeconds: 10,
      loaders: 1,
      processesPerLoader: 3,
      properties: { 'fleetbench.rateSchedule': '0:2' },
    });
    expect(few.map((p) => p.properties.target)).toEqual(['1', '1', '1']);
  });
});

describe('the on-demand model', () => {
  const { spec } = validateSpec(scheduleSpec());
  const cell = planRun(spec, { runId: 'r' }).cells[0]!;
  const target = spec.targets[0] as DynamoDbTarget;
  const opts = { points: cell.rateSchedule!, durationSeconds: 60 };

  it('serves up to twice the previous peak: a new table, 4,000 WCU/s, throttles a 6,000 ops/s spike of 1-WCU updates', () => {
    const p = predictOnDemandResponse(spec, target, cell, opts)!;
    expect(p.points[5]).toMatchObject({
      offeredOpsPerSec: 1000,
      servedOpsPerSec: 1000,
      throttledOpsPerSec: 0,
    });
    expect(p.points[20]).toMatchObject({
      offeredOpsPerSec: 6000,
      servedOpsPerSec: 4000,
      ceilingOpsPerSec: 4000,
    });
    // no raise within 30 minutes: recovered when the spike ends, 20 s × 2,000 ops/s unserved
    expect(p.spikes).toEqual([expect.objectContaining({ recoverySeconds: 20, unservedOps: 40_000 })]);
  });

  it('raises the ceiling once the 30-minute window has passed (time scale 600: 3 s of the emulator)', () => {
    const p = predictOnDemandResponse(spec, target, cell, { ...opts, timeScale: 600 })!;
    // each emulated second is 600 s of the window, so the 1,800-s window has passed by the spike; the base (1,000
    // WCU/s) never exceeds the previous peak (2,000), so the first raise is at the spike's first second: the peak
    // becomes the 4,000 consumed, the ceiling 8,000, and t = 11 serves all 6,000
    expect(p.points[10]!.servedOpsPerSec).toBe(4000);
    expect(p.points[11]!.servedOpsPerSec).toBe(6000);
    expect(p.spikes[0]).toMatchObject({ recoverySeconds: 1, unservedOps: 2000 });
  });

  it('scales with capacityScale and is silent for a provisioned table', () => {
    const p = predictOnDemandResponse(spec, target, cell, { ...opts, capacityScale: 0.1 })!;
    expect(p.points[20]!.servedOpsPerSec).toBeCloseTo(400, 9);
    const prov = { ...target, billing: { mode: 'provisioned' as const, rcu: 10, wcu: 10 } };
    expect(predictOnDemandResponse(spec, prov, cell, opts)).toBeNull();
  });
});

describe('the measured timeline and the spike outcome', () => {
  const spike = { startSeconds: 2, endSeconds: 4, baseOpsPerSec: 10, peakOpsPerSec: 40 };
  const tl = (served: number[]) =>
    served.map((s, t) => ({ t, offeredOpsPerSec: [10, 10, 40, 40, 10, 10][t]!, servedOpsPerSec: s }));

  it('recovers at the first interval served at 95 % of offered, held over the next 5 s', () => {
    expect(spikeOutcome(tl([10, 10, 20, 20, 10, 10]), spike)).toMatchObject({
      recoverySeconds: 2,
      unservedOps: 40,
    });
    // a good interval followed by a throttled one: not held (80 of 100 offered over t = 2..5)
    expect(spikeOutcome(tl([10, 10, 40, 20, 10, 10]), spike)).toMatchObject({
      recoverySeconds: 2,
      unservedOps: 20,
    });
    // (9 < 95 % of 10 at t = 4: 20 + 20 + 1 unserved)
    expect(spikeOutcome(tl([10, 10, 20, 20, 9, 10]), spike)).toMatchObject({
      recoverySeconds: 3,
      unservedOps: 41,
    });
    expect(spikeOutcome(tl([10, 10, 20, 20, 10, 5]), spike)).toMatchObject({ recoverySeconds: null });
    // a bucket at 94 % after the recovery (a 1-s bucket's noise) does not move it: the 5 s from t = 4 serve 98.8 %
    const noisy = [10, 10, 20, 20, 10, 10, 9.4, 10, 10].map((s, t) => ({
      t,
      offeredOpsPerSec: t === 2 || t === 3 ? 40 : 10,
      servedOpsPerSec: s,
    }));
    expect(spikeOutcome(noisy, spike)).toMatchObject({ recoverySeconds: 2, unservedOps: 40 });
  });

  it('reads the interval rows: successful, failed and throttled per bucket, on the cell clock', () => {
    const points = [
      { t: 0, opsPerSec: 10 },
      { t: 2, opsPerSec: 10 },
      { t: 2, opsPerSec: 40 },
    ];
    const row = (op: string, offset: number, count: number) => ({
      op,
      offset_seconds: offset,
      bucket_seconds: 1,
      count,
    });
    const rows = [
      row('UPDATE', -1, 10),
      row('Intended-UPDATE', -1, 10),
      row('UPDATE', 0, 10),
      row('UPDATE', 1, 25),
      row('UPDATE-FAILED', 1, 15),
      row('UPDATE-THROTTLED', 1, 15),
      row('SCHEDULE-DELAY', 1, 40),
    ];
    const m = measuredTimeline(rows, points, warmupClock(1));
    expect(m).toEqual([
      {
        t: 0,
        seconds: 1,
        offeredOpsPerSec: 10,
        servedOpsPerSec: 10,
        failedOpsPerSec: 0,
        throttledAttemptsPerSec: 0,
      },
      {
        t: 1,
        seconds: 1,
        offeredOpsPerSec: 10,
        servedOpsPerSec: 10,
        failedOpsPerSec: 0,
        throttledAttemptsPerSec: 0,
      },
      {
        t: 2,
        seconds: 1,
        offeredOpsPerSec: 40,
        servedOpsPerSec: 25,
        failedOpsPerSec: 15,
        throttledAttemptsPerSec: 15,
      },
    ]);
    const o = spikeOutcome(m, spike);
    expect(o.recoverySeconds).toBeNull();
    expect(spikeCounts(m, o)).toEqual({ throttledAttempts: 15, failedOps: 15 });
  });
});

describe('the report section', () => {
  it('draws offered over served beside the model and tabulates the spike; nothing without a schedule', () => {
    const { spec } = validateSpec(scheduleSpec());
    const cell = planRun(spec, { runId: 'r' }).cells[0]!;
    const rows = Array.from({ length: 60 }, (_, t) => ({
      op: 'UPDATE',
      offset_seconds: t,
      bucket_seconds: 1,
      count: t >= 10 && t < 30 ? 4000 : 1000,
    }));
    const r = scheduleReportOf(spec, cell, rows, { capacityScale: 1 })!;
    expect(r.spikes[0]).toMatchObject({
      recoverySeconds: 20,
      unservedOps: 40_000,
      predicted: expect.objectContaining({ recoverySeconds: 20 }),
    });
    const html = scheduleSections([r]).join('');
    expect(html).toContain('data-chart="schedule-ddb.uniform.r0.sched"');
    expect(html).toContain('data-series="served (on-demand model)"');
    expect(html).toContain('data-measured-recovery="20"');
    expect(scheduleSections(undefined)).toEqual([]);
  });
});
