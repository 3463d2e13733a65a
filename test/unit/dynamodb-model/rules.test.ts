/**
 * The capacity rules against the AWS documentation's own worked examples (each test names its page).
 */
import {
  BurstBucket,
  OnDemandCeiling,
  partitionCount,
  throttleProbability,
  retryOutcome,
  meanBackoffMs,
  simulate,
  predictSteadyState,
  BINDING_RETRY_DEFAULTS,
  type CellModel,
} from '../../../lib/core/dynamodb-model';
import { readUnitsPerRead, writeUnitsPerWrite, ycsbItemBytes } from '../../../lib/core/cost/capacity';

describe('units of the item the fleetbench binding writes', () => {
  it('p + "user"+19 digits + field0..field9 of 100 bytes is 1,084 bytes: 2 WCU per write, 1 RCU strong, 0.5 eventual', () => {
    // CapacityUnitCalculations.html: item size = attribute name lengths + value lengths; 1 KB per WCU, 4 KB per RCU
    const bytes = ycsbItemBytes({ fieldCount: 10, fieldLength: 100, keyAttribute: 'p' });
    expect(bytes).toBe(1 + 23 + 10 * 6 + 1000);
    expect(writeUnitsPerWrite(bytes)).toBe(2);
    expect(readUnitsPerRead(bytes, 'strong')).toBe(1);
    expect(readUnitsPerRead(bytes, 'eventual')).toBe(0.5);
  });
});

describe('burst capacity (burst-adaptive-capacity.html; re:Post dynamodb-spiky-workloads-short-intervals)', () => {
  it('150 RCU keeps 45,000 burst units and spends them at the excess rate', () => {
    const b = new BurstBucket(150, false);
    expect(b.max).toBe(45_000);
    // idle for 300 s fills the bucket, longer idle does not overfill it
    for (let t = 0; t < 400; t++) b.step(0, 1);
    expect(b.available).toBe(45_000);
    // demand of 300 RCU/s: served in full for 45,000 / 150 = 300 s, then at 150
    const admitted: number[] = [];
    for (let t = 0; t < 310; t++) admitted.push(b.step(300, 1));
    expect(admitted.slice(0, 300).every((a) => a === 300)).toBe(true);
    expect(admitted.slice(300)).toEqual(Array(10).fill(150));
  });
});

describe('on-demand previous peak (on-demand-capacity-mode.html)', () => {
  it('a 50,000 reads/s previous peak admits 100,000 at once; sustained 100,000 becomes the peak, then 200,000', () => {
    // the doc's example: traffic between 25,000 and 50,000 reads/s, 50,000 the previous peak
    const c = new OnDemandCeiling(100_000, 1_000_000);
    expect(c.ceiling).toBe(100_000);
    for (let t = 0; t < 29 * 60; t++) c.step(100_000, 1);
    expect(c.ceiling).toBe(100_000); // not within the same 30 minutes
    for (let t = 0; t < 60; t++) c.step(100_000, 1);
    expect(c.ceiling).toBe(200_000);
  });
  it('a new on-demand table starts at 12,000 reads / 4,000 writes per second and stops at its max', () => {
    expect(new OnDemandCeiling(12_000, 40_000).ceiling).toBe(12_000);
    expect(new OnDemandCeiling(4_000, 40_000).ceiling).toBe(4_000);
    const c = new OnDemandCeiling(4_000, 10_000);
    for (let t = 0; t < 3 * 1800; t++) c.step(c.ceiling, 1);
    expect(c.ceiling).toBe(10_000);
  });
});

describe('partitions (HowItWorks.Partitions.html; bp-partition-key-design.html)', () => {
  it('count from throughput: 200K RCU + 250K WCU → 66.7 + 250 → 317; from size: 1 TB → 103', () => {
    expect(partitionCount({ storedBytes: 0, readUnitsPerSec: 200_000, writeUnitsPerSec: 250_000 })).toBe(317);
    expect(partitionCount({ storedBytes: 1024 ** 4, readUnitsPerSec: 1, writeUnitsPerSec: 1 })).toBe(103);
    // a new on-demand table's 12,000 reads / 4,000 writes: 4 + 4 partitions' worth
    expect(partitionCount({ storedBytes: 0, readUnitsPerSec: 12_000, writeUnitsPerSec: 0 })).toBe(4);
  });
  it('a partition admits 3,000 read units/s: demand of 6,000 with 3 retries succeeds half the time', () => {
    const q = throttleProbability(6_000, 3_000, 3);
    const o = retryOutcome(q, { maxRetries: 3, baseDelayMs: 50, maxDelayMs: 5000 });
    expect(o.success).toBeCloseTo(0.5, 12);
    // admitted attempts = demand × attempts × (1 − q) = the limit
    expect(6_000 * o.attempts * (1 - q)).toBeCloseTo(3_000, 6);
    expect(throttleProbability(2_999, 3_000, 3)).toBe(0);
  });
  it("the blog's single hot partition: eventually consistent queries (0.5 RCU) reach 9,000/s, 4,500 units", () => {
    // AWS Database Blog, Scaling DynamoDB part 2: one partition key value, EC reads at 0.5 units, measured
    // "4,500 read units, which is 9,000 of our EC queries per second" (three replicas serve them), not the
    // 6,000 that 3,000 units per partition suggest
    const cell: CellModel = {
      table: {
        billing: { mode: 'provisioned', rcu: 3_000, wcu: 1 },
        recordCount: 1,
        itemBytes: 100,
        storedItemBytes: 200,
        eventuallyConsistentReads: true,
      },
      distribution: { type: 'uniform' },
      mix: { read: 1, write: 0, readUnits: 0.5, writeUnits: 1 },
      targetOpsPerSec: 20_000,
      client: { threads: 10_000, latencyMs: 2, retry: BINDING_RETRY_DEFAULTS },
    };
    const p = predictSteadyState(cell);
    expect(p.goodOpsPerSec).toBeCloseTo(9_000, 0);
    expect(p.consumedReadUnitsPerSec).toBeCloseTo(4_500, 0);
    // strongly consistent: the leader alone, 3,000 units
    const sc = predictSteadyState({
      ...cell,
      table: { ...cell.table, eventuallyConsistentReads: false },
      mix: { ...cell.mix, readUnits: 1 },
    });
    expect(sc.goodOpsPerSec).toBeCloseTo(3_000, 0);
    expect(['item', 'partition-read', 'table-read']).toContain(p.limitedBy);
  });
});

