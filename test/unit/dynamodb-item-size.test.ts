/**
 * The item a dynamodb target's binding writes (lib/core/targets/dynamodb/item-size.ts), worked by hand from the
 * binding's request (loader/ycsb-binding DynamoDbClient.java `insert`: every field a string attribute, then
 * `keyAttributes`: `{p: <YCSB key>}`, or `{p: "pk<r>", s: <YCSB key>}` with N partition-key values) and DynamoDB's
 * rule (attribute names + values, UTF-8; 1 WCU per 1 KB, 1 RCU per 4 KB,
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html), and DynamoDB's
 * 400 KB item limit (409,600 B: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { itemSizeBytes, type AttributeValue } from '../../lib/core/cost/capacity';
import { dynamoOpUnits } from '../../lib/core/cost/workload-units';
import { loadPriceBook, monthlyCost } from '../../lib/core/cost';
import { ycsbKeyName } from '../../lib/core/dynamodb-model/ycsb-keys';
import { dynamoItemBytes, DYNAMODB_MAX_ITEM_BYTES } from '../../lib/core/targets/dynamodb/item-size';
import { keyOrderZeroPadding, partitionKeyValue } from '../../lib/core/targets/dynamodb/key-design';
import { DYNAMODB } from '../../lib/core/targets/dynamodb/kind';
import { planRun } from '../../lib/core/plan';
import { parseSpecText, validateSpec } from '../../lib/core/spec';
import { RunSpecSchema, type DynamoDbTarget, type RunSpec } from '../../lib/core/spec/schema';
import type { InputError } from '../../lib/core/common/errors';

const spec = (
  target: Record<string, unknown>,
  dataset: Record<string, unknown>,
  workload: Record<string, unknown> = {},
): Record<string, unknown> => ({
  name: 'items',
  targets: [{ id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' }, ...target }],
  dataset: { recordCount: 10_000, ...dataset },
  workload: { targetOpsPerSec: [100], durationSeconds: 60, ...workload },
  loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 8 },
});
const parsed = (raw: Record<string, unknown>): RunSpec => RunSpecSchema.parse(raw);
const target = (s: RunSpec) => s.targets[0] as DynamoDbTarget;

/** The item the binding puts for a YCSB key: fields field0.., then the key attributes. */
function bindingItem(
  key: string,
  d: { fieldCount: number; fieldLength: number },
  composite?: { n: number; sortKey: string },
): Record<string, AttributeValue> {
  const item: Record<string, AttributeValue> = {};
  for (let i = 0; i < d.fieldCount; i++) item[`field${i}`] = 'x'.repeat(d.fieldLength);
  if (!composite) item.p = key;
  else {
    item.p = partitionKeyValue(key, composite.n);
    item[composite.sortKey] = key;
  }
  return item;
}

const issues = (raw: unknown): string[] => {
  try {
    validateSpec(raw);
    return [];
  } catch (e) {
    return (e as InputError).issues.map((i) => `${i.path}: ${i.message}`);
  }
};

