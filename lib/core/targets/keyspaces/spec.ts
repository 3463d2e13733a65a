/**
 * The spec schema of a keyspaces target: built over the common target fields (lib/core/spec/target-fields.ts); the
 * spec schema's target union takes it from lib/core/targets/specs.ts.
 */
import { z } from 'zod';
import { positiveInt, targetCommon, type TargetSpec } from '../../spec/target-fields';

/**
 * Amazon Keyspaces (for Apache Cassandra): the run creates its own keyspace and table (lib/core/targets/keyspaces/keyspace.ts) and
 * the loaders speak CQL with SigV4 and TLS (the CQL binding's `cql.service=keyspaces` mode). Writes are always
 * LOCAL_QUORUM (the only level Keyspaces accepts for writes); reads LOCAL_QUORUM or LOCAL_ONE
 * (https://docs.aws.amazon.com/keyspaces/latest/devguide/consistency.html).
 */
export const KeyspacesTarget = z.strictObject({
  ...targetCommon,
  kind: z.literal('keyspaces'),
  capacity: z.discriminatedUnion('mode', [
    z.strictObject({ mode: z.literal('on-demand') }),
    z.strictObject({
      mode: z.literal('provisioned'),
      rcu: positiveInt.max(40_000_000),
      wcu: positiveInt.max(40_000_000),
    }),
  ]),
  readConsistency: z.enum(['LOCAL_QUORUM', 'LOCAL_ONE']).default('LOCAL_QUORUM'),
});

export type KeyspacesTarget = z.output<typeof KeyspacesTarget>;

export const KEYSPACES_SPEC = {
  schema: KeyspacesTarget,
  // Amazon Keyspaces: "single-digit millisecond read and write performance" (the developer guide,
  // https://docs.aws.amazon.com/keyspaces/latest/devguide/calculating-row-size.html); 8 ms, upper single digits
  expectedLatencyMs: 8,
  order: 50,
} satisfies TargetSpec;
