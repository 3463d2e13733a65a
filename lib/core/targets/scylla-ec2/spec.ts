/**
 * The spec schema of a scylla-ec2 target (ScyllaDB nodes the run launches on EC2, over Alternator or CQL): built over
 * the common target fields (lib/core/spec/target-fields.ts); the spec schema's target union takes it from
 * lib/core/targets/specs.ts.
 */
import { z } from 'zod';
import { ec2InstanceType, positiveInt, targetCommon, type TargetSpec } from '../../spec/target-fields';

/** Root volume of a ScyllaDB node when the spec does not say (the DbNodes launch template's). */
export const SCYLLA_ROOT_VOLUME_GB = 50;

export const ScyllaEc2Target = z.strictObject({
  ...targetCommon,
  kind: z.literal('scylla-ec2'),
  nodes: positiveInt.max(100).default(3),
  instanceType: ec2InstanceType.default('i4i.2xlarge'),
  /** An AMI id, or a ScyllaDB version whose official AMI is looked up by owner and name. */
  ami: z
    .union([
      z.strictObject({
        id: z.string().regex(/^ami-[0-9a-f]{8,17}$/, 'an AMI id such as "ami-0123456789abcdef0"'),
      }),
      z.strictObject({ scyllaVersion: z.string().regex(/^\d+\.\d+(\.\d+)?$/, 'a version such as "2024.1"') }),
    ])
    .default({ scyllaVersion: '2025.1' }),
  /** Which API the loaders use. */
  api: z.enum(['alternator', 'cql']).default('alternator'),
  alternator: z
    .strictObject({
      port: z.number().int().min(1).max(65535).default(8000),
      writeIsolation: z
        .enum(['always_use_lwt', 'only_rmw_uses_lwt', 'forbid_rmw', 'unsafe_rmw'])
        .default('only_rmw_uses_lwt'),
      /**
       * Strongly consistent GetItem (Alternator reads at LOCAL_QUORUM instead of LOCAL_ONE), as in
       * ScyllaDB's YCSB defaults for Alternator; compare with a DynamoDB target's `consistentReads`.
       */
      consistentReads: z.boolean().default(true),
    })
    .optional(),
  cql: z
    .strictObject({
      port: z.number().int().min(1).max(65535).default(9042),
      consistency: z.enum(['ONE', 'QUORUM', 'LOCAL_QUORUM', 'ALL']).default('QUORUM'),
    })
    .optional(),
  replicationFactor: positiveInt.max(10).default(3),
  /**
   * Root EBS volume (gp3) per node in GB: launched with this size and priced by the cost model (the
   * data live on the instance store of i4i/i3en types).
   */
  ebsGb: positiveInt.max(16_384).default(SCYLLA_ROOT_VOLUME_GB),
});

export type ScyllaEc2Target = z.output<typeof ScyllaEc2Target>;

export const SCYLLA_EC2_SPEC = {
  schema: ScyllaEc2Target,
  expectedLatencyMs: 2,
  order: 20,
} satisfies TargetSpec;