describe('the composite key item: fieldLength 94 × 10 fields, 1,000 partition-key values', () => {
  const d = { fieldCount: 10, fieldLength: 94 };
  const composite = parsed(spec({ keyDesign: { partitionKeyValues: 1000 } }, d));
  const perItem = parsed(spec({}, d));

  it('is 1,030 B, 2 WCU: p (1) + "pk999" (5) + s (1) + a 23-byte key + 10 names (60) + 940 B of values', () => {
    // the largest item the binding writes: the longest key YCSB makes, on the longest partition-key value
    const literal = bindingItem('user' + '9'.repeat(19), d, { n: 1000, sortKey: 's' });
    expect(literal.p).toBe('pk999');
    expect(itemSizeBytes(literal)).toBe(1030);
    const units = dynamoOpUnits(composite, target(composite));
    expect(units).toMatchObject({ itemBytes: 1030, writeUnitsPerWrite: 2, readUnitsPerRead: 0.5 });
  });

  it('one item per partition-key value stays 1,024 B, 1 WCU: the key attribute holds the YCSB key, no sort key', () => {
    expect(dynamoOpUnits(perItem, target(perItem))).toMatchObject({ itemBytes: 1024, writeUnitsPerWrite: 1 });
  });

  it('the capacity check asks 150 WCU of 75 writes/s, not the 75 a 1-WCU item would need', () => {
    const raw = spec(
      { billing: { mode: 'provisioned', rcu: 100, wcu: 75 }, keyDesign: { partitionKeyValues: 1000 } },
      d,
      { targetOpsPerSec: [75], proportions: { read: 0, update: 1 } },
    );
    expect(issues(raw)).toEqual([
      expect.stringMatching(
        /^targets\[0\]\.billing\.wcu: .*needs 150 WCU \(2 WCU per 1030-byte write\), but 75/,
      ),
    ]);
  });

  it('a throttling study of it predicts half the writes admitted (75 WCU ÷ 2 WCU per write of 75/s), not all', () => {
    const raw = spec(
      {
        billing: { mode: 'provisioned', rcu: 100, wcu: 75 },
        keyDesign: { partitionKeyValues: 1000 },
        allowOverdrive: true,
      },
      d,
      { targetOpsPerSec: [75], proportions: { read: 0, update: 1 }, distributions: ['uniform'] },
    );
    const { spec: s } = validateSpec(raw);
    const [cell] = planRun(s).cells;
    expect(cell!.prediction!.attainment).toBeCloseTo(0.5, 1);
  });

  it('the local emulator is given the same item, and the monthly cost prices it', () => {
    expect(DYNAMODB.localCapacity!(composite, target(composite), 1).model.itemBytes).toBe(1030);
    const report = monthlyCost(
      {
        target: target(composite),
        throughput: { readsPerSec: 0, writesPerSec: 100 },
        dataset: { recordCount: 10_000, ...d },
      },
      loadPriceBook(),
    ) as { itemBytes: number };
    expect(report.itemBytes).toBe(1030);
  });
});

describe("the model's item and the emulator's sizing of the items the binding really writes agree", () => {
  const d = { fieldCount: 3, fieldLength: 50 };
  it.each([
    ['one item per key, hashed keys', {}, undefined],
    ['1,000 partition-key values, hashed keys', { keyDesign: { partitionKeyValues: 1000 } }, 1000],
    ['7 values, sort key "sk"', { keyDesign: { partitionKeyValues: 7, sortKeyAttribute: 'sk' } }, 7],
  ])('%s: the largest of 20,000 real items is the model item, and most are that size', (_, t, n) => {
    const s = parsed(spec(t, { ...d, recordCount: 20_000 }));
    const model = dynamoItemBytes(target(s), s.dataset);
    const sortKey = (t as { keyDesign?: { sortKeyAttribute?: string } }).keyDesign?.sortKeyAttribute ?? 's';
    const sizes = Array.from({ length: 20_000 }, (_, i) =>
      itemSizeBytes(bindingItem(ycsbKeyName(i), d, n ? { n, sortKey } : undefined)),
    );
    expect(Math.max(...sizes)).toBe(model);
    expect(sizes.filter((b) => b === model).length / sizes.length).toBeGreaterThan(0.8);
  });

  it('a key-order load: every key is "user" + recordCount\'s digits, zero-padded, so every item is the model item', () => {
    const s = parsed(
      spec({ keyDesign: { partitionKeyValues: 1, loadOrder: 'key-order' } }, { ...d, recordCount: 2000 }),
    );
    const naming = { ordered: true, zeroPadding: keyOrderZeroPadding(2000) };
    expect(ycsbKeyName(7, naming)).toBe('user0007');
    const sizes = new Set(
      Array.from({ length: 2000 }, (_, i) =>
        itemSizeBytes(bindingItem(ycsbKeyName(i, naming), d, { n: 1, sortKey: 's' })),
      ),
    );
    // p + "pk0" + s + "user0007" + 3 names (18) + 150
    expect([...sizes]).toEqual([1 + 3 + 1 + 8 + 18 + 150]);
    expect(dynamoItemBytes(target(s), s.dataset)).toBe(181);
  });
});

