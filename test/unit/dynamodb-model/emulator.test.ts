/**
 * The emulator (real-time token buckets, one request at a time) against the analytic model: fed
 * YCSB's own key choice at a fixed rate with no retries, it admits what the steady state predicts.
 */
import {
  TableCapacity,
  keySampler,
  predictSteadyState,
  seededRandom,
  ycsbKeyName,
  type CellModel,
  type KeyDistribution,
} from '../../../lib/core/dynamodb-model';

const table: CellModel['table'] = {
  billing: { mode: 'provisioned', rcu: 40_000, wcu: 40_000 },
  recordCount: 1_000,
  itemBytes: 1084,
  storedItemBytes: 1184,
  capacityScale: 0.01,
};

const names = Array.from({ length: table.recordCount }, (_, k) => ycsbKeyName(k));

/** Open loop: `rate` ops/s for `seconds`, 10 % reads (1 RCU) and 90 % updates (2 WCU). */
function drive(dist: KeyDistribution, rate: number, seconds: number) {
  const rnd = seededRandom(42);
  const next = keySampler(dist, table.recordCount, rnd);
  const cap = new TableCapacity(table, 0);
  let ok = 0;
  let throttled = 0;
  const n = rate * seconds;
  for (let i = 0; i < n; i++) {
    const t = (i * 1000) / rate;
    const read = rnd() < 0.1;
    const r = cap.request(names[next()]!, read ? 'read' : 'write', read ? 1 : 2, t);
    if (r) throttled++;
    else ok++;
  }
  return { ok, throttled, n, counters: cap.counters };
}

const model = (dist: KeyDistribution, rate: number): CellModel => ({
  table,
  distribution: dist,
  mix: { read: 0.1, write: 0.9, readUnits: 1, writeUnits: 2 },
  targetOpsPerSec: rate,
  // open loop, no retries: every operation is one attempt
  client: { threads: 1e6, latencyMs: 1, retry: { maxRetries: 0, baseDelayMs: 0, maxDelayMs: 0 } },
});

describe('emulator vs steady-state model', () => {
  it('zipfian at 200 ops/s: the hot items are held to 10 WCU/s each, as predicted', () => {
    const run = drive({ type: 'zipfian' }, 200, 300);
    const p = predictSteadyState(model({ type: 'zipfian' }, 200));
    expect(p.limitedBy).toBe('item');
    expect(run.throttled).toBeGreaterThan(0);
    // good fraction within 1.5 points of the prediction
    expect(Math.abs(run.ok / run.n - p.attainment)).toBeLessThan(0.015);
    expect(run.counters.throttled.table).toBe(0);
  });
  it('uniform at the same rate (90 % of the table) is not throttled', () => {
    const run = drive({ type: 'uniform' }, 200, 300);
    expect(run.throttled).toBe(0);
    expect(predictSteadyState(model({ type: 'uniform' }, 200)).attainment).toBe(1);
  });
  it('uniform above the table: the burst carries it for a while, then the table limit holds', () => {
    // 260 ops/s × 0.9 × 2 = 468 WCU against 400: 300 s × 400 saved units last 400 × 300 / 68 ≈ 1,765 s
    const short = drive({ type: 'uniform' }, 260, 600);
    expect(short.counters.throttled.table).toBe(0);
    const long = drive({ type: 'uniform' }, 260, 2_400);
    expect(long.counters.throttled.table).toBeGreaterThan(0);
    // the steady state (burst spent): every read (26/s) and 400 WCU / 2 = 200 writes/s
    const p = predictSteadyState(model({ type: 'uniform' }, 260));
    expect(p.limitedBy).toBe('table-write');
    expect(p.goodOpsPerSec).toBeCloseTo(26 + 200, 6);
  });
});
