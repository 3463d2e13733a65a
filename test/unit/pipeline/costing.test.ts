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
