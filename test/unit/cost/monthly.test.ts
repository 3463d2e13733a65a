/**
 * Reference figures: seed 000's appendix ("Cost Calculations") and hand arithmetic from the
 * published prices (shown next to each figure); none is computed by the code under test.
 */
import { loadPriceBook, dynamoPrices } from '../../../lib/core/cost/book';
import { Q } from '../../../lib/core/cost/decimal';
import {
  costPerOps,
  costRatio,
  dynamoOnDemand,
  dynamoProvisioned,
  ec2Cluster,
  externalService,
  roundLines,
} from '../../../lib/core/cost/monthly';
import { ClusterCostReport, DynamoCostReport, monthlyCost } from '../../../lib/core/cost/report';
import { InputError } from '../../../lib/core/common/errors';

const seed = loadPriceBook('2023-seed');
const nov = loadPriceBook('2024-11');

/** Seed 000 appendix: 50,000 writes/s + 50,000 strongly consistent reads/s of a 1,081-byte item, 1 TB. */
const seedExample = {
  target: { kind: 'dynamodb', id: 'ddb', consistentReads: true },
  throughput: { readsPerSec: 50_000, writesPerSec: 50_000 },
  itemBytes: 1081,
  storageGb: 1000,
};

function dynamo(input: unknown, book = seed): DynamoCostReport {
  const r = monthlyCost(input, book);
  if (r.kind !== 'dynamodb') throw new Error('expected a DynamoDB report');
  return r;
}

describe('seed 000 worked example, 2023-seed book', () => {
  const r = dynamo(seedExample);

  it('uses 2 WCU per write and 1 RCU per read', () => {
    expect(r.units).toEqual({ writeUnitsPerWrite: 2, readUnitsPerRead: 1 });
    expect(r.capacity.needed).toEqual({ wcu: 100_000, rcu: 50_000, utilization: 1 });
  });

  it('provisioned: $47,450 + $4,745 + $250 = $52,445/month, to the cent', () => {
    expect(r.monthly.provisioned).toEqual({ writes: 47_450, reads: 4_745, storage: 250, total: 52_445 });
  });

  it('on-demand: $328,500 + $32,850 + $250 = $361,600/month, to the cent', () => {
    expect(r.monthly.onDemand).toEqual({ writes: 328_500, reads: 32_850, storage: 250, total: 361_600 });
  });

  it('the primitives give the same exact amounts (no rounding was needed)', () => {
    const prices = dynamoPrices(seed);
    const p = dynamoProvisioned({ wcu: 100_000, rcu: 50_000, storageGb: 1000, book: seed, prices });
    expect([p.writes, p.reads, p.storage].map((q) => q.toString())).toEqual(['47450', '4745', '250']);
    const o = dynamoOnDemand({
      throughput: { readsPerSec: 50_000, writesPerSec: 50_000 },
      writeUnitsPerWrite: 2,
      readUnitsPerRead: 1,
      storageGb: 1000,
      book: seed,
      prices,
    });
    expect([o.writes, o.reads, o.storage].map((q) => q.toString())).toEqual(['328500', '32850', '250']);
  });

  it('per billion operations: $52,445 / (100,000 × 3,600 × 730) × 1e9', () => {
    expect(r.perBillionOps).toEqual({ provisioned: 199.56, onDemand: 1375.95 });
    expect(r.perMillionOps.provisioned).toBeCloseTo(0.199562, 6);
    expect(r.onDemandOverProvisioned).toBeCloseTo(361_600 / 52_445, 6);
  });
});

describe('the same example with the 2024-11 book', () => {
  const r = dynamo(seedExample, nov);
  it('halves on-demand throughput and leaves provisioned and storage unchanged', () => {
    expect(r.priceBook).toBe('2024-11');
    expect(r.monthly.provisioned.total).toBe(52_445);
    // 50,000 × 2 × 3,600 × 730 × $0.625/1e6 = $164,250 ; 50,000 × 3,600 × 730 × $0.125/1e6 = $16,425
    expect(r.monthly.onDemand).toEqual({ writes: 164_250, reads: 16_425, storage: 250, total: 180_925 });
  });

  it('prices Standard-IA from its own lines', () => {
    const ia = dynamo(
      { ...seedExample, target: { ...seedExample.target, tableClass: 'STANDARD_INFREQUENT_ACCESS' } },
      nov,
    );
    // 100,000 × $0.00081 × 730 ; 50,000 × $0.00016 × 730 ; 1,000 × $0.10
    expect(ia.monthly.provisioned).toEqual({ writes: 59_130, reads: 5_840, storage: 100, total: 65_070 });
    // 50,000 × 2 × 3,600 × 730 × $0.78/1e6 ; 50,000 × 3,600 × 730 × $0.155/1e6
    expect(ia.monthly.onDemand).toEqual({ writes: 204_984, reads: 20_367, storage: 100, total: 225_451 });
  });

  it('refuses Standard-IA with the 2023 book, which has no such prices', () => {
    const input = {
      ...seedExample,
      target: { ...seedExample.target, tableClass: 'STANDARD_INFREQUENT_ACCESS' },
    };
    expect(() => monthlyCost(input, seed)).toThrow(/2023-seed.*standard-ia/);
  });
});

