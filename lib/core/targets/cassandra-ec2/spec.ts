/**
 * The spec schema of a cassandra-ec2 target (Apache Cassandra nodes the run launches on EC2): built over the common
 * target fields (lib/core/spec/target-fields.ts); the spec schema's target union takes it from
 * lib/core/targets/specs.ts.
 */
import { z } from 'zod';
import { ec2InstanceType, positiveInt, targetCommon, type TargetSpec } from '../../spec/target-fields';
import { CASSANDRA_VERSION } from './version';

/**
 * Apache Cassandra versions a cassandra-ec2 node can run: the org.apache.cassandra:cassandra-all version of
 * Maven Central that the node asset packs (loader/cassandra-node, `cassandra.version` of loader/pom.xml,
 * the same the CQL binding's tests start). One asset per version: only the built one is offered.
 */
export const CASSANDRA_VERSIONS = [CASSANDRA_VERSION] as const;

/** CQL consistency levels a CQL target may ask for (the binding's cql.readConsistency/writeConsistency). */
export const CqlConsistency = z.enum(['ONE', 'QUORUM', 'LOCAL_QUORUM', 'ALL']);

/** The data volume of a cassandra-ec2 node when the spec does not say, GB (gp3, 3,000 IOPS / 125 MB/s baseline). */
export const CASSANDRA_DATA_VOLUME_GB = 500;

export const CassandraEc2Target = z.strictObject({
  ...targetCommon,
  kind: z.literal('cassandra-ec2'),
  nodes: positiveInt.max(100).default(3),
  /** Its memory sets the heap by Cassandra's own rule (lib/core/targets/cassandra-ec2/node.ts, cassandraHeapMb). */
  instanceType: ec2InstanceType.default('i4i.2xlarge'),
  /** Apache Cassandra version: the Maven Central artifact version the node asset ships. */
  version: z.enum(CASSANDRA_VERSIONS).default(CASSANDRA_VERSIONS[0]),
  /** The EBS data volume per node (gp3, encrypted): Cassandra's data, commit log, hints and caches live on it. */
  volume: z
    .strictObject({ sizeGb: positiveInt.min(10).max(16_384).default(CASSANDRA_DATA_VOLUME_GB) })
    .default({ sizeGb: CASSANDRA_DATA_VOLUME_GB }),
  replicationFactor: positiveInt.max(10).default(3),
  cql: z
    .strictObject({
      port: z.number().int().min(1).max(65535).default(9042),
      consistency: CqlConsistency.default('QUORUM'),
    })
    .default({ port: 9042, consistency: 'QUORUM' }),
});

export type CassandraEc2Target = z.output<typeof CassandraEc2Target>;

export const CASSANDRA_EC2_SPEC = {
  schema: CassandraEc2Target,
  expectedLatencyMs: 5,
  order: 30,
} satisfies TargetSpec;
