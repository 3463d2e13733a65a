/**
 * The `keyspaces` target kind: the spec refuses bad fields by name, the plan gives the CQL binding its Keyspaces
 * properties (with the connections per host derived from the process's share of the rate), and the cost model
 * prices the table like a DynamoDB table in Keyspaces' units. Reference figures are computed by hand in the
 * comments from AWS's row-size rules (https://docs.aws.amazon.com/keyspaces/latest/devguide/calculating-row-size.html)
 * and the book's prices (https://aws.amazon.com/keyspaces/pricing/, price list data of 2025-07-02: $0.625 per
 * million WRU, $0.125 per million RRU, $0.00065 per WCU-hour, $0.00013 per RCU-hour, $0.25 per GB-month).
 */
import { loadPriceBook, monthlyCost } from '../../../lib/core/cost';
import { keyspacesRowBytes } from '../../../lib/core/targets/keyspaces/cost';
import { InputError } from '../../../lib/core/common/errors';
import { cellCostsFor } from '../../../lib/core/pipeline/costing';
import { planRun } from '../../../lib/core/plan';
import { validateSpec } from '../../../lib/core/spec';
import { baseSpec, withValue } from '../spec/fixtures';

const ks = (extra: Record<string, unknown> = {}) => ({
  id: 'ks',
  kind: 'keyspaces',
  capacity: { mode: 'on-demand' },
  ...extra,
});
const specWith = (
  target: unknown,
  more: (s: Record<string, unknown>) => Record<string, unknown> = (s) => s,
) => more(withValue(baseSpec(), 'targets', [target]));

function issues(data: unknown): string[] {
  try {
    validateSpec(data);
    return [];
  } catch (e) {
    if (e instanceof InputError) return e.issues.map((i) => `${i.path}: ${i.message}`);
    throw e;
  }
}

describe('keyspaces target: spec', () => {
  it('defaults the read consistency to LOCAL_QUORUM and the expected latency to the kind default', () => {
    const { spec } = validateSpec(specWith(ks()));
    expect(spec.targets[0]).toEqual({
      id: 'ks',
      kind: 'keyspaces',
      capacity: { mode: 'on-demand' },
      readConsistency: 'LOCAL_QUORUM',
    });
    expect(planRun(spec, { runId: 'r1' }).sizing.ks!.expectedLatencyMs).toBe(8);
  });

  it.each([
    ['capacity missing', { capacity: undefined }, /^targets\[0\]\.capacity: /],
    [
      'unknown capacity mode',
      { capacity: { mode: 'ondemand' } },
      /^targets\[0\]\.capacity\.mode: .*"on-demand", "provisioned"/,
    ],
    [
      'provisioned without wcu',
      { capacity: { mode: 'provisioned', rcu: 10 } },
      /^targets\[0\]\.capacity\.wcu: .*required/,
    ],
    [
      'rcu zero',
      { capacity: { mode: 'provisioned', rcu: 0, wcu: 10 } },
      /^targets\[0\]\.capacity\.rcu: .*greater than 0/,
    ],
    [
      'on-demand with capacity units',
      { capacity: { mode: 'on-demand', rcu: 10 } },
      /^targets\[0\]\.capacity\.rcu: unknown key/,
    ],
    [
      'read consistency Keyspaces lacks',
      { readConsistency: 'QUORUM' },
      /^targets\[0\]\.readConsistency: .*"LOCAL_QUORUM", "LOCAL_ONE".*"QUORUM"/,
    ],
    [
      'misspelt key',
      { readconsistency: 'LOCAL_ONE' },
      /^targets\[0\]\.readconsistency: unknown key \(did you mean "readConsistency"\?\)/,
    ],
  ])('%s is refused by name', (_what, extra, expected) => {
    const t = ks(extra as Record<string, unknown>);
    for (const k of Object.keys(t))
      if ((t as Record<string, unknown>)[k] === undefined) delete (t as Record<string, unknown>)[k];
    const found = issues(specWith(t));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(expected);
  });

  it('refuses rows above Keyspaces’ 1 MB, naming the dataset field', () => {
    // 11 × 100,000 B = 1,100,000 B > 1,048,576 B
    const big = specWith(ks(), (s) =>
      withValue(withValue(s, 'dataset.fieldCount', 11), 'dataset.fieldLength', 100_000),
    );
    expect(issues(big)).toEqual([
      'dataset.fieldLength: targets[0] is Amazon Keyspaces, whose rows are at most 1 MB (1,048,576 B): fieldCount × fieldLength is 1,100,000 B',
    ]);
    // 10 × 100,000 = 1,000,000 B fits
    expect(issues(withValue(big, 'dataset.fieldCount', 10))).toEqual([]);
  });
});

