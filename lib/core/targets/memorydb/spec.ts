/**
 * The spec schema of a memorydb target (Amazon MemoryDB, a durable Redis-compatible database): the cluster's
 * node type, shards, replicas per shard and engine. TLS is always on (the run's ACL user authenticates over it);
 * the schema has no switch for it. Built over the common target fields (lib/core/spec/target-fields.ts); the spec
 * schema's target union takes it from lib/core/targets/specs.ts.
 */
import { z } from 'zod';
import { targetCommon, type TargetSpec } from '../../spec/target-fields';

/**
 * The engines and versions MemoryDB offers (https://docs.aws.amazon.com/memorydb/latest/devguide/engine-versions.html,
 * read 2026-11): Valkey 7.2 (7.2.6) and Redis OSS 7.1, 7.0 and 6.2. CreateCluster takes the major.minor version;
 * the default is Valkey. (MemoryDB 7.3 is the Multi-Region engine, not a single-Region cluster's.)
 */
export const MEMORYDB_ENGINES = {
  valkey: ['7.2'],
  redis: ['7.1', '7.0', '6.2'],
} as const;
export const MEMORYDB_DEFAULT_ENGINE = { engine: 'valkey', version: '7.2' } as const;

/** MemoryDB's node types are db.<family>.<size> (db.r7g.large, db.t4g.small, db.r6gd.xlarge). */
export const MEMORYDB_NODE_TYPE = /^db\.[a-z][a-z0-9]*\.[a-z0-9]+$/;

/**
 * MemoryDB's limits per cluster: a shard is 1 to 6 nodes (a primary and up to 5 replicas), a cluster up to 500
 * nodes (https://docs.aws.amazon.com/memorydb/latest/devguide/shards.html and .../components.html).
 */
export const MEMORYDB_MAX_SHARDS = 500;
export const MEMORYDB_MAX_REPLICAS = 5;
export const MEMORYDB_MAX_NODES_PER_CLUSTER = 500;
/** The account's default quota of nodes per cluster, adjustable (https://docs.aws.amazon.com/memorydb/latest/devguide/quota-limits.html). */
export const MEMORYDB_DEFAULT_NODES_QUOTA = 90;

const engineSchema = z
  .strictObject({
    engine: z.enum(['valkey', 'redis']).default(MEMORYDB_DEFAULT_ENGINE.engine),
    /** default: the newest version MemoryDB offers of the engine */
    version: z.string().optional(),
  })
  .superRefine((e, ctx) => {
    const offered: readonly string[] = MEMORYDB_ENGINES[e.engine];
    if (e.version !== undefined && !offered.includes(e.version))
      ctx.addIssue({
        code: 'custom',
        path: ['version'],
        message: `expected a ${e.engine} version MemoryDB offers (${offered.join(', ')}), found "${e.version}"`,
      });
  })
  .transform((e) => ({ engine: e.engine, version: e.version ?? MEMORYDB_ENGINES[e.engine][0]! }));

/** The memorydb target's schema. */
export const MemoryDbTarget = z.strictObject({
  ...targetCommon,
  kind: z.literal('memorydb'),
  /** e.g. db.r7g.large (priced by the price book's `memorydb` entries). */
  nodeType: z
    .string()
    .regex(MEMORYDB_NODE_TYPE, 'a MemoryDB node type such as db.r7g.large')
    .default('db.r7g.large'),
  shards: z.number().int().min(1).max(MEMORYDB_MAX_SHARDS).default(1),
  /** Replicas per shard: 0 is a single node per shard (no failover); MemoryDB allows up to 5. */
  replicasPerShard: z.number().int().min(0).max(MEMORYDB_MAX_REPLICAS).default(1),
  engine: engineSchema.default(MEMORYDB_DEFAULT_ENGINE),
});
export type MemoryDbTarget = z.output<typeof MemoryDbTarget>;

export const MEMORYDB_SPEC = {
  schema: MemoryDbTarget,
  // Amazon MemoryDB: "microsecond read and single-digit millisecond write latencies"
  // (https://docs.aws.amazon.com/memorydb/latest/devguide/servicename-feature-overview.html); 2 ms, over TLS
  expectedLatencyMs: 2,
  order: 60,
} satisfies TargetSpec;
