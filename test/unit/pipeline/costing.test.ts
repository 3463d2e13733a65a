import { loadPriceBook } from '../../../lib/core/cost';
import { cellCostsFor, cellReadWriteRates } from '../../../lib/core/pipeline/costing';
import { planRun } from '../../../lib/core/plan';
import { validateSpec } from '../../../lib/core/spec';

// The seed 000 appendix: 50,000 writes/s (2 WCU each: items over 1 KB) and 50,000 strongly consistent
// reads/s (1 RCU each) cost $47,450 + $4,745 a month provisioned and $328,500 + $32,850 on demand
// with the 2023 prices. One record keeps storage below a cent.
const spec = validateSpec({
  name: 'seed-cost',
  targets: [
    {
      id: 'ddb',
      kind: 'dynamodb',
      billing: { mode: 'provisioned', rcu: 200000, wcu: 250000 },
      consistentReads: true,
    },
    { id: 'scylla', kind: 'scylla-ec2', nodes: 3, instanceType: 'i4i.2xlarge' },
  ],
  dataset: { recordCount: 1, fieldCount: 10, fieldLength: 100 },
  workload: {
    readProportions: [0.5],
    targetOpsPerSec: [100000],
    distributions: ['uniform'],
    durationSeconds: 60,
  },
  loaders: { count: 'auto' },
}).spec;
const plan = planRun(spec);

describe('cell cost columns', () => {
  it('splits a 50/50 cell into reads and writes', () => {
    expect(cellReadWriteRates(plan.cells[0]!, 100000)).toEqual({ readsPerSec: 50000, writesPerSec: 50000 });
  });

  it('prices a DynamoDB cell at its achieved throughput as the seed does', () => {
    const costs = cellCostsFor(spec, loadPriceBook('2023-seed'))(plan.cells[0]!, 100000);
    expect(costs).toEqual({
      monthlyCostProvisionedUsd: 47450 + 4745,
      monthlyCostOnDemandUsd: 328500 + 32850,
      monthlyCostUsd: 47450 + 4745,
      hoursPerMonth: 730,
    });
  });

  it('prices a ScyllaDB cluster by instance-hours whatever the throughput', () => {
    const cell = plan.cells.find((c) => c.target === 'scylla')!;
    const f = cellCostsFor(spec, loadPriceBook('2023-seed'));
    const a = f(cell, 1000);
    expect(a.monthlyCostProvisionedUsd).toBeNull();
    // 3 × i4i.2xlarge × $0.686/h × 730 h, plus each node's 50 GB gp3 root volume at $0.08/GB-month
    expect(a.monthlyCostUsd).toBeCloseTo(3 * 0.686 * 730 + 3 * 50 * 0.08, 2);
    expect(f(cell, 90000).monthlyCostUsd).toBe(a.monthlyCostUsd);
  });
});

// Queries and scans at their units (AWS: a read of up to 4 KB is 1 RCU, half eventually consistent; a Query or Scan
// reads its items' total size in 4 KB blocks:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html)
describe('cell cost columns of queries and scans', () => {
  const base = {
    name: 'q-and-scan',
    targets: [{ id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' } }],
    dataset: { recordCount: 1, fieldCount: 10, fieldLength: 100 },
    loaders: { count: 1 },
  };
  const book = loadPriceBook('2024-11');
  const rru = Number(book.dynamodb.standard.rruPerMillion.usd) / 1e6;

  it('prices an eventually consistent Query of one small item at half a read unit, not at nothing', () => {
    const spec = validateSpec({
      ...base,
      targets: [{ ...base.targets[0], keyDesign: { partitionKeyValues: 10, sortKeyAttribute: 's' } }],
      dataset: { ...base.dataset, recordCount: 10 },
      workload: {
        base: 'c',
        proportions: { query: 1 },
        targetOpsPerSec: [1000],
        distributions: ['uniform'],
        durationSeconds: 60,
      },
    }).spec;
    const cell = planRun(spec).cells[0]!;
    const costs = cellCostsFor(spec, book)(cell, 1000);
    // 1,000 queries/s × 0.5 read unit × 3,600 s × 730 h, storage of one item (< a cent) aside
    expect(costs.monthlyCostOnDemandUsd).toBeCloseTo(1000 * 0.5 * 3600 * 730 * rru, 0);
  });

  it('prices a scan at the 4 KB blocks of the items it reads, (1 + maxscanlength) / 2 of them', () => {
    const spec = validateSpec({
      ...base,
      workload: {
        base: 'e',
        proportions: { scan: 1 },
        targetOpsPerSec: [100],
        distributions: ['uniform'],
        durationSeconds: 60,
      },
    }).spec;
    const cell = planRun(spec).cells[0]!;
    // workload e: maxscanlength 100, a mean of 50.5 items of 1,084 bytes (10 × 100 + "field0".."field9" + key "p"
    // and its 23-byte value) = 54,742 bytes = 14 blocks of 4 KB, eventually consistent: 7 read units a scan
    const unitsPerScan = Math.ceil((50.5 * 1084) / 4096) / 2;
    expect(unitsPerScan).toBe(7);
    const costs = cellCostsFor(spec, book)(cell, 100);
    expect(costs.monthlyCostOnDemandUsd).toBeCloseTo(100 * unitsPerScan * 3600 * 730 * rru, 0);
  });
});
