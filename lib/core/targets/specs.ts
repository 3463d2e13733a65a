/**
 * The spec modules of the target kinds (lib/core/targets/<kind>/spec.ts), in the order of the spec schema's target
 * union: the spec schema (lib/core/spec/schema.ts) builds its `Target` union and the default expected latencies from
 * this list. Kept apart from the kind registry (./registry.ts), whose declarations import the spec schema's types:
 * the spec modules import nothing but zod and the shared fields, so the schema never imports a kind's code.
 */
import type { z } from 'zod';
import type { TargetSpec } from '../spec/target-fields';
import { DYNAMODB_SPEC } from './dynamodb/spec';
import { SCYLLA_EC2_SPEC } from './scylla-ec2/spec';
import { CASSANDRA_EC2_SPEC } from './cassandra-ec2/spec';
import { EXTERNAL_SPEC } from './external/spec';
import { KEYSPACES_SPEC } from './keyspaces/spec';
import { MEMORYDB_SPEC } from './memorydb/spec';

export const TARGET_SPECS = [
  DYNAMODB_SPEC,
  SCYLLA_EC2_SPEC,
  CASSANDRA_EC2_SPEC,
  EXTERNAL_SPEC,
  KEYSPACES_SPEC,
  MEMORYDB_SPEC,
] as const;

type Specs = typeof TARGET_SPECS;
type SchemasOf<T extends readonly unknown[]> = {
  -readonly [I in keyof T]: T[I] extends { schema: infer S } ? S : never;
};
/** The kinds' target schemas, a tuple in TARGET_SPECS' order (what z.discriminatedUnion takes). */
export type TargetSchemas = SchemasOf<Specs>;

/** The kinds' target schemas, in order. */
export const TARGET_SCHEMAS = TARGET_SPECS.map((s) => s.schema) as unknown as TargetSchemas;

/** A kind's name, as its schema's `kind` literal says it. */
type KindOf<S> = S extends { schema: z.ZodObject<{ kind: z.ZodLiteral<infer K> }> } ? K : never;
export type SpecKindName = KindOf<Specs[number]>;

/** The mean latency (ms) loader sizing assumes for a target of each kind that does not give `expectedLatencyMs`. */
export const DEFAULT_EXPECTED_LATENCY_MS = Object.fromEntries(
  TARGET_SPECS.map((s: TargetSpec<(typeof TARGET_SCHEMAS)[number]>) => [
    s.schema.shape.kind.value,
    s.expectedLatencyMs,
  ]),
) as { readonly [K in SpecKindName]: number };
