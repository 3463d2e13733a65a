/**
 * A dynamodb target's key design (issue #28): the partition-key mapping (the same rows as the binding's
 * KeyDesignTest, worked by hand from the rule: the key's decimal digits as a number, mod N), the YCSB properties the
 * kind passes to the binding (names from loader/ycsb-binding/README.md), the table definition's sort key, and the
 * spec findings.
 */
import { partitionKeyValue, keyDesignProperties } from '../../lib/core/targets/dynamodb/key-design';
import { tableDefinition } from '../../lib/core/targets/dynamodb/provision';
import { DYNAMODB } from '../../lib/core/targets/dynamodb/kind';
import { planRun } from '../../lib/core/plan';
import { validateSpec } from '../../lib/core/spec';
import { RunSpecSchema, type DynamoDbTarget, type RunSpec } from '../../lib/core/spec/schema';
import type { RunContext } from '../../lib/core/pipeline/run-context';
import type { InputError } from '../../lib/core/common/errors';
import { baseSpec, withValue } from './spec/fixtures';

describe('partitionKeyValue: pk + (the key digits mod N), as the binding computes it', () => {
  it.each([
    ['user0', 7, 'pk0'],
    ['user123', 10, 'pk3'],
    ['user123', 1, 'pk0'],
    ['user0000000042', 5, 'pk2'],
    ['user6284781860667377211', 200, 'pk11'],
    ['user9223372036854775807', 9, 'pk7'],
    ['user99999999999999999999', 1_000_000_000, 'pk999999999'],
    ['nodigits', 13, 'pk0'],
  ])('%s, N = %i → %s', (key, n, expected) => {
    expect(partitionKeyValue(key, n)).toBe(expected);
  });

  it('ordered keys go round robin over the N values', () => {
    const seen = Array.from({ length: 8 }, (_, i) => partitionKeyValue(`user${i}`, 4));
    expect(seen).toEqual(['pk0', 'pk1', 'pk2', 'pk3', 'pk0', 'pk1', 'pk2', 'pk3']);
  });
});

const spec = (target: Record<string, unknown>, workload: Record<string, unknown> = {}): RunSpec =>
  RunSpecSchema.parse({
    name: 'kd',
    targets: [{ id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' }, ...target }],
    dataset: { recordCount: 250_000 },
    workload: { targetOpsPerSec: [100], durationSeconds: 60, ...workload },
  });
const target = (s: RunSpec) => s.targets[0] as DynamoDbTarget;

describe('keyDesignProperties: what the binding is told', () => {
  it("today's design (no keyDesign, no queries) adds nothing", () => {
    const s = spec({});
    expect(keyDesignProperties(target(s), s)).toEqual({});
    const perItem = spec({ keyDesign: { partitionKeyValues: 'per-item' } });
    expect(keyDesignProperties(target(perItem), perItem)).toEqual({});
  });

  it('N values, key order: the binding properties and YCSB ordered, zero-padded keys (recordCount has 6 digits)', () => {
    const s = spec({ keyDesign: { partitionKeyValues: 200, loadOrder: 'key-order' } });
    expect(keyDesignProperties(target(s), s)).toEqual({
      'fleetbench.dynamodb.partitionKeyValues': '200',
      'fleetbench.dynamodb.sortKeyAttribute': 's',
      'fleetbench.dynamodb.loadOrder': 'key-order',
      insertorder: 'ordered',
      zeropadding: '6',
    });
  });

  it("shuffled (the default) keeps YCSB hashed keys; queries pass their Limit and direction (the proportion is each cell's)", () => {
    const s = spec(
      { keyDesign: { partitionKeyValues: 1, sortKeyAttribute: 'ip' } },
      { proportions: { query: 1 }, query: { limit: 3, forward: true } },
    );
    expect(keyDesignProperties(target(s), s)).toEqual({
      'fleetbench.dynamodb.partitionKeyValues': '1',
      'fleetbench.dynamodb.sortKeyAttribute': 'ip',
      'fleetbench.dynamodb.loadOrder': 'shuffled',
      'fleetbench.query.limit': '3',
      'fleetbench.query.forward': 'true',
    });
    const q = spec({}, { proportions: { read: 0.5, query: 0.5 } });
    expect(keyDesignProperties(target(q), q)).toEqual({
      'fleetbench.query.limit': '1',
      'fleetbench.query.forward': 'false',
    });
  });

  it("the planned run's cells and load carry them (the kind's properties)", () => {
    const s = validateSpec(
      withValue(baseSpec(), 'targets', [
        {
          id: 'ddb',
          kind: 'dynamodb',
          billing: { mode: 'on-demand' },
          keyDesign: { partitionKeyValues: 4, loadOrder: 'key-order' },
        },
      ]),
    ).spec;
    const p = planRun(s, { runId: 'r1' });
    expect(p.bindings.ddb!.properties).toMatchObject({
      'fleetbench.dynamodb.partitionKeyValues': '4',
      insertorder: 'ordered',
      zeropadding: '5',
    });
    for (const c of p.cells) expect(c.properties['fleetbench.dynamodb.partitionKeyValues']).toBe('4');
  });
});

describe('the table definition', () => {
  const run = { runId: 'r1', specName: 'kd', expiresAt: 1 } as unknown as RunContext;
  it('N values: HASH keyAttribute + RANGE sortKeyAttribute; per item: HASH only', () => {
    const composite = spec({ keyDesign: { partitionKeyValues: 200 } });
    expect(tableDefinition(run, target(composite), 'fleetbench-t', {})).toMatchObject({
      keyAttribute: 'p',
      sortKeyAttribute: 's',
    });
    const perItem = spec({ keyDesign: { partitionKeyValues: 'per-item' } });
    expect(tableDefinition(run, target(perItem), 'fleetbench-t', {}).sortKeyAttribute).toBeUndefined();
    expect(tableDefinition(run, target(spec({})), 'fleetbench-t', {}).sortKeyAttribute).toBeUndefined();
  });
});

describe('spec findings', () => {
  const issues = (raw: unknown): string[] => {
    try {
      validateSpec(raw);
      return [];
    } catch (e) {
      return (e as InputError).issues.map((i) => `${i.path}: ${i.message}`);
    }
  };
  it('a sort key named like the partition key is refused by field', () => {
    const raw = withValue(baseSpec(), 'targets', [
      {
        id: 'ddb',
        kind: 'dynamodb',
        billing: { mode: 'on-demand' },
        keyAttribute: 'k',
        keyDesign: { partitionKeyValues: 2, sortKeyAttribute: 'k' },
      },
    ]);
    expect(issues(raw)).toEqual([
      'targets[0].keyDesign.sortKeyAttribute: expected a name other than keyAttribute ("k"), found "k"',
    ]);
  });
  it('a bad partitionKeyValues is refused by the schema', () => {
    const raw = withValue(baseSpec(), 'targets', [
      { id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' }, keyDesign: { partitionKeyValues: 0 } },
    ]);
    expect(issues(raw).join('\n')).toContain('targets[0].keyDesign.partitionKeyValues');
  });
  it('the local capacity emulator is told the composite key', () => {
    const s = spec({ keyDesign: { partitionKeyValues: 3, sortKeyAttribute: 'ip' } });
    expect(DYNAMODB.localCapacity!(s, target(s), 0.01).compositeKey).toEqual({
      partitionKeyValues: 3,
      sortKeyAttribute: 'ip',
    });
  });
});
