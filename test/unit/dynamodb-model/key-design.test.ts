/**
 * The capacity model's rules for issue #28: Query units, eventually consistent reads on three replicas,
 * a new on-demand table's four partitions, item collections and their splits, partitions grown by split
 * for heat in steady state. Expected values from the documents each rule cites, worked by hand.
 */
import {
  BINDING_RETRY_DEFAULTS,
  EVENTUALLY_CONSISTENT_READ_FACTOR,
  collectionShares,
  initialPartitions,
  keyPopularity,
  partitionKeyValueOf,
  predictSteadyState,
  queryReadUnits,
  simulate,
  steadyTableLimit,
  ycsbKeyName,
  type CellModel,
} from '../../../lib/core/dynamodb-model';
import { partitionKeyValue, partitionKeyValueName } from '../../../lib/core/targets/dynamodb/key-design';

describe('Query read units (read-write-operations.html: the items returned, summed, per 4 KB)', () => {
  it('one small item: 1 unit strongly consistent, 0.5 eventually consistent', () => {
    expect(queryReadUnits({ itemBytes: 1_084, limit: 1, consistent: true })).toBe(1);
    expect(queryReadUnits({ itemBytes: 1_084, limit: 1, consistent: false })).toBe(0.5);
  });
  it('sizes are summed before rounding: 3 × 1,084 = 3,252 bytes is one 4 KB unit, 4 × 1,084 is two', () => {
    expect(queryReadUnits({ itemBytes: 1_084, limit: 3, consistent: true })).toBe(1);
    expect(queryReadUnits({ itemBytes: 1_084, limit: 4, consistent: true })).toBe(2);
    expect(queryReadUnits({ itemBytes: 1_084, limit: 4, consistent: false })).toBe(1);
  });
});

const table = (over: Partial<CellModel['table']> = {}): CellModel['table'] => ({
  billing: { mode: 'on-demand' },
  recordCount: 1_000_000,
  itemBytes: 100,
  storedItemBytes: 200,
  ...over,
});

describe('eventually consistent reads and the table limit (the AWS Database Blog, Part 2)', () => {
  it('80,000 units of table limit serve 120,000 units of eventually consistent reads, strongly consistent 80,000', () => {
    const t = table({ billing: { mode: 'on-demand', maxReadRequestUnits: 80_000 } });
    expect(EVENTUALLY_CONSISTENT_READ_FACTOR).toBe(1.5);
    expect(steadyTableLimit({ ...t, eventuallyConsistentReads: true }).readUnitsPerSec).toBe(120_000);
    expect(steadyTableLimit(t).readUnitsPerSec).toBe(80_000);
    // writes have no replica factor
    expect(steadyTableLimit({ ...t, eventuallyConsistentReads: true }).writeUnitsPerSec).toBe(40_000);
  });
  it('a new on-demand table has four partitions; warm throughput sizes it by the throughput formula', () => {
    expect(initialPartitions(table())).toBe(4);
    expect(
      initialPartitions(
        table({ warmThroughput: { readUnitsPerSecond: 30_000, writeUnitsPerSecond: 1_000 } }),
      ),
    ).toBe(11);
  });
});

describe("the model's partition-key value of a record is the binding's (key-design.ts partitionKeyValue)", () => {
  it('hashed YCSB keys: the value of user<fnvhash64(k)> for k = 0 … 1,999, N = 7 and 200', () => {
    for (const n of [7, 200])
      for (let k = 0; k < 2_000; k++) {
        const name = ycsbKeyName(k);
        // the binding's value of the key, and the number the key's digits spell mod N (BigInt: exact)
        expect(partitionKeyValueName(partitionKeyValueOf(k, n))).toBe(partitionKeyValue(name, n));
        expect(partitionKeyValueOf(k, n)).toBe(Number(BigInt(name.slice(4)) % BigInt(n)));
      }
  });
  it('record 0 (user6284781860667377211) has value pk11 of 200, not keynum mod N (pk0)', () => {
    expect(partitionKeyValueOf(0, 200)).toBe(11);
  });
  it('ordered keys (insertorder=ordered, zeropadding 7): keynum mod N, the padding changes nothing', () => {
    expect(ycsbKeyName(42, { ordered: true, zeroPadding: 7 })).toBe('user0000042');
    expect(
      [0, 1, 2, 3, 4, 5].map((k) => partitionKeyValueOf(k, 4, { ordered: true, zeroPadding: 7 })),
    ).toEqual([0, 1, 2, 3, 0, 1]);
  });
  it("a zipfian cell's hottest record puts its share on the binding's value of its key", () => {
    const pop = keyPopularity({ type: 'zipfian' }, 1_000);
    const hot = pop.hot.reduce((a, h) => (h.p > a.p ? h : a));
    const shares = collectionShares(pop, 7);
    const v = Number(partitionKeyValue(ycsbKeyName(hot.keynum), 7).slice(2));
    // the value holding the hottest record gets at least its share, and is the largest of the 7
    expect(shares[v]!).toBeGreaterThanOrEqual(hot.p);
    expect(Math.max(...shares)).toBe(shares[v]);
  });
});