describe("DynamoDB's 400 KB item limit", () => {
  it('is 409,600 bytes (400 × 1,024: the quotas page counts in binary units)', () => {
    expect(DYNAMODB_MAX_ITEM_BYTES).toBe(409_600);
  });

  it('10 fields of 41,000 B (410,084 B with names and key) are refused on dataset.fieldLength, with the size', () => {
    const found = issues(spec({}, { fieldCount: 10, fieldLength: 41_000 }));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^dataset\.fieldLength: expected an item of at most 400 KB \(409,600 B/);
    expect(found[0]).toContain('410,084 B');
    expect(found[0]).toContain('a fieldLength of at most 40,951 fits');
  });

  it('the boundary: 40,951 B fields make a 409,594 B item and pass, 40,952 B make 409,604 B and fail', () => {
    expect(issues(spec({}, { fieldCount: 10, fieldLength: 40_951 }))).toEqual([]);
    expect(issues(spec({}, { fieldCount: 10, fieldLength: 40_952 }))).toHaveLength(1);
  });

  it('the key design counts: an item of exactly 409,600 B fits, the same fields with a sort key do not', () => {
    // p (1) + 23-byte key + "field0", "field1" (12) + 2 × 204,782 = 409,600
    const d = { fieldCount: 2, fieldLength: 204_782 };
    expect(issues(spec({}, d))).toEqual([]);
    const found = issues(spec({ keyDesign: { partitionKeyValues: 1000 } }, d));
    expect(found).toEqual([
      expect.stringContaining('dataset.fieldLength: expected an item of at most 400 KB'),
    ]);
    expect(found[0]).toContain('409,606 B');
  });

  it('is a spec error: plan never gets a spec that would have the table and loaders up for refused writes', () => {
    expect(() => validateSpec(spec({}, { fieldCount: 10, fieldLength: 41_000 }))).toThrow(
      /dataset\.fieldLength/,
    );
  });
});

describe("the examples' items: unchanged without a key design, the binding's item with one", () => {
  const dir = join(__dirname, '..', '..', 'examples');
  // worked by hand: p (1) + key + names + values; composite: p + "pk<N-1>" + s + key + names + values
  const EXPECTED: Record<string, number> = {
    // 10 × 100 B, names field0..field9 (60 B), p + 23-byte key (24 B)
    'local-slo-search.json:ddb': 1084,
    'local-throttling.json:ddb': 1084,
    'nightly-regression.json:orders': 1084,
    'quickstart.json:ddb': 1084,
    'scylla-vs-dynamodb.json:dynamodb': 1084,
    'seed-000-dax.json:dynamodb': 1084,
    'seed-000-dax.json:dynamodb-dax': 1084,
    'seed-001-zipfian.json:dynamodb': 1084,
    'seed-004-dbaas.json:dynamodb': 1084,
    // 1 × 100 B + "field0" + 24
    'local-spike.json:ddb': 130,
    // key order, 2,000 records: p + "pk0" + s + "user" + 4 digits + "field0" + 20 (was 50 with a 23-byte key and no s)
    'local-split-for-heat.json:ddb': 39,
    // key order, 1,000,000 records: p + "pk0" + s + "user" + 7 digits + "field0" + 20 (was 50)
    'seed-003-split-for-heat.json:od-one-pk': 42,
    // 200 values, hashed keys: p + "pk199" + s + 23 + "field0" + 20 (was 50)
    'seed-003-split-for-heat.json:od-200-pk': 56,
    'seed-003-split-for-heat.json:prov-500k': 56,
  };
  const found: Record<string, number> = {};
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const { spec: s } = validateSpec(parseSpecText(readFileSync(join(dir, file), 'utf8'), file));
    for (const t of s.targets)
      if (t.kind === 'dynamodb') found[`${file}:${t.id}`] = dynamoOpUnits(s, t).itemBytes;
  }
  it('every DynamoDB target of every example', () => {
    expect(found).toEqual(EXPECTED);
  });
});
