/**
 * The run spec: one zod schema, the single source of truth. The JSON Schema in
 * `schema/run-spec.schema.json` is generated from it (`npm run schema`); a test fails when it is stale.
 *
 * Structural rules live here; rules that need the whole document (proportions per cell, duplicate
 * ids, YCSB's int range, ...) live in `./semantic.ts`.
 */
import { z } from 'zod';
import { CASSANDRA_VERSION } from '../targets/cassandra-ec2/version';
// the loader agent's rule for a property name in a job, the one rule for a binding's properties too
import { PROPERTY_NAME } from '../contract/job';
import { memoryDbTargetSchema } from '../targets/memorydb/spec';

const id = z
  .string()
  .regex(
    /^[a-z][a-z0-9-]{0,31}$/,
    'a lower-case id: a letter, then letters, digits or "-", at most 32 characters',
  );

const positiveInt = z.number().int().positive();
const fraction01Open = z.number().gt(0).lt(1);

/** Default expected latencies (ms) used for Little's Law sizing when a target does not give one. */
export const DEFAULT_EXPECTED_LATENCY_MS = {
  // the seed study measured ~6.2 ms mean for DynamoDB under load
  dynamodb: 6,
  'scylla-ec2': 2,
  'cassandra-ec2': 5,
  external: 5,
  // Amazon Keyspaces: "single-digit millisecond read and write performance" (the developer guide,
  // https://docs.aws.amazon.com/keyspaces/latest/devguide/calculating-row-size.html); 8 ms, upper single digits
  keyspaces: 8,
  // Amazon MemoryDB: "microsecond read and single-digit millisecond write latencies"
  // (https://docs.aws.amazon.com/memorydb/latest/devguide/servicename-feature-overview.html); 2 ms, over TLS
  memorydb: 2,
} as const;

const targetCommon = {
  id,
  /** Mean latency assumed for loader sizing (Little's Law), in milliseconds. */
  expectedLatencyMs: z.number().positive().max(60_000).optional(),
};

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

/** Root volume of a ScyllaDB node when the spec does not say (the DbNodes launch template's). */
export const SCYLLA_ROOT_VOLUME_GB = 50;

const ec2InstanceType = z
  .string()
  .regex(/^[a-z][a-z0-9-]*\.[a-z0-9]+$/, 'an EC2 instance type such as "i4i.2xlarge"');

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

export const Target = z.discriminatedUnion('kind', [
  DynamoDbTarget,
  ScyllaEc2Target,
  CassandraEc2Target,
  ExternalTarget,
  KeyspacesTarget,
  memoryDbTargetSchema(targetCommon),
]);

export const HotspotDistribution = z.strictObject({
  type: z.literal('hotspot'),
  /** Fraction of the data in the hot set (YCSB hotspotdatafraction). */
  dataFraction: fraction01Open,
  /** Fraction of operations that go to the hot set (YCSB hotspotopnfraction). */
  opFraction: fraction01Open,
});

export const SIMPLE_DISTRIBUTIONS = ['uniform', 'zipfian', 'latest', 'sequential', 'exponential'] as const;

/** YCSB's defaults for hotspotdatafraction / hotspotopnfraction, used by the plain "hotspot" name. */
export const YCSB_HOTSPOT_DEFAULTS = { dataFraction: 0.2, opFraction: 0.8 } as const;

/**
 * A distribution: a name ("zipfian"; plain "hotspot" means YCSB's defaults 0.2/0.8), or an object
 * with a `type` and, for hotspot, its fractions.
 */
export const Distribution = z.union([
  z.enum([...SIMPLE_DISTRIBUTIONS, 'hotspot']),
  z.discriminatedUnion('type', [z.strictObject({ type: z.enum(SIMPLE_DISTRIBUTIONS) }), HotspotDistribution]),
]);

export const Proportions = z.strictObject({
  read: z.number().min(0).max(1).default(0),
  update: z.number().min(0).max(1).default(0),
  insert: z.number().min(0).max(1).default(0),
  scan: z.number().min(0).max(1).default(0),
  readModifyWrite: z.number().min(0).max(1).default(0),
  /** Query operations (DynamoDB targets with a sort key only; `workload.query` shapes them). */
  query: z.number().min(0).max(1).default(0),
});

