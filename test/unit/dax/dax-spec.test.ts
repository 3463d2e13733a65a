/** The `dax` field of a dynamodb target: its shape, the price book's node types, and the JSON Schema. */
import { InputError } from '../../../lib/core/common/errors';
import { runSpecJsonSchema, validateSpec } from '../../../lib/core/spec';
import { baseSpec, withValue } from '../spec/fixtures';

function issuesOf(data: unknown): { path: string; message: string }[] {
  try {
    validateSpec(data);
  } catch (err) {
    if (err instanceof InputError) return err.issues;
    throw err;
  }
  throw new Error('expected the spec to be rejected');
}

const withDax = (dax: unknown) =>
  withValue(withValue(baseSpec(), 'targets.0.dax', dax), 'targets.0.consistentReads', false);

describe('spec: dax on a dynamodb target', () => {
  it('defaults the TTLs to DAX’s 5 minutes and TLS on', () => {
    const { spec, warnings } = validateSpec(withDax({ nodeType: 'dax.r5.large', nodes: 3 }));
    const t = spec.targets[0]!;
    expect(t.kind === 'dynamodb' && t.dax).toEqual({
      nodeType: 'dax.r5.large',
      nodes: 3,
      itemTtlMs: 300_000,
      queryTtlMs: 300_000,
      tls: true,
    });
    expect(warnings).toEqual([]);
  });

  it.each([
    [{ nodeType: 'dax.r5.large', nodes: 12 }, 'targets[0].dax.nodes', /at most 11|<=11/],
    [{ nodeType: 'dax.r5.large', nodes: 0 }, 'targets[0].dax.nodes', /greater than 0|>0/],
    [{ nodeType: 'r5.large', nodes: 1 }, 'targets[0].dax.nodeType', /DAX node type such as "dax.r5.large"/],
    [{ nodes: 1 }, 'targets[0].dax.nodeType', /required|missing/i],
    [{ nodeType: 'dax.r5.large', nodes: 1, itemTtlMs: -1 }, 'targets[0].dax.itemTtlMs', />=0|at least 0/],
    [{ nodeType: 'dax.r5.large', nodes: 1, queryTtlMs: 1.5 }, 'targets[0].dax.queryTtlMs', /integer|int/],
    [
      { nodeType: 'dax.r5.large', nodes: 1, cacheSize: 5 },
      'targets[0].dax.cacheSize',
      /unknown key; expected one of: nodeType, nodes/,
    ],
  ])('refuses %j by the field', (dax, path, message) => {
    const found = issuesOf(withDax(dax));
    expect(found.map((i) => i.path)).toContain(path);
    expect(found.find((i) => i.path === path)!.message).toMatch(message);
  });

  it('refuses a node type the price book does not price, naming the ones it does', () => {
    const found = issuesOf(withDax({ nodeType: 'dax.r6g.xlarge', nodes: 3 }));
    expect(found).toEqual([
      {
        path: 'targets[0].dax.nodeType',
        message: expect.stringMatching(
          /price book "2024-11" prices \(dax\.t3\.small, dax\.r5\.large\), found "dax\.r6g\.xlarge"/,
        ) as unknown as string,
      },
    ]);
  });

  it('warns that strongly consistent reads pass through DAX', () => {
    const spec = withValue(
      withDax({ nodeType: 'dax.t3.small', nodes: 1 }),
      'targets.0.consistentReads',
      true,
    );
    expect(validateSpec(spec).warnings).toEqual([
      'targets[0].consistentReads: DAX passes strongly consistent reads through to the table; the cluster caches none of them',
    ]);
  });

  it('allows DAX in front of an existingTable (the DAX role may reach fleetbench-* tables)', () => {
    const spec = withValue(
      withDax({ nodeType: 'dax.t3.small', nodes: 1 }),
      'targets.0.existingTable',
      'fleetbench-x',
    );
    const t = validateSpec(spec).spec.targets[0]!;
    expect(t.kind === 'dynamodb' && t.dax?.nodes).toBe(1);
  });

  it('is in the JSON Schema with its bounds', () => {
    const text = JSON.stringify(runSpecJsonSchema());
    const dax = /"dax":\{"type":"object","properties":(\{.*?\}),"required":\["nodeType","nodes"\]/.exec(text);
    expect(dax).not.toBeNull();
    const props = JSON.parse(dax![1]!) as Record<string, { maximum?: number; default?: unknown }>;
    expect(props.nodes!.maximum).toBe(11);
    expect(props.itemTtlMs!.default).toBe(300000);
    expect(props.tls!.default).toBe(true);
  });
});
