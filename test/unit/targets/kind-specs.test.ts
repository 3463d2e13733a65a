/**
 * The spec schema's target union and the default expected latencies are built from the kinds' spec modules
 * (lib/core/targets/specs.ts): every kind of the registry has its schema in the union and a default latency.
 */
import { DEFAULT_EXPECTED_LATENCY_MS, Target } from '../../../lib/core/spec/schema';
import { TARGET_KINDS } from '../../../lib/core/targets/registry';
import { TARGET_SPECS } from '../../../lib/core/targets/specs';
import * as KIND_SPECS from '../../../lib/core/targets/kind-specs';

it('the union holds one schema per registered kind, in the specs list order', () => {
  const kinds = TARGET_SPECS.map((s) => s.schema.shape.kind.value);
  expect(new Set(kinds).size).toBe(kinds.length);
  expect([...kinds].sort()).toEqual(Object.keys(TARGET_KINDS).sort());
  expect(Target.options.map((o) => o.shape.kind.value)).toEqual(kinds);
});

it('each spec module is listed under its own kind’s name (the registry and the defaults are keyed by it)', () => {
  for (const [name, spec] of Object.entries(KIND_SPECS)) expect(spec.schema.shape.kind.value).toBe(name);
});

it('the kinds keep the order users have always read them in (the schema, "expected one of ..." messages)', () => {
  expect(TARGET_SPECS.map((s) => s.schema.shape.kind.value)).toEqual([
    'dynamodb',
    'scylla-ec2',
    'cassandra-ec2',
    'external',
    'keyspaces',
    'memorydb',
  ]);
  expect(Object.keys(TARGET_KINDS)).toEqual(TARGET_SPECS.map((s) => s.schema.shape.kind.value));
});

it('default expected latencies: the seed study (DynamoDB ~6 ms) and AWS’s own figures per service', () => {
  expect(DEFAULT_EXPECTED_LATENCY_MS).toEqual({
    dynamodb: 6, // seed study: ~6.2 ms mean under load
    'scylla-ec2': 2,
    'cassandra-ec2': 5,
    external: 5,
    keyspaces: 8, // "single-digit millisecond": upper single digits
    memorydb: 2, // "single-digit millisecond write latencies", microsecond reads
  });
});