describe('keyspaces target: plan', () => {
  const plan = (target: unknown, more?: (s: Record<string, unknown>) => Record<string, unknown>) =>
    planRun(validateSpec(specWith(target, more)).spec, { runId: 'r1' });

  it('runs the CQL binding in keyspaces mode against the run’s keyspace', () => {
    const p = plan(ks({ readConsistency: 'LOCAL_ONE' }), (s) => withValue(s, 'region', 'eu-west-1'));
    expect(p.tables.ks).toBe('usertable');
    expect(p.bindings.ks).toEqual({
      binding: 'cql',
      db: 'dev.fleetbench.ycsb.CqlClient',
      properties: {
        table: 'usertable',
        'cql.service': 'keyspaces',
        'cql.hosts': 'cassandra.eu-west-1.amazonaws.com',
        'cql.region': 'eu-west-1',
        'cql.keyspace': 'fb_r1_ks_d9ce4eff',
        'cql.readConsistency': 'LOCAL_ONE',
        'cql.writeConsistency': 'LOCAL_QUORUM',
        'cql.connectionsPerHost': '1',
      },
    });
    expect(p.cells[0]!.properties['cql.keyspace']).toBe('fb_r1_ks_d9ce4eff');
    const cn = plan(ks(), (s) => withValue(s, 'region', 'cn-north-1'));
    expect(cn.bindings.ks!.properties['cql.hosts']).toBe('cassandra.cn-north-1.amazonaws.com.cn');
    expect(p.load!.targets).toEqual(['ks']);
  });

  it('derives cql.connectionsPerHost from the largest per-process rate over 500 requests/s × 9 peers', () => {
    const loaders = (s: Record<string, unknown>, ops: number, load: boolean) =>
      withValue(
        withValue(
          withValue(s, 'loaders', { count: 2, processesPerLoader: 2, threadsPerProcess: 200 }),
          'workload.targetOpsPerSec',
          [ops],
        ),
        'dataset.load',
        load,
      );
    // no load: 50,000 ops/s over 2 × 2 processes = 12,500/s each; / 4,500 = 2.78 → 3
    expect(
      plan(ks(), (s) => loaders(s, 50_000, false)).bindings.ks!.properties['cql.connectionsPerHost'],
    ).toBe('3');
    // loading unthrottled: 200 threads at the 8 ms default latency = 25,000/s per process; / 4,500 = 5.56 → 6
    expect(plan(ks(), (s) => loaders(s, 1_000, true)).bindings.ks!.properties['cql.connectionsPerHost']).toBe(
      '6',
    );
    // loading capped at 4,000 ops/s: 1,000/s per process, cells 250/s: one connection per host
    expect(
      plan(ks(), (s) => withValue(loaders(s, 1_000, true), 'dataset.loadTargetOpsPerSec', 4_000)).bindings.ks!
        .properties['cql.connectionsPerHost'],
    ).toBe('1');
  });

  it('estimates the run’s request units and storage like a DynamoDB table’s', () => {
    // one cell: 1,000 ops/s × 60 s, half reads half updates; 10,000 rows loaded
    const p = plan(ks(), (s) =>
      withValue(
        withValue(withValue(s, 'workload.readProportions', [0.5]), 'workload.targetOpsPerSec', [1000]),
        'workload.distributions',
        ['uniform'],
      ),
    );
    const items = p.estimate.items.filter((i) => i.target === 'ks');
    // a row of 1,060 B (see cost below) = 2 WRU per write, 1 RRU per LOCAL_QUORUM read
    // writes: 30,000 updates × 2 + 10,000 loaded × 2 = 80,000 WRU; reads: 30,000 × 1 = 30,000 RRU
    expect(items.map((i) => [i.kind, i.unit, i.quantity])).toEqual([
      ['keyspaces-requests', 'write request unit', 80_000],
      ['keyspaces-requests', 'read request unit', 30_000],
      ['storage', 'GB-month', expect.any(Number)],
    ]);
    expect(items[0]!.usd).toBe(0.05); // 80,000 × $0.625 / 1e6
    // 10,000 rows × 1,160 B / 1024³ = 0.0108033 GB, for the run's hours out of 730
    const storage = items[2]!;
    expect(storage.label).toBe('ks: 0.011 GB stored for the run');
    expect(storage.quantity).toBeCloseTo((0.010803341865539551 * p.estimate.runHours) / 730, 6);
  });

  it('prices provisioned capacity for the run’s hours', () => {
    const p = plan(ks({ capacity: { mode: 'provisioned', rcu: 400, wcu: 300 } }));
    const items = p.estimate.items.filter((i) => i.kind === 'keyspaces-capacity');
    expect(items.map((i) => [i.unit, i.unitUsd])).toEqual([
      ['WCU-hour', 0.00065],
      ['RCU-hour', 0.00013],
    ]);
    // 300 WCU and 400 RCU for the same hours (the estimate shows runHours rounded)
    expect(items[0]!.quantity / 300).toBeCloseTo(items[1]!.quantity / 400, 6);
    expect(items[0]!.quantity / 300).toBeCloseTo(p.estimate.runHours, 3);
  });
});