describe('variations', () => {
  it('eventually consistent reads cost half: 25,000 RCU, $2,372.50 provisioned, $16,425 on-demand', () => {
    const r = dynamo({ ...seedExample, target: { kind: 'dynamodb', consistentReads: false } });
    expect(r.readConsistency).toBe('eventual');
    expect(r.units.readUnitsPerRead).toBe(0.5);
    expect(r.capacity.needed.rcu).toBe(25_000);
    expect(r.monthly.provisioned.reads).toBe(2_372.5); // 25,000 × $0.00013 × 730
    expect(r.monthly.onDemand.reads).toBe(16_425); // 50,000 × 0.5 × 3,600 × 730 × $0.25/1e6
  });

  it('a 1,025-byte item needs 2 write units, 1,024 only 1', () => {
    expect(dynamo({ ...seedExample, itemBytes: 1024 }).monthly.provisioned.writes).toBe(23_725);
    expect(dynamo({ ...seedExample, itemBytes: 1025 }).monthly.provisioned.writes).toBe(47_450);
  });

  it('a 4,097-byte strong read needs 2 read units, 4,096 only 1', () => {
    expect(dynamo({ ...seedExample, itemBytes: 4096 }).monthly.onDemand.reads).toBe(32_850);
    expect(dynamo({ ...seedExample, itemBytes: 4097 }).monthly.onDemand.reads).toBe(65_700);
  });

  it('sizes provisioned capacity at a target utilisation (75%)', () => {
    const r = dynamo({ ...seedExample, utilization: 0.75 });
    expect(r.capacity.needed).toEqual({ wcu: 133_334, rcu: 66_667, utilization: 0.75 });
    // 133,334 × $0.00065 × 730 = $63,266.983 ; 66,667 × $0.00013 × 730 = $6,326.6983
    expect(r.monthly.provisioned).toEqual({
      writes: 63_266.98,
      reads: 6_326.7,
      storage: 250,
      total: 69_843.68,
    });
  });

  it('prices the target own provisioned capacity as well, when it has one', () => {
    const r = dynamo({
      ...seedExample,
      target: {
        kind: 'dynamodb',
        consistentReads: true,
        billing: { mode: 'provisioned', rcu: 200_000, wcu: 250_000 },
      },
    });
    expect(r.capacity.configured).toEqual({ wcu: 250_000, rcu: 200_000 });
    // 250,000 × $0.00065 × 730 ; 200,000 × $0.00013 × 730
    expect(r.monthly.provisionedAsConfigured).toEqual({
      writes: 118_625,
      reads: 18_980,
      storage: 250,
      total: 137_855,
    });
    expect(r.monthly.provisioned.total).toBe(52_445);
  });

  it('free tier (off by default) takes off 25 GB, 25 WCU and 25 RCU', () => {
    const r = dynamo({ ...seedExample, freeTier: true });
    // (100,000 − 25) × $0.4745 = $47,438.1375 ; (50,000 − 25) × $0.0949 ; 975 × $0.25
    expect(r.monthly.provisioned).toEqual({
      writes: 47_438.14,
      reads: 4_742.63,
      storage: 243.75,
      total: 52_424.52,
    });
    expect(r.monthly.onDemand.storage).toBe(243.75);
    expect(r.monthly.onDemand.writes).toBe(328_500);
  });

  it("refuses the free tier for a Standard-IA table: AWS's price list gives that class none", () => {
    const ia = {
      ...seedExample,
      target: { ...seedExample.target, tableClass: 'STANDARD_INFREQUENT_ACCESS' },
    };
    expect(() => dynamo({ ...ia, freeTier: true })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ path: 'freeTier' })] }),
    );
    expect(() => dynamo(ia, loadPriceBook('2024-11'))).not.toThrow();
  });

  it('computes the item and the storage from a YCSB dataset when not given', () => {
    const r = dynamo({
      target: { kind: 'dynamodb', consistentReads: true },
      throughput: { readsPerSec: 1000, writesPerSec: 0 },
      dataset: { recordCount: 1024 * 1024, fieldCount: 9, fieldLength: 100, keyBytes: 10 },
    });
    // 1 + 10 + 9 × 6 + 900 = 965 bytes; (965 + 100) × 2^20 B = 1,065/1,024 GB
    expect(r.itemBytes).toBe(965);
    expect(r.itemBytesFrom).toBe('dataset');
    expect(r.storageGb).toBeCloseTo(1065 / 1024, 6);
    expect(r.capacity.needed.wcu).toBe(0);
  });

  it('says which field is missing', () => {
    expect(() => monthlyCost({ target: { kind: 'dynamodb' }, throughput: {} }, seed)).toThrow(/itemBytes/);
    expect(() => monthlyCost({ target: { kind: 'dynamodb' }, throughput: {}, itemBytes: 10 }, seed)).toThrow(
      /storageGb/,
    );
    expect(() => monthlyCost({ target: { kind: 'mongo' }, throughput: {} }, seed)).toThrow(InputError);
    try {
      monthlyCost({ ...seedExample, throughput: { readsPerSec: 'many' } }, seed);
      throw new Error('not refused');
    } catch (e) {
      expect((e as InputError).issues[0]!.path).toBe('throughput.readsPerSec');
    }
  });

  it('seed 000 headline: a 57K ops/s 50:50 workload, about $30,040 provisioned and $206,490 on-demand', () => {
    // The seed rounds its throughput to "57K"; at exactly 57,000 ops/s the figures are within 0.2%.
    const r = dynamo({
      ...seedExample,
      throughput: { readsPerSec: 28_500, writesPerSec: 28_500 },
    });
    expect(Math.abs(r.monthly.provisioned.total / 30_040 - 1)).toBeLessThan(0.002);
    expect(Math.abs(r.monthly.onDemand.total / 206_490 - 1)).toBeLessThan(0.002);
  });
});

