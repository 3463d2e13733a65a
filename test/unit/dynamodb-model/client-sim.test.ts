/**
 * The loader's client in simulated time (lib/core/dynamodb-model/client-sim.ts): the open-loop
 * schedule and YCSB's per-thread pacing, threads held by slow attempts, operations that fail when
 * their retries are exhausted; counts derived by hand in each test's comment. And the analytic
 * solver (solve.ts) against the simulation of examples/local-throttling.json's zipfian cell: two
 * independent methods (a mean-value equation; token buckets and back-offs event by event).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  cellModelOf,
  clientSimulationOf,
  simulateClient,
  simulateClientRuns,
  solve,
  type ClientSimulation,
} from '../../../lib/core/dynamodb-model';
import { planRun } from '../../../lib/core/plan';
import { validateSpec } from '../../../lib/core/spec';
import type { DynamoDbTarget } from '../../../lib/core/spec/schema';

const roomy: ClientSimulation = {
  // a table far above the load: scale 1, one item 3,000 RCU / 1,000 WCU per second
  table: {
    billing: { mode: 'provisioned', rcu: 40_000, wcu: 40_000 },
    recordCount: 1000,
    itemBytes: 1084,
    storedItemBytes: 1184,
  },
  distribution: { type: 'uniform' },
  mix: { read: 0.1, write: 0.9, readUnits: 1, writeUnits: 2 },
  targetOpsPerSec: 100,
  processes: 2,
  threadsPerProcess: 3,
  schedule: 'open',
  latencyMs: 5,
  retry: { maxRetries: 3, baseDelayMs: 50, maxDelayMs: 5000 },
  durationSeconds: 20,
  warmupSeconds: 8,
  seed: 7,
};

describe('client simulation: schedules', () => {
  it('open loop, unthrottled: every due operation runs on time', () => {
    // each process: operation k due at k × 20 ms (50 ops/s), done 5 ms later; counted when done in
    // [8,000, 20,000) ms and started before 20,000: k = 400 … 999, 600 per process, 1,200 in 12 s
    const r = simulateClient(roomy);
    // the last operation (k = 999, due at 19,980 ms) is done at 19,985: nothing runs past the end
    expect(r).toEqual({
      attainment: 1,
      attainmentWithDrain: 1,
      drainSeconds: 0,
      goodOps: 1200,
      failedOps: 0,
      throttledAttempts: 0,
      measuredSeconds: 12,
    });
  });
  it("YCSB's per-thread pacing, unthrottled: each thread keeps its own slots", () => {
    // 6 threads at 100/6 ops/s: thread slot j due at 60·j ms, done at 60·j + 5 ∈ [8,000, 20,000):
    // j = 134 … 333, 200 per thread, 1,200 in all
    const r = simulateClient({ ...roomy, schedule: 'per-thread' });
    expect(r.goodOps).toBe(1200);
    expect(r.attainment).toBe(1);
  });
  it('threads held by slow attempts: the rate is threads / time per op, as the solver says', () => {
    // 1 thread, 100 ms per attempt, 50 ops/s asked: op k runs [100·k, 100·(k+1)) ms, back to back
    // behind its schedule; done in [8,000, 20,000): k + 1 = 80 … 199, 120 ops = 10 ops/s = 20 %
    const one = { ...roomy, processes: 1, threadsPerProcess: 1, latencyMs: 100, targetOpsPerSec: 50 };
    for (const schedule of ['open', 'per-thread'] as const) {
      const r = simulateClient({ ...one, schedule });
      expect({ schedule, goodOps: r.goodOps, attainment: r.attainment }).toEqual({
        schedule,
        goodOps: 120,
        attainment: 0.2,
      });
    }
    // op 199 starts at 19,900 ms and is done at 20,000: in the drain, as the pipeline counts it,
    // 121 ops in 12 s
    const drained = simulateClient(one);
    expect(drained.drainSeconds).toBe(0);
    expect(drained.attainmentWithDrain).toBeCloseTo(121 / 12 / 50, 12);
    // the solver: X = min(50, 1 thread / 0.1 s) = 10 ops/s
    const s = solve(
      [{ kind: 'partition', share: 1, readUnitsPerSec: Infinity, writeUnitsPerSec: Infinity }],
      roomy.mix,
      { readUnitsPerSec: Infinity, writeUnitsPerSec: Infinity },
      { threads: 1, latencyMs: 100, retry: roomy.retry },
      50,
    );
    expect(s.goodOpsPerSec).toBeCloseTo(10, 6);
    expect(s.limitedBy).toBe('client');
  });
  it('an operation whose retries are exhausted fails; the item admits its limit', () => {
    // one key, writes of 1 WCU, its limit 1,000 × 0.001 = 1 WCU/s (the partitions' 300 s of burst
    // keep them out of it); 5 ops/s offered, no retries. In [10, 110) s the 500 operations due at
    // 200·k ms (k = 50 … 549) complete; the item admits 1 per second: 100 good (± 1 at the window's
    // edges), the other 400 throttled once and failed
    const hot: ClientSimulation = {
      ...roomy,
      table: { ...roomy.table, recordCount: 1, itemBytes: 500, storedItemBytes: 600, capacityScale: 0.001 },
      mix: { read: 0, write: 1, readUnits: 1, writeUnits: 1 },
      targetOpsPerSec: 5,
      processes: 1,
      threadsPerProcess: 1,
      latencyMs: 1,
      retry: { maxRetries: 0, baseDelayMs: 50, maxDelayMs: 5000 },
      durationSeconds: 110,
      warmupSeconds: 10,
    };
    const r = simulateClient(hot);
    expect(r.goodOps + r.failedOps).toBe(500);
    expect(Math.abs(r.goodOps - 100)).toBeLessThanOrEqual(1);
    expect(r.throttledAttempts).toBe(r.failedOps);
    expect(Math.abs(r.attainment - 0.2)).toBeLessThanOrEqual(0.002);
  });
  it('YCSB lets a thread finish its retries after the end: the drain the pipeline counts', () => {
    // one key at 1 WCU/s, 5 writes/s offered by 1 thread, 1 retry after 2-4 s (base = cap = 4,000 ms):
    // the operation running at the end is throttled (the key admits 1 in 5) and waits up to 4 s, so
    // the cell runs past its 110 s by more than 0 and at most 4 s + 2 attempts of 1 ms
    const r = simulateClient({
      ...roomy,
      table: { ...roomy.table, recordCount: 1, itemBytes: 500, storedItemBytes: 600, capacityScale: 0.001 },
      mix: { read: 0, write: 1, readUnits: 1, writeUnits: 1 },
      targetOpsPerSec: 5,
      processes: 1,
      threadsPerProcess: 1,
      latencyMs: 1,
      retry: { maxRetries: 1, baseDelayMs: 4000, maxDelayMs: 4000 },
      durationSeconds: 110,
      warmupSeconds: 10,
    });
    expect(r.drainSeconds).toBeGreaterThan(0);
    expect(r.drainSeconds).toBeLessThanOrEqual(4.002);
    // the drain adds seconds in which at most one operation completes
    expect(r.attainmentWithDrain).toBeLessThan(r.attainment);
  });
  it('names the field of a bad input', () => {
    expect(() => simulateClient({ ...roomy, threadsPerProcess: 0 })).toThrow(
      'client simulation: threadsPerProcess must be an integer ≥ 1 (got 0)',
    );
    expect(() => simulateClient({ ...roomy, warmupSeconds: 20 })).toThrow(
      'client simulation: warmupSeconds must be in [0, durationSeconds) (got 20)',
    );
  });
});

describe('the analytic solver against the client simulation (examples/local-throttling.json)', () => {
  const spec = validateSpec(
    JSON.parse(readFileSync(path.join(__dirname, '../../../examples/local-throttling.json'), 'utf8')),
  ).spec;
  const plan = planRun(spec, { runId: 'sim' });
  const target = spec.targets[0] as DynamoDbTarget;
  const zipf = plan.cells.find((c) => c.distribution === 'zipfian')!;
  const model = cellModelOf(spec, target, zipf, spec.local!.capacityScale)!;

  it('the cell runs the open loop on 2 processes × 3 threads', () => {
    expect(model.client).toMatchObject({ threads: 6, processes: 2, schedule: 'open' });
  });
  it('the long-run attainment of both schedules is within 3 points of the prediction', () => {
    // 2 simulated cells of 300 s each per schedule (their spread is about 1 point)
    const predicted = zipf.localPrediction!.attainment;
    for (const schedule of ['open', 'per-thread'] as const) {
      const sim = clientSimulationOf(
        { ...model, client: { ...model.client, schedule } },
        { durationSeconds: 300, warmupSeconds: 20, seed: 11 },
      );
      const r = simulateClientRuns(sim, 2);
      expect({ schedule, close: Math.abs(r.mean - predicted) <= 0.03, r: r.runs, predicted }).toMatchObject({
        schedule,
        close: true,
      });
    }
  });
});