describe('keyspaces target: monthly cost', () => {
  const book = loadPriceBook('2024-11');

  it('computes the YCSB row as Keyspaces encodes it', () => {
    // key "user" + 19 digits = 23 B stored twice + 3 B key metadata + 1 B column id; 10 × (100 B + 1 B column id)
    // = 46 + 3 + 1 + 1,010 = 1,060 B; stored: + 100 B row metadata = 1,160 B
    expect(keyspacesRowBytes({ fieldCount: 10, fieldLength: 100 })).toEqual({
      requestBytes: 1060,
      storageBytes: 1160,
    });
    // 62 fields + the key = 63 columns: 2-byte column ids; 2 × 23 + 3 + 2 + 62 × (10 + 2) = 795
    expect(keyspacesRowBytes({ fieldCount: 62, fieldLength: 10 }).requestBytes).toBe(795);
  });

  it('on-demand, provisioned for the throughput and as configured, plus storage', () => {
    const r = monthlyCost(
      {
        target: { id: 'ks', kind: 'keyspaces', capacity: { mode: 'provisioned', rcu: 5000, wcu: 5000 } },
        throughput: { readsPerSec: 1000, writesPerSec: 1000 },
        dataset: { recordCount: 1_000_000, fieldCount: 10, fieldLength: 100 },
      },
      book,
    );
    if (r.kind !== 'keyspaces') throw new Error(`expected a keyspaces report, got ${r.kind}`);
    expect(r.units).toEqual({ writeUnitsPerWrite: 2, readUnitsPerRead: 1 });
    // 1,000/s × 3,600 × 730 = 2,628,000,000 operations a month each way
    // on-demand: writes × 2 WRU × $0.625/M = $3,285.00; reads × 1 RRU × $0.125/M = $328.50;
    // storage 1,000,000 × 1,160 B = 1.0803 GB × $0.25 = $0.27; total $3,613.77
    expect(r.monthly.onDemand).toEqual({ writes: 3285, reads: 328.5, storage: 0.27, total: 3613.77 });
    // provisioned for it: 2,000 WCU × $0.00065 × 730 = $949.00; 1,000 RCU × $0.00013 × 730 = $94.90
    expect(r.capacity.needed).toEqual({ wcu: 2000, rcu: 1000, utilization: 1 });
    expect(r.monthly.provisioned).toEqual({ writes: 949, reads: 94.9, storage: 0.27, total: 1044.17 });
    // 2,000 ops/s × 3,600 × 730 = 5.256 billion operations a month: $1,044.17 / 5.256 = $198.66 per billion,
    // $3,613.77 / 5.256 = $687.55 (the totals before rounding to cents: storage is $0.270084)
    expect(r.perBillionOps).toEqual({ provisioned: 198.66, onDemand: 687.55 });
    expect(r.perMillionOps.provisioned).toBeCloseTo(0.198662, 6);
    expect(r.perMillionOps.onDemand).toBeCloseTo(0.687551, 6);
    expect(r.onDemandOverProvisioned).toBeCloseTo(3.460902, 6);
    // as configured: 5,000 WCU → $2,372.50; 5,000 RCU → $474.50
    expect(r.monthly.provisionedAsConfigured).toEqual({
      writes: 2372.5,
      reads: 474.5,
      storage: 0.27,
      total: 2847.27,
    });
  });

  it("provisions for the given utilization as DynamoDB does; refuses DynamoDB's free tier and transactions", () => {
    const input = {
      target: { kind: 'keyspaces' },
      throughput: { readsPerSec: 1000, writesPerSec: 1000 },
      dataset: { recordCount: 0 },
    };
    const r = monthlyCost({ ...input, utilization: 0.7 }, book);
    if (r.kind !== 'keyspaces') throw new Error('expected a keyspaces report');
    // 1,000 writes/s × 2 WCU / 0.7 = 2,857.1 → 2,858 WCU; 1,000 reads/s × 1 RCU / 0.7 → 1,429 RCU
    expect(r.capacity.needed).toEqual({ wcu: 2858, rcu: 1429, utilization: 0.7 });
    // 2,858 × $0.00065 × 730 = $1,356.12; 1,429 × $0.00013 × 730 = $135.61
    expect(r.monthly.provisioned).toEqual({ writes: 1356.12, reads: 135.61, storage: 0, total: 1491.73 });
    expect(() => monthlyCost({ ...input, freeTier: true }, book)).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ path: 'freeTier' })] }),
    );
    expect(() => monthlyCost({ ...input, transactional: true }, book)).toThrow(
      /transactional: Amazon Keyspaces has no transactions/,
    );
  });

  it('LOCAL_ONE reads cost half', () => {
    const r = monthlyCost(
      {
        target: { kind: 'keyspaces', readConsistency: 'LOCAL_ONE' },
        throughput: { readsPerSec: 1000 },
        dataset: { recordCount: 0 },
      },
      book,
    );
    if (r.kind !== 'keyspaces') throw new Error('expected a keyspaces report');
    // 2,628,000,000 × 0.5 RRU × $0.125/M = $164.25
    expect(r.monthly.onDemand.reads).toBe(164.25);
  });
});