describe('EC2-hosted clusters', () => {
  it('3 × i4i.2xlarge: 3 × $0.686 × 730 = $1,502.34/month', () => {
    const r = monthlyCost(
      {
        target: { kind: 'scylla-ec2', nodes: 3, instanceType: 'i4i.2xlarge' },
        throughput: { readsPerSec: 1, writesPerSec: 1 },
      },
      nov,
    ) as ClusterCostReport;
    expect(r.kind).toBe('scylla-ec2');
    expect(r.monthly).toEqual({ nodes: 1502.34, total: 1502.34 });
  });

  it('adds EBS per node: 3 × 500 GB × $0.08 = $120', () => {
    const r = monthlyCost(
      {
        target: { kind: 'scylla-ec2', nodes: 3, instanceType: 'c5.2xlarge', ebsGb: 500 },
        throughput: { readsPerSec: 0, writesPerSec: 0 },
      },
      nov,
    ) as ClusterCostReport;
    // 3 × $0.34 × 730 = $744.60
    expect(r.monthly).toEqual({ nodes: 744.6, storage: 120, total: 864.6 });
    expect(r.perBillionOps).toBeUndefined();
  });

  it('a given hourly price overrides the book; an unknown type without one is refused', () => {
    const r = monthlyCost(
      {
        target: { kind: 'scylla-ec2', nodes: 2, instanceType: 'm7i.large', usdPerHour: 0.1008 },
        throughput: {},
      },
      nov,
    ) as ClusterCostReport;
    expect(r.monthly.total).toBe(147.17); // 2 × $0.1008 × 730 = $147.168
    expect(() =>
      monthlyCost({ target: { kind: 'scylla-ec2', instanceType: 'm7i.large' }, throughput: {} }, nov),
    ).toThrow(/target.instanceType.*no price for instance type "m7i.large"/);
  });

  it('the primitive prorates EBS by hours and refuses zero nodes', () => {
    const c = ec2Cluster({
      nodes: 2,
      usdPerHour: 1,
      hours: 73,
      hoursPerMonth: 730,
      ebsGbPerNode: 100,
      ebsUsdPerGbMonth: 0.08,
    });
    expect(c.nodes.toString()).toBe('146');
    expect(c.storage.toUsd()).toBe(1.6); // 2 × 100 × 0.08 × 73/730
    expect(() => ec2Cluster({ nodes: 0, usdPerHour: 1, hours: 1, hoursPerMonth: 730 })).toThrow(/nodes/);
  });
});