/**
 * The Query operation (seed 003's lookup: the nearest item at or below a random key):
 * `pk = :p AND sk <= :k`, `Limit` items, `ScanIndexForward` = forward.
 */
export const QuerySettings = z.strictObject({
  limit: positiveInt.max(10_000).default(1),
  forward: z.boolean().default(false),
});

/** `targetOpsPerSec: "max"`: an unpaced cell (YCSB without -target); attainment is not defined. */
export const UNPACED = 'max';

export const Staircase = z.strictObject({
  start: positiveInt,
  stop: positiveInt,
  step: positiveInt,
});

/**
 * An SLO search (docs/slo-search.md) in place of `workload.targetOpsPerSec`: for each target × distribution × read
 * proportion, probe cells find the highest rate whose latency meets the SLO while the cell also attains the share
 * of its rate and stays under the error share (lib/core/search/probe.ts).
 */
export const SLO_PERCENTILES = [50, 90, 99, 99.9, 99.99] as const;
export const SloSearch = z.strictObject({
  slo: z.strictObject({
    /** the percentile the SLO bounds: one the cells table carries (p50, p90, p99, p999, p9999) */
    percentile: z.literal(SLO_PERCENTILES),
    /** the bound, milliseconds */
    maxMs: z.number().positive().max(60_000),
    /** which operations' latency: all base operations, reads or updates (the cells table's families) */
    operations: z.enum(['all', 'read', 'update']).default('all'),
    /** intended time (from the open-loop schedule, coordinated omission corrected) or service time */
    latency: z.enum(['intended', 'service']).default('intended'),
  }),
  /** a probe passes only if good ops/s ÷ its rate is at least this */
  minAttainment: z.number().gt(0).max(1).default(0.95),
  /** ... and failed operations ÷ all operations at most this */
  maxErrorRate: z.number().min(0).lt(1).default(0.01),
  /** the lowest rate probed (the ramp starts here), ops/s for the whole fleet */
  startOpsPerSec: positiveInt,
  /** the highest rate probed (the loaders are sized for it) */
  maxOpsPerSec: positiveInt,
  /** the search stops when the last passing and the first failing rate are at most this apart */
  resolutionOpsPerSec: positiveInt,
  /** each ramp rate is the one before × this */
  rampFactor: z.number().gt(1).max(10).default(2),
  /** the rate the study must serve: the frontier marks which targets meet the SLO at it */
  requiredOpsPerSec: positiveInt.optional(),
});

/**
 * A rate schedule's segments (docs/rate-schedules.md): played one after another, each from the end of the one
 * before. Rates are ops/s for the whole fleet; a schedule's cell lasts the sum of its segments' seconds.
 */
export const RateSegment = z.discriminatedUnion('kind', [
  /** constant rates, one after another */
  z.strictObject({
    kind: z.literal('steps'),
    steps: z
      .array(z.strictObject({ opsPerSec: z.number().int().min(0), seconds: positiveInt }))
      .min(1)
      .max(100),
  }),
  /** a linear ramp from one rate to another */
  z.strictObject({
    kind: z.literal('ramp'),
    fromOpsPerSec: z.number().int().min(0),
    toOpsPerSec: z.number().int().min(0),
    seconds: positiveInt,
  }),
  /** the base rate, then base × multiple from atSeconds for forSeconds, then the base again until `seconds` */
  z.strictObject({
    kind: z.literal('spike'),
    baseOpsPerSec: positiveInt,
    multiple: z.number().gt(1).max(100),
    atSeconds: z.number().int().min(0),
    forSeconds: positiveInt,
    /** the segment's length (at least atSeconds + forSeconds) */
    seconds: positiveInt,
  }),
]);

