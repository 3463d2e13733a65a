/** A small valid spec to mutate in tests. */
export function baseSpec(): Record<string, unknown> {
  return {
    name: 'unit',
    targets: [
      {
        id: 'ddb',
        kind: 'dynamodb',
        billing: { mode: 'provisioned', rcu: 1000, wcu: 1000 },
        consistentReads: true,
      },
    ],
    dataset: { recordCount: 10000 },
    workload: {
      base: 'a',
      readProportions: [0.5, 0.9],
      targetOpsPerSec: [100, 200],
      distributions: ['uniform', 'zipfian'],
      durationSeconds: 60,
      warmupSeconds: 10,
    },
    loaders: { count: 1, processesPerLoader: 2, threadsPerProcess: 4 },
  };
}

/** Sets a value at a dotted path ("workload.readProportions.0"), creating nothing: the path must exist up to the parent. */
export function withValue(
  spec: Record<string, unknown>,
  path: string,
  value: unknown,
): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(spec)) as Record<string, unknown>;
  const keys = path.split('.');
  let cur: Record<string, unknown> = copy;
  for (const k of keys.slice(0, -1)) cur = cur[k] as Record<string, unknown>;
  const last = keys[keys.length - 1]!;
  if (value === undefined) delete cur[last];
  else cur[last] = value;
  return copy;
}