describe('external services', () => {
  it('takes the price per month as given, or per hour × 730', () => {
    const monthly = monthlyCost(
      {
        target: { kind: 'external', id: 'scylla-cloud', price: { usdPerMonth: 4544 } },
        throughput: { readsPerSec: 28_500, writesPerSec: 28_500 },
      },
      seed,
    ) as ClusterCostReport;
    expect(monthly.monthly).toEqual({ service: 4544, total: 4544 });
    const hourly = monthlyCost(
      { target: { kind: 'external', price: { usdPerHour: 6.225 } }, throughput: {} },
      seed,
    ) as ClusterCostReport;
    expect(hourly.monthly.total).toBe(4544.25); // 6.225 × 730
  });

  it('refuses both or neither price', () => {
    expect(() => externalService({ usdPerHour: 1, usdPerMonth: 1, hours: 1, hoursPerMonth: 730 })).toThrow(
      /not both/,
    );
    expect(() => externalService({ hours: 1, hoursPerMonth: 730 })).toThrow(/usdPerHour or usdPerMonth/);
  });

  it('gives the seed headline ratios against DynamoDB: about 7X provisioned and 45X on-demand', () => {
    const ddb = dynamo({ ...seedExample, throughput: { readsPerSec: 28_500, writesPerSec: 28_500 } });
    const scylla = Q.of(4544);
    const prov = costRatio(Q.of(ddb.monthly.provisioned.total), scylla)!.toNumber();
    const od = costRatio(Q.of(ddb.monthly.onDemand.total), scylla)!.toNumber();
    expect(Math.round(prov)).toBe(7);
    expect(Math.floor(od)).toBe(45);
    expect(costRatio(Q.ONE, Q.ZERO)).toBeUndefined();
  });
});

describe('derived figures', () => {
  it('cost per million and per billion operations', () => {
    // $2,628 for a month of 1,000 ops/s: 1,000 × 3,600 × 730 = 2.628e9 ops -> $1 per million
    expect(costPerOps(Q.of(2628), 1000, 730, 1e6)!.cmp(1)).toBe(0);
    expect(costPerOps(Q.of(2628), 1000, 730, 1e9)!.cmp(1000)).toBe(0);
    expect(costPerOps(Q.of(1), 0, 730, 1e6)).toBeUndefined();
  });

  it('rounds lines to cents and totals the rounded lines', () => {
    expect(roundLines({ a: Q.of('0.004'), b: Q.of('0.004'), c: Q.of('0.005') })).toEqual({
      a: 0,
      b: 0,
      c: 0.01,
      total: 0.01,
    });
  });
});

describe('a DBaaS price model (external targets)', () => {
  // seed 004 §2.6.2, MongoDB Atlas: $1.00 per server per hour, $0.000182 per GB per hour of storage;
  // here 9 servers, 200 GB, a made-up $0.10 per million requests, at 10,000 ops/s, the book's 730-hour month
  const model = {
    usdPerNodeHour: 1,
    nodes: 9,
    usdPerGbMonth: 0.000182 * 730,
    storageGb: 200,
    usdPerMillionOps: 0.1,
    date: '2023',
    source: 'https://www.mongodb.com/pricing',
  };
  const r = monthlyCost(
    {
      target: { kind: 'external', id: 'atlas', price: model },
      throughput: { readsPerSec: 5000, writesPerSec: 5000 },
    },
    nov,
  ) as ClusterCostReport;

  it('adds node-hours, storage and the operations served at the throughput', () => {
    // 9 × $1 × 730 h = $6,570; 200 GB × $0.13286 = $26.57; 10,000 ops/s × 730 h × 3,600 s = 26,280 M ops × $0.10 = $2,628
    expect(r.monthly).toEqual({ nodes: 6570, storage: 26.57, requests: 2628, total: 9224.57 });
    expect(r.pricing).toMatchObject({ usdPerNodeHour: 1, nodes: 9, date: '2023', source: model.source });
    // $9,224.572 ÷ 26.28 billion operations = $351.011
    expect(r.perBillionOps).toBeCloseTo(351.01, 2);
  });
});
