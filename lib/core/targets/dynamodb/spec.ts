/**
 * The spec schema of a dynamodb target (an Amazon DynamoDB table the run creates, or one it is given), with DAX and
 * the key design: built over the common target fields (lib/core/spec/target-fields.ts); the spec schema's target
 * union takes it from lib/core/targets/specs.ts.
 */
import { z } from 'zod';
import { positiveInt, targetCommon, type TargetSpec } from '../../spec/target-fields';

export const DynamoDbBilling = z.discriminatedUnion('mode', [
  z.strictObject({
    mode: z.literal('provisioned'),
    rcu: positiveInt.max(40_000_000),
    wcu: positiveInt.max(40_000_000),
  }),
  z.strictObject({
    mode: z.literal('on-demand'),
    maxReadRequestUnits: positiveInt.optional(),
    maxWriteRequestUnits: positiveInt.optional(),
  }),
]);

/**
 * DAX (DynamoDB Accelerator) in front of a `dynamodb` target: the run creates a cluster in the loaders' VPC and
 * the loaders reach the table through it (lib/core/targets/dynamodb/dax.ts, docs/dax-keyspaces.md). The cache TTLs are the
 * cluster parameter group's `record-ttl-millis` and `query-ttl-millis` (DAX's default: 5 minutes).
 */
export const DaxSettings = z.strictObject({
  /** A DAX node type the price book prices (validation names the known ones), e.g. "dax.r5.large". */
  nodeType: z.string().regex(/^dax\.[a-z0-9]+\.[a-z0-9]+$/, 'a DAX node type such as "dax.r5.large"'),
  /** Nodes in the cluster (DAX's replication factor): 1 to 11. */
  nodes: positiveInt.max(11),
  /** Item cache TTL in ms (0: items expire only by LRU). */
  itemTtlMs: z.number().int().min(0).max(2_147_483_647).default(300_000),
  /** Query cache TTL in ms (0: query results are not cached). */
  queryTtlMs: z.number().int().min(0).max(2_147_483_647).default(300_000),
  /** Encryption in transit (the endpoint is then daxs://...:9111). */
  tls: z.boolean().default(true),
});

export const DynamoDbTarget = z.strictObject({
  ...targetCommon,
  kind: z.literal('dynamodb'),
  billing: DynamoDbBilling,
  /** Pre-warmed throughput at table creation (WarmThroughput), units per second. */
  warmThroughput: z
    .strictObject({
      readUnitsPerSecond: positiveInt.optional(),
      writeUnitsPerSecond: positiveInt.optional(),
    })
    .optional(),
  tableClass: z.enum(['STANDARD', 'STANDARD_INFREQUENT_ACCESS']).default('STANDARD'),
  consistentReads: z.boolean().default(false),
  /** Reuse a preloaded table (not created, loaded or deleted by the run). */
  existingTable: z
    .string()
    .regex(/^[a-zA-Z0-9_.-]{3,255}$/, 'a DynamoDB table name: 3-255 of a-z A-Z 0-9 _ . -')
    .optional(),
  keyAttribute: z.string().min(1).max(255).default('p'),
  /** Allow cells whose throughput exceeds the provisioned capacity (throttling studies). */
  allowOverdrive: z.boolean().default(false),
  /** A DAX cluster in front of the table, created and deleted by the run (AWS only). */
  dax: DaxSettings.optional(),
  /**
   * The table's keys (seed 003's key designs). Absent: one item per partition-key value, no sort key
   * (`{ partitionKeyValues: 'per-item' }`). With N values, item i gets one of N partition-key values and
   * its YCSB key as the sort key (`sortKeyAttribute`), so the items share N item collections.
   */
  keyDesign: z
    .strictObject({
      /** "per-item" (one value per item), or N values shared by the items (at most dataset.recordCount). */
      partitionKeyValues: z.union([z.literal('per-item'), positiveInt]).default('per-item'),
      /** The sort key's attribute name (default "s"); only with a number of partition-key values. */
      sortKeyAttribute: z.string().min(1).max(255).optional(),
      /** Load in key order or shuffled (default): seed 003's Part 1 compares both. */
      loadOrder: z.enum(['key-order', 'shuffled']).default('shuffled'),
    })
    .optional(),
});

/** The sort key attribute a key design with N partition-key values uses when the spec names none. */
export const DEFAULT_SORT_KEY_ATTRIBUTE = 's';

export type DynamoDbTarget = z.output<typeof DynamoDbTarget>;
export type DaxSettings = z.output<typeof DaxSettings>;

export const DYNAMODB_SPEC = {
  schema: DynamoDbTarget,
  // the seed study measured ~6.2 ms mean for DynamoDB under load
  expectedLatencyMs: 6,
  order: 10,
} satisfies TargetSpec;