describe('one item (bp-partition-key-design.html)', () => {
  it("the doc's example: a 20 KB item takes 5 RCU per consistent read, so one item serves 600 reads/s", () => {
    const cell: CellModel = {
      table: {
        billing: { mode: 'provisioned', rcu: 30_000, wcu: 1_000 },
        recordCount: 1,
        itemBytes: 20 * 1024,
        storedItemBytes: 20 * 1024 + 100,
      },
      distribution: { type: 'uniform' },
      mix: { read: 1, write: 0, readUnits: readUnitsPerRead(20 * 1024, 'strong'), writeUnits: 20 },
      targetOpsPerSec: 1_000,
      client: { threads: 10_000, latencyMs: 2, retry: BINDING_RETRY_DEFAULTS },
    };
    expect(cell.mix.readUnits).toBe(5);
    const p = predictSteadyState(cell);
    // 11 partitions of 3,000 RCU and a 30,000 RCU table, but the one item is on one partition
    expect(p.partitions).toBe(11);
    expect(p.goodOpsPerSec).toBeCloseTo(600, 6);
    expect(p.limitedBy).toBe('item');
  });
});

describe('the binding retry policy (loader/ycsb-binding BindingSupport.backOff)', () => {
  it('mean back-off is 3/4 of min(max, base·2^n) (equal jitter)', () => {
    const r = { maxRetries: 3, baseDelayMs: 50, maxDelayMs: 120 };
    expect([0, 1, 2, 3].map((n) => meanBackoffMs(r, n))).toEqual([37.5, 75, 90, 90]);
    // every attempt throttled: 4 attempts, 4 throttled, three back-offs, never succeeds
    const o = retryOutcome(1, r);
    expect(o).toEqual({ attempts: 4, throttled: 4, backoffMs: 37.5 + 75 + 90, success: 0 });
  });
});

describe('time-stepped simulation', () => {
  const client = { threads: 400, latencyMs: 5, retry: BINDING_RETRY_DEFAULTS };
  it('a provisioned table spends its burst, then holds at its provisioned rate', () => {
    const cell: CellModel = {
      table: {
        billing: { mode: 'provisioned', rcu: 1_000, wcu: 1_000 },
        recordCount: 1_000_000,
        itemBytes: 1084,
        storedItemBytes: 1184,
      },
      distribution: { type: 'uniform' },
      mix: { read: 1, write: 0, readUnits: 1, writeUnits: 2 },
      targetOpsPerSec: 2_000,
      client,
    };
    const steps = simulate(cell, { seconds: 400 });
    // 300,000 burst units at 1,000 extra per second last 300 s
    expect(steps[0]!.goodOpsPerSec).toBeCloseTo(2_000, 0);
    expect(steps[298]!.goodOpsPerSec).toBeCloseTo(2_000, 0);
    expect(steps[350]!.goodOpsPerSec).toBeCloseTo(1_000, 0);
    expect(steps[350]!.limitedBy).toBe('table-read');
    expect(predictSteadyState(cell).goodOpsPerSec).toBeCloseTo(1_000, 0);
  });
  it('split for heat: a hot partition splits after sustained heat and throughput rises', () => {
    const cell: CellModel = {
      // 34 partitions; the hottest key (3.8% of 70,000 reads/s = 2,650) shares one with 1/34 of the rest
      table: {
        billing: { mode: 'provisioned', rcu: 100_000, wcu: 1 },
        recordCount: 100_000,
        itemBytes: 1084,
        storedItemBytes: 1184,
      },
      distribution: { type: 'zipfian' },
      mix: { read: 1, write: 0, readUnits: 1, writeUnits: 2 },
      targetOpsPerSec: 70_000,
      client,
    };
    const steps = simulate(cell, { seconds: 1_000, splitAfterSeconds: 120, burstFullAtStart: false });
    expect(steps[0]!.partitions).toBe(34); // ceil(100,000 / 3,000 + 1 / 1,000)
    expect(steps[0]!.limitedBy).toBe('partition-read');
    const first = steps[10]!.goodOpsPerSec;
    expect(first).toBeLessThan(0.8 * 70_000);
    // no split before 120 s of heat
    expect(steps[115]!.partitions).toBe(34);
    const last = steps.at(-1)!.goodOpsPerSec;
    expect(steps.at(-1)!.partitions).toBeGreaterThan(34);
    expect(last).toBeGreaterThan(first * 1.2);
    // and it converges on the steady state (hot items isolated) within a few percent
    expect(last / predictSteadyState(cell).goodOpsPerSec).toBeGreaterThan(0.95);
  });
});