export const Workload = z.strictObject({
  /** A YCSB core workload (a-f) whose proportions and distribution are the defaults. */
  base: z.enum(['a', 'b', 'c', 'd', 'e', 'f']).default('a'),
  /** Explicit operation proportions; override the base workload's. */
  proportions: Proportions.optional(),
  /** Sweep of read proportions; each cell's update proportion is what remains. */
  readProportions: z.array(z.number().min(0).max(1)).min(1).optional(),
  /**
   * Throughput targets (ops/s for the whole fleet): a list, a staircase {start, stop, step}, or "max":
   * one unpaced cell whose threads go as fast as they can (YCSB without -target; needs loaders.count).
   * Exactly one of this and `search`.
   */
  targetOpsPerSec: z
    .union([z.array(z.union([positiveInt, z.literal(UNPACED)])).min(1), Staircase, z.literal(UNPACED)])
    .optional(),
  /** An SLO search instead of fixed throughput targets (exactly one of the two). */
  search: SloSearch.optional(),
  /**
   * Load that changes over time instead of one rate per cell (docs/rate-schedules.md): one cell per target × mix
   * × distribution follows these segments on its open-loop schedule; durationSeconds must be their total length.
   * Not with targetOpsPerSec or search.
   */
  rateSchedule: z.array(RateSegment).min(1).max(50).optional(),
  distributions: z.array(Distribution).min(1).optional(),
  /** How query operations (proportions.query) are made. */
  query: QuerySettings.optional(),
  durationSeconds: positiveInt.max(7 * 24 * 3600),
  warmupSeconds: z.number().int().min(0).default(0),
  cooldownSeconds: z.number().int().min(0).default(0),
  /** Which latency YCSB records: intended (coordinated-omission corrected), op (service time) or both. */
  measurement: z.enum(['intended', 'op', 'both']).default('both'),
  /** YCSB status and HDR interval length in seconds. */
  statusIntervalSeconds: positiveInt.max(3600).default(10),
  /** Extra YCSB properties passed to every run-phase process (cannot override managed ones). */
  extraProperties: z.record(z.string(), z.string()).optional(),
  /**
   * A/A mode: each cell runs this many times in a row (cell ids `<cell>.aa1`, `.aa2`, ...). The spread
   * of each metric over the repeats calibrates the spec's regression thresholds (docs/regression.md).
   */
  repeats: z.number().int().min(1).max(20).default(1),
});

export const Dataset = z.strictObject({
  recordCount: positiveInt,
  fieldCount: positiveInt.max(1000).default(10),
  fieldLength: positiveInt.max(400_000).default(100),
  load: z.boolean().default(true),
  /** Throughput cap for the load phase (ops/s for the whole fleet); unthrottled when absent. */
  loadTargetOpsPerSec: positiveInt.optional(),
});

export const Loaders = z.strictObject({
  instanceType: ec2InstanceType.default('c5.2xlarge'),
  count: z.union([z.literal('auto'), positiveInt.max(500)]).default('auto'),
  processesPerLoader: positiveInt.max(64).default(3),
  threadsPerProcess: positiveInt.max(4096).default(60),
  /** Multiplier on Little's Law concurrency. */
  headroom: z.number().min(1).max(10).default(1.25),
});

export const Budget = z.strictObject({
  maxUsd: z.number().positive(),
});

export const Schedule = z.strictObject({
  /** An EventBridge Scheduler expression: cron(...) or rate(...). */
  expression: z
    .string()
    .regex(/^(cron|rate)\(.+\)$/, 'an EventBridge Scheduler expression: cron(...) or rate(...)'),
  timezone: z.string().default('UTC'),
});

/** Options of `fleetbench run --local` only (ignored on AWS). */
export const LocalOptions = z.strictObject({
  /**
   * DynamoDB targets go through the capacity emulator (lib/local/capacity-proxy.ts): DynamoDB's
   * throttling, by the model in docs/dynamodb-model.md, in front of DynamoDB Local.
   */
  capacityEmulation: z.boolean().default(true),
  /** Every emulated throughput limit (table, partition, item) × this factor, e.g. 0.01. */
  capacityScale: z.number().gt(0).max(1).default(1),
  /**
   * Every emulated duration (split for heat's delay, burst seconds, the on-demand 30-minute window) ÷ this factor,
   * so a local run shows DynamoDB's adaptive capacity over time in minutes (seed 003's staircase). Absent: a
   * throttling partition's hottest item is isolated at once (the steady state the plan predicts).
   */
  timeScale: z.number().min(1).max(3600).optional(),
});