describe('keyspaces target: cell cost columns', () => {
  it('a cell at its measured rate is priced like a DynamoDB table: both models, its own mode as the cost', () => {
    const { spec } = validateSpec(specWith(ks()));
    const cell = planRun(spec, { runId: 'r1' }).cells.find((c) => c.readProportion === 0.5)!;
    // 10,000 ops/s measured at 50/50: 5,000 reads/s + 5,000 writes/s, 10,000 rows of 1,160 B stored
    // on-demand: 13,140,000,000 writes × 2 WRU × $0.625/M = $16,425.00; reads × $0.125/M = $1,642.50;
    // storage 0.0108 GB × $0.25 = $0.0027 → $0.00; provisioned: 10,000 WCU → $4,745.00, 5,000 RCU → $474.50
    expect(cellCostsFor(spec, loadPriceBook('2024-11'))(cell, 10_000)).toEqual({
      monthlyCostProvisionedUsd: 5219.5,
      monthlyCostOnDemandUsd: 18067.5,
      monthlyCostUsd: 18067.5,
      hoursPerMonth: 730,
    });
    // provisioned capacity: its cost is capacity for the measured rate (as a DynamoDB table's)
    const provisioned = validateSpec(
      specWith(ks({ capacity: { mode: 'provisioned', rcu: 400, wcu: 300 } })),
    ).spec;
    expect(cellCostsFor(provisioned, loadPriceBook('2024-11'))(cell, 10_000).monthlyCostUsd).toBe(5219.5);
  });
});
