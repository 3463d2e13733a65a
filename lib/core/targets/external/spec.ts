/**
 * The spec schema of an external target (a database the run is given: its endpoints, protocol, credentials' secret
 * and price): built over the common target fields (lib/core/spec/target-fields.ts); the spec schema's target union
 * takes it from lib/core/targets/specs.ts.
 */
import { z } from 'zod';
import { targetCommon, type TargetSpec } from '../../spec/target-fields';
// the loader agent's rule for a property name in a job, the one rule for a binding's properties too
import { PROPERTY_NAME } from '../../contract/job';

/**
 * A DBaaS price model (seed 004's vendors bill per hour, per node-hour, per million requests and per GB
 * stored), dated and sourced like the price books: the monthly cost at a cell's measured throughput is
 * the hourly parts × hours + the requests it served + the storage.
 */
export const ExternalPriceModel = z.strictObject({
  /** a flat hourly charge (a plan, a subscription) */
  usdPerHour: z.number().nonnegative().optional(),
  /** per node (instance, shard) and hour, × `nodes` */
  usdPerNodeHour: z.number().nonnegative().optional(),
  nodes: z.number().int().positive().optional(),
  /** per million operations served (reads and writes alike) */
  usdPerMillionOps: z.number().nonnegative().optional(),
  /** per GB-month of storage, × `storageGb` */
  usdPerGbMonth: z.number().nonnegative().optional(),
  storageGb: z.number().nonnegative().optional(),
  /** when these prices were read, YYYY[-MM[-DD]] */
  date: z.string().regex(/^\d{4}(-\d{2}(-\d{2})?)?$/, 'a date YYYY, YYYY-MM or YYYY-MM-DD'),
  /** where they were read (a URL) */
  source: z.string().regex(/^https?:\/\/\S+$/, 'a URL'),
});

export const ExternalTarget = z.strictObject({
  ...targetCommon,
  kind: z.literal('external'),
  /** The API the loaders speak, which picks the YCSB binding (lib/core/contract/bindings.ts). */
  protocol: z.enum(['dynamodb', 'cql', 'redis', 'mongodb', 'custom']),
  /**
   * host:port (cql, redis), URLs (dynamodb), or one connection string without credentials (mongodb:
   * `mongodb+srv://cluster0.example.mongodb.net/ycsb`); a Redis Cluster lists seed nodes.
   */
  endpoints: z.array(z.string().min(1)).min(1),
  /**
   * `custom` only: a YCSB binding the user brings (e.g. upstream's couchbase2): its `DB` class, its jars with
   * their dependencies (s3:// URIs the loaders can read, or file:// URIs for local runs), and its properties
   * (endpoints, options). Its secret (credentialsSecretArn) holds more of its properties, e.g.
   * {"couchbase.password": "..."}: they reach the binding in memory, never a file or a log.
   */
  binding: z
    .strictObject({
      dbClass: z
        .string()
        .regex(
          /^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)+$/,
          'a fully qualified Java class name',
        ),
      /** jars (with their dependencies): s3:// URIs under the results bucket's bindings/ prefix, or file:// (local runs) */
      jars: z
        .array(z.string().regex(/^(s3|file):\/\/\S+\.jar$/, 'an s3:// or file:// URI of a .jar'))
        .max(100)
        .default([]),
      /**
       * Maven Central coordinates (group:artifact:version) of the binding and its dependencies, resolved with
       * their transitive dependencies by the CLI (`fleetbench run --local`, `fleetbench start`) into jars.
       */
      maven: z
        .array(z.string().regex(/^[\w.-]+:[\w.-]+:[\w.-]+$/, 'Maven coordinates group:artifact:version'))
        .max(50)
        .default([]),
      properties: z.record(z.string().regex(PROPERTY_NAME, 'a YCSB property name'), z.string()).default({}),
    })
    .optional(),
  /** MongoDB only: write concern and read preference (the binding's names). */
  mongodb: z
    .strictObject({
      writeConcern: z
        .enum([
          'unacknowledged',
          'errors_ignored',
          'acknowledged',
          'journaled',
          'replica_acknowledged',
          'majority',
        ])
        .default('acknowledged'),
      readPreference: z
        .enum(['primary', 'primary_preferred', 'secondary', 'secondary_preferred', 'nearest'])
        .default('primary'),
    })
    .optional(),
  /**
   * Redis only: cluster mode (the endpoints are seed nodes) and TLS, on unless set false (validation then warns:
   * the data and the AUTH password cross the network in plain text).
   */
  redis: z
    .strictObject({
      cluster: z.boolean().default(false),
      tls: z.boolean().default(true),
    })
    .optional(),
  /** CQL only: TLS to the nodes (the binding's cql.ssl, the JVM's trust store), on unless set false (a warning). */
  cql: z.strictObject({ tls: z.boolean().default(true) }).optional(),
  region: z.string().optional(),
  table: z.string().min(1).optional(),
  /** Secrets Manager ARN holding credentials; never credentials in plain text. */
  credentialsSecretArn: z
    .string()
    .regex(/^arn:aws[a-z-]*:secretsmanager:/, 'a Secrets Manager secret ARN')
    .optional(),
  price: z.union([
    z.strictObject({ usdPerHour: z.number().nonnegative() }),
    z.strictObject({ usdPerMonth: z.number().nonnegative() }),
    ExternalPriceModel,
  ]),
});

export type ExternalTarget = z.output<typeof ExternalTarget>;
export type ExternalPriceModel = z.output<typeof ExternalPriceModel>;

export const EXTERNAL_SPEC = { schema: ExternalTarget, expectedLatencyMs: 5, order: 40 } satisfies TargetSpec;