/** What the run does when a cell fails (lib/core/pipeline/cell-failure.ts). */
export const CellFailurePolicy = z.enum(['retry-then-continue', 'stop']);

/**
 * How a study of several targets runs (docs/aws-pipeline.md): "sequential" gives each target its own lifecycle
 * (provisioned, loaded, measured, torn down, then the next); "parallel" measures the targets side by side.
 */
export const Execution = z.enum(['sequential', 'parallel']);
export type Execution = z.output<typeof Execution>;
export type CellFailurePolicy = z.output<typeof CellFailurePolicy>;

export const RunSpecSchema = z.strictObject({
  $schema: z.string().optional(),
  name: z
    .string()
    .regex(
      /^[a-z][a-z0-9-]{0,39}$/,
      'a lower-case name: a letter, then letters, digits or "-", at most 40 characters',
    ),
  description: z.string().max(1000).optional(),
  region: z
    .string()
    .regex(/^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$/, 'an AWS region such as "us-east-1"')
    .default('us-east-1')
    .describe(
      "On AWS: the stack's region when omitted; a spec naming another region than the stack's is refused by Plan. Locally: us-east-1.",
    ),
  tags: z.record(z.string().min(1).max(128), z.string().max(256)).default({}),
  targets: z.array(Target).min(1),
  dataset: Dataset,
  workload: Workload,
  loaders: Loaders.default(Loaders.parse({})),
  budget: Budget.optional(),
  schedule: Schedule.optional(),
  local: LocalOptions.optional(),
  onCellFailure: CellFailurePolicy.optional().describe(
    'What a failed cell does: "retry-then-continue" (the default for studies of more than one cell) runs it once more ' +
      'with fresh YCSB processes (replacing lost loaders) and, failing again, records it incomplete and goes on; "stop" ' +
      '(the default for one cell) ends the run, torn down.',
  ),
  execution: Execution.optional().describe(
    'How the targets run: "sequential" (the default) provisions, loads and measures one target at a time and tears ' +
      'it down before the next is provisioned, so each is billed only for its own cells; "parallel" measures the ' +
      'targets side by side, each on its own loader group sized for its own cells and load, launched with it and ' +
      'terminated after its last cell (the run takes as long as its longest target).',
  ),
  baseline: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,79}$/, 'a run id (lower-case letters, digits and "-")')
    .optional()
    .describe(
      "A run to compare each run of this spec with: the Report step adds the comparison (fleetbench compare's, cell by cell) to the report and writes it to runs/<runId>/compare.json.",
    ),
});

export type RunSpec = z.output<typeof RunSpecSchema>;
export type RunSpecInput = z.input<typeof RunSpecSchema>;
export type Target = z.output<typeof Target>;
export type DynamoDbTarget = z.output<typeof DynamoDbTarget>;
export type DaxSettings = z.output<typeof DaxSettings>;
export type ScyllaEc2Target = z.output<typeof ScyllaEc2Target>;
export type CassandraEc2Target = z.output<typeof CassandraEc2Target>;
export type ExternalTarget = z.output<typeof ExternalTarget>;
export type KeyspacesTarget = z.output<typeof KeyspacesTarget>;
export type ExternalPriceModel = z.output<typeof ExternalPriceModel>;
export type Distribution = z.output<typeof Distribution>;
export type Proportions = z.output<typeof Proportions>;
export type LocalOptions = z.output<typeof LocalOptions>;
export type QuerySettings = z.output<typeof QuerySettings>;
export type KeyDesign = NonNullable<DynamoDbTarget['keyDesign']>;
export type SloSearch = z.output<typeof SloSearch>;
export type RateSegment = z.output<typeof RateSegment>;
export type TargetKind = Target['kind'];

/** The JSON Schema for console users and editors, generated from the zod schema. */
export function runSpecJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(RunSpecSchema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return {
    ...schema,
    title: 'fleetbench run spec',
    $id: 'https://fleetbench.dev/schema/run-spec.schema.json',
  };
}