describe('item collections (N partition-key values)', () => {
  it("each value's share follows its items: keynum mod N gives 10 records over 3 values 4, 3 and 3", () => {
    const shares = collectionShares(keyPopularity({ type: 'uniform' }, 10), 3);
    expect(shares.map((x) => +x.toFixed(12))).toEqual([0.4, 0.3, 0.3]);
  });
  const oneValue: CellModel = {
    table: table({ partitionKeyValues: 1, eventuallyConsistentReads: true }),
    distribution: { type: 'uniform' },
    mix: { read: 1, write: 0, readUnits: 0.5, writeUnits: 1 },
    targetOpsPerSec: 1_000_000,
    client: { threads: 2_000, latencyMs: 2, retry: BINDING_RETRY_DEFAULTS },
  };
  it('one value: one partition of four serves, 4,500 units, and its sort-key halves double it after 600 s', () => {
    const steps = simulate(oneValue, { seconds: 1_300, stepSeconds: 1 });
    expect(steps[0]!.partitions).toBe(4);
    expect(steps[0]!.consumedReadUnitsPerSec).toBeCloseTo(4_500, 0);
    expect(steps[599]!.consumedReadUnitsPerSec).toBeCloseTo(4_500, 0);
    expect(steps[600]!.partitions).toBe(5);
    expect(steps[600]!.consumedReadUnitsPerSec).toBeCloseTo(9_000, 0);
    // the halves split again after their own 600 s
    expect(steps[1_200]!.partitions).toBe(7);
    expect(steps[1_200]!.consumedReadUnitsPerSec).toBeCloseTo(18_000, 0);
  });
  it('per item instead: four partitions carry the uniform keys from the start, 18,000 units', () => {
    const steps = simulate(
      { ...oneValue, table: table({ eventuallyConsistentReads: true }) },
      { seconds: 10 },
    );
    expect(steps[0]!.consumedReadUnitsPerSec).toBeCloseTo(18_000, 0);
  });
  it('a single item never splits: one record behind one value stays at one partition', () => {
    const single = {
      ...oneValue,
      table: table({ partitionKeyValues: 1, recordCount: 1, eventuallyConsistentReads: true }),
    };
    const steps = simulate(single, { seconds: 2_000, stepSeconds: 10 });
    expect(steps.at(-1)!.partitions).toBe(4);
    expect(steps.at(-1)!.consumedReadUnitsPerSec).toBeCloseTo(4_500, 0);
  });
});

describe('steady state: partitions split for heat carry the keys', () => {
  it('30,000 strongly consistent reads/s on a new on-demand table are not held to its four partitions', () => {
    const cell: CellModel = {
      table: table(),
      distribution: { type: 'uniform' },
      mix: { read: 1, write: 0, readUnits: 1, writeUnits: 1 },
      targetOpsPerSec: 30_000,
      client: { threads: 1_000, latencyMs: 5, retry: BINDING_RETRY_DEFAULTS },
    };
    const p = predictSteadyState(cell);
    // 30,000 units over 3,000 per partition: 10 partitions, within the 40,000-unit quota
    expect(p.partitions).toBe(10);
    expect(p.goodOpsPerSec).toBeCloseTo(30_000, 0);
    expect(p.limitedBy).toBe('none');
  });
});
