/**
 * Issue #28's spec fields: a DynamoDB target's key design, Query operations and unpaced cells
 * (`targetOpsPerSec: "max"`). Bad combinations are refused by field, and nothing is planned.
 */
import { InputError } from '../../../lib/core/common/errors';
import { validateSpec } from '../../../lib/core/spec';
import { planRun, cellProcesses } from '../../../lib/core/plan';
import { baseSpec, withValue } from './fixtures';

function issuesOf(data: unknown): { path: string; message: string }[] {
  try {
    validateSpec(data);
  } catch (err) {
    if (err instanceof InputError) return err.issues;
    throw err;
  }
  throw new Error('expected the spec to be rejected');
}

/** The fixture's DynamoDB target with N partition-key values and a query-only mix. */
function querySpec(values: number | 'per-item' = 10): Record<string, unknown> {
  let s = withValue(baseSpec(), 'targets.0.keyDesign', { partitionKeyValues: values });
  s = withValue(s, 'workload.readProportions', undefined);
  s = withValue(s, 'workload.proportions', { query: 1 });
  return s;
}

describe('keyDesign', () => {
  it('defaults: absent is one item per partition-key value; with N values the sort key is "s", loads shuffled', () => {
    expect(validateSpec(baseSpec()).spec.targets[0]).not.toHaveProperty('keyDesign');
    const t = validateSpec(querySpec(10)).spec.targets[0]!;
    expect(t.kind === 'dynamodb' && t.keyDesign).toEqual({ partitionKeyValues: 10, loadOrder: 'shuffled' });
  });
  it('refuses more partition-key values than records', () => {
    const issues = issuesOf(withValue(baseSpec(), 'targets.0.keyDesign', { partitionKeyValues: 10_001 }));
    expect(issues).toEqual([
      {
        path: 'targets[0].keyDesign.partitionKeyValues',
        message: expect.stringMatching(/at most dataset.recordCount \(10,000\).*found 10,001/),
      },
    ]);
  });
  it('refuses a sort key without a number of partition-key values, and one named as the partition key', () => {
    const perItem = issuesOf(
      withValue(baseSpec(), 'targets.0.keyDesign', { partitionKeyValues: 'per-item', sortKeyAttribute: 's' }),
    );
    expect(perItem).toEqual([
      { path: 'targets[0].keyDesign.sortKeyAttribute', message: expect.stringMatching(/no sort key/) },
    ]);
    const same = issuesOf(
      withValue(baseSpec(), 'targets.0.keyDesign', { partitionKeyValues: 5, sortKeyAttribute: 'p' }),
    );
    expect(same[0]).toEqual({
      path: 'targets[0].keyDesign.sortKeyAttribute',
      message: expect.stringMatching(/other than keyAttribute \("p"\)/),
    });
  });
  it('refuses zero values and unknown load orders structurally', () => {
    expect(issuesOf(withValue(baseSpec(), 'targets.0.keyDesign', { partitionKeyValues: 0 }))[0]!.path).toBe(
      'targets[0].keyDesign.partitionKeyValues',
    );
    expect(
      issuesOf(
        withValue(baseSpec(), 'targets.0.keyDesign', { partitionKeyValues: 2, loadOrder: 'random' }),
      )[0]!.path,
    ).toBe('targets[0].keyDesign.loadOrder');
  });
});

describe('query operations', () => {
  it('plans queryproportion with the mix and prices a Query of one item like a read', () => {
    const { spec } = validateSpec(querySpec(10));
    const plan = planRun(spec);
    const props = cellProcesses(plan.cells[0]!)[0]!.properties;
    expect(props.queryproportion).toBe('1');
    expect(props.readproportion).toBe('0');
    expect(spec.workload.proportions!.query).toBe(1);
  });
  it('refuses a query proportion on a target kind without Query, naming the target', () => {
    let s = querySpec(10);
    s = withValue(s, 'targets', [
      (s.targets as unknown[])[0],
      { id: 'scylla', kind: 'scylla-ec2', nodes: 3 },
    ]);
    const issues = issuesOf(s);
    expect(issues).toContainEqual({
      path: 'workload.proportions.query',
      message: expect.stringMatching(
        /target "scylla" \(targets\[1\], kind scylla-ec2\).*only the dynamodb kind/,
      ),
    });
  });
  it('refuses a query proportion on a table without a sort key (one item per partition-key value)', () => {
    expect(issuesOf(querySpec('per-item'))).toEqual([
      {
        path: 'targets[0].keyDesign.partitionKeyValues',
        message: expect.stringMatching(/a number of partition-key values.*found "per-item"/),
      },
    ]);
  });
  it('counts query in what a read sweep leaves to updates', () => {
    let s = withValue(baseSpec(), 'targets.0.keyDesign', { partitionKeyValues: 10 });
    s = withValue(s, 'workload.proportions', { read: 0, update: 0, query: 0.5 });
    // 0.5 + 0.9 reads leave less than nothing to updates
    const issues = issuesOf(s);
    expect(issues).toContainEqual({
      path: 'workload.readProportions[1]',
      message: expect.stringMatching(/at most 0\.5 \(insert \+ scan \+ readModifyWrite \+ query take 0\.5\)/),
    });
  });
});

describe('unpaced cells: targetOpsPerSec "max"', () => {
  // an unpaced cell drives the table as hard as its threads go: provisioned capacity is overdriven by design
  const unpaced = () =>
    withValue(withValue(baseSpec(), 'workload.targetOpsPerSec', 'max'), 'targets.0.allowOverdrive', true);
  it('plans one cell per mix without a YCSB target, at the rate the loaders reach (no attainment)', () => {
    const { spec } = validateSpec(unpaced());
    const plan = planRun(spec);
    // 1 target × 2 distributions × 2 read proportions
    expect(plan.cells).toHaveLength(4);
    const c = plan.cells[0]!;
    expect(c.id).toBe('ddb.uniform.r50.tmax');
    expect(c.unpaced).toBe(true);
    // 1 loader × 2 processes × 4 threads at DynamoDB's default 6 ms: 8 / 0.006 = 1,333 ops/s
    expect(c.targetOpsPerSec).toBe(1333);
    const procs = cellProcesses(c);
    expect(procs).toHaveLength(2);
    expect(
      procs.every((p) => p.properties.target === undefined && Number(p.properties.operationcount) > 0),
    ).toBe(true);
    expect(Number.isNaN(c.prediction!.attainment)).toBe(true);
    expect(plan.warnings.filter((w) => /predicted/.test(w))).toEqual([]);
  });
  it('refuses "max" in a list of rates', () => {
    expect(issuesOf(withValue(baseSpec(), 'workload.targetOpsPerSec', [100, 'max']))).toEqual([
      { path: 'workload.targetOpsPerSec[1]', message: expect.stringMatching(/"max" alone/) },
    ]);
  });
  it('refuses "max" inside a staircase structurally', () => {
    const issues = issuesOf(
      withValue(baseSpec(), 'workload.targetOpsPerSec', { start: 100, stop: 'max', step: 100 }),
    );
    expect(issues[0]!.path).toMatch(/^workload\.targetOpsPerSec/);
  });
  it("refuses loaders.count auto: Little's Law cannot size from a rate that is not given", () => {
    expect(issuesOf(withValue(unpaced(), 'loaders.count', 'auto'))).toEqual([
      {
        path: 'loaders.count',
        message: expect.stringMatching(/a number of loaders with targetOpsPerSec "max"/),
      },
    ]);
  });
});
